"""Shared fixtures of the pytest-benchmark suite (run: docs/performance.md)."""

from __future__ import annotations

import pytest

from ecs_combat.plugins import Registry, load_registry


@pytest.fixture(scope="session")
def registry() -> Registry:
    """Every installed plugin, as a user gets them."""
    return load_registry()
