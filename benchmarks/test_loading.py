"""Loading: one scenario of N attacker/blocker pairs from a JSON file, and a JSON Lines file of
10,000 small scenarios. Time should grow linearly with N: compare `microseconds_per_pair` across
sizes (docs/performance.md). Resolving JSON Lines: the whole `ecs-combat resolve FILE.jsonl
--engine batched --json` of 100,000 lines, and `BatchedEngine.resolve_many` of loaded ones."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ecs_combat.batched.engine import BatchedEngine
from ecs_combat.plugin.registry import Registry
from ecs_combat.scenario.loader import load_scenarios


def pairs_document(n: int) -> dict[str, Any]:
    """A scenario where each of n attackers is blocked by its own blocker."""
    creatures: dict[str, Any] = {}
    attackers: dict[str, str] = {}
    blockers: dict[str, str] = {}
    for i in range(n):
        creatures[f"a{i}"] = {"controller": "alice", "power": 2, "toughness": 2}
        creatures[f"b{i}"] = {"controller": "bob", "power": 1, "toughness": 3}
        attackers[f"a{i}"] = "bob"
        blockers[f"b{i}"] = f"a{i}"
    return {
        "players": {"alice": {}, "bob": {}},
        "creatures": creatures,
        "combat": {"attackers": attackers, "blockers": blockers},
    }


@pytest.mark.benchmark(group="loading")
@pytest.mark.parametrize("pairs", [2_000, 8_000, 20_000])
def test_load_pairs(benchmark: Any, registry: Registry, tmp_path: Path, pairs: int) -> None:
    path = tmp_path / "pairs.json"
    path.write_text(json.dumps(pairs_document(pairs)), encoding="utf-8")
    (scenario,) = benchmark.pedantic(load_scenarios, (path, registry), rounds=3, warmup_rounds=1)
    assert len(scenario.attackers) == pairs
    if benchmark.stats:
        benchmark.extra_info.update(
            pairs=pairs, microseconds_per_pair=round(benchmark.stats.stats.min / pairs * 1e6, 1)
        )


@pytest.mark.benchmark(group="loading")
def test_load_jsonl_lines(benchmark: Any, registry: Registry, tmp_path: Path) -> None:
    lines = 10_000
    path = tmp_path / "many.jsonl"
    line = json.dumps(pairs_document(1))
    path.write_text((line + "\n") * lines, encoding="utf-8")

    scenarios = benchmark.pedantic(load_scenarios, (path, registry), rounds=3, warmup_rounds=1)
    assert len(scenarios) == lines
    if benchmark.stats:
        benchmark.extra_info.update(
            lines=lines, microseconds_per_line=round(benchmark.stats.stats.min / lines * 1e6, 1)
        )


#: The long JSON Lines file of docs/performance.md: 100,000 two-creature lines (23.5 MB).
RESOLVE_LINES = 100_000


def jsonl_file(tmp_path: Path, lines: int) -> Path:
    path = tmp_path / "many.jsonl"
    line = json.dumps(pairs_document(1))
    path.write_text((line + "\n") * lines, encoding="utf-8")
    return path


def ecs_combat_command() -> list[str]:
    """The installation's `ecs-combat`, beside this Python."""
    exe = Path(sys.executable).with_name("ecs-combat")
    return (
        [str(exe)]
        if exe.exists()
        else [sys.executable, "-c", "from ecs_combat.cli import main; main()"]
    )


@pytest.mark.benchmark(group="JSON Lines, resolve")
def test_resolve_jsonl_whole_process(benchmark: Any, tmp_path: Path) -> None:
    """`ecs-combat resolve many.jsonl --engine batched --json > out` as a user runs it
    (start-up included, this installation's plugins)."""
    path = jsonl_file(tmp_path, RESOLVE_LINES)
    out = tmp_path / "out"
    args = [*ecs_combat_command(), "resolve", str(path), "--engine", "batched", "--json"]

    def run() -> None:
        with out.open("wb") as stream:
            subprocess.run(args, check=True, stdout=stream)

    benchmark.pedantic(run, rounds=3, warmup_rounds=0)
    assert out.read_bytes().count(b"\n") == RESOLVE_LINES
    if benchmark.stats:
        benchmark.extra_info.update(
            lines=RESOLVE_LINES,
            lines_per_second=round(RESOLVE_LINES / benchmark.stats.stats.min),
        )


@pytest.mark.benchmark(group="JSON Lines, resolve")
def test_resolve_many_loaded(benchmark: Any, registry: Registry, tmp_path: Path) -> None:
    """The Python API's way (the decision search's): `BatchedEngine.resolve_many` of loaded
    scenarios, 1,000 at a time (scenarios_to_batch, the engine, the CombatResults)."""
    lines = 10_000
    scenarios = load_scenarios(jsonl_file(tmp_path, lines), registry)
    engine = BatchedEngine(registry)

    def resolve() -> int:
        return sum(len(engine.resolve_many(scenarios[i : i + 1000])) for i in range(0, lines, 1000))

    assert benchmark.pedantic(resolve, rounds=3, warmup_rounds=1) == lines
    if benchmark.stats:
        benchmark.extra_info.update(
            lines=lines, scenarios_per_second=round(lines / benchmark.stats.stats.min)
        )
