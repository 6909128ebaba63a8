"""What `resolve` prints beyond the final state: the reference engine's :class:`CombatResult`
objects built from a run's arrays and the log it gathered (:class:`.log.Log`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ecs_combat.batched.arrays import (
    BoolArray,
    IntArray,
    MaskArray,
    action_names,
)
from ecs_combat.batched.keyword_rows import KeywordRows
from ecs_combat.batched.log import Log
from ecs_combat.batched.outcomes import Outcomes
from ecs_combat.batched.state import CombatRows, CreatureRows, Frame, PlayerRows
from ecs_combat.rules.result import (
    CombatResult,
    SkippedEvent,
    StepResult,
    StrikeNote,
)
from ecs_combat.scenario.events import DECLARE_BLOCKERS

I64 = np.int64
U64 = np.uint64
SmallArray = npt.NDArray[np.int8]
AnyArray = npt.NDArray[Any]


# Why an event did not happen (``skipped_events``), as codes.
HAPPENED, NO_ATTACKERS, GAME_ENDED, NO_STEP = 0, 1, 2, 3
_NO_ATTACKERS_REASON = "no creatures attacked, so the combat had no such point (508.8)"
_GAME_ENDED_REASON = "the game ended before it"


class Results:
    """Turns a run's arrays and log into the reference engine's :class:`CombatResult` objects."""

    def __init__(
        self,
        frame: Frame,
        creatures: CreatureRows,
        kw: KeywordRows,
        combat: CombatRows,
        players: PlayerRows,
        log: Log,
    ) -> None:
        """The results of the combat phase `combat` played (its log `log`)."""
        self.frame, self.creatures, self.kw = frame, creatures, kw
        self.combat, self.players = combat, players
        self.log = log
        self.n_built = frame.nb  #: battles built (:meth:`build`)
        ids = frame.batch
        self.cids = ids.creature_ids or [f"creature row {i}" for i in range(frame.n)]
        self.pids = ids.player_ids or [f"player row {i}" for i in range(len(players.life))]
        b = combat.batch
        self.step_names = [p.name for p in frame.schedule.plans]
        self.points = [DECLARE_BLOCKERS, *(f"after {s}" for s in self.step_names)]
        self._reasons = frame.schedule.reasons  # strike reasons, computed once
        self.ev_skip: list[int] = combat.ev_skip.tolist()
        self.ev_point: list[int] = b.event_point.tolist()
        self.ev_action: list[int] = b.event_action.tolist()
        self.actions = action_names(list(frame.schedule.registry.event_actions))
        if b.event_index is not None:
            self.ev_index: list[int] = b.event_index.tolist()
        else:  # place among the battle's events
            starts = np.searchsorted(b.event_battle, b.event_battle)
            self.ev_index = (np.arange(len(b.event_battle)) - starts).tolist()

    def _by_battle(
        self, battle: IntArray, keys: Sequence[IntArray], columns: Sequence[IntArray]
    ) -> list[list[tuple[int, ...]]]:
        """Rows sorted by battle then `keys` (most significant first), grouped per battle
        (`battle`: the place of each row's battle among those built, or -1: left out)."""
        out: list[list[tuple[int, ...]]] = [[] for _ in range(self.n_built)]
        if battle.size == 0:
            return out
        if self.n_built < self.frame.nb:  # only the rows of the battles built
            kept = (battle >= 0).nonzero()[0]
            battle = battle[kept]
            keys = [k[kept] for k in keys]
            columns = [c[kept] for c in columns]
        order = np.lexsort([*reversed(keys), battle])
        cols = [c[order].tolist() for c in columns]
        for b, *values in zip(battle[order].tolist(), *cols, strict=True):
            out[b].append(tuple(values))
        return out

    def _cat(self, parts: list[IntArray] | list[BoolArray] | list[MaskArray], dtype: Any) -> Any:
        return np.concatenate(parts) if parts else np.zeros(0, dtype)

    def build(self, battles: Sequence[int] | None = None, notes: bool = True) -> list[CombatResult]:
        """The results of every battle, or of some distinct `battles` in that order; without
        `notes`, without the readable account's notes on who strikes (``StepResult.strikes``:
        the JSON document has none)."""
        frame, combat = self.frame, self.combat
        chosen = list(range(frame.nb)) if battles is None else list(battles)
        self.n_built = len(chosen)
        if battles is None:
            battle = self.creatures.battle
        else:  # each row's place among the chosen battles, or -1
            place = np.full(frame.nb, -1, I64)
            place[np.asarray(chosen, I64)] = np.arange(len(chosen), dtype=I64)
            battle = place[self.creatures.battle]
        damage, gains, died = self._events(battle)
        strikes = self._strikes(battle) if notes else [[] for _ in chosen]
        blocks = self._blocks(battle) if notes else None
        outcomes = Outcomes(
            frame, self.creatures, self.kw, self.players, chosen, self.cids, self.pids
        )
        ev_start = combat.batch.event_battle.searchsorted(np.arange(frame.nb + 1)).tolist()
        taken = combat.steps_taken.T[np.asarray(chosen, I64)].tolist()
        out: list[CombatResult] = []
        for i, b in enumerate(chosen):
            res = CombatResult(worded=False)
            res.steps = self._steps(taken[i], damage[i], gains[i], died[i], strikes[i])
            res.creatures = outcomes.creatures(i)
            res.players = outcomes.players(i)
            res.skipped_events = self._skipped(ev_start[b], ev_start[b + 1])
            if blocks is not None:
                declared: dict[str, list[str]] = {}
                for blocker, attacker in blocks[i]:
                    declared.setdefault(self.cids[blocker], []).append(self.cids[attacker])
                res.blocks = {k: tuple(v) for k, v in declared.items()}
            out.append(res)
        return out

    def _events(self, battle: IntArray) -> tuple[list[list[tuple[int, ...]]], ...]:
        """The logged damage (step, source, recipient, amount), life gained (step, player,
        source, amount) and deaths (step, creature) of each battle built (:meth:`_by_battle`)."""
        log = self.log
        d_step = self._cat([np.full(len(x[1]), x[0], I64) for x in log.damage], I64)
        d_src = self._cat([x[1] for x in log.damage], I64)
        d_rec = self._cat([x[2] for x in log.damage], I64)
        d_amt = self._cat([x[3] for x in log.damage], I64)
        d_pos = self._cat([np.asarray(x[4], I64) for x in log.damage], I64)
        damage = self._by_battle(
            battle[d_src], [d_step, d_src, d_pos], [d_step, d_src, d_rec, d_amt]
        )
        g_step = self._cat([np.full(len(x[2]), x[0], I64) for x in log.gains], I64)
        g_player = self._cat([x[1] for x in log.gains], I64)
        g_src = self._cat([x[2] for x in log.gains], I64)
        g_amt = self._cat([x[3] for x in log.gains], I64)
        gains = self._by_battle(battle[g_src], [g_step, g_src], [g_step, g_player, g_src, g_amt])
        x_step = self._cat([np.full(len(x[1]), x[0], I64) for x in log.died], I64)
        x_row = self._cat([x[1] for x in log.died], I64)
        died = self._by_battle(battle[x_row], [x_step, x_row], [x_step, x_row])
        return damage, gains, died

    def _steps(
        self,
        taken: list[bool],
        damage: list[tuple[int, ...]],
        gains: list[tuple[int, ...]],
        died: list[tuple[int, ...]],
        strikes: list[tuple[int, ...]],
    ) -> list[StepResult]:
        """A battle's damage steps that took place, with what happened in each."""
        steps: dict[int, StepResult] = {}
        for s, name in enumerate(self.step_names):
            if taken[s]:
                steps[s] = StepResult(name)
        for s, src, rec, amt in damage:
            rid = self.pids[-1 - rec] if rec < 0 else self.cids[rec]
            steps[s].damage.append((self.cids[src], rid, amt))
        for s, player, src, amt in gains:
            steps[s].life_gained.append((self.pids[player], self.cids[src], amt))
        for s, row in died:
            steps[s].died.append(self.cids[row])
        for s, row, deals, kw, before, pw in strikes:
            steps[s].strikes.append(self._strike(s, row, bool(deals), kw, before, pw))
        return list(steps.values())

    def _strikes(self, battle: IntArray) -> list[list[tuple[int, ...]]]:
        """The logged combatants of each battle built (:meth:`_by_battle`)."""
        log = self.log
        s_step = self._cat([np.full(len(x[1]), x[0], I64) for x in log.strikes], I64)
        s_row = self._cat([x[1] for x in log.strikes], I64)
        s_deals = self._cat([x[2] for x in log.strikes], np.bool_)
        s_kw = self._cat([x[3] for x in log.strikes], U64)
        s_before = self._cat([x[4] for x in log.strikes], U64)
        s_power = self._cat([x[5] for x in log.strikes], I64)
        return self._by_battle(
            battle[s_row], [s_step, s_row], [s_step, s_row, s_deals, s_kw, s_before, s_power]
        )

    def _blocks(self, battle: IntArray) -> list[list[tuple[int, ...]]]:
        """The blocks declared in each battle built, (blocker, attacker) by blocker row then
        the order the blocker declared them: those of listed blockers that left before blocks
        are not among them (RULES 11.3)."""
        combat = self.combat
        return self._by_battle(battle[combat.bb], [combat.bb, combat.rank], [combat.bb, combat.ba])

    def _strike(
        self, s: int, row: int, deals: bool, kw: int, before: int, power: int
    ) -> StrikeNote:
        """Why a combatant did or did not deal damage, in the reference engine's words."""
        key = (s, kw, before, min(power, 1) if power > 0 else power)
        why = self._reasons.get(key)
        if why is None:
            plan = self.frame.schedule.plans[s]
            earlier = [name for i, name in enumerate(self.step_names) if before >> i & 1]
            dealt, why = plan.deals(self.frame.schedule.masks.decode(kw), earlier)
            if dealt and power <= 0:
                why = f"{why}, but its power is {power}: it assigns no damage (510.1a)"
            self._reasons[key] = why
        return StrikeNote(self.cids[row], deals, why)

    def _skipped(self, start: int, end: int) -> list[SkippedEvent]:
        """The battle's events that did not happen, in the order the reference lists them."""
        skip, index = self.ev_skip, self.ev_index
        rows = [e for e in range(start, end) if skip[e] != HAPPENED]
        if rows and skip[rows[0]] == NO_ATTACKERS:  # all of them, in file order
            rows.sort(key=lambda e: index[e])
        out = []
        for e in rows:
            point, code = self.ev_point[e], skip[e]
            if code == NO_ATTACKERS:
                reason = _NO_ATTACKERS_REASON
            elif code == GAME_ENDED:
                reason = _GAME_ENDED_REASON
            else:
                reason = f"the {self.step_names[point - 1]} step did not take place"
            out.append(
                SkippedEvent(index[e], self.points[point], self.actions[self.ev_action[e]], reason)
            )
        return out
