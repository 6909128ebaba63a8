"""Shared fixtures: the plugin registry, the engines, and helpers that resolve scenarios written
inline.

The registry holds exactly the plugins bundled with ecs-combat, loaded explicitly: a
third-party plugin installed beside them (or named in ``ECS_COMBAT_PLUGINS``) changes no result.
Tests that take the `resolve` fixture run once per engine (`engine` is "reference" or
"batched"); a scenario the batched engine refuses is skipped there, never answered.
"""

from __future__ import annotations

import os
import sysconfig
import tomllib
from collections.abc import Callable
from importlib import metadata
from typing import Any

import pytest

from ecs_combat import CombatResult, RefusedError, Registry, Scenario, load_registry, parse_scenario
from ecs_combat.batched.engine import BatchedEngine
from ecs_combat.reference.engine import ReferenceEngine
from ecs_combat.simulation.executors import SINGLE_THREADED

Resolve = Callable[[str], dict[str, Any]]

#: The engines every rule test runs on.
ENGINES = ("reference", "batched")

# CLI tests run the `ecs-combat` installed beside this interpreter, even in a venv that was
# not activated (`.venv/bin/python -m pytest`).
os.environ["PATH"] = os.pathsep.join([sysconfig.get_path("scripts"), os.environ.get("PATH", "")])
# A plugin named in the environment would join every registry: the tests name their own.
os.environ.pop("ECS_COMBAT_PLUGINS", None)
# The suite tests the numpy engine's resolve_batch as it is (the engine of a platform without
# numba, and of ECS_COMBAT_KERNELS=0); tests/test_kernels.py turns the compiled kernel on and
# checks it against the numpy and reference engines. ECS_COMBAT_KERNELS=1 in the environment
# runs the whole suite with kernels.
os.environ.setdefault("ECS_COMBAT_KERNELS", "0")

#: The bundled keyword plugins: entry-point name -> module, from ecs-combat's own metadata.
BUNDLED_PLUGINS = {
    ep.name: ep.value
    for ep in metadata.distribution("ecs-combat").entry_points
    if ep.group == "ecs_combat"
}


def bundled_registry(leave_out: tuple[str, ...] = (), extra: tuple[object, ...] = ()) -> Registry:
    """The bundled plugins only (no entry-point autoloading) but those named in `leave_out`,
    plus `extra` plugin objects."""
    modules = [m for name, m in sorted(BUNDLED_PLUGINS.items()) if name not in leave_out]
    return load_registry(load=modules, autoload=False, extra=extra)


def engine_resolver(engine: str, registry: Registry) -> Callable[[Scenario], CombatResult]:
    """Resolve one scenario with the named engine. A scenario the batched engine refuses
    (CONTRACT.md 2: refused, never answered wrongly) skips the test on that engine."""
    if engine == "reference":
        return ReferenceEngine(registry).resolve
    batched = BatchedEngine(registry)

    def run(scenario: Scenario) -> CombatResult:
        try:
            return batched.resolve_many([scenario])[0]
        except RefusedError as exc:
            pytest.skip(f"the batched engine refuses this scenario: {exc}")

    return run


def text_resolver(engine: str, registry: Registry) -> Resolve:
    """Resolve a TOML scenario given as text; return the JSON document of `resolve --json`."""
    run = engine_resolver(engine, registry)

    def resolve(text: str) -> dict[str, Any]:
        return run(parse_scenario(tomllib.loads(text), registry, "test.toml")).to_json()

    return resolve


@pytest.fixture(scope="session")
def registry() -> Registry:
    """The bundled plugins, loaded explicitly."""
    return bundled_registry()


@pytest.fixture(scope="session", params=ENGINES)
def engine(request: pytest.FixtureRequest) -> str:
    """The engine a rule test runs on."""
    name: str = request.param
    return name


@pytest.fixture(scope="session")
def resolve(registry: Registry, engine: str) -> Resolve:
    """Resolve a TOML scenario given as text with `engine`; return the JSON document."""
    return text_resolver(engine, registry)


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


#: Files with the longest tests (worker processes and Dask clusters, the engines' property
#: tests, mypy, a wheel built): collected first, so that under pytest-xdist no worker is left
#: running one of them alone at the end while the other cores wait.
SLOW_FIRST = (
    "test_distribute_dask.py",
    "test_distribute.py",
    "test_batched_agreement.py",
    "test_code_quality.py",
    "test_docs_examples.py",
    "test_card_data.py",
    "test_plugin_kit.py",
)


def pytest_configure(config: pytest.Config) -> None:
    """The environment of the test processes (pytest-xdist's workers, started after this) and
    of every command the tests start; none of it changes a result.

    - A bytecode cache. Where ``PYTHONDONTWRITEBYTECODE`` forbids writing ``__pycache__``
      beside the sources, each process would compile ecs-combat's and the plugins' modules
      (and the test files, rewritten by pytest) from source: about 0.2 s of CPU per
      ``ecs-combat`` started, 5 s per worker. They share one cache in pytest's cache
      directory instead (``PYTHONPYCACHEPREFIX``), outside the sources; without pytest's
      cache (``-p no:cacheprovider``) or with a prefix already set, nothing changes.
    - numpy's BLAS on one thread (as the command's worker processes run it): otherwise each
      process starting numpy starts a thread per core, about 0.07 s of CPU, for linear
      algebra that ecs-combat does not do.
    """
    cache = getattr(config, "cache", None)
    forbidden = os.environ.get("PYTHONDONTWRITEBYTECODE")
    if forbidden and cache is not None and not os.environ.get("PYTHONPYCACHEPREFIX"):
        os.environ["PYTHONPYCACHEPREFIX"] = str(cache.mkdir("pycache"))
        del os.environ["PYTHONDONTWRITEBYTECODE"]
    for name, value in SINGLE_THREADED.items():
        os.environ.setdefault(name, value)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The files of :data:`SLOW_FIRST` first, in that order; the rest as collected."""
    rank = {name: i for i, name in enumerate(SLOW_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))
