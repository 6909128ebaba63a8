"""Drawing battles of real cards from a SPEC's card pool, and tallying them per card.

A creature is a card index drawn uniformly from its side's cards; its power, toughness,
keyword mask, colors and keyword instances with parameters (``bushido 1``, ``protection from
black``) are gathered from the pool's arrays, so a block of battles is drawn and built with no
Python loop over battles. Blocks the rules forbid (a flyer blocked by a creature without
flying or reach, a black creature blocking one with protection from black) are not declared,
as for any SPEC.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ecs_combat.batched import BatchOutcome, BoolArray, CombatBatch, IntArray, MaskArray
from ecs_combat.plugin.definitions import FROM_WORDS
from ecs_combat.plugin.registry import Registry
from ecs_combat.simulation.assemble import Array, Casts, assemble, state_columns
from ecs_combat.simulation.generate import Drawn, Draws, SpecGenerator
from ecs_combat.simulation.keyword_bits import RowFacts
from ecs_combat.simulation.pool import CardPool
from ecs_combat.simulation.spec import BattleSpec

#: Per-card tally columns, from the card's side of each battle it was in: its side won (only
#: the other side lost creatures), lost (only its side did), traded (both did), neither side
#: lost one; combat damage dealt to players in those battles (by either side); how often the
#: card died; combat damage the card itself dealt to players, and life its controller gained
#: from it (lifelink).
CARD_COLUMNS = (
    "battles",
    "wins",
    "losses",
    "trades",
    "neither_dies",
    "damage_to_players",
    "died",
    "dealt_to_players",
    "life_gained",
)
#: Roles, the second axis of a per-card tally.
ROLES = ("attacker", "blocker")
#: The outcome code of a battle (simulate.OUTCOME_NAMES) seen from each role: attacking, a
#: win is "attacker wins" (1); blocking, it is "blocker wins" (2).
_SEEN_FROM = np.array([[0, 1, 2, 3], [0, 2, 1, 3]], dtype=np.int64)
#: Pools of up to this many cards get a table of which card may block which (one-on-one
#: battles); larger ones check the pairs drawn, chunk by chunk.
PAIR_TABLE_CARDS = 1024
#: Side codes of the per-battle table when a side is not one card.
SEVERAL, NONE = -1, -2


@dataclass
class CardDrawn(Drawn):
    """Drawn battles of real cards: also each creature row's card index."""

    card: IntArray = field(default_factory=lambda: np.zeros(0, np.int64))


class CardGenerator(SpecGenerator):
    """Draws the battles of a SPEC with a card pool.

    With one attacker and one blocker a battle (and no casts or drawn state) a block's draws
    are one array of card indices, [n, 2]; otherwise the battle's shape is drawn as for any
    SPEC, then a card for each creature row. Side codes, for the per-battle table, are card
    indices (a side of several creatures: :data:`SEVERAL`; of none: :data:`NONE`); the
    matchup tally has one matchup, the per-card tally is :func:`card_counts`.
    """

    def __init__(self, spec: BattleSpec, registry: Registry) -> None:
        super().__init__(spec, registry)
        assert spec.pool is not None
        pool: CardPool = spec.pool
        self.pool: CardPool = pool
        bits = self.bits
        self.card_masks: MaskArray = np.array(
            [int(bits.mask([i.name for i in card])) for card in pool.instances], dtype=np.uint64
        )
        self.possible = np.bitwise_or.reduce(self.card_masks) if len(pool) else np.uint64(0)
        self._instances()
        static = set(registry.plugins_implementing("static_keywords"))
        self.needs_names = any(registry.keyword_plugin.get(k) in static for k in pool.keywords)
        self.one_on_one = (
            spec.attackers == (1, 1)
            and spec.blockers_per_attacker == (1, 1)
            and not spec.casts
            and not spec.attacker.state
            and not spec.blocker.state
            and not spec.player_state
        )
        self._names = np.array(pool.names, dtype=object)
        values = self.card_values
        no_values = np.zeros(len(pool), np.int64)
        self._facts = RowFacts(pool.colors, lambda keyword: values.get(keyword, no_values))
        self._fixed: dict[int, dict[str, Any]] = {}
        self._rules()

    def _instances(self) -> None:
        """Instance rows of the cards whose keywords have parameters or are listed twice
        (``bushido 1``, ``protection from black``), and each parameterized keyword's values per
        card as restrictions read them (colors as a bit mask, numbers added up)."""
        pool = self.pool
        index = {name: i for i, name in enumerate(self.bits.names)}
        counts, keyword, parameter = [], [], []
        values: dict[str, IntArray] = {}
        for c, card in enumerate(pool.instances):
            names = [i.name for i in card]
            listed = [i for i in card if i.parameter is not None or names.count(i.name) > 1]
            counts.append(len(listed))
            for inst in listed:
                keyword.append(index[inst.name])
                p = inst.parameter
                parameter.append(
                    FROM_WORDS.index(p) if isinstance(p, str) else -1 if p is None else p
                )
                if p is not None:
                    v = values.setdefault(inst.name, np.zeros(len(pool), np.int64))
                    if isinstance(p, str):
                        v[c] |= 1 << FROM_WORDS.index(p)
                    else:
                        v[c] += p
        self.inst_count = np.array(counts, dtype=np.int64)
        self.inst_start = np.cumsum(self.inst_count) - self.inst_count
        self.inst_keyword = np.array(keyword, dtype=np.int64)
        self.inst_parameter = np.array(parameter, dtype=np.int64)
        self.card_values = values

    def card_classes(self) -> IntArray:
        """Per card, its class: cards of one class are the same to the engines in a
        one-on-one battle (power, toughness, colors, keywords, their instances in printed
        order, and the name where a plugin reads names), so they give the same battle."""
        pool = self.pool
        keys: dict[tuple[Any, ...], int] = {}
        out = np.zeros(len(pool), np.int64)
        numbers = zip(
            pool.power.tolist(), pool.toughness.tolist(), pool.colors.tolist(),
            self.card_masks.tolist(), strict=True,
        )  # fmt: skip
        for i, (card, facts) in enumerate(zip(pool.instances, numbers, strict=True)):
            key = (facts, card, pool.names[i] if self.needs_names else "")
            out[i] = keys.setdefault(key, len(keys))
        return out

    @property
    def n_codes(self) -> int:
        """One matchup: battles of cards are tallied per card (:func:`card_counts`)."""
        return 1

    def label(self, code: int) -> str:
        """A side's card name in the per-battle table."""
        if code == SEVERAL:
            return "several"
        if code == NONE:
            return "none"
        return self.pool.names[code]

    def sort_key(self, code: int) -> tuple[int, ...]:
        """Cards in name order."""
        return (code,)

    def card_counts(self, drawn: Drawn, code: IntArray, outcome: BatchOutcome) -> IntArray:
        """The per-card tally of :func:`card_counts`: `drawn` is what :meth:`build` made."""
        assert isinstance(drawn, CardDrawn)
        return card_counts(drawn, code, outcome, len(self.pool))

    def pairs_alone(self) -> bool:
        """Whether the battles are one on one (:attr:`one_on_one`): a block draws only each
        battle's ``side`` card indices."""
        return self.one_on_one

    def draw(self, rng: np.random.Generator, n: int) -> Draws:
        """Card indices: ``side`` [n, 2], each side's index into its pool's cards (attacker,
        blocker) for one-on-one battles, else the battle's shape as for any SPEC and a ``card``
        per creature row."""
        pool = self.pool
        if self.one_on_one:
            a_size, b_size = pool.attacker.size, pool.blocker.size
            kind = np.uint16 if max(a_size, b_size) <= 1 << 16 else np.int64
            if a_size == b_size:
                side = rng.integers(0, a_size, size=(n, 2), dtype=kind)
            else:
                side = np.stack(
                    [
                        rng.integers(0, a_size, size=n, dtype=kind),
                        rng.integers(0, b_size, size=n, dtype=kind),
                    ],
                    axis=1,
                )
            return Draws({"creatures": np.full(n, 2, dtype=np.int64), "side": side})
        draws = super().draw(rng, n)
        role = draws.creature_cols["role"]
        rows = role.shape[0]
        attacker = pool.attacker[rng.integers(0, pool.attacker.size, size=rows)]
        blocker = pool.blocker[rng.integers(0, pool.blocker.size, size=rows)]
        draws.creature_cols["card"] = np.where(role == 0, attacker, blocker)
        return draws

    def build(self, draws: Draws) -> CardDrawn:
        """The batch of the drawn battles, with each row's card."""
        if self.one_on_one:
            return self._one_on_one(draws.battle_cols["side"])
        counts = draws.battle_cols["creatures"]
        n = int(counts.shape[0])
        c = draws.creature_cols
        card = c["card"]
        batch, side = assemble(
            self.bits,
            counts=counts,
            role=c["role"].astype(np.int64),
            assigned=c["assigned"],
            power=self.pool.power[card],
            toughness=self.pool.toughness[card],
            keywords=self.card_masks[card],
            life=self.spec.life,
            possible=self.possible,
            casts=Casts(
                self._card_names,
                [
                    (self._cast_card[i], cast.target, c[f"cast{i}"])
                    for i, cast in enumerate(self.spec.casts)
                ],
            ),
            names=self._names[card].tolist() if self.needs_names else None,
            creature_state={k[6:]: v for k, v in c.items() if k.startswith("state ")},
            player_state={
                k[6:]: v.reshape(-1) for k, v in draws.battle_cols.items() if k.startswith("state ")
            },
            facts=self._facts.take(card),
        )
        self._add_instances(batch, card)
        a_code = self._side_code(batch.battle, card, side, n)
        b_code = self._side_code(batch.battle, card, ~side, n)
        return CardDrawn(batch, a_code, b_code, side, card=card)

    def _one_on_one(self, drawn_side: IntArray) -> CardDrawn:
        """What :func:`assemble` builds, written out for one attacker against one blocker:
        creature 2i (the attacker's card) is player 2i's and attacks player 2i + 1 unless its
        card can't attack; creature 2i + 1 (the blocker's card) is player 2i + 1's and blocks
        it where the rules allow (:meth:`_legal`)."""
        pool = self.pool
        n = int(drawn_side.shape[0])
        a = pool.attacker[drawn_side[:, 0]]
        b = pool.blocker[drawn_side[:, 1]]
        card = np.stack([a, b], axis=1).reshape(-1)
        fixed = self._fixed.get(n)
        if fixed is None:
            fixed = self._fixed_arrays(n)
            if len(self._fixed) >= 4:
                self._fixed.clear()
            self._fixed[n] = fixed
        attacking = fixed["attacking"]
        if self._may_attack is not None:
            attacking = attacking.copy()
            attacking[0::2] = np.where(self._may_attack[a], attacking[0::2], -1)
        blocks = np.flatnonzero(self._legal(a, b))  # the battles with a block
        blocker = fixed["odd"][blocks]
        batch = CombatBatch(
            n_battles=n,
            keyword_names=self.bits.names,
            counter_names=(*self.bits.names, *self.bits.registry.counter_kinds),
            player_battle=fixed["pair"],
            life=fixed["life"],
            player_state=fixed["player_state"],
            battle=fixed["pair"],
            controller=fixed["controller"],
            power=pool.power[card],
            toughness=pool.toughness[card],
            damage=fixed["zeros"],
            keywords=self.card_masks[card],
            colors=pool.colors[card],
            creature_state=fixed["creature_state"],
            attacking=attacking,
            present=fixed["present"],
            block_blocker=blocker,
            block_attacker=blocker - 1,
            block_rank=np.zeros(len(blocks), dtype=np.int64),
            creature_names=self._names[card].tolist() if self.needs_names else None,
        )
        self._add_instances(batch, card)
        side = fixed["side"]
        return CardDrawn(batch, a, b, side, two_rows_a_battle=True, card=card)

    def _fixed_arrays(self, n: int) -> dict[str, Any]:
        """The arrays of a one-on-one batch that depend only on its size (read-only)."""
        rows = 2 * n
        attacking = np.arange(1, rows + 1, dtype=np.int64)
        attacking[1::2] = -1
        fixed: dict[str, Any] = {
            "pair": np.repeat(np.arange(n, dtype=np.int64), 2),
            "life": np.full(rows, self.spec.life, dtype=np.int64),
            "player_state": state_columns(self.bits.registry, "player", rows),
            "controller": np.arange(rows, dtype=np.int64),
            "zeros": np.zeros(rows, dtype=np.int64),
            "creature_state": state_columns(self.bits.registry, "creature", rows),
            "attacking": attacking,
            "present": np.ones(rows, dtype=np.bool_),
            "odd": np.arange(1, rows, 2, dtype=np.int64),
            "side": np.tile(np.array([True, False]), n),
        }
        for value in fixed.values():
            for array in value.values() if isinstance(value, dict) else (value,):
                array.flags.writeable = False
        return fixed

    def _rules(self) -> None:
        """What the rules let each card do in a one-on-one battle: attack at all (508.1a),
        and block each card (509.1b; an attacker needing more than one blocker is unblocked).
        For pools of up to :data:`PAIR_TABLE_CARDS` cards, a table of every pair."""
        bits, masks, possible = self.bits, self.card_masks, self.possible
        self._may_attack = bits.may_attack(masks, possible)
        need = bits.blockers_needed(masks, possible)
        self._alone_blockable = None if need is None else need <= 1
        self._pair_table: BoolArray | None = None
        self._restricted = bits.restricts_blocks(possible)
        size = len(self.pool)
        if self._restricted and size <= PAIR_TABLE_CARDS:
            every = np.arange(size, dtype=np.int64)
            table = self._legal(np.repeat(every, size), np.tile(every, size))
            self._pair_table = table.reshape(size, size)

    def _legal(self, a: IntArray, b: IntArray) -> BoolArray:
        """Whether the card `b` may block the card `a`, pair by pair (an attacker that can't
        attack is blocked by nothing)."""
        if self._pair_table is not None:
            legal: BoolArray = self._pair_table[a, b]
            return legal
        pool, masks = self.pool, self.card_masks
        legal = np.ones(a.shape, dtype=np.bool_)
        if self._restricted:
            legal = self.bits.legal_blocks(
                masks[a], masks[b], self.possible, pool.power[a], pool.power[b],
                self._facts.take(a), self._facts.take(b),
            )  # fmt: skip
        if self._may_attack is not None:
            legal &= self._may_attack[a]
        if self._alone_blockable is not None:
            legal &= self._alone_blockable[a]
        return legal

    def _add_instances(self, batch: CombatBatch, card: IntArray) -> None:
        """The instance rows of the rows' cards' keywords with parameters."""
        per_row = self.inst_count[card]
        if not self.inst_keyword.size or not per_row.any():
            return
        rows = np.repeat(np.arange(card.shape[0], dtype=np.int64), per_row)
        first = np.cumsum(per_row) - per_row
        within = np.arange(rows.shape[0], dtype=np.int64) - np.repeat(first, per_row)
        at = self.inst_start[card][rows] + within
        batch.instance_row = rows
        batch.instance_keyword = self.inst_keyword[at]
        batch.instance_parameter = self.inst_parameter[at]

    @staticmethod
    def _side_code(battle: IntArray, card: IntArray, rows: Array, n: int) -> IntArray:
        """Per battle, the card of a side of one creature; :data:`SEVERAL` or :data:`NONE`."""
        count = np.bincount(battle[rows], minlength=n)
        total = np.bincount(battle[rows], weights=card[rows], minlength=n).astype(np.int64)
        return np.where(count == 1, total, np.where(count == 0, NONE, SEVERAL))


def card_counts(drawn: CardDrawn, code: IntArray, outcome: BatchOutcome, n_cards: int) -> IntArray:
    """The per-card tally of drawn battles, [card, role, :data:`CARD_COLUMNS`]: each creature
    row counts for its card and role, from its side of the battle (`code`: outcome code per
    battle)."""
    if drawn.two_rows_a_battle:
        return _one_on_one_counts(drawn, code, outcome, n_cards)
    batch = drawn.batch
    card = drawn.card
    role = (~drawn.attacking_side).astype(np.int64)
    battle = batch.battle
    key = card * 2 + role
    size = n_cards * 2
    out = _outcome_counts(key * 4 + _SEEN_FROM[role, code[battle]], n_cards)
    damage = outcome.damage_to_players.astype(np.float64)[battle]
    out[..., 5] = np.rint(np.bincount(key, weights=damage, minlength=size)).reshape(n_cards, 2)
    out[..., 6] = np.bincount(key[~outcome.alive], minlength=size).reshape(n_cards, 2)
    _credited(out, key, outcome, n_cards)
    return out


def _credited(out: IntArray, key: IntArray, outcome: BatchOutcome, n_cards: int) -> None:
    """The columns credited to the creature that did it (dealt to players, life gained),
    summed per ``card * 2 + role`` of each creature row."""
    for column, values in ((7, outcome.dealt_to_players), (8, outcome.life_gained)):
        if values is None:
            continue
        some = (values != 0).nonzero()[0]  # the rows that did it
        if some.size:
            weights = values[some].astype(np.float64)
            summed = np.bincount(key[some], weights=weights, minlength=n_cards * 2)
            out[..., column] = np.rint(summed).reshape(n_cards, 2)


def _outcome_counts(keys: IntArray, n_cards: int) -> IntArray:
    """A per-card tally with its outcome columns counted from ``(card * 2 + role) * 4 +
    outcome seen from the card's side`` per row."""
    by = np.bincount(keys, minlength=n_cards * 8).reshape(n_cards, 2, 4)
    out = np.zeros((n_cards, 2, len(CARD_COLUMNS)), dtype=np.int64)
    out[..., 0] = by.sum(axis=-1)
    out[..., 1:4] = by[..., 1:4]
    out[..., 4] = by[..., 0]
    return out


def _one_on_one_counts(
    drawn: CardDrawn, code: IntArray, outcome: BatchOutcome, n_cards: int
) -> IntArray:
    """:func:`card_counts` for one attacker against one blocker: a card died exactly when its
    battle was a loss or a trade for it."""
    a, b = drawn.attacker_code, drawn.blocker_code
    keys = np.concatenate([a * 8 + code, b * 8 + 4 + _SEEN_FROM[1][code]])
    out = _outcome_counts(keys, n_cards)
    damage = outcome.damage_to_players
    dealt = (damage != 0).nonzero()[0]  # the battles with damage to players
    if dealt.size:
        weights = damage[dealt].astype(np.float64)
        at = np.concatenate([a[dealt] * 2, b[dealt] * 2 + 1])
        summed = np.bincount(at, weights=np.concatenate([weights, weights]), minlength=2 * n_cards)
        out[..., 5] = np.rint(summed).reshape(n_cards, 2)
    out[..., 6] = out[..., 2] + out[..., 3]
    _credited(out, np.stack([a * 2, b * 2 + 1], axis=1).reshape(-1), outcome, n_cards)
    return out


def totals_of(cards: IntArray) -> IntArray:
    """The matchup tally's columns (simulate.COLUMNS) of one-on-one battles, from their
    per-card tally: each battle has one attacker and one blocker."""
    attacking, blocking = cards[:, 0].sum(axis=0), cards[:, 1].sum(axis=0)
    return np.array([*attacking[:6].tolist(), int(attacking[6]), int(blocking[6])], dtype=np.int64)
