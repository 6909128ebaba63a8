"""The plugin under test, for the test kit's ``ecs_combat_registry`` fixture."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def ecs_combat_plugins() -> list[str]:
    return ["ecs_combat_legacy"]
