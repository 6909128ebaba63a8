"""Shared fixtures of the pytest-benchmark suite (commands: docs/performance.md).

Saved runs live in `benchmarks/baselines/` (committed), not in pytest-benchmark's default
`.benchmarks/`, so `--benchmark-compare` finds the committed baseline. The in-process
benchmarks use the bundled plugins only, loaded explicitly, so an installed third-party plugin
(the alpha-strike example adds a hook call per step) doesn't change their figures; the
whole-process ones run `ecs-combat` as a user does, with the installation's plugins.
"""

from __future__ import annotations

from importlib import metadata
from pathlib import Path

import pytest

from ecs_combat.plugin.loading import load_registry
from ecs_combat.plugin.registry import Registry

#: Where `--benchmark-save` writes and `--benchmark-compare` reads, unless given.
BASELINES = Path(__file__).resolve().parent / "baselines"
#: pytest-benchmark's own default for `--benchmark-storage`.
DEFAULT_STORAGE = "file://./.benchmarks"

#: The modules of the bundled keyword plugins, from ecs-combat's own entry points.
BUNDLED_PLUGINS = sorted(
    ep.value for ep in metadata.distribution("ecs-combat").entry_points if ep.group == "ecs_combat"
)


def pytest_configure(config: pytest.Config) -> None:
    """Point `--benchmark-storage` at the committed baselines (runs before pytest-benchmark
    reads it)."""
    if config.getoption("benchmark_storage", None) == DEFAULT_STORAGE:
        config.option.benchmark_storage = f"file://{BASELINES}"
    # The suite's `--dist worksteal` (pyproject addopts) makes pytest-benchmark think xdist
    # is on and disable every benchmark; without `-n` nothing is distributed, so say so.
    if not config.getoption("numprocesses", None):
        config.option.dist = "no"


@pytest.fixture(scope="session")
def registry() -> Registry:
    """The bundled plugins, loaded explicitly."""
    return load_registry(load=BUNDLED_PLUGINS, autoload=False)
