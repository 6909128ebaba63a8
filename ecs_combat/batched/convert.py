"""From a :class:`CombatBatch` to scenarios, and from their results back to a :class:`BatchOutcome`.

This puts the reference engine behind the batched interface (:class:`ReferenceBatchEngine`),
so a bulk simulation can run either engine on the very same battles and compare.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np

from ecs_combat.batched.arrays import NO_RECIPIENT, BatchOutcome, CombatBatch, action_names
from ecs_combat.plugin.definitions import COLORS, FROM_WORDS, PowerToughness
from ecs_combat.plugin.registry import Registry
from ecs_combat.reference.engine import ReferenceEngine
from ecs_combat.rules.result import CombatResult, TurnResult
from ecs_combat.scenario.events import DECLARE_BLOCKERS
from ecs_combat.scenario.instances import Parameter
from ecs_combat.scenario.model import CreatureSpec, Division, Event, PlayerSpec, Scenario
from ecs_combat.scenario.turns import TurnScenario


def _player_id(local: int) -> str:
    """A player's id from its place in the turn order: A, B, ..., Z, P26, P27, ..."""
    return chr(ord("A") + local) if local < 26 else f"P{local}"


class _Names:
    """Ids and names of one battle's rows."""

    def __init__(self, batch: CombatBatch, players: range, creatures: range) -> None:
        self.batch = batch
        self.p0 = players.start
        self.c0 = creatures.start

    def player(self, row: int) -> str:
        ids = self.batch.player_ids
        return ids[row] if ids is not None else _player_id(row - self.p0)

    def creature(self, row: int) -> str:
        ids = self.batch.creature_ids
        return ids[row] if ids is not None else f"c{row - self.c0}"

    def recipient(self, code: int) -> str:
        """A creature row, or ``-1 - player_row`` for a player."""
        return self.player(-1 - code) if code < 0 else self.creature(code)


def _keywords(batch: CombatBatch, mask: int) -> tuple[str, ...]:
    return tuple(name for i, name in enumerate(batch.keyword_names) if mask >> i & 1)


def _counter_table(batch: CombatBatch, counters: np.ndarray | None, row: int) -> dict[str, int]:
    if counters is None:
        return {}
    return {batch.counter_names[i]: int(n) for i, n in enumerate(counters[row].tolist()) if n != 0}


def _instances(
    batch: CombatBatch,
    registry: Registry,
    mask: int,
    keywords: list[int],
    params: list[int],
) -> tuple[tuple[str, ...], tuple[Parameter, ...]]:
    """Keyword instances: those listed (with parameters), then one for each other bit."""
    names: list[str] = []
    parameters: list[Parameter] = []
    listed = 0
    for k, p in zip(keywords, params, strict=True):
        name = batch.keyword_names[k]
        names.append(name)
        kind = registry.keywords[name].parameter
        value: Parameter = p if kind != "pt" else PowerToughness(p)
        parameters.append(None if p < 0 else FROM_WORDS[p] if kind == "color" else value)
        listed |= 1 << k
    for name in _keywords(batch, mask & ~listed):
        names.append(name)
        parameters.append(None)
    return tuple(names), tuple(parameters)


def _creature(batch: CombatBatch, registry: Registry, names: _Names, row: int) -> CreatureSpec:
    cid = names.creature(row)
    sel = np.flatnonzero(batch.instance_row == row)
    keywords, parameters = _instances(
        batch,
        registry,
        int(batch.keywords[row]),
        batch.instance_keyword[sel].tolist(),
        batch.instance_parameter[sel].tolist(),
    )
    fields = registry.state_fields("creature")
    state: dict[str, Any] = {}
    for key, column in batch.creature_state.items():
        value = column[row].item()
        if fields[key].kind == "creature":
            value = names.creature(value) if value >= 0 else None
        state[key] = value
    return CreatureSpec(
        id=cid,
        name=batch.creature_names[row] if batch.creature_names is not None else cid,
        controller=names.player(int(batch.controller[row])),
        power=int(batch.power[row]),
        toughness=int(batch.toughness[row]),
        keywords=keywords,
        parameters=parameters,
        counters=_counter_table(batch, batch.counters, row),
        damage=int(batch.damage[row]),
        colors=tuple(c for i, c in enumerate(COLORS) if int(batch.colors[row]) >> i & 1),
        state=state,
        path=f"creatures.{cid}",
    )


def _declaration_order(orders: list[list[int]]) -> list[int]:
    """One order of blockers that keeps every attacker's own blocker order.

    `orders` lists each attacker's blocker rows in declaration order; ties are broken by row.
    """
    after: dict[int, set[int]] = {}
    before_count: dict[int, int] = {}
    for order in orders:
        for row in order:
            after.setdefault(row, set())
            before_count.setdefault(row, 0)
        for earlier, later in itertools.pairwise(order):
            if later not in after[earlier]:
                after[earlier].add(later)
                before_count[later] += 1
    ready = [row for row, n in before_count.items() if n == 0]
    heapq.heapify(ready)
    out: list[int] = []
    while ready:
        row = heapq.heappop(ready)
        out.append(row)
        for later in after[row]:
            before_count[later] -= 1
            if before_count[later] == 0:
                heapq.heappush(ready, later)
    if len(out) != len(before_count):
        raise ValueError("the blockers' declaration orders of two attackers contradict each other")
    return out


def _segments(owner: np.ndarray, n: int) -> np.ndarray:
    """Start offsets (length n + 1) of the rows of each battle; `owner` is sorted."""
    return np.searchsorted(owner, np.arange(n + 1), side="left")


def batch_to_scenarios(batch: CombatBatch, registry: Registry) -> list[Scenario]:
    """One :class:`Scenario` per battle of the batch.

    The registry's step names in order are what ``event_point`` and ``division_step``
    index. Players are named A, B, ... in turn order and creatures c0, c1, ... in row
    order within their battle, unless the batch carries ids.
    """
    steps = registry.step_names
    n = batch.n_battles
    p_seg = _segments(batch.player_battle, n).tolist()
    c_seg = _segments(batch.battle, n).tolist()
    b_battle = batch.battle[batch.block_attacker] if batch.block_attacker.size else batch.battle[:0]
    b_seg = _segments(b_battle, n).tolist()
    d_battle = (
        batch.battle[batch.division_source] if batch.division_source.size else batch.battle[:0]
    )
    d_seg = _segments(d_battle, n).tolist()
    e_seg = _segments(batch.event_battle, n).tolist()
    attacking = batch.attacking.tolist()
    present = batch.present.tolist()
    block_blocker = batch.block_blocker.tolist()
    block_attacker = batch.block_attacker.tolist()
    block_rank = batch.block_rank.tolist()
    points = [DECLARE_BLOCKERS, *(f"after {s}" for s in steps)]

    out: list[Scenario] = []
    for b in range(n):
        names = _Names(batch, range(p_seg[b], p_seg[b + 1]), range(c_seg[b], c_seg[b + 1]))
        players = {
            names.player(p): PlayerSpec(
                names.player(p),
                int(batch.life[p]),
                {k: v[p].item() for k, v in batch.player_state.items()},
            )
            for p in range(p_seg[b], p_seg[b + 1])
        }
        creatures: dict[str, CreatureSpec] = {}
        attackers: dict[str, str] = {}
        for row in range(c_seg[b], c_seg[b + 1]):
            if not present[row]:
                continue
            spec = _creature(batch, registry, names, row)
            creatures[spec.id] = spec
            if attacking[row] >= 0:
                attackers[spec.id] = names.player(attacking[row])

        per_attacker: dict[int, list[int]] = {}
        per_blocker: dict[int, list[tuple[int, int]]] = {}
        for k in range(b_seg[b], b_seg[b + 1]):
            per_attacker.setdefault(block_attacker[k], []).append(block_blocker[k])
            per_blocker.setdefault(block_blocker[k], []).append((block_rank[k], block_attacker[k]))
        blockers = {
            names.creature(row): tuple(names.creature(a) for _, a in sorted(per_blocker[row]))
            for row in _declaration_order(list(per_attacker.values()))
        }
        scenario = Scenario(f"battle {b}", players, creatures, attackers, blockers)
        scenario.divisions = _divisions(batch, names, steps, range(d_seg[b], d_seg[b + 1]))
        rows = range(e_seg[b], e_seg[b + 1])
        # Rows are ordered by point; the scenario lists events in file order when it is known.
        index = {e: e - e_seg[b] for e in rows}
        if batch.event_index is not None:
            index = {e: int(batch.event_index[e]) for e in rows}
        scenario.events = sorted(
            (_event(batch, registry, names, points, e, index[e]) for e in rows),
            key=lambda ev: ev.index,
        )
        out.append(scenario)
    return out


def _divisions(
    batch: CombatBatch, names: _Names, steps: Sequence[str], rows: range
) -> list[Division]:
    grouped: dict[tuple[int, int], dict[str, int]] = {}
    for d in rows:
        key = (int(batch.division_step[d]), int(batch.division_source[d]))
        amounts = grouped.setdefault(key, {})
        recipient = int(batch.division_recipient[d])
        if recipient != NO_RECIPIENT:
            amounts[names.recipient(recipient)] = int(batch.division_amount[d])
    return [
        Division(steps[step], names.creature(source), amounts, f"combat.divide[{i}]")
        for i, ((step, source), amounts) in enumerate(grouped.items())
    ]


def _event(
    batch: CombatBatch, registry: Registry, names: _Names, points: list[str], e: int, index: int
) -> Event:
    action = action_names(list(registry.event_actions))[int(batch.event_action[e])]
    ev = Event(
        index=index, at=points[int(batch.event_point[e])], action=action, path=f"events[{index}]"
    )
    target = int(batch.event_target[e])
    player = int(batch.event_player[e])
    if action == "enter":
        ev.creature = _creature(batch, registry, names, target)
        ev.attacking = names.player(player)
        return ev
    ev.target = names.recipient(target)
    if action in ("grant", "remove"):
        sel = np.flatnonzero(batch.event_instance_event == e)
        ev.keywords, ev.parameters = _instances(
            batch,
            registry,
            int(batch.event_keywords[e]),
            batch.event_instance_keyword[sel].tolist(),
            batch.event_instance_parameter[sel].tolist(),
        )
    elif action == "counters":
        ev.counters = _counter_table(batch, batch.event_counters, e)
    elif action == "pump":
        ev.power = int(batch.event_power[e])
        ev.toughness = int(batch.event_toughness[e])
    elif action == "damage":
        ev.amount = int(batch.event_amount[e])
    elif action == "cast":
        ev.card = batch.card_names[int(batch.event_card[e])]
        ev.caster = names.player(player)
    return ev


def outcome_from_results(batch: CombatBatch, results: Sequence[CombatResult]) -> BatchOutcome:
    """Gather the results of :func:`batch_to_scenarios`' scenarios into a :class:`BatchOutcome`."""
    n = batch.n_battles
    if len(results) != n:
        raise ValueError(f"{len(results)} results for {n} battles")
    p_seg = _segments(batch.player_battle, n).tolist()
    c_seg = _segments(batch.battle, n).tolist()
    alive = np.zeros(batch.n_creatures, dtype=np.bool_)
    damage = batch.damage.copy()
    power = batch.power.copy()
    toughness = batch.toughness.copy()
    life = batch.life.copy()
    lost = np.zeros(batch.n_players, dtype=np.bool_)
    died = np.zeros(batch.n_creatures, dtype=np.bool_)
    to_players = np.zeros(n, dtype=np.int64)
    dealt = np.zeros(batch.n_creatures, dtype=np.int64)
    gained = np.zeros(batch.n_creatures, dtype=np.int64)
    returned = np.full(batch.n_creatures, -1, dtype=np.int64)
    for b, result in enumerate(results):
        names = _Names(batch, range(p_seg[b], p_seg[b + 1]), range(c_seg[b], c_seg[b + 1]))
        crow = {names.creature(r): r for r in range(c_seg[b], c_seg[b + 1])}
        prow = {names.player(r): r for r in range(p_seg[b], p_seg[b + 1])}
        for cid, c in result.creatures.items():
            r = crow[cid]
            alive[r], damage[r], power[r], toughness[r] = c.alive, c.damage, c.power, c.toughness
            returned[r] = -1 if c.returned is None else c.returned
        for pid, p in result.players.items():
            life[prow[pid]], lost[prow[pid]] = p.life, p.lost
        for step in result.steps:
            for cid in step.died:
                died[crow[cid]] = True
            for source, target, amount in step.damage:
                if target in prow:
                    to_players[b] += amount
                    dealt[crow[source]] += amount
            for _, source, amount in step.life_gained:
                gained[crow[source]] += amount
    return BatchOutcome(
        alive=alive,
        damage=damage,
        power=power,
        toughness=toughness,
        life=life,
        lost=lost,
        died_in_step=died,
        damage_to_players=to_players,
        dealt_to_players=dealt,
        life_gained=gained,
        returned=returned,
    )


class ReferenceBatchEngine:
    """The reference engine behind the batched interface: one scenario per battle, one by one."""

    name = "reference"

    def __init__(self, registry: Registry) -> None:
        self.registry = registry
        self.engine = ReferenceEngine(registry)

    def resolve_batch(self, batch: CombatBatch) -> BatchOutcome:
        """Resolve every battle of the batch with the reference engine."""
        scenarios = batch_to_scenarios(batch, self.registry)
        return outcome_from_results(batch, [self.engine.resolve(s) for s in scenarios])

    def resolve_many(self, scenarios: Sequence[Scenario]) -> list[CombatResult]:
        """Resolve scenarios one after another with the reference engine (what the decisions
        resolve of boards the batched engine refuses)."""
        return self.engine.resolve_many(scenarios)

    def resolve_turns(self, turns: Sequence[TurnScenario]) -> list[TurnResult]:
        """Resolve turns one after another with the reference engine."""
        return self.engine.resolve_turns(turns)
