"""Real cards: loading the database, modeling every card, suggesting names for a typo, and the
whole `ecs-combat cards` command as a user runs it (docs/cards.md)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from typing import Any

import pytest

from ecs_combat.cards import library
from ecs_combat.cards.database import database
from ecs_combat.cards.library import closest_card_names, modelings
from ecs_combat.plugin.registry import Registry


def _load() -> int:
    database.cache_clear()
    return len(database())


@pytest.mark.benchmark(group="cards")
def test_load_database(benchmark: Any) -> None:
    assert benchmark.pedantic(_load, rounds=5, warmup_rounds=1) == 12_584


@pytest.mark.benchmark(group="cards")
def test_model_every_card(benchmark: Any, registry: Registry) -> None:
    database()

    def model() -> int:
        library._modelings.clear()
        return len(modelings(registry))

    assert benchmark.pedantic(model, rounds=5, warmup_rounds=1) == 12_584


@pytest.mark.benchmark(group="cards")
def test_suggest_names_for_a_typo(benchmark: Any, registry: Registry) -> None:
    found = benchmark.pedantic(
        closest_card_names, ("sera angle", registry), rounds=10, warmup_rounds=1
    )
    assert found[0] == "Serra Angel"


def command() -> list[str]:
    """The installed `ecs-combat` (or the same through this interpreter)."""
    exe = shutil.which("ecs-combat")
    return [exe] if exe else [sys.executable, "-c", "from ecs_combat.cli.main import main; main()"]


@pytest.mark.benchmark(group="cards")
@pytest.mark.parametrize("args", [("serra",), ("--exact", "--limit", "0")])
def test_cards_command(benchmark: Any, args: tuple[str, ...]) -> None:
    def run() -> int:
        return subprocess.run([*command(), "cards", *args], capture_output=True).returncode

    assert benchmark.pedantic(run, rounds=3, warmup_rounds=1) == 0
