"""The shared registry fixture loads what it says: the bundled plugins, nothing else."""

from __future__ import annotations

from conftest import BUNDLED_PLUGINS

from ecs_combat import Registry


def test_the_registry_holds_exactly_the_bundled_plugins(registry: Registry) -> None:
    """An installed third-party plugin (the alpha-strike example, when installed) or one named
    in ECS_COMBAT_PLUGINS is not in the rule tests' registry."""
    assert {p.module for p in registry.plugins} == set(BUNDLED_PLUGINS.values())
    assert "alpha strike" not in registry.keywords


def test_bundled_plugins_are_ecs_combats_own() -> None:
    """The bundled plugins are the ecs_combat_keywords modules (pyproject.toml entry points)."""
    assert len(BUNDLED_PLUGINS) >= 20
    assert all(m.startswith("ecs_combat_keywords.") for m in BUNDLED_PLUGINS.values())
