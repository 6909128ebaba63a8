"""The players' damage division choices in one damage step (510.1c-d, 702.19b).

From what the batched engine recorded of a step (:class:`StepDivisions`): which creatures must
divide (an attacker with two or more blockers left, or one that may send excess to the player
and has a blocker left; a blocker blocking two or more attackers left), which player divides
each (its controller, unless an ``assign-damage`` system said another: banding, 702.22j-k),
and every legal way each player can divide: all amounts totalling the creature's power over
its recipients, the attacking player's obeying the excess rule (702.19b-c) together, counting
what the defending player divides onto a trampler's blocker (702.22j) by constraining that
player's replies.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from ecs_combat.batched import BoolArray, IntArray, StepDivisions, mask_of, row_ranges
from ecs_combat.decisions.bounds import log_choices

I64 = np.int64


@lru_cache(maxsize=4096)
def compositions(total: int, parts: int) -> IntArray:
    """[C, parts] every way to write `total` as `parts` amounts of 0 or more, in
    lexicographic order of the amounts read from the last part (the first part's largest
    amounts first)."""
    if parts == 1:
        return np.array([[total]], I64)
    rows = []
    for bars in itertools.combinations(range(total + parts - 1), parts - 1):
        edges = (-1, *bars, total + parts - 1)
        rows.append([edges[i + 1] - edges[i] - 1 for i in range(parts)])
    out = np.array(rows, I64)
    out.setflags(write=False)
    return out


@dataclass(frozen=True)
class Divider:
    """A creature that must divide its damage in a step, by creature rows."""

    source: int
    power: int
    #: Creature rows it may assign damage to, in the order the default division uses.
    recipients: tuple[int, ...]
    #: For an attacker that may send excess on: the player row it attacks; else None.
    player: int | None
    #: Lethal damage to each creature recipient from this source (702.19b, 702.2c).
    lethal: tuple[int, ...]
    one_is_lethal: bool
    #: Any split among its recipients is legal and has no default: the scenario must give it
    #: (702.22j-k).
    any_split: bool = False


@dataclass(frozen=True)
class StepChoices:
    """The dividers of one battle in one step: the attacking player's, then the defending's."""

    step: int
    attacking: tuple[Divider, ...]
    defending: tuple[Divider, ...]
    #: Damage other attackers assign each blocker without choosing (rows -> amount), and
    #: whether any of it destroys (702.2c): for the excess rule.
    fixed: dict[int, tuple[int, bool]]


def joint_count(choices: StepChoices) -> int:
    """How many children a node with these dividers has at most: every player's joint
    divisions (the excess rule, 702.19b, not applied)."""
    out = 1
    for d in (*choices.attacking, *choices.defending):
        slots = len(d.recipients) + (d.player is not None)
        out *= math.comb(max(d.power, 0) + slots - 1, slots - 1)
    return out


class StepRecord:
    """One recorded step, indexed for finding each battle's dividers."""

    def __init__(self, rec: StepDivisions, battle_of_row: IntArray, n_battles: int) -> None:
        """`battle_of_row`: the battle (or node) each creature row is counted in."""
        self.rec = rec
        n = len(rec.deals)
        bb, ba = rec.block_blocker, rec.block_attacker
        per_attacker = np.bincount(ba, minlength=n)
        per_blocker = np.bincount(bb, minlength=n)
        # only blocked attackers and blocking creatures divide: judged on the blocks' rows
        attackers = ba[rec.deals[ba] & ((per_attacker[ba] >= 2) | rec.player_gets_excess[ba])]
        blockers = bb[rec.deals[bb] & (per_blocker[bb] >= 2)]
        self.attacker_divides = mask_of(n, attackers)
        self.blocker_divides = mask_of(n, blockers)
        self.battle_of_row = battle_of_row
        #: Battles where the defending player, or anyone, has a division to choose.
        self.defending_battles = mask_of(n_battles, battle_of_row[blockers])
        self.battles = self.defending_battles.copy()
        self.battles[battle_of_row[attackers]] = True
        self._per_attacker, self._per_blocker = per_attacker, per_blocker
        self._indexed = False

    def log_choices(self, n_nodes: int) -> npt.NDArray[np.float64]:
        """[n_nodes] the natural log of each node's joint divisions in this step, every
        player's together (an upper bound: the excess rule, 702.19b, is not applied)."""
        n = len(self.rec.deals)
        rows = np.arange(n, dtype=I64)
        att = rows[self.attacker_divides]
        blk = rows[self.blocker_divides]
        slots = np.concatenate(
            [
                self._per_attacker[att] + self.rec.player_gets_excess[att],
                self._per_blocker[blk],
            ]
        )
        dividers = np.concatenate([att, blk])
        logs = log_choices(self.rec.power[dividers], slots)
        out = np.bincount(self.battle_of_row[dividers], weights=logs, minlength=n_nodes)
        return out.astype(np.float64)

    def _index(self) -> None:
        """Index the step's blocks and dividers by battle (once, when a battle's choices are
        first asked for: most recorded steps of a search are never expanded)."""
        if self._indexed:
            return
        rec, battle_of_row = self.rec, self.battle_of_row
        bb, ba = rec.block_blocker, rec.block_attacker
        # the blocks of each attacker in declared order, of each blocker by its own order
        self.by_attacker = np.argsort(ba, kind="stable")
        self.by_blocker = np.lexsort((rec.block_rank, bb))
        self.attacker_start = np.concatenate([[0], self._per_attacker.cumsum()])
        self.blocker_start = np.concatenate([[0], self._per_blocker.cumsum()])
        rows = (self.attacker_divides | self.blocker_divides).nonzero()[0]
        battle = battle_of_row[rows]
        by_battle = np.argsort(battle, kind="stable")  # rows need not be ordered by battle
        self.divider_rows, self.divider_battle = rows[by_battle], battle[by_battle]
        fixed_blocks = ~self.attacker_divides[ba] & rec.deals[ba] & (rec.power[ba] > 0)
        fixed_rows = fixed_blocks.nonzero()[0]
        fixed_battle = battle_of_row[bb[fixed_rows]]
        order = np.argsort(fixed_battle, kind="stable")
        self.fixed_rows, self.fixed_battle = fixed_rows[order], fixed_battle[order]
        self._indexed = True

    def choices_of(self, battles: list[int], attacked: IntArray) -> list[StepChoices]:
        """The dividers of some battles, gathered as arrays at once; `attacked` is each
        creature row's attacked player row."""
        self._index()
        r = self.rec
        wanted = np.asarray(battles, I64)
        lo = self.divider_battle.searchsorted(wanted)
        hi = self.divider_battle.searchsorted(wanted + 1)
        places, owner = row_ranges(lo, hi)
        rows = self.divider_rows[places]
        attacks = self.attacker_divides[rows]
        # each divider's recipients: an attacker's blockers, a blocker's attackers, in order
        start = np.where(attacks, self.attacker_start[rows], self.blocker_start[rows])
        end = np.where(attacks, self.attacker_start[rows + 1], self.blocker_start[rows + 1])
        at, of = row_ranges(start, end)
        by_att = attacks[of]
        blocks = np.where(by_att, self.by_attacker[at], self.by_blocker[at])
        recipient = np.where(by_att, r.block_blocker[blocks], r.block_attacker[blocks])
        destroys = r.one_is_lethal[rows]
        remaining = r.remaining[recipient]
        lethal = np.where(destroys[of], np.minimum(remaining, 1), remaining)
        excess = r.player_gets_excess[rows] & attacks
        # who chooses: the attacking player for attackers, unless a system says otherwise
        chooser = attacks if r.by_attacking is None else r.by_attacking[rows]
        split = np.zeros(len(rows), np.bool_) if r.any_split is None else r.any_split[rows]
        firsts = of.searchsorted(np.arange(len(rows) + 1)).tolist()
        recipients, lethals = recipient.tolist(), lethal.tolist()
        step = r.step
        per_battle: list[tuple[list[Divider], list[Divider]]] = [([], []) for _ in battles]
        for k, (row, power, att, hot, ex, player, o, any_split) in enumerate(
            zip(
                rows.tolist(),
                r.power[rows].tolist(),
                chooser.tolist(),
                destroys.tolist(),
                excess.tolist(),
                attacked[rows].tolist(),
                owner.tolist(),
                split.tolist(),
                strict=True,
            )
        ):
            i, j = firsts[k], firsts[k + 1]
            d = Divider(
                row,
                power,
                tuple(recipients[i:j]),
                player if ex else None,
                tuple(lethals[i:j]),
                hot,
                any_split,
            )
            per_battle[o][0 if att else 1].append(d)
        return [
            StepChoices(step, tuple(att), tuple(dfd), self._fixed(battle, att))
            for battle, (att, dfd) in zip(battles, per_battle, strict=True)
        ]

    def _fixed(self, battle: int, attacking: list[Divider]) -> dict[int, tuple[int, bool]]:
        """Damage other attackers assign the blockers of dividers that may send excess on."""
        fixed: dict[int, tuple[int, bool]] = {}
        if all(d.player is None for d in attacking):
            return fixed
        r = self.rec
        blockers = {b for d in attacking for b in d.recipients}
        lo, hi = self.fixed_battle.searchsorted([battle, battle + 1])
        for k in self.fixed_rows[lo:hi].tolist():
            b, a = int(r.block_blocker[k]), int(r.block_attacker[k])
            if b in blockers:
                amount, hot = fixed.get(b, (0, False))
                fixed[b] = (amount + int(r.power[a]), hot or bool(r.one_is_lethal[a]))
        return fixed


@dataclass(frozen=True)
class Combos:
    """Every joint division of some dividers: one row per choice, one column per slot (a
    divider's recipient, the player last for one that may send excess on)."""

    amounts: IntArray  #: [n_choices, n_slots]
    source: IntArray  #: [n_slots] creature row dividing
    recipient: IntArray  #: [n_slots] creature row, or ``-1 - player_row``


#: The joint divisions of no dividers: one choice, of nothing.
NO_DIVIDERS = Combos(np.zeros((1, 0), I64), np.zeros(0, I64), np.zeros(0, I64))


def joint_divisions(dividers: tuple[Divider, ...]) -> Combos:
    """Every combination of each divider's divisions (no rule between them)."""
    if not dividers:
        return NO_DIVIDERS
    tables = []
    source: list[int] = []
    recipient: list[int] = []
    for d in dividers:
        slots = [*d.recipients, *(() if d.player is None else (-1 - d.player,))]
        tables.append(compositions(d.power, len(slots)))
        source += [d.source] * len(slots)
        recipient += slots
    if len(tables) == 1:
        amounts = tables[0]
    else:
        shape = tuple(len(t) for t in tables)
        idx = np.indices(shape, dtype=I64).reshape(len(shape), -1).T
        amounts = np.hstack([t[idx[:, i]] for i, t in enumerate(tables)])
    return Combos(amounts, np.array(source, I64), np.array(recipient, I64))


def attacking_divisions(choices: StepChoices) -> tuple[Combos, Combos, BoolArray | None]:
    """The attacking player's legal joint divisions, the defending player's joint divisions,
    and which replies are legal after each attacking division (None: all of them). Damage goes
    to the player only if each of that attacker's blockers is assigned lethal damage, counting
    what every creature assigns it this step (702.19c), the damage of an attacker the defending
    player divides included (702.22j); any damage from a source that destroys is lethal
    (702.2c). An attacking division no reply makes legal is not a choice."""
    combos = joint_divisions(choices.attacking)
    replies = joint_divisions(choices.defending)
    if not any(d.player is not None for d in choices.attacking):
        return combos, replies, None
    blockers = {b for d in choices.attacking for b in d.recipients}
    # [n_attacking, slots, 1] and [1, slots, n_defending]: sums over slots broadcast to pairs
    x, y = combos.amounts[:, :, None], replies.amounts.T[None, :, :]
    # the defending player's divisions matter only where they reach one of those blockers
    shared = bool(blockers & set(replies.recipient.tolist()))
    destroys, reply_destroys = _destroys(choices.attacking), _destroys(choices.defending)
    incoming: dict[int, IntArray] = {}
    hot: dict[int, BoolArray] = {}
    for b in blockers:
        fixed, fixed_hot = choices.fixed.get(b, (0, False))
        cols, rcols = combos.recipient == b, replies.recipient == b
        incoming[b] = x[:, cols].sum(axis=1) + fixed
        hot[b] = np.asarray((x[:, cols & destroys] > 0).any(axis=1) | fixed_hot, np.bool_)
        if shared:
            incoming[b] = incoming[b] + y[:, rcols].sum(axis=1)
            hot[b] = hot[b] | (y[:, rcols & reply_destroys] > 0).any(axis=1)
    legal = np.ones((len(combos.amounts), y.shape[2] if shared else 1), np.bool_)
    start = 0
    for d in choices.attacking:
        width = len(d.recipients) + (d.player is not None)
        if d.player is not None:
            to_player = x[:, start + width - 1] > 0
            for b, lethal in zip(d.recipients, d.lethal, strict=True):
                legal &= ~to_player | (incoming[b] >= lethal) | hot[b]
        start += width
    some = legal.any(axis=1)
    att = Combos(combos.amounts[some], combos.source, combos.recipient)
    return att, replies, (legal[some] if shared and not legal[some].all() else None)


def _destroys(dividers: tuple[Divider, ...]) -> BoolArray:
    """[slots] whether each slot's source destroys with any damage (702.2c)."""
    return np.array(
        [
            d.one_is_lethal
            for d in dividers
            for _ in (*d.recipients, *(() if d.player is None else (0,)))
        ],
        np.bool_,
    )
