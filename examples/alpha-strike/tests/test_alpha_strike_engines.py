"""Alpha strike's batched form against its reference form, with ecs-combat's test kit:
random legal scenarios using alpha strike (and first strike, which it gives) resolve to the
same ``resolve --json`` document on both engines."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings

from ecs_combat import Registry
from ecs_combat.testing import assert_engines_agree, registry_with, scenarios

REGISTRY = registry_with("ecs_combat_alpha_strike")


@pytest.fixture(scope="module")
def ecs_combat_plugins() -> list[str]:
    """The plugin under test, for the kit's `ecs_combat_registry` fixture (usually in the
    package's conftest.py)."""
    return ["ecs_combat_alpha_strike"]


@settings(max_examples=150, derandomize=True, deadline=None, database=None)
@given(scenarios(REGISTRY, keywords=["alpha strike", "first strike", "trample"]))
def test_engines_agree(doc: dict[str, Any]) -> None:
    assert_engines_agree(REGISTRY, doc)


def test_the_fixture_adds_alpha_strike(ecs_combat_registry: Registry) -> None:
    """The kit's registry fixture: the bundled plugins plus the one under test."""
    assert "alpha strike" in ecs_combat_registry.keywords
    assert "first strike" in ecs_combat_registry.keywords


def test_alpha_strike_gives_first_strike_on_both_engines(ecs_combat_registry: Registry) -> None:
    """Aardvark blocked by Zebra strikes first and kills it (docs/plugins.md section 2)."""
    doc = {
        "players": {"A": {}, "B": {}},
        "creatures": {
            "aardvark": {
                "name": "Aardvark",
                "controller": "A",
                "power": 2,
                "toughness": 2,
                "keywords": ["alpha strike"],
            },
            "zebra": {"name": "Zebra", "controller": "B", "power": 2, "toughness": 2},
        },
        "combat": {"attackers": {"aardvark": "B"}, "blockers": {"zebra": "aardvark"}},
    }
    out = assert_engines_agree(ecs_combat_registry, doc)
    assert [s["name"] for s in out["steps"]] == ["first-strike", "regular"]
    assert out["steps"][0]["died"] == ["zebra"]
