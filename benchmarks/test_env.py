"""Races as an environment (docs/env.md, docs/performance.md#races-as-an-environment): steps a
second of the vector form with random legal actions on the decision benchmarks' 3x3 boards
(power and toughness 1-6, keywords): `python -m pytest benchmarks/test_env.py
--benchmark-enable`. Each round takes STEPS steps of NUM_ENVS races; `extra_info` has the steps
a second (one step: one declaration in one race)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from decision_boards import board

from ecs_combat import Registry
from ecs_combat.env import RaceVectorEnv
from ecs_combat.scenario.race import RaceScenario, parse_race

NUM_ENVS = 64
STEPS = 10


def boards(registry: Registry, n: int) -> list[RaceScenario]:
    """The decision benchmarks' 3x3 boards as races of at most 10 turns."""
    rng = np.random.default_rng(7)
    out = []
    for _ in range(n):
        doc = board(rng, 3, 3)
        del doc["combat"]
        for spec in doc["creatures"].values():
            spec.pop("targets", None)
        doc["race"] = {"turns": 10}
        out.append(parse_race(doc, registry, "race3.json"))
    return out


@pytest.mark.parametrize("divisions", ["default", "best"])
def test_vector_env_steps(benchmark: Any, registry: Registry, divisions: str) -> None:
    vec = RaceVectorEnv(boards(registry, 16), NUM_ENVS, registry, divisions=divisions)  # type: ignore[arg-type]
    obs, _ = vec.reset(seed=1)
    rng = np.random.default_rng(1)

    def steps() -> None:
        nonlocal obs
        for _ in range(STEPS):
            legal = obs["action_mask"].sum(axis=1)
            obs, *_ = vec.step((rng.random(NUM_ENVS) * legal).astype(np.int64))

    benchmark.pedantic(steps, rounds=5, warmup_rounds=1)
    benchmark.extra_info["steps_per_second"] = NUM_ENVS * STEPS / benchmark.stats.stats.median
