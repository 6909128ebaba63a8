"""Scenario files with expected outcomes (tests/scenarios, including the shared examples).

Each NAME.toml has a NAME.expected.json that is partial: every field present must match; damage
and died are compared as sets within a step. Every engine must give the same answers.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from ecs_combat import load_scenario
from ecs_combat.plugin.registry import Registry
from ecs_combat.reference.engine import ReferenceEngine

HERE = Path(__file__).resolve().parent / "scenarios"
FILES = sorted(HERE.glob("*.toml"))


def engines(registry: Registry) -> dict[str, Any]:
    found: dict[str, Any] = {"reference": ReferenceEngine(registry)}
    try:
        from ecs_combat.batched.engine import BatchedEngine
    except ImportError:
        return found
    found["batched"] = BatchedEngine(registry)
    return found


def mismatches(expected: dict[str, Any], out: dict[str, Any]) -> list[str]:
    """Differences between a partial expected document and an output, as readable lines."""
    names = [s["name"] for s in out["steps"]]
    want = [s["name"] for s in expected.get("steps", [])]
    if "steps" in expected and names != want:
        return [f"steps {names} != expected {want}"]
    errs = []
    for got, w in zip(out["steps"], expected.get("steps", []), strict=False):
        key = lambda d: (d["source"], d["target"], d["amount"])  # noqa: E731
        if Counter(map(key, got["damage"])) != Counter(map(key, w.get("damage", got["damage"]))):
            errs.append(f"{w['name']}: damage {got['damage']} != {w['damage']}")
        if set(got["died"]) != set(w.get("died", got["died"])):
            errs.append(f"{w['name']}: died {got['died']} != {w['died']}")
        if "life_gained" in w:
            lk = lambda d: (d["player"], d["source"], d["amount"])  # noqa: E731
            if Counter(map(lk, got["life_gained"])) != Counter(map(lk, w["life_gained"])):
                errs.append(f"{w['name']}: life_gained {got['life_gained']} != {w['life_gained']}")
    for kind in ("creatures", "players"):
        for id_, fields in expected.get(kind, {}).items():
            g = out[kind].get(id_, {})
            errs += [
                f"{kind}.{id_}.{k} = {g.get(k)!r}, expected {v!r}"
                for k, v in fields.items()
                if g.get(k) != v
            ]
    if "skipped_events" in expected:
        got_idx = [e["event"] for e in out["skipped_events"]]
        want_idx = [e["event"] if isinstance(e, dict) else e for e in expected["skipped_events"]]
        if got_idx != want_idx:
            errs.append(f"skipped_events {got_idx} != {want_idx}")
    return errs


def test_there_are_scenarios() -> None:
    assert len(FILES) >= 7


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_scenario(registry: Registry, path: Path) -> None:
    expected = json.loads(path.with_name(path.stem + ".expected.json").read_text())
    scenario = load_scenario(path, registry)
    outputs = {
        name: engine.resolve_many([scenario])[0].to_json()
        for name, engine in engines(registry).items()
    }
    for name, out in outputs.items():
        assert mismatches(expected, out) == [], f"{name} engine"
    assert all(out == outputs["reference"] for out in outputs.values()), "engines disagree"
