"""Shared fixtures: the plugin registry and helpers that resolve scenarios written inline."""

from __future__ import annotations

import os
import sysconfig
import tomllib
from collections.abc import Callable
from typing import Any

import pytest

from ecs_combat import load_registry, parse_scenario
from ecs_combat.plugins import Registry
from ecs_combat.reference import ReferenceEngine

Resolve = Callable[[str], dict[str, Any]]

# CLI tests run the `ecs-combat` installed beside this interpreter, even in a venv that was
# not activated (`.venv/bin/python -m pytest`).
os.environ["PATH"] = os.pathsep.join([sysconfig.get_path("scripts"), os.environ.get("PATH", "")])


@pytest.fixture(scope="session")
def registry() -> Registry:
    """Every installed plugin, as a user gets them."""
    return load_registry(autoload=True)


@pytest.fixture(scope="session")
def resolve(registry: Registry) -> Resolve:
    """Resolve a TOML scenario given as text with the reference engine; return the JSON document."""
    engine = ReferenceEngine(registry)

    def run(text: str) -> dict[str, Any]:
        scenario = parse_scenario(tomllib.loads(text), registry, "test.toml")
        return engine.resolve(scenario).to_json()

    return run


def step(out: dict[str, Any], name: str) -> dict[str, Any]:
    """The named step of a resolve document (fails if it did not take place)."""
    for s in out["steps"]:
        if s["name"] == name:
            return s
    raise AssertionError(f"no {name} step in {[s['name'] for s in out['steps']]}")


def dealt(out: dict[str, Any], name: str) -> set[tuple[str, str, int]]:
    """The damage of a step as a set of (source, target, amount)."""
    return {(d["source"], d["target"], d["amount"]) for d in step(out, name)["damage"]}


def step_names(out: dict[str, Any]) -> list[str]:
    """The names of the steps that took place."""
    return [s["name"] for s in out["steps"]]
