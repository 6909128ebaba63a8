"""One battle of many creatures (docs/performance.md, "One battle of a million
creatures"): reading its JSON file into columns (the loader alone), resolving it from arrays
(the engine alone), and the whole `ecs-combat resolve FILE --json --engine batched` process;
and a SPEC of large battles, `examples/specs/large-melee.toml` (1,000 battles of about 10,000
creatures), at the melee's rate.

The battle is the one of `large_battle` below (the wave-4 reproducer's): N attackers of A,
a fifth with first strike; N blockers of B, each on a random attacker; power and toughness 1-6.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ecs_combat.batched import BatchedEngine, rows_to_batch
from ecs_combat.plugin.registry import Registry
from ecs_combat.scenario.battle_file import read_battle
from ecs_combat.scenario.quick_rows import RowReader


def large_battle(n: int) -> dict[str, Any]:
    """One battle of 2n creatures: n attackers, n blockers each on a random attacker."""
    rng = random.Random(36)
    creatures: dict[str, Any] = {}
    attackers: dict[str, str] = {}
    blockers: dict[str, str] = {}
    for i in range(n):
        t: dict[str, Any] = {"controller": "A", "power": rng.randint(1, 6)}
        t["toughness"] = rng.randint(1, 6)
        if rng.random() < 0.2:
            t["keywords"] = ["first strike"]
        creatures[f"a{i}"] = t
        attackers[f"a{i}"] = "B"
    for i in range(n):
        creatures[f"b{i}"] = {
            "controller": "B", "power": rng.randint(1, 6), "toughness": rng.randint(1, 6),
        }  # fmt: skip
        blockers[f"b{i}"] = f"a{rng.randrange(n)}"
    return {
        "players": {"A": {"life": 10**9}, "B": {"life": 10**9}},
        "creatures": creatures,
        "combat": {"attackers": attackers, "blockers": blockers},
    }


@pytest.fixture(scope="module")
def battle_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("large") / "big.json"
    path.write_text(json.dumps(large_battle(100_000)))
    return path


def _per_second(benchmark: Any, creatures: int) -> None:
    if benchmark.stats:
        benchmark.extra_info.update(
            creatures=creatures,
            creatures_per_second=round(creatures / benchmark.stats.stats.min),
        )


@pytest.mark.benchmark(group="large battle")
def test_read_battle(benchmark: Any, registry: Registry, battle_file: Path) -> None:
    """The loader alone: the file's text to checked columns, 200,000 creatures."""
    rows = benchmark.pedantic(
        read_battle, (battle_file, RowReader(registry)), rounds=3, warmup_rounds=1
    )
    assert rows is not None and len(rows.battle) == 200_000
    _per_second(benchmark, 200_000)


@pytest.mark.benchmark(group="large battle")
def test_resolve_from_arrays(benchmark: Any, registry: Registry, battle_file: Path) -> None:
    """The engine alone: the battle's batch resolved, 200,000 creatures."""
    rows = read_battle(battle_file, RowReader(registry))
    assert rows is not None
    batch = rows_to_batch(rows, registry, [str(battle_file)])
    engine = BatchedEngine(registry)
    benchmark.pedantic(engine.resolve_batch, (batch,), rounds=3, warmup_rounds=1)
    _per_second(benchmark, 200_000)


@pytest.mark.benchmark(group="large battle")
def test_resolve_command(benchmark: Any, battle_file: Path, tmp_path: Path) -> None:
    """The whole process, as a user runs it: `ecs-combat resolve big.json --json --engine
    batched`, 200,000 creatures."""
    out = tmp_path / "out.json"
    exe = Path(sys.executable).with_name("ecs-combat")
    command = [str(exe), "resolve", str(battle_file), "--json", "--engine", "batched"]

    def run() -> None:
        with out.open("wb") as f:
            subprocess.run(command, stdout=f, check=True)

    benchmark.pedantic(run, rounds=3, warmup_rounds=0)
    assert json.loads(out.read_text())["players"]["A"]["lost"] is False
    _per_second(benchmark, 200_000)


LARGE_MELEE = Path(__file__).resolve().parent.parent / "examples" / "specs" / "large-melee.toml"


@pytest.mark.benchmark(group="large battle")
def test_large_melee_spec(benchmark: Any, registry: Registry) -> None:
    """examples/specs/large-melee.toml, 1,000 battles of about 10,000 creatures, from the SPEC
    file to the summary (as `test_melee_spec_as_the_user_runs_it` runs the melee)."""
    from test_melee import record, run_spec

    run = benchmark.pedantic(run_spec, (registry, LARGE_MELEE, 1_000), rounds=3, warmup_rounds=1)
    record(benchmark, run.tally.creatures, 1_000)
