"""The compiled kernel checked against the reference engine on one document: what a plugin's
kernel parts do against what its reference form does."""

from __future__ import annotations

from typing import Any

import numpy as np

from ecs_combat.batched import ReferenceBatchEngine, scenarios_to_batch
from ecs_combat.errors import InputError, RefusedError
from ecs_combat.plugin.registry import Registry
from ecs_combat.scenario.loader import parse_scenario
from ecs_combat.testing.drawing import copy_document
from ecs_combat.testing.registries import engines_for

#: The outcome's arrays the reference engine gives, compared.
COMPARED = (
    "alive",
    "damage",
    "power",
    "toughness",
    "life",
    "lost",
    "died_in_step",
    "damage_to_players",
    "returned",
)


def assert_kernel_agrees(
    registry: Registry, doc: dict[str, Any], file: str = "scenario.toml"
) -> bool:
    """If the plugin set's compiled kernel resolves a scenario document, fail unless its
    outcome is the reference engine's; whether it did (not: kernels are off, numba is
    missing, or the scenario uses something the kernel lacks, such as events or a system
    without a kernel part)."""
    try:
        scenario = parse_scenario(copy_document(doc), registry, file)
    except InputError:
        return False
    _, batched = engines_for(registry)
    kernel = batched.kernel()
    if kernel is None:
        return False
    try:
        batch = scenarios_to_batch([scenario], registry)
        schedule = batched.schedules.of([batch])
    except (InputError, RefusedError):
        return False
    if kernel.refusal(schedule, batch):
        return False
    ours = kernel.resolve(schedule, batch)
    reference = ReferenceBatchEngine(registry)
    theirs = reference.resolve_batch(batch)
    for name in COMPARED:
        a, b = getattr(ours, name), getattr(theirs, name)
        if not np.array_equal(a, b):
            raise AssertionError(
                f"the compiled kernel and the reference engine disagree on {name} in {file}: "
                f"kernel {a.tolist()}, reference {b.tolist()}"
            )
    # the players' state the output shows (poison counters), from the reference's result
    result = reference.engine.resolve(scenario)
    for key, values in (ours.player_state or {}).items():
        shown = [p.state[key] for p in result.players.values() if key in p.state]
        if len(shown) == len(values) and values.tolist() != shown:
            raise AssertionError(
                f"the compiled kernel and the reference engine disagree on the players' "
                f"{key} in {file}: kernel {values.tolist()}, reference {shown}"
            )
    return True
