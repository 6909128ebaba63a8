"""The numpy engine's state structures (ecs_combat/batched/state.py): what a run reads and
never changes is immutable, and of the input errors found the first battle's is raised, in
whatever order the steps found them (as the reference engine, battle by battle, would)."""

from __future__ import annotations

import dataclasses

import pytest

from ecs_combat.batched import BatchedEngine
from ecs_combat.batched.state import Errors
from ecs_combat.errors import InputError
from ecs_combat.plugin.registry import Registry
from ecs_combat.simulation.generate import draw_battles
from ecs_combat.simulation.generators import make_generator
from ecs_combat.simulation.spec import tournament


def test_the_first_battles_error_is_raised_whatever_order_they_were_found_in() -> None:
    errors = Errors()
    errors.raise_first()  # none found: nothing raised
    third, first, second = (InputError(f"b{i}.toml", "combat", "bad") for i in (3, 1, 2))
    errors.fail(3, third)
    assert errors.known_before(3) and not errors.known_before(2)
    errors.fail(1, first)
    errors.fail(2, second)  # after battle 1's: kept out
    assert errors.known_before(1) and not errors.known_before(0)
    with pytest.raises(InputError) as raised:
        errors.raise_first()
    assert raised.value is first


def test_the_frame_of_a_run_does_not_change(registry: Registry) -> None:
    generator = make_generator(tournament(registry), registry)
    batch = draw_battles(generator, 1, 0, 8).batch
    state = BatchedEngine(registry, kernels=False).start(batch, record=False)
    assert (state.frame.n, state.frame.nb) == (batch.n_creatures, 8)
    with pytest.raises(dataclasses.FrozenInstanceError):
        state.frame.n = 0  # type: ignore[misc]
