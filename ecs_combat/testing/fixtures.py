"""The kit's pytest fixtures (the kit is a pytest plugin: entry point ``ecs_combat`` in the group
``pytest11``)."""

from __future__ import annotations

import pytest

from ecs_combat.plugin.registry import Registry
from ecs_combat.testing.registries import registry_with


@pytest.fixture(scope="module")
def ecs_combat_plugins() -> list[str]:
    """The modules of the plugins under test, beside the bundled ones: override it in your
    ``conftest.py`` (``return ["my_package"]``)."""
    return []


@pytest.fixture(scope="module")
def ecs_combat_registry(ecs_combat_plugins: list[str]) -> Registry:
    """A registry of exactly the bundled plugins plus those `ecs_combat_plugins` names."""
    return registry_with(*ecs_combat_plugins)
