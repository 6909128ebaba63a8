"""Loading: one scenario of N attacker/blocker pairs from a JSON file, and a JSON Lines file of
10,000 small scenarios. Time should grow linearly with N: compare `microseconds_per_pair` across
sizes (docs/performance.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

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
