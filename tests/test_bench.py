"""`ecs-combat bench` and the hand-written floor it measures the batched engine against."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ecs_combat.bench import floor
from ecs_combat.plugin.registry import Registry
from ecs_combat.simulation.generate import draw_battles
from ecs_combat.simulation.generators import make_generator
from ecs_combat.simulation.seeded_blocks import BLOCK, block_rng
from ecs_combat.simulation.simulate import make_engine
from ecs_combat.simulation.spec import tournament

TINY = ("--battles", "3000", "--reference-battles", "40", "--melee-battles", "300", "--repeat", "1")


def bench(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "200"}
    env.pop("ECS_COMBAT_PLUGINS", None)
    return subprocess.run(["ecs-combat", "bench", *args], capture_output=True, text=True, env=env)


def test_bench_prints_the_side_by_side_table() -> None:
    p = bench(*TINY, "--in-process")
    assert p.returncode == 0, p.stderr
    text = p.stdout
    for heading in ("workload", "engine", "battles/s", "creatures/s", "vs ref."):
        assert heading in text
    for row in ("tournament", "melee", "batched", "reference", "floor"):
        assert row in text
    assert "target ≥ 300x" in text and "target ≤ 4x" in text and "target ≥ 10,000,000" in text
    assert "whole processes" not in text


def test_bench_json_and_whole_process_timing() -> None:
    p = bench(*TINY, "--json", "--whole-process")
    assert p.returncode == 0, p.stderr
    report = json.loads(p.stdout)
    rows = {(r["workload"], r["engine"]): r for r in report["rows"]}
    assert set(rows) == {
        ("tournament", "batched"),
        ("tournament", "reference"),
        ("tournament", "floor"),
        ("melee", "batched"),
        ("melee", "reference"),
    }
    assert rows[("tournament", "batched")]["battles"] == 3000
    assert rows[("tournament", "batched")]["creatures"] == 6000
    assert rows[("tournament", "reference")]["battles"] == 40
    assert rows[("melee", "reference")]["battles"] == 4
    assert rows[("melee", "batched")]["creatures"] > 5 * 300
    assert report["targets"]["batched_vs_reference"] > 0
    whole = report["whole_process"]
    assert whole["ratio"] == pytest.approx(whole["simulate"] / whole["floor"])


def test_floor_and_batched_engine_agree_battle_by_battle(registry: Registry) -> None:
    """The floor resolves the tournament's steps by hand (510.4, 702.4b, 702.7b and the Un-set
    strike rulings); on the same battles it must agree with the engine creature by creature."""
    spec = tournament(registry)
    gen = make_generator(spec, registry)
    drawn = draw_battles(gen, 3, 0, 4 * BLOCK)
    cols = [gen.draw(block_rng(3, b), BLOCK).battle_cols for b in range(4)]
    keyword = np.concatenate([c["keyword"] for c in cols]).astype(np.int64)
    power = np.concatenate([c["power"] for c in cols]).astype(np.int64)
    toughness = np.concatenate([c["toughness"] for c in cols]).astype(np.int64)
    table = np.stack(
        [keyword[:, 0], keyword[:, 1], power[:, 0], toughness[:, 0], power[:, 1], toughness[:, 1]],
        axis=1,
    )
    attacker_alive, blocker_alive = floor.resolve(
        floor.strike_table(registry, spec.keywords), table
    )
    outcome = make_engine("batched", registry).resolve_batch(drawn.batch)
    assert np.array_equal(attacker_alive, outcome.alive[0::2])
    assert np.array_equal(blocker_alive, outcome.alive[1::2])


def test_floor_strike_table_follows_the_steps(registry: Registry) -> None:
    """RULES.md section 2: who deals damage in which step, alone against a creature without
    keywords. Firstest and first strike: own step only; double strike: first-strike and
    regular (702.4b); triple strike: all three; last strike: only after regular damage."""
    keywords = ("firstest strike", "first strike", "double strike", "triple strike", "last strike")
    if not set(keywords) <= set(registry.keywords):
        pytest.skip("the bundled strike keywords are not all loaded")
    table = floor.strike_table(registry, keywords)
    steps = registry.step_names
    dealt = {
        name: [steps[i] for i in np.flatnonzero(row)]
        for name, row in zip(("none", *keywords), table, strict=True)
    }
    assert dealt == {
        "none": ["regular"],
        "firstest strike": ["firstest-strike"],
        "first strike": ["first-strike"],
        "double strike": ["first-strike", "regular"],
        "triple strike": ["first-strike", "regular", "last-strike"],
        "last strike": ["last-strike"],
    }


def test_the_documented_benchmark_command_times_the_benchmarks(tmp_path: Path) -> None:
    """docs/performance.md's `python -m pytest benchmarks ... --benchmark-enable` measures: the
    suite's `--dist worksteal` (pyproject addopts) must not make pytest-benchmark disable
    every benchmark as if xdist were running them."""
    root = Path(__file__).resolve().parent.parent
    out = tmp_path / "bench.json"
    p = subprocess.run(
        [
            *(sys.executable, "-m", "pytest", "benchmarks/test_core.py", "-q"),
            *("-p", "no:cacheprovider", "-k", "core_batched_rules"),
            *("--benchmark-enable", f"--benchmark-json={out}"),
        ],
        cwd=root,
        capture_output=True,
        text=True,
        env={k: v for k, v in os.environ.items() if not k.startswith("PYTEST_XDIST")},
    )
    assert p.returncode == 0, p.stdout + p.stderr
    assert "automatically disabled" not in p.stdout + p.stderr
    timed = json.loads(out.read_text())["benchmarks"]
    assert [b["name"] for b in timed] == ["test_core_batched_rules_scenarios"]
    assert timed[0]["stats"]["rounds"] == 15
