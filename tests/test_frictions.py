"""The first hour's frictions, each pinned by the command's answer: run in this process
(tests/cli_run.py), the help texts and `ecs-combat docs` through the installed command."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from cli_run import Completed, run_cli

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = (
    '[players.A]\n[players.B]\n\n[creatures.knight]\ncontroller = "A"\npower = 1\n'
    'toughness = 1\n{extra}\n[combat]\nattackers = {{ knight = "B" }}\n{events}'
)


def installed(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["ecs-combat", *args], capture_output=True, text=True, cwd=ROOT)


def run(*args: str) -> Completed:
    """The command in this process (tests/cli_run.py)."""
    return run_cli(args, cwd=ROOT)


def test_simulate_on_a_turn_file_says_to_resolve_it() -> None:
    p = run("simulate", "docs/examples/turns/two-wolves.toml")
    assert p.returncode == 2
    assert p.stderr.strip() == (
        "ecs-combat: docs/examples/turns/two-wolves.toml: this looks like a turn file (it has "
        "creatures, players), not a SPEC file: use `ecs-combat resolve "
        "docs/examples/turns/two-wolves.toml`"
    )


def test_a_spec_with_a_turn_still_simulates() -> None:
    p = run("simulate", "examples/specs/extra-combat.toml", "-n", "50", "--seed", "1", "--json")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["battles"] == 50


def test_a_duplicate_toml_key_names_its_table(tmp_path: Path) -> None:
    path = tmp_path / "dup.toml"
    path.write_text(SCENARIO.format(extra="power = 2", events=""))
    p = run("resolve", str(path))
    assert p.returncode == 2
    assert (
        p.stderr.strip()
        == f"ecs-combat: {path}: creatures.knight.power: duplicate key 'power' (line 8)"
    )


def test_a_duplicate_json_key_names_its_table(tmp_path: Path) -> None:
    path = tmp_path / "dup.json"
    path.write_text(
        '{"players": {"A": {}, "B": {}}, "creatures": {"knight": {"controller": "A", '
        '"power": 1, "toughness": 1, "power": 2}}, "combat": {"attackers": {"knight": "B"}}}'
    )
    p = run("resolve", str(path))
    assert p.returncode == 2
    assert p.stderr.strip() == f"ecs-combat: {path}: creatures.knight.power: duplicate key 'power'"


def test_an_unknown_event_target_gets_the_closest_creature(tmp_path: Path) -> None:
    path = tmp_path / "event.toml"
    events = (
        '\n[[events]]\nat = "declare-blockers"\naction = "pump"\ntarget = "kinght"\npower = 1\n'
    )
    path.write_text(SCENARIO.format(extra="", events=events))
    p = run("resolve", str(path))
    assert p.returncode == 2
    assert p.stderr.strip().endswith(
        "events[0].target: unknown creature 'kinght'; did you mean 'knight'?"
    )


def test_cards_suggests_the_closest_name() -> None:
    p = run("cards", "sera angle")
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines()[0] == "No card matches; did you mean 'Serra Angel'?"


def test_cards_refuses_an_unknown_set() -> None:
    p = run("cards", "--set", "LEAX")
    assert p.returncode == 2
    assert (
        "--set LEAX: no card of the library was first printed in a set with this code" in p.stderr
    )
    assert "did you mean 'LEA'?" in p.stderr
    known = run("cards", "--set", "lea", "--limit", "1")
    assert known.returncode == 0 and "matched" in known.stdout


def test_plugins_shows_what_keywords_take() -> None:
    p = run("plugins")
    assert p.returncode == 0, p.stderr
    rows = {line.split()[0]: line for line in p.stdout.splitlines() if line.strip()}
    assert "bushido N" in rows["bushido"]
    assert "protection from COLOR" in rows["protection"]
    doc = json.loads(run("plugins", "--json").stdout)
    parameters = {k: v for plugin in doc for k, v in plugin["parameters"].items()}
    assert parameters["bushido"] == "number" and parameters["protection"] == "color"
    assert parameters["flying"] is None


def test_the_docs_pages_help_texts_name_are_installed() -> None:
    """`resolve --help` names docs/scenarios.md; a pip user reads it with `ecs-combat docs`."""
    assert "ecs-combat docs PAGE" in installed("--help").stdout.replace("\n  ", " ")
    page = installed("docs", "scenarios")
    assert page.returncode == 0, page.stderr
    assert page.stdout == (ROOT / "docs" / "scenarios.md").read_text()
    assert installed("docs", "docs/output.md").stdout == (ROOT / "docs" / "output.md").read_text()
    listing = installed("docs").stdout.splitlines()
    assert {line.split()[0] for line in listing} == {p.stem for p in (ROOT / "docs").glob("*.md")}
    wrong = installed("docs", "scenarois")
    assert wrong.returncode == 2
    assert wrong.stderr.strip().endswith("did you mean 'scenarios'?")
