"""Turns with several combat phases (RULES.md section 8) in the batched engine.

One run keeps the state arrays of every turn across all their combat phases: combat phase k of
every turn is played at once (turns with fewer combat phases sit it out, as a combat phase
without attackers). Rows for every creature the turn may see (tokens, creatures entering in
any combat) exist from the start, off the battlefield, so all phases share one row layout.
Before each phase the combat's own arrays (attackers, blocks, strikers, divisions, events, the
steps taken) are reset and read from that phase; damage, power and toughness, keywords,
counters, the plugins' state and columns, tapped creatures, life and the players who lost
carry over.

A phase's declarations come either from files (:class:`TurnScenario`: a tapped or dead
creature declared as attacker or blocker is an input error naming ``combats[i]``) or, in bulk
simulations, from drawn intentions (:class:`DrawnPhase`: the creatures able to attack or block
when the phase begins do, the others are left out), decided over whole arrays; or a bulk run's
`declarer` chooses them as the phase begins, from the state then (decisions,
:mod:`ecs_combat.batched.phase_start`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from ecs_combat.batched import events
from ecs_combat.batched.arrays import (
    BatchOutcome,
    BoolArray,
    CombatBatch,
    IntArray,
)
from ecs_combat.batched.boards import with_declarations, without_blocks
from ecs_combat.batched.from_scenarios import BatchBuilder as _Builder
from ecs_combat.batched.numeric import _run_starts
from ecs_combat.batched.phase_start import PhaseDeclarer, phase_start
from ecs_combat.batched.results import _Log, _Results
from ecs_combat.batched.views import RowSide
from ecs_combat.errors import InputError, RefusedError
from ecs_combat.plugin.phases import COMBAT, Phase
from ecs_combat.plugin.registry import Registry
from ecs_combat.plugin.restrictions import Side
from ecs_combat.rules.legality import check_blocks, why_cannot_attack
from ecs_combat.rules.result import CombatPhaseResult, CombatResult, SkippedPhase, TurnResult
from ecs_combat.rules.turn_legality import (
    GAME_OVER,
    GONE,
    NEVER_ENTERED,
    TAPPED,
    TAPPED_AT_START,
    cannot_attack,
    cannot_block,
    follows_skipped,
    left_the_game,
    not_allowed_to_attack,
    player_left,
    source_gone,
)
from ecs_combat.rules.usage import used_keywords

if TYPE_CHECKING:
    from ecs_combat.batched.engine import BatchedEngine
    from ecs_combat.scenario.turns import TurnScenario

from ecs_combat.batched.engine import _collector_paused, _Run

I64 = np.int64
SmallArray = npt.NDArray[np.int8]
#: Whether a combat phase happens, or why not (:mod:`ecs_combat.rules.turn_legality`'s words).
SKIP_NONE, SKIP_GAME_OVER, SKIP_FOLLOWS, SKIP_SOURCE_GONE, SKIP_PLAYER_LEFT = range(5)
#: ``MainCasts.target`` of a spell with no target.
NO_TARGET = np.iinfo(np.int64).min
#: What `_why_cannot_attack` says when no rule keeps the creature from attacking.
NO_REASON = "the rules don't let it attack"


@dataclass
class MainCasts:
    """Spells cast in main phases between two combat phases, one row per cast, by battle and
    then in the order they are cast."""

    battle: IntArray = field(default_factory=lambda: np.zeros(0, I64))
    #: Index into the batch's `card_names`.
    card: IntArray = field(default_factory=lambda: np.zeros(0, I64))
    #: Player row.
    caster: IntArray = field(default_factory=lambda: np.zeros(0, I64))
    #: Creature row, ``-1 - player row`` for a player, or :data:`NO_TARGET`.
    target: IntArray = field(default_factory=lambda: np.zeros(0, I64))
    #: Row of the token the spell creates, or -1.
    token: IntArray = field(default_factory=lambda: np.zeros(0, I64))


@dataclass
class DrawnPhase:
    """A combat phase of a bulk simulation, declared as it begins from drawn intentions.

    Each creature of the attacking player that may attack (on the battlefield, untapped, no
    rule against it, one of `only` where that is set) and wants to attacks; each creature of
    the other players that may block and wants to blocks the attacker of its battle that
    `choice` (in [0, 1)) picks among them, if the rules allow that block.
    """

    #: [battles] attacking player row, or -1 where the battle has no such phase.
    player: IntArray
    #: [creature rows] whether it attacks if it may.
    attack: BoolArray
    #: [creature rows] whether it blocks if it may.
    block: BoolArray
    #: [creature rows] which of its battle's attackers it blocks.
    choice: Any
    #: [creature rows] the only creatures that may attack (a phase only some may attack
    #: in), or None: any.
    only: BoolArray | None = None


@dataclass
class TurnBatch:
    """Many turns as arrays: the first combat phase as a :class:`CombatBatch` (its rows are
    every creature of the turn), then the later phases and the spells cast before each."""

    first: CombatBatch
    #: Per later combat phase: a batch sharing `first`'s rows (from files), or drawn
    #: declarations (bulk).
    later: list[CombatBatch | DrawnPhase] = field(default_factory=list)
    #: [phases][battles] attacking player row of each combat phase (-1: none).
    players: list[IntArray] = field(default_factory=list)
    #: Spells cast before each combat phase (one entry per phase, or none at all).
    casts: list[MainCasts] = field(default_factory=list)
    #: [creature rows] summoning sick (302.6): it came under its controller's control this
    #: turn; None: none is.
    sick: BoolArray | None = None
    #: [phases][battles] the combat phase (index) each combat phase was added directly after,
    #: or -1 (after a main phase, or one of the turn's own); none: no such phases.
    parent: list[IntArray] = field(default_factory=list)
    #: [phases][battles] the creature row whose ability adds the combat phase (Throat Wolf),
    #: or -1; none: no such phases.
    source: list[IntArray] = field(default_factory=list)
    #: Bulk decisions: chooses each combat phase's declarations as it begins (the first
    #: phase's blocks, each later drawn phase's attacks and blocks) instead of the drawn
    #: ones; None: as drawn.
    declarer: PhaseDeclarer | None = None

    @property
    def n_phases(self) -> int:
        """The most combat phases a turn of the batch has."""
        return 1 + len(self.later)


def turns_to_batch(turns: Sequence[TurnScenario], registry: Registry) -> TurnBatch:
    """One :class:`TurnBatch` holding every turn, battle ``i`` being ``turns[i]``.

    Creature rows of a turn: its creatures, then, phase by phase, the tokens of the spells cast
    before it and the creatures its events bring, in the order they would enter.
    """
    combats = [sc for t in turns for sc in t.combats]
    names = used_keywords(
        combats,
        registry,
        creatures=[spec for t in turns for spec in t.tokens.values()],
        cards=[c.card for t in turns for c in t.casts],
    )
    layout = _Builder(registry, names)
    prows: list[dict[str, int]] = []
    crows: list[dict[str, int]] = []
    sick: list[bool] = []
    for b, turn in enumerate(turns):
        layout.files.append(turn.file)
        prow = layout.add_players(b, turn.players.values())
        crow = {cid: layout.creature(b, spec, prow, True) for cid, spec in turn.creatures.items()}
        groups = turn.casts_before()
        for k, cast_group in enumerate(groups):
            for cast in cast_group:
                if cast.token is not None and cast.token in turn.tokens:
                    crow[cast.token] = layout.creature(b, turn.tokens[cast.token], prow, False)
            if k < len(turn.combats):
                for spec in layout.entering(turn.combats[k]):
                    crow[spec.id] = layout.creature(b, spec, prow, False)
        for tid, spec in turn.tokens.items():  # tokens no cast creates: never on the battlefield
            if tid not in crow:
                crow[tid] = layout.creature(b, spec, prow, False)
        layout.resolve_references(crow)
        layout.add_targets(turn.creatures.values(), crow)  # provoke's, for every phase
        prows.append(prow)
        crows.append(crow)
        specs = {**turn.creatures, **turn.tokens}
        for sc in turn.combats:
            specs.update((ev.creature.id, ev.creature) for ev in sc.events if ev.creature)
        # creatures entering during the turn (tokens, `enter` events) came under their
        # controller's control this turn too
        sick.extend(specs[cid].summoning_sick or cid not in turn.creatures for cid in crow)
    base = layout.batch(len(turns))
    n_rows = base.n_creatures
    n_phases = max(1, *(len(t.combats) for t in turns))
    phases: list[CombatBatch] = []
    players: list[IntArray] = []
    parents: list[IntArray] = []
    sources: list[IntArray] = []
    combat_index = [_combat_indices(turn.phases) for turn in turns]
    for k in range(n_phases):
        builder = _Builder(registry, names)
        builder.attacking = [-1] * n_rows
        attacking = np.full(len(turns), -1, I64)
        parent = np.full(len(turns), -1, I64)
        source = np.full(len(turns), -1, I64)
        for b, turn in enumerate(turns):
            if k < len(turn.combats):
                builder.add_combat(b, turn.combats[k], prows[b], crows[b])
                phase = turn.combat_phases()[k]
                attacking[b] = prows[b][phase.player]
                if phase.follows >= 0:
                    parent[b] = combat_index[b][phase.follows]
                if phase.source is not None:
                    source[b] = crows[b].get(phase.source, -1)
        phases.append(dataclasses.replace(base, **builder.combat_arrays(n_rows)))
        players.append(attacking)
        parents.append(parent)
        sources.append(source)
    casts = [_main_casts(turns, k, layout, prows, crows) for k in range(n_phases)]
    later: list[CombatBatch | DrawnPhase] = list(phases[1:])
    return TurnBatch(phases[0], later, players, casts, np.asarray(sick, np.bool_), parents, sources)


def _combat_indices(phases: Sequence[Phase]) -> list[int]:
    """For each phase of a schedule, its index among the combat phases (-1: a main phase)."""
    out: list[int] = []
    n = 0
    for p in phases:
        out.append(n if p.kind == COMBAT else -1)
        n += p.kind == COMBAT
    return out


def _main_casts(
    turns: Sequence[TurnScenario],
    k: int,
    layout: _Builder,
    prows: list[dict[str, int]],
    crows: list[dict[str, int]],
) -> MainCasts:
    """The main-phase casts of every turn between combat phases k - 1 and k."""
    rows: list[tuple[int, int, int, int, int]] = []
    for b, turn in enumerate(turns):
        groups = turn.casts_before()
        if k >= len(turn.combats):
            continue
        for cast in groups[k]:
            if cast.target is None:
                target = int(NO_TARGET)
            elif cast.target in prows[b]:
                target = -1 - prows[b][cast.target]
            else:
                target = crows[b][cast.target]
            token = crows[b][cast.token] if cast.token is not None else -1
            card = layout.card_index.get(cast.card, -1)
            if card < 0:
                raise RefusedError(f"no castable card {cast.card!r} in the card library")
            rows.append((b, card, prows[b][cast.caster], target, token))
    a = np.asarray(rows, I64).reshape(-1, 5)
    return MainCasts(*(a[:, i].copy() for i in range(5)))


class TurnRun(_Run):
    """A run over the combat phases of many turns (see the module's docstring)."""

    def __init__(
        self, engine: BatchedEngine, turns: TurnBatch, record: bool, strict: bool = True
    ) -> None:
        self.turns = turns
        self.strict = strict
        #: The turns the batch was built from (battle order), for the words of errors.
        self.scenarios: Sequence[TurnScenario] | None = None
        self.k = 0
        super().__init__(engine, turns.first, record)
        self.first_active = self.active
        #: The batch each phase was played from, declarations included, in order.
        self.phase_batches: list[CombatBatch] = []
        #: [phases][battles] whether each combat phase happened, else why not (SKIP_*).
        self.skip: list[SmallArray] = []
        #: [phases][battles] whether the game was over as the main phases before each combat
        #: phase began (for the main phases that did not happen).
        self.over_before: list[BoolArray] = []
        #: [phases][battles] for a phase a creature's ability adds: SKIP_NONE if, as the phase
        #: it follows ended, its creature was on the battlefield under its player's control,
        #: else why not (SKIP_SOURCE_GONE, SKIP_PLAYER_LEFT).
        self.source_why: list[SmallArray] = [
            np.zeros(self.nb, np.int8) for _ in range(turns.n_phases)
        ]

    def became_sick(self, rows: IntArray) -> None:
        """Rows came under their controller's control this turn (302.6): they can't attack in
        its later combat phases without haste."""
        sick = np.zeros(self.n, np.bool_) if self.turns.sick is None else self.turns.sick.copy()
        sick[rows] = True
        self.turns = dataclasses.replace(self.turns, sick=sick)

    def _keywords_used(self) -> int:
        """The keywords of every phase's batch and of the main-phase casts' cards."""
        first = self.batch
        used = 0
        for phase in [first, *self.turns.later]:
            if isinstance(phase, CombatBatch):
                self.batch = phase
                used |= super()._keywords_used()
        self.batch = first
        cards = np.concatenate([c.card for c in self.turns.casts] or [np.zeros(0, I64)])
        return used | self._card_bits(cards)

    def _check_marked_damage(self) -> None:
        """Lethal damage in the input is checked as the turn begins only (before the
        precombat main phase's spells): :meth:`play_turns` does."""

    # -- the phases -------------------------------------------------------------------------------

    def play_turns(self, on_phase: Callable[[int], None] | None = None) -> None:
        """Play every combat phase of every turn, in order; `on_phase(k)` after each."""
        super()._check_marked_damage()
        for k in range(self.turns.n_phases):
            self.begin_phase(k)
            self.play()
            self._check_sources(k)
            if on_phase is not None:
                on_phase(k)
        self.over_before.append(self.game_over.copy())

    def begin_phase(self, k: int) -> None:
        """Leave the previous combat, cast the main phases' spells, declare phase k."""
        self.k = k
        self.combat_path = f"combats[{k}]"
        self._clear_combat()
        self.required_blocks = []  # a trigger's requirement is for its own combat (509.1c)
        self.over_before.append(self.game_over.copy())
        if k < len(self.turns.casts) and len(self.turns.casts[k].battle):
            cast_in_main(self, self.turns.casts[k])
        player = self.turns.players[k] if k < len(self.turns.players) else None
        self.active = (
            self.first_active
            if player is None
            else np.where(player >= 0, player, self.first_active)
        )
        skip = self._skipped(k, player)
        self.skip.append(skip)
        phase = self.turns.first if k == 0 else self.turns.later[k - 1]
        declarer = self.turns.declarer
        if declarer is not None and (k == 0 or isinstance(phase, DrawnPhase)):
            only = phase.only if isinstance(phase, DrawnPhase) else None
            template = phase if isinstance(phase, CombatBatch) else _undeclared(self.turns.first)
            start = phase_start(self, k, skip == SKIP_NONE, template, only)
            self.batch = with_declarations(template, declarer(start))
        elif isinstance(phase, DrawnPhase):
            self.batch = self._declared(phase)
        else:
            self.batch = phase
        self.attacking = np.array(self.batch.attacking, I64)
        self._shared.discard("attacking")
        self.att = self.attacking >= 0
        out = skip[self.battle] != SKIP_NONE  # a phase that does not happen: nothing declared
        if out.any():
            self.att &= ~out
            self.attacking[out] = -1
            self.batch = dataclasses.replace(self.batch, attacking=self.attacking)
            keep = ~out[self.batch.block_blocker]
            if not keep.all():
                self.batch = dataclasses.replace(
                    self.batch,
                    block_blocker=self.batch.block_blocker[keep],
                    block_attacker=self.batch.block_attacker[keep],
                    block_rank=self.batch.block_rank[keep],
                )
        self._index_blocks()
        self._index_divisions()
        self._index_events()
        if self.strict:  # as the phase begins, the creatures as they are now (RULES 4)
            self._check_declarations()
        self.phase_batches.append(self.batch)

    def _skipped(self, k: int, player: IntArray | None) -> SmallArray:
        """Per battle, whether combat phase k happens (SKIP_NONE) or why not, in the reference
        engine's order: the game is over; the phase it follows did not happen; the creature
        whose ability adds it was gone as that phase ended; its player has left the game."""
        skip = np.full(self.nb, SKIP_NONE, np.int8)
        if player is None:
            return skip
        has = player >= 0
        parent = self.turns.parent[k] if k < len(self.turns.parent) else None
        followed = np.ones(self.nb, np.bool_)
        if parent is not None:
            for j in np.unique(parent[parent >= 0]).tolist():
                at = parent == j
                followed[at] = self.skip[j][at] == SKIP_NONE
        skip[has & self.lost[np.maximum(player, 0)]] = SKIP_PLAYER_LEFT
        gone = self.source_why[k] != SKIP_NONE
        skip[has & gone] = self.source_why[k][has & gone]
        skip[has & ~followed] = SKIP_FOLLOWS
        skip[has & self.game_over] = SKIP_GAME_OVER  # the last that applies wins: the
        return skip  # reference engine's first reason

    def _check_sources(self, k: int) -> None:
        """As combat phase k ends: for each later combat phase added after it by a creature's
        ability, whether that creature is on the battlefield under its player's control."""
        for j in range(k + 1, min(len(self.turns.parent), len(self.turns.source))):
            src = self.turns.source[j]
            at = (self.turns.parent[j] == k) & (src >= 0)
            if not at.any():
                continue
            row = np.maximum(src, 0)
            player = np.maximum(self.turns.players[j], 0)
            here = self.on_bf[row] & (self.controller[row] == player)
            why = np.where(self.lost[player], SKIP_PLAYER_LEFT, SKIP_SOURCE_GONE)
            self.source_why[j] = np.where(at & ~here, why, self.source_why[j]).astype(np.int8)

    def _clear_combat(self) -> None:
        """Nothing is in combat between combat phases; the strikers and the log start over."""
        n, nb = self.n, self.nb
        self.attacking = np.full(n, -1, I64)
        self.att = np.zeros(n, np.bool_)
        self.blocking = np.zeros(n, np.bool_)
        self.blocked = np.zeros(n, np.bool_)
        self.in_combat = np.zeros(n, np.bool_)
        self.struck = np.zeros(n, np.bool_)
        if self.struck_steps is not None:
            self.struck_steps = np.zeros(n, np.uint64)
        self._excess_by = []
        self.has_attack = np.zeros(nb, np.bool_)
        self.steps_taken = np.zeros((self.n_steps, nb), np.bool_)
        self.blocks_declared = False
        self.nblocks = 0
        self.one_blocker_each, self.multi_block = True, False
        if self.log is not None:
            self.log = _Log()
        self.ev_skip = np.zeros(0, np.int8)
        self.rounds = [[] for _ in range(self.n_steps + 1)]

    def _check_declarations(self) -> None:
        """A creature declared as attacker must be on the battlefield and untapped as the
        phase begins (508.1a), a blocker on the battlefield; else the battle's input error,
        and the declaration is left out. Whether blockers are untapped is checked as blockers
        are declared (:meth:`check_blocks`): an attack trigger may untap one (provoke)."""
        able = self.on_bf & ~self.tapped
        attackers = np.flatnonzero(self.att)
        defender_gone = self.lost[self.attacking[attackers]]
        bad_att = attackers[~able[attackers] | ~self.may_attack(attackers) | defender_gone]
        bad_blk = np.unique(self.bb[~self.on_bf[self.bb]]) if self.nblocks else np.zeros(0, I64)
        if not (bad_att.size or bad_blk.size):
            return
        for error, rows, table in (
            (cannot_attack, bad_att, "attackers"),
            (cannot_block, bad_blk, "blockers"),
        ):
            for row in self._file_order(rows, table):
                battle = int(self.battle[row])
                why = (
                    (TAPPED_AT_START if self.tapped_at_start(row) else TAPPED)
                    if self.on_bf[row]
                    else GONE
                    if self.entered[row]
                    else NEVER_ENTERED
                )
                if table == "attackers" and able[row] and self.lost[self.attacking[row]]:
                    why = left_the_game(self.pid(int(self.attacking[row])))  # its defender left
                elif table == "attackers" and able[row]:  # a rule keeps it from attacking now
                    file = self._file(battle)
                    rule = self._why_cannot_attack(row)
                    self.fail(battle, not_allowed_to_attack(file, self.k, self.cid(row), rule))
                    continue
                self.fail(battle, error(self._file(battle), self.k, self.cid(row), why))
        self.att[bad_att] = False
        self.attacking[bad_att] = -1
        keep = self.on_bf[self.bb] & self.att[self.ba]
        self._keep_blocks(keep)

    def _file_order(self, rows: IntArray, table: str) -> list[int]:
        """Rows of declared attackers or blockers in the order the turn file lists them in
        the phase's entry (``attackers`` or ``blockers``), so that a battle's first error is
        the reference engine's."""
        turns = self.scenarios
        if turns is None or rows.size < 2:
            return [int(r) for r in rows]
        ids = self.batch.creature_ids or []

        def place(row: int) -> tuple[int, int]:
            battle = int(self.battle[row])
            listed = list(getattr(turns[battle].combats[self.k], table))
            return battle, listed.index(ids[row]) if ids[row] in listed else len(listed)

        return sorted((int(r) for r in rows), key=place)

    def check_blocks(self) -> None:
        """The phase's blocks must be legal as blockers are declared, with the creatures as
        they are then (509.1a-c, RULES 4): after the declare-attackers step, with everything
        earlier in the turn. The blockers must be untapped (an attack trigger may have untapped
        one: provoke); the plugins' restrictions hold; and in a battle with a requirement
        (a ``block-requirement`` keyword such as lure, or one an attack trigger made), the
        blocks obey as many as possible. A battle with an illegal block gets the input error
        the reference engine gives (:func:`ecs_combat.rules.legality.check_blocks`), and its
        blocks are left out."""
        if not self.strict or self.scenarios is None:
            return
        bb, ba = self.bb, self.ba
        tapped = self.on_bf[bb] & self.tapped[bb]  # 509.1a
        for row in self._file_order(np.unique(bb[tapped]), "blockers"):
            why = TAPPED_AT_START if self.tapped_at_start(row) else TAPPED
            battle = int(self.battle[row])
            self.fail(battle, cannot_block(self._file(battle), self.k, self.cid(row), why))
        failed = np.zeros(self.nb, np.bool_)
        failed[self.battle[bb[tapped]]] = True
        opp, none = np.ones(bb.size, np.bool_), np.zeros(bb.size, I64)
        blocker, attacker = RowSide(self, bb, opp, none), RowSide(self, ba, opp, none)
        ok = np.ones(bb.size, np.bool_)
        for r in self.reg.restrictions_of("block"):
            ok &= np.asarray(r.test(blocker), np.bool_)
        for r in self.reg.restrictions_of("block-pair"):
            ok &= np.asarray(r.test(attacker, blocker), np.bool_)
        need = np.ones(bb.size, I64)
        for r in self.reg.restrictions_of("blockers"):
            need = np.maximum(need, np.asarray(r.test(attacker), I64))
        ok &= np.bincount(ba, minlength=self.n)[ba] >= need
        wanted = np.zeros(self.nb, np.bool_)  # battles with a requirement: checked one by one
        for made, _, _ in self.required_blocks:
            wanted[self.battle[made]] = True
        for r in self.reg.restrictions_of("block-requirement"):  # on either side of a block
            wanted[self.battle[self.on_bf & self.has(r.keyword)]] = True
        check = (wanted & ~failed).copy()
        check[self.battle[bb[~ok]]] = True
        check &= ~failed
        for battle in np.flatnonzero(check).tolist():
            failed[battle] = self._block_error(battle)
        if failed.any():
            self._keep_blocks(~failed[self.battle[bb]])

    def _block_error(self, battle: int) -> bool:
        """Record the input error of a battle's first illegal block, worded as the reference
        engine words it (with the requirements the attack triggers made and the creatures
        unable to block: tapped or gone); whether there is one."""
        assert self.scenarios is not None
        ids = self.batch.creature_ids or []
        first, last = np.searchsorted(self.battle, [battle, battle + 1]).tolist()
        row = {ids[r]: r for r in range(first, last)}

        def side(cid: str) -> Side:
            one = np.array([row[cid]], I64)
            return _OneRowSide(RowSide(self, one, np.ones(1, np.bool_), np.zeros(1, I64)))

        made = [
            (ids[b], ids[a], keyword)
            for blockers, attackers, keyword in self.required_blocks
            for b, a in zip(blockers.tolist(), attackers.tolist(), strict=True)
            if first <= b < last
        ]
        scenario = self.scenarios[battle].combats[self.k]
        unable = [  # tapped or gone: no requirement (a declared blocker's tapping is checked)
            ids[r]
            for r in range(first, last)
            if (not self.on_bf[r] or self.tapped[r]) and ids[r] not in scenario.blockers
        ]
        try:
            check_blocks(scenario, self.reg, side, self.combat_path, made=made, tapped=unable)
        except InputError as exc:
            self.fail(battle, exc)
            return True
        return False

    def tapped_at_start(self, row: int) -> bool:
        """Whether the turn's file gives the creature ``tapped = true``."""
        tapped = self.turns.first.tapped
        return tapped is not None and bool(tapped[row])

    def may_attack(self, rows: IntArray) -> BoolArray:
        """Whether the rules let some creatures attack as they are now (508.1a), summoning
        sickness included (302.6); tapped and off-the-battlefield aside."""
        side = RowSide(self, rows, np.zeros(rows.size, np.bool_), np.zeros(rows.size, I64))
        ok = np.ones(rows.size, np.bool_)
        for r in self.reg.restrictions_of("attack"):
            ok &= np.asarray(r.test(side), np.bool_)
        sick = self.turns.sick
        if sick is not None and sick[rows].any():
            hasty = np.zeros(rows.size, np.bool_)
            for r in self.reg.restrictions_of("summoning-sickness"):
                hasty |= np.asarray(r.test(side), np.bool_)
            ok &= ~sick[rows] | hasty
        return ok

    def _why_cannot_attack(self, row: int) -> str:
        """The rules' words for why a creature can't attack (for an error message)."""
        rows = np.array([row], I64)
        side = RowSide(self, rows, np.zeros(1, np.bool_), np.zeros(1, I64))
        sick = self.turns.sick is not None and bool(self.turns.sick[row])
        return why_cannot_attack(side, sick, self.reg) or NO_REASON

    def _file(self, battle: int) -> str:
        files = self.batch.battle_files
        return files[battle] if files is not None else f"battle {battle}"

    def _keep_blocks(self, keep: BoolArray) -> None:
        """Keep only some of the phase's blocks (still grouped by attacker)."""
        bb, ba, rank = self.bb[keep], self.ba[keep], self.rank[keep]
        self.batch = dataclasses.replace(
            self.batch, block_blocker=bb, block_attacker=ba, block_rank=rank
        )
        self.blocked[:] = False
        self._index_blocks()

    # -- drawn declarations (bulk) ----------------------------------------------------------------

    def _restrictions(self, kind: str) -> list[Any]:
        """The restrictions of a kind whose keyword the batch has a bit for (a rule of a
        keyword no creature can have is not checked)."""
        return [r for r in self.reg.restrictions_of(kind) if r.keyword in self.m.bit]

    def _declared(self, phase: DrawnPhase) -> CombatBatch:
        """The phase's batch: attackers and blocks from the drawn intentions, as the rules and
        the state now allow them (no events, no divisions)."""
        n = self.n
        first = self.turns.first
        self.refresh(None)
        attacker_of = phase.player[self.battle]
        ready = self.on_bf & ~self.tapped & ~self.game_over[self.battle]
        att = ready & phase.attack & (self.controller == attacker_of) & (attacker_of >= 0)
        if phase.only is not None:
            att &= phase.only
        rows = np.flatnonzero(att)
        if rows.size:
            side = RowSide(self, rows, np.zeros(rows.size, np.bool_), np.zeros(rows.size, I64))
            ok = np.ones(rows.size, np.bool_)
            for r in self._restrictions("attack"):
                ok &= np.asarray(r.test(side), np.bool_)
            rows = rows[ok]
        # defending player: the next one in the battle (two-player battles)
        player_start = np.searchsorted(self.player_battle, np.arange(self.nb))
        seats = np.bincount(self.player_battle, minlength=self.nb)
        att_player = np.maximum(phase.player, 0)
        defender = player_start + (att_player - player_start + 1) % seats
        attacking = np.full(n, -1, I64)
        attacking[rows] = defender[self.battle[rows]]
        # blocks: each willing blocker picks one of its battle's attackers
        count = np.bincount(self.battle[rows], minlength=self.nb)
        start = np.zeros(self.nb, I64)
        np.cumsum(count[:-1], out=start[1:])
        blk = ready & phase.block & (self.controller != attacker_of)
        blk &= count[self.battle] > 0
        b_rows = np.flatnonzero(blk)
        pick = np.minimum(
            (np.asarray(phase.choice)[b_rows] * count[self.battle[b_rows]]).astype(I64),
            count[self.battle[b_rows]] - 1,
        )
        a_rows = rows[start[self.battle[b_rows]] + pick] if b_rows.size else b_rows
        if b_rows.size:
            legal = np.ones(b_rows.size, np.bool_)
            opp = np.ones(b_rows.size, np.bool_)
            no_color = np.zeros(b_rows.size, I64)
            blocker_side = RowSide(self, b_rows, opp, no_color)
            attacker_side = RowSide(self, a_rows, opp, no_color)
            for r in self._restrictions("block"):
                legal &= np.asarray(r.test(blocker_side), np.bool_)
            for r in self._restrictions("block-pair"):
                legal &= np.asarray(r.test(attacker_side, blocker_side), np.bool_)
            b_rows, a_rows = b_rows[legal], a_rows[legal]
            need = self._restrictions("blockers")
            if need and a_rows.size:
                have = np.bincount(a_rows, minlength=n)
                least = np.ones(a_rows.size, I64)
                side = RowSide(
                    self, a_rows, np.ones(a_rows.size, np.bool_), np.zeros(a_rows.size, I64)
                )
                for r in need:
                    least = np.maximum(least, np.asarray(r.test(side), I64))
                enough = have[a_rows] >= least
                b_rows, a_rows = b_rows[enough], a_rows[enough]
        order = np.argsort(a_rows, kind="stable")
        return dataclasses.replace(
            _undeclared(first),
            attacking=attacking,
            block_blocker=b_rows[order],
            block_attacker=a_rows[order],
            block_rank=np.zeros(b_rows.size, I64),
        )


def _undeclared(first: CombatBatch) -> CombatBatch:
    """A later combat phase's batch before its declarations: the turn's rows, no attackers,
    blocks, divisions or events."""
    empty = np.zeros(0, I64)
    return without_blocks(
        first,
        attacking=np.full(first.n_creatures, -1, I64),
        event_battle=empty,
        event_point=empty,
        event_action=empty,
        event_target=empty,
        event_keywords=np.zeros(0, np.uint64),
        event_counters=None,
        event_instance_event=empty,
        event_instance_keyword=empty,
        event_instance_parameter=empty,
        event_power=empty,
        event_toughness=empty,
        event_amount=empty,
        event_player=empty,
        event_card=empty,
        event_index=None,
    )


class _OneRowSide:
    """One row of a :class:`RowSide` as a single creature's side (numpy scalars), for the
    legality functions that word the errors."""

    def __init__(self, side: RowSide) -> None:
        self.side = side

    def has(self, keyword: str) -> np.bool_:
        return np.bool_(self.side.has(keyword)[0])

    def values(self, keyword: str) -> int:
        return int(self.side.values(keyword)[0])

    def count(self, keyword: str) -> int:
        return int(self.side.count(keyword)[0])

    @property
    def colors(self) -> int:
        return int(self.side.colors[0])

    @property
    def power(self) -> int:
        return int(self.side.power[0])

    @property
    def opponent(self) -> bool:
        return bool(self.side.opponent[0])

    @property
    def spell_colors(self) -> int:
        return int(self.side.spell_colors[0])

    @property
    def from_creature(self) -> bool:
        return bool(self.side.from_creature[0])

    @property
    def types(self) -> int:
        return int(self.side.types[0])

    @property
    def lands(self) -> int:
        return int(self.side.lands[0])


def cast_in_main(run: _Run, casts: MainCasts) -> None:
    """Spells cast in main phases (``turn.casts``), outside combat: the j-th cast of every
    battle at once through :func:`ecs_combat.batched.events.cast_in_main` (the target checked
    as it resolves, the token entering, state-based actions after each)."""
    if not len(casts.battle):
        return
    starts = _run_starts(casts.battle)
    place = np.arange(len(casts.battle)) - np.repeat(
        starts, np.diff(np.append(starts, len(casts.battle)))
    )
    for j in range(int(place.max()) + 1):
        now = np.flatnonzero(place == j)
        events.cast_in_main(
            run, casts.card[now], casts.caster[now], casts.target[now], casts.token[now]
        )


def resolve_turns(engine: BatchedEngine, turns: Sequence[TurnScenario]) -> list[TurnResult]:
    """Resolve turns as one run; results identical to the reference engine's."""
    if not turns:
        return []
    with _collector_paused():
        batch = turns_to_batch(turns, engine.registry)
        run = TurnRun(engine, batch, record=True)
        run.scenarios = turns
        per_phase: list[list[CombatResult]] = []
        run.play_turns(lambda k: per_phase.append(_Results(run, run.log or _Log()).build()))
        run.raise_error()
    tapped, may_attack = _turn_state(run)
    out = []
    for b, turn in enumerate(turns):
        result = TurnResult()
        happened: list[bool] = []
        k = last = -1  # the combat phase; the last one that happened
        for i, phase in enumerate(turn.phases):
            if phase.kind == COMBAT:
                k += 1
                why = _skip_reason(int(run.skip[k][b]), phase)
            elif run.over_before[k + 1][b]:
                why = GAME_OVER
            elif phase.follows >= 0 and not happened[phase.follows]:
                why = follows_skipped(phase.follows + 1)
            else:
                why = None
            happened.append(why is None)
            if why is not None:
                result.skipped_phases.append(SkippedPhase(i, phase, why))
                continue
            result.phases.append(phase)
            if phase.kind == COMBAT:
                r = per_phase[k][b]
                result.combats.append(
                    CombatPhaseResult(phase.player, r.steps, r.skipped_events, r.notes)
                )
                last = k
        end = per_phase[last][b]  # as the last combat phase that happened ends
        result.creatures = {
            cid: dataclasses.replace(c, tapped=tapped[b][cid], may_attack=may_attack[b][cid])
            for cid, c in end.creatures.items()
        }
        result.players = end.players
        out.append(result)
    return out


def _skip_reason(code: int, phase: Phase) -> str | None:
    """The words for why a combat phase did not happen (as the reference engine says it)."""
    if code == SKIP_GAME_OVER:
        return GAME_OVER
    if code == SKIP_FOLLOWS:
        return follows_skipped(phase.follows + 1)
    if code == SKIP_SOURCE_GONE:
        assert phase.source is not None
        return source_gone(phase.source, phase.player, phase.follows + 1)
    if code == SKIP_PLAYER_LEFT:
        return player_left(phase.player)
    return None


def _turn_state(run: TurnRun) -> tuple[list[dict[str, bool]], list[dict[str, bool]]]:
    """Per turn, by creature id: whether it ends the turn tapped, and whether it could attack
    in a later combat phase (on the battlefield, untapped, no rule against it, 508.1a, 302.6)."""
    ids = run.batch.creature_ids or []
    starts = np.searchsorted(run.battle, np.arange(run.nb + 1)).tolist()
    allowed = run.on_bf & ~run.tapped & run.may_attack(np.arange(run.n))
    tapped = (run.on_bf & run.tapped).tolist()
    may = allowed.tolist()
    return (
        [{ids[r]: tapped[r] for r in range(starts[b], starts[b + 1])} for b in range(run.nb)],
        [{ids[r]: may[r] for r in range(starts[b], starts[b + 1])} for b in range(run.nb)],
    )


def resolve_turn_batch(engine: BatchedEngine, turns: TurnBatch) -> BatchOutcome:
    """Resolve a :class:`TurnBatch` (bulk: declarations the state no longer allows are left
    out); the state at the end of every turn's last combat phase."""
    run = TurnRun(engine, turns, record=False, strict=False)
    run.play_turns()
    run.raise_error()
    return run.outcome()


def played_phases(engine: BatchedEngine, turns: TurnBatch) -> list[CombatBatch]:
    """Play a :class:`TurnBatch` as :func:`resolve_turn_batch` does and give the batch each
    combat phase was played from, in order: a :class:`DrawnPhase` with the declarations it
    made (``simulate --replay`` writes a bulk turn as a turn file from them)."""
    run = TurnRun(engine, turns, record=False, strict=False)
    run.play_turns()
    run.raise_error()
    return run.phase_batches


__all__ = [
    "DrawnPhase",
    "MainCasts",
    "TurnBatch",
    "cast_in_main",
    "played_phases",
    "resolve_turn_batch",
    "resolve_turns",
    "turns_to_batch",
]
