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
    battles: Sequence[int] | None = None,
) -> list[CombatResult] | None:
    """The results of some distinct `battles` (None: every one), in that order, from the
    kernel's `log` ([entries, 5], told: nothing replaced) and `outcome`; `counters`: the
    creatures' counters the kernel keeps, by kind. None if they can't be told from these.
    (A few battles: lists, not arrays.)"""
    chosen = list(range(batch.n_battles)) if battles is None else list(battles)
    if (np.asarray(outcome.returned) >= 0).any() or batch.event_battle.size:
        return None
    if any(f.output for f in registry.state_fields("creature").values()):
        return None
    shown = [k for k, f in registry.state_fields("player").items() if f.output]
    states = outcome.player_state or {}
    kinds = _counter_columns(batch, counters)
    if kinds is None or any(k not in states for k in shown):
        return None
    battle_of = np.asarray(batch.battle, I64)
    attacked = set(battle_of[np.asarray(batch.attacking) >= 0].tolist())
    if any(b not in attacked for b in chosen):
        return None  # the kernel leaves a battle without attackers untouched (no checks)
    n = batch.n_battles
    rows = np.searchsorted(battle_of, np.arange(n + 1))
    prows = np.searchsorted(np.asarray(batch.player_battle), np.arange(n + 1))
    place = np.full(n, -1, I64)
    place[chosen] = np.arange(len(chosen), dtype=I64)
    at = place[battle_of[log[:, 2]]] if len(log) else np.zeros(0, I64)
    kept = at >= 0
    controller = np.asarray(batch.controller, I64)
    entries: list[list[int]] = np.column_stack(
        [log[kept], at[kept], controller[log[kept, 2]]]
    ).tolist()
    # the rows of the chosen battles, in order, and where each one's begin among them
    crow, c_at = _rows_of(rows, chosen)
    prow, p_at = _rows_of(prows, chosen)
    if not _life_told(entries, batch, outcome, prow):
        return None
    dealt: list[list[tuple[int, int, int, int, int]]] = [[] for _ in chosen]
    gained: list[dict[tuple[int, int, int], int]] = [{} for _ in chosen]
    died: list[list[tuple[int, int]]] = [[] for _ in chosen]
    for order, (kind, s, x, y, z, i, owner) in enumerate(entries):
        if kind == DEALT:
            dealt[i].append((s, x, order, y, z))
        elif kind == GAINED:
            gained[i][s, x, owner] = gained[i].get((s, x, owner), 0) + y
        else:
            died[i].append((s, x))
    cids = list(batch.creature_ids or [])
    pids = list(batch.player_ids or [])
    taken = np.asarray(outcome.steps_taken, np.bool_)[:, chosen].T.tolist()
    final = _Final(outcome, kinds, shown, states, crow, prow)
    out = []
    for i in range(len(chosen)):
        steps = {s: StepResult(step_names[s]) for s, t in enumerate(taken[i]) if t}
        for s, x, _, y, z in sorted(dealt[i]):
            steps[s].damage.append((cids[x], pids[-1 - y] if y < 0 else cids[y], z))
        for (s, x, owner), amount in sorted(gained[i].items()):
            steps[s].life_gained.append((pids[owner], cids[x], amount))
        mine = range(c_at[i], c_at[i + 1])
        for s, row in _deaths(list(steps), died[i], [(final.rows[j], final.died[j]) for j in mine]):
            steps[s].died.append(cids[row])
        res = CombatResult(worded=False)
        res.steps = list(steps.values())
        res.creatures = {cids[final.rows[j]]: final.creature(j) for j in mine if final.entered[j]}
        res.players = {pids[final.players[j]]: final.player(j) for j in range(p_at[i], p_at[i + 1])}
        out.append(res)
    return out


def _rows_of(start: IntArray, battles: list[int]) -> tuple[IntArray, list[int]]:
    """The rows of some battles (battle b's are ``start[b]:start[b + 1]``), in order, and
    where each battle's begin among them (one more place: the end)."""
    ids = np.asarray(battles, I64)
    count = start[ids + 1] - start[ids]
    at = np.zeros(len(ids) + 1, I64)
    np.cumsum(count, out=at[1:])
    rows = np.arange(int(at[-1]), dtype=I64) + (start[ids] - at[:-1]).repeat(count)
    return rows, at.tolist()


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
    entries: list[list[int]], batch: CombatBatch, outcome: BatchOutcome, players: IntArray
) -> bool:
    """Whether each of `players` (rows) ends with their life less the damage logged to them
    plus the life logged as gained by the sources they control (`entries`: the log's with
    each source's controller last), else something else changed it."""
    life = dict(zip(players.tolist(), np.asarray(batch.life, I64)[players].tolist(), strict=True))
    for kind, _, _, y, z, _, owner in entries:
        if kind == DEALT and y < 0:
            life[-1 - y] -= z
        elif kind == GAINED:
            life[owner] += y
    final: list[int] = np.asarray(outcome.life, I64)[players].tolist()
    return list(life.values()) == final


def _deaths(
    taken: list[int], logged: list[tuple[int, int]], rows: list[tuple[int, bool]]
) -> list[tuple[int, int]]:
    """A battle's deaths (step, row) by step then row (`rows`: its rows, whether each died):
    those logged as a later step began died after the step taken before it; those not
    logged, after the last step taken."""
    out = [(max(t for t in taken if t < s), row) for s, row in logged]
    noted = {row for _, row in logged}
    out += [(taken[-1], row) for row, dead in rows if dead and row not in noted]
    return sorted(out)


class _Final:
    """The final state of some creature rows and player rows (`crow`, `prow`), as lists by
    their places."""

    def __init__(
        self,
        outcome: BatchOutcome,
        kinds: list[tuple[str, AnyArray]],
        shown: list[str],
        states: Mapping[str, AnyArray],
        crow: IntArray,
        prow: IntArray,
    ) -> None:
        self.rows: list[int] = crow.tolist()
        self.players: list[int] = prow.tolist()
        self.kinds = [(k, np.asarray(v)[crow].tolist()) for k, v in kinds]
        self.entered: list[bool] = np.asarray(outcome.entered, np.bool_)[crow].tolist()
        self.died: list[bool] = np.asarray(outcome.died_in_step, np.bool_)[crow].tolist()
        self.alive: list[bool] = np.asarray(outcome.alive, np.bool_)[crow].tolist()
        self.damage: list[int] = np.asarray(outcome.damage, I64)[crow].tolist()
        self.power: list[int] = np.asarray(outcome.power, I64)[crow].tolist()
        self.toughness: list[int] = np.asarray(outcome.toughness, I64)[crow].tolist()
        self.life: list[int] = np.asarray(outcome.life, I64)[prow].tolist()
        self.lost: list[bool] = np.asarray(outcome.lost, np.bool_)[prow].tolist()
        self.shown = {k: np.asarray(states[k])[prow].tolist() for k in shown}

    def creature(self, j: int) -> CreatureOutcome:
        """The outcome of the creature at place `j` (the engine doesn't say whether it is
        tapped)."""
        return CreatureOutcome(
            alive=self.alive[j],
            damage=self.damage[j],
            power=self.power[j],
            toughness=self.toughness[j],
            counters={k: v[j] for k, v in self.kinds if v[j] > 0},
        )

    def player(self, j: int) -> PlayerOutcome:
        """The outcome of the player at place `j`."""
        return PlayerOutcome(
            life=self.life[j], lost=self.lost[j], state={k: v[j] for k, v in self.shown.items()}
        )
