"""Race decisions on random boards (docs/performance.md#races): the first decision of a race
on the decision benchmarks' 3x3 boards (power and toughness 1-6, keywords), with each horizon:
`python -m pytest benchmarks/test_races.py --benchmark-enable`. Each round decides every board
once (a new policy each time: nothing remembered between boards); `extra_info` has the median
time per decision."""

from __future__ import annotations

import statistics
import time
from typing import Any

import numpy as np
import pytest
from decision_boards import board

from ecs_combat import Registry
from ecs_combat.decisions.race import OptimalPolicy
from ecs_combat.rules.race import RaceState, start
from ecs_combat.scenario.race import parse_race

BOARDS = 9


def races(registry: Registry, size: int) -> list[RaceState]:
    """The boards of `decision_boards` as races, each as its first turn begins."""
    rng = np.random.default_rng(1 + 1000 * size)
    out = []
    for _ in range(BOARDS):
        doc = board(rng, size, size)
        del doc["combat"]
        for spec in doc["creatures"].values():
            spec.pop("targets", None)
        doc["race"] = {}
        out.append(start(parse_race(doc, registry, f"race{size}.json"), registry))
    return out


@pytest.mark.parametrize("horizon", ["combat", "two combats"])
def test_race_decision_3x3(benchmark: Any, registry: Registry, horizon: str) -> None:
    states = races(registry, 3)
    OptimalPolicy(registry, horizon).attack(states[0])  # warm: imports, caches
    per_board: list[float] = []

    def once() -> None:
        for state in states:
            policy = OptimalPolicy(registry, horizon)
            began = time.perf_counter()
            decided = policy.attack(state)
            per_board.append(time.perf_counter() - began)
            assert decided.optimal

    benchmark.pedantic(once, rounds=3, iterations=1)
    benchmark.extra_info.update(
        boards=BOARDS,
        horizon=horizon,
        median_ms_per_decision=round(statistics.median(per_board) * 1000, 1),
        max_ms_per_decision=round(max(per_board) * 1000, 1),
    )


def test_bulk_races(benchmark: Any, registry: Registry) -> None:
    """Races 0-63 of ``examples/specs/races.toml`` (boards of 1 to 3 creatures a side, power
    and toughness 1-6, first and double strike), played together with the per-combat optimal
    policy, as ``ecs-combat simulate`` plays a chunk of them; `extra_info` has the combats
    played, the candidate combats the searches resolved to decide them, and their ratio (the
    target of issue 31: at most 20)."""
    from pathlib import Path

    from ecs_combat.simulation.generators import make_generator
    from ecs_combat.simulation.races import play_chunk
    from ecs_combat.simulation.simulate import make_engine
    from ecs_combat.simulation.spec_reader import load_spec

    spec = load_spec(Path(__file__).parent.parent / "examples" / "specs" / "races.toml", registry)
    generator = make_generator(spec, registry)
    engine = make_engine("batched", registry)
    play_chunk(generator, engine, 1, 0, 2)  # warm: imports, caches
    counted: list[tuple[int, int]] = []

    def once() -> None:
        player = play_chunk(generator, engine, 1, 0, 64).player
        counted.append((player.combats_played, player.combats_resolved))

    benchmark.pedantic(once, rounds=1, iterations=1)
    played, resolved = counted[-1]
    benchmark.extra_info.update(
        races=64,
        combats_played=played,
        combats_resolved=resolved,
        resolved_per_combat_played=round(resolved / played, 2),
    )
