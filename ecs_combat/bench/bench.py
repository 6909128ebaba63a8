"""`ecs-combat bench`: the engines side by side on this machine.

Workloads: the default keyword tournament (batched engine, reference engine and the
hand-written floor of :mod:`ecs_combat.bench.floor`) and a melee (:func:`melee_spec`). Every figure
is the best of a few runs of the whole simulation pipeline (draw, resolve, tally) in this
process; `engine s` is the time inside the engine alone. With `whole_process`, the tournament
is also timed as whole processes, ``ecs-combat simulate --json`` against
``python -m ecs_combat.bench.floor``, start-up included.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any

from ecs_combat.bench import floor
from ecs_combat.plugin.registry import Registry
from ecs_combat.simulation.generators import make_generator
from ecs_combat.simulation.simulate import default_chunk_size, make_engine, simulate
from ecs_combat.simulation.spec import BattleSpec, SideSpec, Spec, tournament

#: The targets of docs/performance.md.
TARGET_REFERENCE_RATIO = 300.0
TARGET_FLOOR_RATIO = 4.0
TARGET_MELEE_CREATURES = 10_000_000


def melee_spec(registry: Registry) -> BattleSpec:
    """The melee: 5 attackers a battle, 0-3 blockers per attacker, power and toughness 1-6,
    each installed strike keyword with probability 0.1."""
    from ecs_combat.simulation.spec import strike_keywords

    side = SideSpec((1, 6), (1, 6), {k: 0.1 for k in strike_keywords(registry)})
    return BattleSpec(
        attackers=(5, 5),
        blockers_per_attacker=(0, 3),
        life=20,
        attacker=side,
        blocker=side,
    )


@dataclass
class Measurement:
    """One row of the table."""

    workload: str
    engine: str
    battles: int
    creatures: int
    seconds: float
    engine_seconds: float | None

    @property
    def battles_per_second(self) -> float:
        """Battles resolved per second, whole pipeline."""
        return self.battles / self.seconds

    @property
    def creatures_per_second(self) -> float:
        """Creatures resolved per second, whole pipeline."""
        return self.creatures / self.seconds


def _best(repeat: int, run: Callable[[], Measurement]) -> Measurement:
    return min((run() for _ in range(max(repeat, 1))), key=lambda m: m.seconds)


def measure_engine(
    registry: Registry, spec: Spec, workload: str, engine: str, battles: int, seed: int
) -> Measurement:
    """Time the simulation pipeline of one engine on one workload."""
    generator = make_generator(spec, registry)
    resolver = make_engine(engine, registry)
    run = simulate(generator, engine, resolver, seed, battles, default_chunk_size(spec, engine))
    return Measurement(
        workload, engine, battles, run.tally.creatures, run.seconds, run.engine_seconds
    )


def measure_floor(registry: Registry, battles: int, seed: int) -> Measurement:
    """Time the hand-written floor on the tournament."""
    began = time.perf_counter()
    floor.tournament(registry, battles, seed)
    seconds = time.perf_counter() - began
    return Measurement("tournament", "floor", battles, 2 * battles, seconds, None)


def _process_seconds(command: list[str], repeat: int) -> float:
    best = float("inf")
    for _ in range(max(repeat, 1)):
        began = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        best = min(best, time.perf_counter() - began)
    return best


def whole_process(battles: int, seed: int, repeat: int) -> dict[str, float]:
    """Wall time of ``ecs-combat simulate --json`` and of the floor as whole processes."""
    exe = shutil.which("ecs-combat")
    simulate_cmd = (
        [exe] if exe else [sys.executable, "-c", "from ecs_combat.cli.main import main; main()"]
    )
    args = ["--battles", str(battles), "--seed", str(seed)]
    engine = _process_seconds([*simulate_cmd, "simulate", *args, "--json"], repeat)
    floor_seconds = _process_seconds(
        [sys.executable, "-m", "ecs_combat.bench.floor", *args], repeat
    )
    return {"simulate": engine, "floor": floor_seconds, "ratio": engine / floor_seconds}


def run_bench(
    registry: Registry,
    battles: int,
    reference_battles: int,
    melee_battles: int,
    seed: int,
    repeat: int,
    processes: bool,
) -> dict[str, Any]:
    """Run every measurement; the report as JSON data."""
    spec = tournament(registry)
    melee = melee_spec(registry)
    rows = [
        _best(
            repeat, lambda: measure_engine(registry, spec, "tournament", "batched", battles, seed)
        ),
        measure_engine(registry, spec, "tournament", "reference", reference_battles, seed),
        _best(repeat, lambda: measure_floor(registry, battles, seed)),
        _best(
            repeat, lambda: measure_engine(registry, melee, "melee", "batched", melee_battles, seed)
        ),
        measure_engine(
            registry, melee, "melee", "reference", max(reference_battles // 10, 1), seed
        ),
    ]
    by = {(m.workload, m.engine): m for m in rows}
    batched, reference = by[("tournament", "batched")], by[("tournament", "reference")]
    melee_batched = by[("melee", "batched")]
    report: dict[str, Any] = {
        "rows": [
            {
                **asdict(m),
                "battles_per_second": m.battles_per_second,
                "creatures_per_second": m.creatures_per_second,
            }
            for m in rows
        ],
        "targets": {
            "batched_vs_reference": batched.battles_per_second / reference.battles_per_second,
            "batched_vs_floor_time": batched.seconds / by[("tournament", "floor")].seconds,
            "melee_creatures_per_second": melee_batched.creatures_per_second,
            "melee_engine_creatures_per_second": (
                melee_batched.creatures / melee_batched.engine_seconds
                if melee_batched.engine_seconds
                else None
            ),
        },
    }
    if processes:
        report["whole_process"] = whole_process(battles, seed, repeat)
    return report


def missed_targets(report: dict[str, Any]) -> list[str]:
    """The targets of docs/performance.md that a report of :func:`run_bench` misses, one line
    each: batched >= 300x the reference engine's battles/s on the tournament; the batched
    tournament within 4x the floor's time as whole processes (in this process when whole
    processes were not timed); the melee >= 10 million creatures/s inside the engine."""
    t = report["targets"]
    missed = []
    ratio = t["batched_vs_reference"]
    if ratio < TARGET_REFERENCE_RATIO:
        missed.append(
            f"batched vs reference, tournament: {ratio:,.0f}x the battles/s, "
            f"target >= {TARGET_REFERENCE_RATIO:.0f}x"
        )
    whole = report.get("whole_process")
    floor_ratio, where = (
        (whole["ratio"], "whole processes")
        if whole is not None
        else (t["batched_vs_floor_time"], "in this process")
    )
    if floor_ratio > TARGET_FLOOR_RATIO:
        missed.append(
            f"batched vs floor, tournament, {where}: {floor_ratio:.2f}x the floor's time, "
            f"target <= {TARGET_FLOOR_RATIO:.0f}x"
        )
    melee = t["melee_engine_creatures_per_second"] or t["melee_creatures_per_second"]
    if melee < TARGET_MELEE_CREATURES:
        missed.append(
            f"melee, batched: {melee:,.0f} creatures resolved/s inside the engine, "
            f"target >= {TARGET_MELEE_CREATURES:,}"
        )
    return missed
