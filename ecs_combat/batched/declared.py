"""The creatures of a combat as attackers and as blockers are declared, played by the batched
engine: the :class:`~ecs_combat.rules.declaring.DeclarationPlayer` the scenario reader and the
decisions name (:func:`play_declarations`). A board the batched engine refuses (a plugin's
system or static ability without a batched form) is played by the reference engine, as
:class:`~ecs_combat.batched.convert.ReferenceBatchEngine` resolves such boards.

The rules core asks it only where the plugins' ``before_blocks`` parts can't say what
happens before blocks (:mod:`ecs_combat.rules.before_blocks`): a system without one
(mentor's), a static ability, parts that read what others
change.
"""

from __future__ import annotations

import dataclasses
import threading

import numpy as np

from ecs_combat.batched import combat
from ecs_combat.batched.engine import BatchedEngine
from ecs_combat.batched.from_scenarios import scenarios_to_batch
from ecs_combat.batched.keyword_rows import KeywordRows
from ecs_combat.batched.keywords import instances, lands, refresh, types
from ecs_combat.batched.state import CreatureRows, Frame
from ecs_combat.errors import RefusedError
from ecs_combat.plugin.definitions import FROM_WORDS
from ecs_combat.plugin.registry import Registry
from ecs_combat.rules.declaring import Declared
from ecs_combat.rules.sides import KeywordSide, Parameter
from ecs_combat.scenario.model import Scenario

#: One engine per registry (the last few), made when first asked.
_ENGINES: dict[int, tuple[Registry, BatchedEngine]] = {}
_LOCK = threading.Lock()
_KEPT = 8


def _engine(registry: Registry) -> BatchedEngine:
    with _LOCK:
        held = _ENGINES.get(id(registry))
        if held is None or held[0] is not registry:
            if len(_ENGINES) >= _KEPT:
                _ENGINES.clear()
            held = _ENGINES[id(registry)] = (registry, BatchedEngine(registry, kernels=False))
        return held[1]


def play_declarations(
    scenario: Scenario, registry: Registry, attackers_tapped: bool = True
) -> Declared:
    """The creatures as attackers are declared and as blockers are declared, in one run of a
    one-battle batch: the combat begun, the scenario's attackers declared and the
    declare-attackers step's systems and triggers run (its blockers are not read); by the
    reference engine if the batched engine refuses the board. All of them run whatever
    `attackers_tapped`. Of the scenario's creatures only: a token made before blocks
    (myriad's) is in no scenario's blocks."""
    board = dataclasses.replace(scenario, blockers={})
    engine = _engine(registry)
    try:
        state = engine.start(scenarios_to_batch([board], registry), record=False)
    except RefusedError:
        from ecs_combat.reference.characteristics import play_declarations as in_a_world

        return in_a_world(scenario, registry, attackers_tapped)
    refresh(state, None)
    state.errors.raise_first()
    ids = list(scenario.creatures)
    attacking = _sides(state.frame, state.keywords, state.creatures, len(ids))
    combat.declare_attackers(state)
    refresh(state, None)
    state.errors.raise_first()
    blocking = _sides(state.frame, state.keywords, state.creatures, len(ids))
    rows = state.creatures
    gone = ~rows.on_bf[: len(ids)]
    if state.combat.returned is not None:
        gone |= state.combat.returned[: len(ids)]
    declared = np.array([cid in scenario.attackers for cid in ids], np.bool_)
    gone |= declared & ~state.combat.att[: len(ids)]
    made = [
        (ids[b], ids[a], keyword)
        for bs, as_, keyword in state.combat.required_blocks
        for b, a in zip(bs.tolist(), as_.tolist(), strict=True)
        if b < len(ids) and a < len(ids)
    ]
    return Declared(
        dict(zip(ids, attacking, strict=True)),
        dict(zip(ids, blocking, strict=True)),
        {ids[r] for r in np.flatnonzero(rows.tapped[: len(ids)]).tolist()},
        made,
        {ids[r] for r in np.flatnonzero(gone).tolist()},
    )


def _sides(frame: Frame, kw: KeywordRows, creatures: CreatureRows, n: int) -> list[KeywordSide]:
    """The first `n` creature rows as they are now: keyword instances (printed, granted,
    counters, static abilities), colors, power, types and their controller's lands."""
    found: list[list[tuple[str, Parameter]]] = [[] for _ in range(n)]
    registry = frame.schedule.registry
    for name in sorted(frame.schedule.masks.bit):
        keyword = registry.keyword(name)
        worded = keyword is not None and keyword.parameter == "color"
        rows, params = instances(frame, kw, name)
        for row, p in zip(rows.tolist(), params.tolist(), strict=True):
            if row < n:
                found[row].append((name, None if p < 0 else FROM_WORDS[p] if worded else p))
    colors, power = creatures.colors, creatures.power
    type_bits, land_bits = types(frame), lands(frame)[creatures.controller]
    return [
        KeywordSide(
            found[r],
            int(colors[r]),
            power=int(power[r]),
            type_bits=int(type_bits[r]),
            land_bits=int(land_bits[r]),
        )
        for r in range(n)
    ]
