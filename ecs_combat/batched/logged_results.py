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
    they can't be told from these."""
    if (np.asarray(outcome.returned) >= 0).any() or batch.event_battle.size:
        return None
    attacked = np.asarray(batch.battle, I64)[np.asarray(batch.attacking) >= 0]
    if len(np.unique(attacked)) < batch.n_battles:  # the kernel leaves a battle without
        return None  # attackers untouched: no state-based actions (counters stay)
    if any(f.output for f in registry.state_fields("creature").values()):
        return None
    kinds = _counter_columns(batch, counters)
    if kinds is None:
        return None
    kind, step, x, y, z = (log[:, i] for i in range(5))
    controller = np.asarray(batch.controller, I64)
    dealt, gained, died = kind == DEALT, kind == GAINED, kind == DIED
    if not _life_told(
        batch, outcome, controller, x[dealt], y[dealt], z[dealt], x[gained], y[gained]
    ):
        return None
    cids = list(batch.creature_ids or [])
    pids = list(batch.player_ids or [])
    battle = np.asarray(batch.battle, I64)
    taken = np.asarray(outcome.steps_taken, np.bool_)
    rows = np.searchsorted(battle, np.arange(batch.n_battles + 1)).tolist()
    prows = np.searchsorted(np.asarray(batch.player_battle), np.arange(batch.n_battles + 1))
    shown = [k for k, f in registry.state_fields("player").items() if f.output]
    states = outcome.player_state or {}
    if any(k not in states for k in shown):
        return None
    out = []
    for b in range(batch.n_battles):
        steps = {s: StepResult(step_names[s]) for s in np.flatnonzero(taken[:, b]).tolist()}
        mine = (battle[x] == b) if len(x) else np.zeros(0, np.bool_)
        here = (mine & dealt).nonzero()[0]
        for at in here[np.lexsort((here, x[here], step[here]))].tolist():
            rec = int(y[at])
            target = pids[-1 - rec] if rec < 0 else cids[rec]
            steps[int(step[at])].damage.append((cids[int(x[at])], target, int(z[at])))
        here = (mine & gained).nonzero()[0]
        totals: dict[tuple[int, int], int] = {}
        for at in here.tolist():
            key = (int(step[at]), int(x[at]))
            totals[key] = totals.get(key, 0) + int(y[at])
        for (s, source), amount in sorted(totals.items()):
            steps[s].life_gained.append((pids[int(controller[source])], cids[source], amount))
        for s, row in _deaths(list(steps), step[mine & died], x[mine & died], outcome, rows, b):
            steps[s].died.append(cids[row])
        res = CombatResult(worded=False)
        res.steps = list(steps.values())
        res.creatures = _creatures(outcome, kinds, batch, cids, rows[b], rows[b + 1])
        res.players = {
            pids[p]: PlayerOutcome(
                life=int(outcome.life[p]),
                lost=bool(outcome.lost[p]),
                state={k: np.asarray(states[k])[p].item() for k in shown},
            )
            for p in range(int(prows[b]), int(prows[b + 1]))
        }
        out.append(res)
    return out


def _counter_columns(
    batch: CombatBatch, counters: Mapping[str, AnyArray]
) -> list[tuple[str, AnyArray]] | None:
    """Each counter kind of the batch (in its order) with the kernel's counts of it, or None
    if a creature has counters of a kind the kernel doesn't keep."""
    names = list(batch.counter_names)
    given = None if batch.counters is None else np.asarray(batch.counters)
    out = []
    for j, name in enumerate(names):
        if name in counters:
            out.append((name, np.asarray(counters[name])))
        elif given is not None and given.size and bool(given[:, j].any()):
            return None
    return out


def _life_told(
    batch: CombatBatch,
    outcome: BatchOutcome,
    controller: IntArray,
    source: IntArray,
    recipient: IntArray,
    amount: IntArray,
    gainer: IntArray,
    gained: IntArray,
) -> bool:
    """Whether every player's final life is their life less the damage logged to them plus
    the life logged as gained by the sources they control (else something else changed it)."""
    life = np.array(batch.life, I64)
    to_player = recipient < 0
    np.add.at(life, -1 - recipient[to_player], -amount[to_player])
    np.add.at(life, controller[gainer], gained)
    return bool((life == np.asarray(outcome.life, I64)).all())


def _deaths(
    taken: list[int], logged_step: IntArray, logged_row: IntArray, outcome: BatchOutcome,
    rows: list[int], b: int,
) -> list[tuple[int, int]]:  # fmt: skip
    """Battle `b`'s deaths (step, row) by step then row: those logged as a later step began
    died after the step taken before it; those not logged, after the last step taken."""
    out = []
    for s, row in zip(logged_step.tolist(), logged_row.tolist(), strict=True):
        out.append((max(t for t in taken if t < s), row))
    noted = set(logged_row.tolist())
    died = np.asarray(outcome.died_in_step, np.bool_)
    for row in range(rows[b], rows[b + 1]):
        if died[row] and row not in noted:
            out.append((taken[-1], row))
    return sorted(out)


def _creatures(
    outcome: BatchOutcome,
    kinds: list[tuple[str, AnyArray]],
    batch: CombatBatch,
    cids: list[str],
    lo: int,
    hi: int,
) -> dict[str, CreatureOutcome]:
    """The outcome of each creature of rows `lo` to `hi` - 1 that entered the battle."""
    entered = np.asarray(outcome.entered, np.bool_)
    out = {}
    for row in range(lo, hi):
        if entered[row]:
            out[cids[row]] = CreatureOutcome(
                alive=bool(outcome.alive[row]),
                damage=int(outcome.damage[row]),
                power=int(outcome.power[row]),
                toughness=int(outcome.toughness[row]),
                counters={k: int(v[row]) for k, v in kinds if v[row] > 0},
            )
    return out
