"""``ecs-combat cards`` (CONTRACT.md section 7, docs/cards.md): filters, JSON, the plain layout
in a pipe and Rich tables on a terminal, counts; split cards' faces and combined
characteristics."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
from cli_run import Completed, run_cli
from conftest import BUNDLED_PLUGINS, bundled_registry

from ecs_combat.cards.database import database
from ecs_combat.cards.listing import CardQuery, counts, find_entries, library_entries, types_of

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str, env: dict[str, str] | None = None) -> Completed:
    """`ecs-combat cards ARGS` in this process (tests/cli_run.py), bundled plugins only."""
    overrides: dict[str, str | None] = {"COLUMNS": "200", **(env or {})}
    overrides |= {"ECS_COMBAT_PLUGINS": None, "ECS_COMBAT_DISABLE_PLUGIN_AUTOLOAD": None}
    return run_cli(["cards", *args, *bundled_only()], env=overrides, cwd=ROOT)


def installed(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The installed command (a real pipe, a real terminal's environment)."""
    full_env = {**os.environ, "COLUMNS": "200", **(env or {})}
    full_env.pop("ECS_COMBAT_PLUGINS", None)
    full_env.pop("ECS_COMBAT_DISABLE_PLUGIN_AUTOLOAD", None)
    return subprocess.run(
        ["ecs-combat", "cards", *args, *bundled_only()],
        capture_output=True,
        text=True,
        env=full_env,
        cwd=ROOT,
    )


def bundled_only() -> list[str]:
    """``-p no:NAME`` for every installed plugin that ecs-combat does not bundle."""
    from importlib import metadata

    others = [e.name for e in metadata.entry_points(group="ecs_combat")]
    return [arg for name in others if name not in BUNDLED_PLUGINS for arg in ("-p", f"no:{name}")]


def cards_json(*args: str) -> list[dict[str, Any]]:
    proc = run(*args, "--json")
    assert proc.returncode == 0, proc.stderr
    doc: list[dict[str, Any]] = json.loads(proc.stdout)
    return doc


def test_json_object_per_contract() -> None:
    (angel,) = cards_json("serra angel")
    assert angel == {
        "name": "Serra Angel",
        "mana_cost": "{3}{W}{W}",
        "mana_value": 5,
        "colors": ["white"],
        "types": ["creature"],
        "type_line": "Creature — Angel",
        "power": 4,
        "toughness": 4,
        "keywords": ["flying", "vigilance"],
        "status": "exact",
        "ignored_text": [],
        "text": "Flying, vigilance",
        "set": "LEA",
        "source": "database",
    }


def test_query_matches_part_of_the_name_in_any_case() -> None:
    names = [c["name"] for c in cards_json("SERRA ANG")]
    assert names == ["Serra Angel"]


def test_plugin_cards_are_listed_with_their_plugin() -> None:
    found = {c["name"]: c for c in cards_json("--plugin-only")}
    assert {"Hat Trick", "Throat Wolf"} <= set(found)
    assert found["Throat Wolf"]["source"] == "throat_wolf"
    assert found["Throat Wolf"]["set"] == "CMB1"  # from the database card it stands in for
    assert found["Throat Wolf"]["keywords"] == ["firstest strike"]
    assert found["Hat Trick"]["types"] == ["instant"]
    assert "power" not in found["Hat Trick"]
    assert all(c["source"] != "database" for c in found.values())


def test_keyword_filter_by_name_and_by_instance() -> None:
    any_bushido = cards_json("--keyword", "bushido", "--mana-value", "2")
    assert any_bushido and all(
        any(k.startswith("bushido ") for k in c["keywords"]) and c["mana_value"] == 2
        for c in any_bushido
    )
    two = cards_json("--keyword", "Bushido 2", "--mana-value", "2")
    assert {c["name"] for c in two} < {c["name"] for c in any_bushido}
    assert all("bushido 2" in c["keywords"] for c in two)
    assert "Inner-Chamber Guard" in {c["name"] for c in two}


def test_several_keywords_must_all_be_there() -> None:
    found = cards_json("-k", "flying", "-k", "vigilance", "-k", "lifelink", "--exact")
    assert found
    assert all({"flying", "vigilance", "lifelink"} <= set(c["keywords"]) for c in found)


def test_color_set_and_status_filters() -> None:
    found = cards_json("--set", "lea", "--color", "white", "--exact")
    names = {c["name"] for c in found}
    assert {"Serra Angel", "White Knight"} <= names
    assert all(c["set"] == "LEA" and "white" in c["colors"] for c in found)
    colorless = cards_json("--color", "colorless", "--set", "LEA")
    assert colorless and all(c["colors"] == [] for c in colorless)
    approximate = cards_json("brindle", "--approximate")
    assert approximate and all(c["status"] == "approximate" for c in approximate)
    assert all(c["ignored_text"] for c in approximate)


def test_limit() -> None:
    assert len(cards_json("angel", "--limit", "3")) == 3
    assert len(cards_json("angel")) > 3


def test_unknown_keyword_exits_2() -> None:
    proc = run("--keyword", "flsh")
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr.startswith("ecs-combat: --keyword: unknown keyword 'flsh'")
    assert len(proc.stderr.splitlines()) == 1


def test_pipe_output_is_plain_lines_with_counts() -> None:
    proc = installed("serra")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].split() == [
        "name", "cost", "mv", "colors", "p/t", "keywords", "status", "set", "source"
    ]  # fmt: skip
    assert not re.search("[│┃─━]", proc.stdout)
    assert any(line.startswith("Serra Angel  ") for line in lines)
    shown = lines[1:-1]
    exact = sum(" exact " in line for line in shown)
    assert lines[-1].startswith(
        f"{len(shown)} cards matched: {exact} exact, {len(shown) - exact} approximate (the "
        "library: "
    )


def test_readable_form_shows_fifty_rows_unless_told() -> None:
    proc = run("a")
    lines = proc.stdout.splitlines()
    assert len(lines) == 1 + 50 + 2
    assert lines[-1] == "Showing the first 50; --limit 0 shows all."


def test_no_match() -> None:
    proc = run("no card is named like this")
    assert proc.stdout.splitlines()[0] == "No card matches."


def test_terminal_output_is_a_rich_table() -> None:
    proc = installed("serra angel", env={"TTY_COMPATIBLE": "1", "TTY_INTERACTIVE": "0"})
    assert proc.returncode == 0, proc.stderr
    assert "┃" in proc.stdout or "│" in proc.stdout
    assert "Serra Angel" in proc.stdout


def test_counts_of_the_whole_library() -> None:
    registry = bundled_registry()
    entries = library_entries(registry)
    exact, approximate = counts(entries)
    # The database, plus the plugins' cards the database lacks (Hat Trick; Throat Wolf stands
    # in for its database card).
    lacking = [c for c in registry.library() if database().find(c.name) is None]
    assert "Hat Trick" in {c.name for c in lacking}
    assert "Throat Wolf" not in {c.name for c in lacking}
    assert len(entries) == len(database()) + len(lacking)
    assert exact + approximate == len(entries)
    proc = run("serra angel")
    assert proc.stdout.splitlines()[-1].endswith(
        f"(the library: {len(entries):,} cards, {exact:,} exact, {approximate:,} approximate)."
    )


def test_type_lines_give_card_types() -> None:
    assert types_of("Legendary Artifact Creature — Golem") == ("artifact", "creature")
    assert types_of("Summon Wolf") == ("creature",)


def test_split_card_has_faces_and_combined_characteristics() -> None:
    """709.4: a split card has both halves' characteristics combined; each half its own.
    Assault // Battery: mana value 1 + 4 = 5, red and green. Response // Resurgence: 2 + 5 = 7,
    red and white."""
    entries = library_entries(bundled_registry())
    (split,) = find_entries(CardQuery(text="assault // battery"), entries)
    doc = split.to_json()
    assert doc["name"] == "Assault // Battery"
    assert (doc["mana_value"], doc["colors"], doc["types"]) == (5, ["red", "green"], ["sorcery"])
    assert [(f["name"], f["mana_value"], f["colors"]) for f in doc["faces"]] == [
        ("Assault", 1, ["red"]),
        ("Battery", 4, ["green"]),
    ]
    found = find_entries(CardQuery(colors=("green",), mana_value=5, plugin_only=True), entries)
    assert found == [split]
    assert {f["source"] for f in doc["faces"]} == {doc["source"]}
    (other,) = find_entries(CardQuery(text="response // resurgence"), entries)
    assert (other.to_json()["mana_value"], other.to_json()["colors"]) == (7, ["white", "red"])


@pytest.mark.parametrize("args", [("--mana-value", "x"), ("--color", "purple")])
def test_bad_option_values_exit_2(args: tuple[str, ...]) -> None:
    assert run(*args).returncode == 2
