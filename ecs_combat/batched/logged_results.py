"""The results of a few battles the compiled kernel played with its log
(:mod:`ecs_combat.kernel.template_log`), as :meth:`Played.results` gives them without notes:
the same steps (damage dealt, life gained, deaths), creatures and players. Where the log
can't tell them (damage replaced, life changed otherwise than by the damage and the gains
logged, counters or shown state the kernel doesn't keep, a creature that returned, a battle
without attackers), there are none: the batch is played again with the numpy engine's log."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ecs_combat.batched.arrays import BatchOutcome, CombatBatch, IntArray
from ecs_combat.plugin.registry import Registry
from ecs_combat.rules.result import CombatResult, CreatureOutcome, PlayerOutcome, StepResult

I64 = np.int64
AnyArray = npt.NDArray[Any]
#: Kinds of log entries (:mod:`ecs_combat.kernel.template_log`).
DEALT, GAINED, DIED = 0, 1, 2


def logged_results(
    batch: CombatBatch,
    step_names: Sequence[str],
    outcome: BatchOutcome,
    log: IntArray,
    counters: Mapping[str, AnyArray],
    registry: Registry,
) -> list[CombatResult] | None:
    """Every battle's result from the kernel's `log` ([entries, 5], told: nothing replaced)
    and `outcome`; `counters`: the creatures' counters the kernel keeps, by kind. None if
    they can't be told from these. (A few battles: lists, not arrays.)"""
    if (np.asarray(outcome.returned) >= 0).any() or batch.event_battle.size:
        return None
    battle: list[int] = np.asarray(batch.battle, I64).tolist()
    attacking = np.asarray(batch.attacking).tolist()
    if len({b for b, a in zip(battle, attacking, strict=True) if a >= 0}) < batch.n_battles:
        return None  # the kernel leaves a battle without attackers untouched (no checks)
    if any(f.output for f in registry.state_fields("creature").values()):
        return None
    shown = [k for k, f in registry.state_fields("player").items() if f.output]
    states = outcome.player_state or {}
    kinds = _counter_columns(batch, counters)
    if kinds is None or any(k not in states for k in shown):
        return None
    entries: list[list[int]] = log.tolist()
    controller: list[int] = np.asarray(batch.controller, I64).tolist()
    if not _life_told(entries, controller, batch, outcome):
        return None
    n = batch.n_battles
    dealt: list[list[tuple[int, int, int, int, int]]] = [[] for _ in range(n)]
    gained: list[dict[tuple[int, int], int]] = [{} for _ in range(n)]
    died: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    for at, (kind, s, x, y, z) in enumerate(entries):
        b = battle[x]
        if kind == DEALT:
            dealt[b].append((s, x, at, y, z))
        elif kind == GAINED:
            gained[b][s, x] = gained[b].get((s, x), 0) + y
        else:
            died[b].append((s, x))
    cids = list(batch.creature_ids or [])
    pids = list(batch.player_ids or [])
    taken: list[list[bool]] = np.asarray(outcome.steps_taken, np.bool_).T.tolist()
    rows = np.searchsorted(battle, np.arange(n + 1)).tolist()
    prows = np.searchsorted(np.asarray(batch.player_battle), np.arange(n + 1)).tolist()
    final = _Final(outcome, kinds, shown, states)
    out = []
    for b in range(n):
        steps = {s: StepResult(step_names[s]) for s, t in enumerate(taken[b]) if t}
        for s, x, _, y, z in sorted(dealt[b]):
            steps[s].damage.append((cids[x], pids[-1 - y] if y < 0 else cids[y], z))
        for (s, x), amount in sorted(gained[b].items()):
            steps[s].life_gained.append((pids[controller[x]], cids[x], amount))
        for s, row in _deaths(list(steps), died[b], final.died, rows[b], rows[b + 1]):
            steps[s].died.append(cids[row])
        res = CombatResult(worded=False)
        res.steps = list(steps.values())
        res.creatures = {
            cids[r]: final.creature(r) for r in range(rows[b], rows[b + 1]) if final.entered[r]
        }
        res.players = {pids[p]: final.player(p) for p in range(prows[b], prows[b + 1])}
        out.append(res)
    return out


def _counter_columns(
    batch: CombatBatch, counters: Mapping[str, AnyArray]
) -> list[tuple[str, list[int]]] | None:
    """Each counter kind of the batch (in its order) with the kernel's counts of it, or None
    if a creature has counters of a kind the kernel doesn't keep."""
    names = list(batch.counter_names)
    given = None if batch.counters is None else np.asarray(batch.counters)
    out = []
    for j, name in enumerate(names):
        if name in counters:
            out.append((name, np.asarray(counters[name]).tolist()))
        elif given is not None and given.size and bool(given[:, j].any()):
            return None
    return out


def _life_told(
    entries: list[list[int]], controller: list[int], batch: CombatBatch, outcome: BatchOutcome
) -> bool:
    """Whether every player's final life is their life less the damage logged to them plus
    the life logged as gained by the sources they control (else something else changed it)."""
    life: list[int] = np.asarray(batch.life, I64).tolist()
    for kind, _, x, y, z in entries:
        if kind == DEALT and y < 0:
            life[-1 - y] -= z
        elif kind == GAINED:
            life[controller[x]] += y
    final: list[int] = np.asarray(outcome.life, I64).tolist()
    return life == final


def _deaths(
    taken: list[int], logged: list[tuple[int, int]], died: list[bool], lo: int, hi: int
) -> list[tuple[int, int]]:
    """A battle's deaths (step, row) by step then row (its rows `lo` to `hi` - 1): those
    logged as a later step began died after the step taken before it; those not logged,
    after the last step taken."""
    out = [(max(t for t in taken if t < s), row) for s, row in logged]
    noted = {row for _, row in logged}
    out += [(taken[-1], row) for row in range(lo, hi) if died[row] and row not in noted]
    return sorted(out)


class _Final:
    """The final state of the creatures and players, as lists."""

    def __init__(
        self,
        outcome: BatchOutcome,
        kinds: list[tuple[str, list[int]]],
        shown: list[str],
        states: Mapping[str, AnyArray],
    ) -> None:
        self.kinds = kinds
        self.entered: list[bool] = np.asarray(outcome.entered, np.bool_).tolist()
        self.died: list[bool] = np.asarray(outcome.died_in_step, np.bool_).tolist()
        self.alive: list[bool] = np.asarray(outcome.alive, np.bool_).tolist()
        self.damage: list[int] = np.asarray(outcome.damage, I64).tolist()
        self.power: list[int] = np.asarray(outcome.power, I64).tolist()
        self.toughness: list[int] = np.asarray(outcome.toughness, I64).tolist()
        self.life: list[int] = np.asarray(outcome.life, I64).tolist()
        self.lost: list[bool] = np.asarray(outcome.lost, np.bool_).tolist()
        self.shown = {k: np.asarray(states[k]).tolist() for k in shown}

    def creature(self, row: int) -> CreatureOutcome:
        """A creature's outcome (the engine doesn't say whether it is tapped)."""
        return CreatureOutcome(
            alive=self.alive[row],
            damage=self.damage[row],
            power=self.power[row],
            toughness=self.toughness[row],
            counters={k: v[row] for k, v in self.kinds if v[row] > 0},
        )

    def player(self, p: int) -> PlayerOutcome:
        """A player's outcome."""
        return PlayerOutcome(
            life=self.life[p], lost=self.lost[p], state={k: v[p] for k, v in self.shown.items()}
        )
