"""Turns with several combat phases (RULES.md section 8) played in the batched engine: one
run over every turn's combat phases (see :mod:`.turn`), composed of the combat of one phase
(:mod:`.combat`) with what a turn adds: the main phases' spells, who attacks in each phase,
why a phase does not happen, the checks of its declarations (:mod:`.turn_checks`), summoning
sickness; and the turn results."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from ecs_combat.batched import combat, events, turn_checks
from ecs_combat.batched.arrays import BatchOutcome, BoolArray, CombatBatch, IntArray
from ecs_combat.batched.boards import with_declarations
from ecs_combat.batched.drawn import declared, undeclared
from ecs_combat.batched.log import Log
from ecs_combat.batched.numeric import run_starts
from ecs_combat.batched.phase_start import phase_start
from ecs_combat.batched.results import Results
from ecs_combat.batched.schedule import Schedules, start
from ecs_combat.batched.state import CombatRows, Policy, State
from ecs_combat.batched.turn import DrawnPhase, MainCasts, TurnBatch, turns_to_batch
from ecs_combat.plugin.phases import COMBAT, Phase
from ecs_combat.rules.result import CombatPhaseResult, CombatResult, SkippedPhase, TurnResult
from ecs_combat.rules.turn_legality import (
    GAME_OVER,
    follows_skipped,
    player_left,
    source_gone,
)

if TYPE_CHECKING:
    from ecs_combat.scenario.turns import TurnScenario

I64 = np.int64
SmallArray = npt.NDArray[np.int8]
#: Whether a combat phase happens, or why not (:mod:`ecs_combat.rules.turn_legality`'s words).
SKIP_NONE, SKIP_GAME_OVER, SKIP_FOLLOWS, SKIP_SOURCE_GONE, SKIP_PLAYER_LEFT = range(5)


class TurnRun:
    """A run over the combat phases of many turns (see :mod:`.turn`): the combat's state
    (`state`), played once per phase, and what the turn keeps across them."""

    def __init__(
        self, schedules: Schedules, turns: TurnBatch, record: bool, strict: bool = True
    ) -> None:
        self.turns = turns
        self.strict = strict
        self.record = record
        #: The turns the batch was built from (battle order), for the words of errors.
        self.scenarios: Sequence[TurnScenario] | None = None
        #: The combat phase being played.
        self.k = 0
        #: [creature rows] summoning sick (302.6), or None: none is.
        self.sick = turns.sick
        later = [p for p in turns.later if isinstance(p, CombatBatch)]
        cards = np.concatenate([c.card for c in turns.casts] or [np.zeros(0, I64)])
        policy = Policy(
            check_blocks=lambda: turn_checks.check_blocks(self),
            became_sick=self.became_sick,
            check_marked_damage=False,  # as the turn begins only: play_turns checks it
        )
        schedule = schedules.of([turns.first, *later], cards)
        self.state: State = start(schedule, turns.first, record, policy)
        self.first_active = self.state.players.active_rows()
        #: A later combat phase's batch before its declarations.
        self.undeclared = undeclared(turns.first)
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
        nb = self.state.frame.nb
        self.source_why: list[SmallArray] = [np.zeros(nb, np.int8) for _ in range(turns.n_phases)]

    def became_sick(self, rows: IntArray) -> None:
        """Rows came under their controller's control this turn (302.6): they can't attack in
        its later combat phases without haste."""
        sick = np.zeros(self.state.frame.n, np.bool_) if self.sick is None else self.sick.copy()
        sick[rows] = True
        self.sick = sick

    def may_attack(self, rows: IntArray) -> BoolArray:
        """Whether the rules let some creatures attack as they are now (508.1a), summoning
        sickness included (302.6); tapped and off-the-battlefield aside."""
        s = self.state
        return turn_checks.may_attack(s.frame, s.keywords, s.creatures, self.sick, rows)

    def raise_error(self) -> None:
        """Raise the input error of the first battle that has one."""
        self.state.errors.raise_first()

    def outcome(self) -> BatchOutcome:
        """The state at the end of every turn's last combat phase, as arrays."""
        s = self.state
        return combat.outcome(s.creatures, s.combat, s.players)

    def play_turns(self, on_phase: Callable[[int], None] | None = None) -> None:
        """Play every combat phase of every turn, in order; `on_phase(k)` after each."""
        s = self.state
        combat.check_marked_damage(s.frame, s.creatures, s.errors, s.context)
        for k in range(self.turns.n_phases):
            self.begin_phase(k)
            combat.play(s)
            self._check_sources(k)
            if on_phase is not None:
                on_phase(k)
        self.over_before.append(s.players.game_over.copy())

    def begin_phase(self, k: int) -> None:
        """Leave the previous combat, cast the main phases' spells, declare phase k."""
        state, turns = self.state, self.turns
        n_steps = state.frame.n_steps
        self.k = k
        path = f"combats[{k}]"
        # Nothing is in combat between combat phases; the strikers, the log and the
        # requirements triggers made (509.1c: for their own combat) start over.
        state.combat = CombatRows.of(self.undeclared, n_steps, self.record, path)
        if state.records.log is not None:
            state.records.log = Log()
        self.over_before.append(state.players.game_over.copy())
        if k < len(turns.casts) and len(turns.casts[k].battle):
            cast_in_main(state, turns.casts[k])
        player = turns.players[k] if k < len(turns.players) else None
        state.players.active = (
            self.first_active
            if player is None
            else np.where(player >= 0, player, self.first_active)
        )
        skip = self._skipped(k, player)
        self.skip.append(skip)
        phase = turns.first if k == 0 else turns.later[k - 1]
        declarer = turns.declarer
        if declarer is not None and (k == 0 or isinstance(phase, DrawnPhase)):
            only = phase.only if isinstance(phase, DrawnPhase) else None
            template = phase if isinstance(phase, CombatBatch) else self.undeclared
            happens = skip == SKIP_NONE
            attacker = turns.players[k]
            begins = phase_start(state, k, attacker, self.may_attack, happens, template, only)
            batch = with_declarations(template, declarer(begins))
        elif isinstance(phase, DrawnPhase):
            batch = declared(state, self.undeclared, phase)
        else:
            batch = phase
        out = skip[state.creatures.battle] != SKIP_NONE  # a phase that does not happen:
        if out.any():  # nothing declared
            attacking = np.array(batch.attacking, I64)
            attacking[out] = -1
            keep = ~out[batch.block_blocker]
            batch = dataclasses.replace(
                batch,
                attacking=attacking,
                block_blocker=batch.block_blocker[keep],
                block_attacker=batch.block_attacker[keep],
                block_rank=batch.block_rank[keep],
            )
        state.combat = CombatRows.of(batch, n_steps, self.record, path)
        if self.strict:  # as the phase begins, the creatures as they are now (RULES 4)
            turn_checks.check_declarations(self)
        self.phase_batches.append(state.combat.batch)

    def _skipped(self, k: int, player: IntArray | None) -> SmallArray:
        """Per battle, whether combat phase k happens (SKIP_NONE) or why not, in the reference
        engine's order: the game is over; the phase it follows did not happen; the creature
        whose ability adds it was gone as that phase ended; its player has left the game."""
        nb, players = self.state.frame.nb, self.state.players
        skip = np.full(nb, SKIP_NONE, np.int8)
        if player is None:
            return skip
        has = player >= 0
        parent = self.turns.parent[k] if k < len(self.turns.parent) else None
        followed = np.ones(nb, np.bool_)
        if parent is not None:
            for j in np.unique(parent[parent >= 0]).tolist():
                at = parent == j
                followed[at] = self.skip[j][at] == SKIP_NONE
        skip[has & players.lost[np.maximum(player, 0)]] = SKIP_PLAYER_LEFT
        gone = self.source_why[k] != SKIP_NONE
        skip[has & gone] = self.source_why[k][has & gone]
        skip[has & ~followed] = SKIP_FOLLOWS
        skip[has & players.game_over] = SKIP_GAME_OVER  # the last that applies wins: the
        return skip  # reference engine's first reason

    def _check_sources(self, k: int) -> None:
        """As combat phase k ends: for each later combat phase added after it by a creature's
        ability, whether that creature is on the battlefield under its player's control."""
        c, lost = self.state.creatures, self.state.players.lost
        turns = self.turns
        for j in range(k + 1, min(len(turns.parent), len(turns.source))):
            src = turns.source[j]
            at = (turns.parent[j] == k) & (src >= 0)
            if not at.any():
                continue
            row = np.maximum(src, 0)
            player = np.maximum(turns.players[j], 0)
            here = c.on_bf[row] & (c.controller[row] == player)
            why = np.where(lost[player], SKIP_PLAYER_LEFT, SKIP_SOURCE_GONE)
            self.source_why[j] = np.where(at & ~here, why, self.source_why[j]).astype(np.int8)


def cast_in_main(state: State, casts: MainCasts) -> None:
    """Spells cast in main phases (``turn.casts``), outside combat: the j-th cast of every
    battle at once through :func:`ecs_combat.batched.events.cast_in_main` (the target checked
    as it resolves, the token entering, state-based actions after each)."""
    if not len(casts.battle):
        return
    starts = run_starts(casts.battle)
    place = np.arange(len(casts.battle)) - np.repeat(
        starts, np.diff(np.append(starts, len(casts.battle)))
    )
    for j in range(int(place.max()) + 1):
        now = np.flatnonzero(place == j)
        events.cast_in_main(
            state, casts.card[now], casts.caster[now], casts.target[now], casts.token[now]
        )


def resolve_turns(schedules: Schedules, turns: Sequence[TurnScenario]) -> list[TurnResult]:
    """Resolve turns as one run; results identical to the reference engine's."""
    if not turns:
        return []
    batch = turns_to_batch(turns, schedules.registry)
    t = TurnRun(schedules, batch, record=True)
    t.scenarios = turns
    per_phase: list[list[CombatResult]] = []
    s = t.state
    t.play_turns(
        lambda k: per_phase.append(
            Results(
                s.frame, s.creatures, s.keywords, s.combat, s.players, s.records.log or Log()
            ).build()
        )
    )
    t.raise_error()
    tapped, may_attack = _turn_state(t)
    out = []
    for b, turn in enumerate(turns):
        result = TurnResult(worded=False)
        happened: list[bool] = []
        k = last = -1  # the combat phase; the last one that happened
        for i, phase in enumerate(turn.phases):
            if phase.kind == COMBAT:
                k += 1
                why = _skip_reason(int(t.skip[k][b]), phase)
            elif t.over_before[k + 1][b]:
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


def _turn_state(t: TurnRun) -> tuple[list[dict[str, bool]], list[dict[str, bool]]]:
    """Per turn, by creature id: whether it ends the turn tapped, and whether it could attack
    in a later combat phase (on the battlefield, untapped, no rule against it, 508.1a, 302.6)."""
    frame, c = t.state.frame, t.state.creatures
    ids = frame.batch.creature_ids or []
    nb = frame.nb
    starts = np.searchsorted(c.battle, np.arange(nb + 1)).tolist()
    allowed = c.on_bf & ~c.tapped & t.may_attack(np.arange(frame.n))
    tapped = (c.on_bf & c.tapped).tolist()
    may = allowed.tolist()
    return (
        [{ids[r]: tapped[r] for r in range(starts[b], starts[b + 1])} for b in range(nb)],
        [{ids[r]: may[r] for r in range(starts[b], starts[b + 1])} for b in range(nb)],
    )


def resolve_turn_batch(schedules: Schedules, turns: TurnBatch) -> BatchOutcome:
    """Resolve a :class:`TurnBatch` (bulk: declarations the state no longer allows are left
    out); the state at the end of every turn's last combat phase."""
    t = TurnRun(schedules, turns, record=False, strict=False)
    t.play_turns()
    t.raise_error()
    return t.outcome()


def played_phases(schedules: Schedules, turns: TurnBatch) -> list[CombatBatch]:
    """Play a :class:`TurnBatch` as :func:`resolve_turn_batch` does and give the batch each
    combat phase was played from, in order: a :class:`DrawnPhase` with the declarations it
    made (``simulate --replay`` writes a bulk turn as a turn file from them)."""
    t = TurnRun(schedules, turns, record=False, strict=False)
    t.play_turns()
    t.raise_error()
    return t.phase_batches
