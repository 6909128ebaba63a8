"""Illegal attacks and blocks (508.1, 509.1, RULES.md section 4), malformed keyword input, and
blocked keyword plugins, through the ``ecs-combat`` command: exit status 2, one message naming
the file, the place in it, the creatures and the rule, and no traceback. The command runs in
this process (tests/cli_run.py); the plugin listing and the control scenario run the installed
command."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from cli_run import Completed, run_cli

#: The keywords of this issue, each its own plugin named like the keyword.
KEYWORDS = [
    "deathtouch", "indestructible", "lifelink", "trample", "flying", "reach", "menace",
    "shadow", "defender", "decayed", "vigilance", "haste", "exalted", "hexproof",
]  # fmt: skip


def installed(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "200"}
    env.pop("ECS_COMBAT_PLUGINS", None)
    env.pop("ECS_COMBAT_DISABLE_PLUGIN_AUTOLOAD", None)
    return subprocess.run(["ecs-combat", *args], capture_output=True, text=True, env=env)


def run(*args: str) -> Completed:
    env = {"COLUMNS": "200", "ECS_COMBAT_PLUGINS": None, "ECS_COMBAT_DISABLE_PLUGIN_AUTOLOAD": None}
    return run_cli(args, env=env)


def rejected(tmp_path: Path, text: str, *options: str) -> str:
    """Resolve a scenario that must be refused as invalid input; return its one message."""
    path = tmp_path / "scenario.toml"
    path.write_text(text)
    p = run(*options, "resolve", str(path), "--json")
    assert p.returncode == 2, (p.returncode, p.stdout, p.stderr)
    assert p.stdout == ""
    assert "Traceback" not in p.stderr
    message = p.stderr.strip()
    assert "\n" not in message
    assert str(path) in message
    return message


def creature(cid: str, controller: str, *keywords: str, extra: str = "") -> str:
    kws = ", ".join(f'"{k}"' for k in keywords)
    return (
        f'[creatures.{cid}]\ncontroller = "{controller}"\npower = 2\ntoughness = 2\n'
        f"keywords = [{kws}]\n{extra}"
    )


PLAYERS = "[players.A]\n[players.B]\n"

ILLEGAL = {
    "flying blocked by a ground creature": (
        creature("drake", "A", "flying")
        + creature("bear", "B")
        + '[combat]\nattackers = { drake = "B" }\nblockers = { bear = "drake" }\n',
        "combat.blockers.bear",
        ["'drake'", "'bear'", "flying", "reach", "702.9"],
    ),
    "menace blocked by one creature": (
        creature("ogre", "A", "menace")
        + creature("bear", "B")
        + '[combat]\nattackers = { ogre = "B" }\nblockers = { bear = "ogre" }\n',
        "combat.blockers.bear",
        ["'ogre'", "'bear'", "menace", "702.111"],
    ),
    "shadow blocked without shadow": (
        creature("wraith", "A", "shadow")
        + creature("bear", "B")
        + '[combat]\nattackers = { wraith = "B" }\nblockers = { bear = "wraith" }\n',
        "combat.blockers.bear",
        ["'wraith'", "'bear'", "shadow", "702.28"],
    ),
    "shadow blocking a creature without shadow": (
        creature("bear", "A")
        + creature("shade", "B", "shadow")
        + '[combat]\nattackers = { bear = "B" }\nblockers = { shade = "bear" }\n',
        "combat.blockers.shade",
        ["'bear'", "'shade'", "shadow", "702.28"],
    ),
    "defender attacking": (
        creature("wall", "A", "defender") + '[combat]\nattackers = { wall = "B" }\n',
        "combat.attackers.wall",
        ["'wall'", "defender", "702.3"],
    ),
    "decayed blocking": (
        creature("bear", "A")
        + creature("zombie", "B", "decayed")
        + '[combat]\nattackers = { bear = "B" }\nblockers = { zombie = "bear" }\n',
        "combat.blockers.zombie",
        ["'zombie'", "decayed", "702.147"],
    ),
    "summoning sick attacker without haste": (
        creature("bear", "A", extra="summoning_sick = true\n")
        + '[combat]\nattackers = { bear = "B" }\n',
        "combat.attackers.bear",
        ["'bear'", "haste", "302.6"],
    ),
    "flying counter blocked by a ground creature": (
        creature("bear", "A", extra="counters = { flying = 1 }\n")
        + creature("cub", "B")
        + '[combat]\nattackers = { bear = "B" }\nblockers = { cub = "bear" }\n',
        "combat.blockers.cub",
        ["'bear'", "'cub'", "flying", "702.9"],
    ),
}


@pytest.mark.parametrize("case", ILLEGAL)
def test_illegal_attack_or_block_is_an_input_error(tmp_path: Path, case: str) -> None:
    """508.1 / 509.1: an illegal declaration is invalid input naming the creatures and rule."""
    text, path, words = ILLEGAL[case]
    message = rejected(tmp_path, PLAYERS + text)
    assert f": {path}: " in message
    for word in words:
        assert word in message


MALFORMED = {
    "a typo in a creature key": (
        creature("bear", "A", extra="sumoning_sick = true\n"),
        "creatures.bear.sumoning_sick",
        "unknown key",
    ),
    "summoning_sick not a boolean": (
        creature("bear", "A", extra='summoning_sick = "yes"\n'),
        "creatures.bear.summoning_sick",
        "true or false",
    ),
    "a keyword off the 122.1b list as a counter": (
        creature("wall", "A", extra="counters = { defender = 1 }\n"),
        "creatures.wall.counters.defender",
        "'defender' can't be a keyword counter (122.1b)",
    ),
    "a negative counter count on a creature": (
        creature("bear", "A", extra="counters = { flying = -1 }\n"),
        "creatures.bear.counters.flying",
        "at least 0",
    ),
    "a counter count that is not an integer": (
        creature("bear", "A", extra='counters = { flying = "one" }\n'),
        "creatures.bear.counters.flying",
        "integer",
    ),
    "an unknown keyword": (
        creature("bear", "A", "flyng"),
        "creatures.bear.keywords[0]",
        "'flyng'",
    ),
    "a creature hat that is not a boolean": (
        creature("bear", "A", extra='hat = "fedora"\n'),
        "creatures.bear.hat",
        "true or false",
    ),
    "a counters event with a keyword off the list": (
        creature("bear", "A")
        + '[combat]\nattackers = { bear = "B" }\n'
        + '[[events]]\nat = "declare-blockers"\naction = "counters"\ntarget = "bear"\n'
        + 'counters = { "last strike" = 1 }\n',
        "events[0].counters.last strike",
        "'last strike' can't be a keyword counter (122.1b)",
    ),
    "Hat Trick aimed at a player": (
        creature("bear", "A")
        + '[combat]\nattackers = { bear = "B" }\n'
        + '[[events]]\nat = "declare-blockers"\naction = "cast"\ncard = "Hat Trick"\n'
        + 'caster = "A"\ntarget = "B"\n',
        "events[0].target",
        "is a player",
    ),
    "Hat Trick cast by an unknown player": (
        creature("bear", "A")
        + '[combat]\nattackers = { bear = "B" }\n'
        + '[[events]]\nat = "declare-blockers"\naction = "cast"\ncard = "Hat Trick"\n'
        + 'caster = "C"\ntarget = "bear"\n',
        "events[0].caster",
        "unknown player 'C'",
    ),
    "Hat Trick without a target": (
        creature("bear", "A")
        + '[combat]\nattackers = { bear = "B" }\n'
        + '[[events]]\nat = "declare-blockers"\naction = "cast"\ncard = "Hat Trick"\n'
        + 'caster = "A"\n',
        "events[0].target",
        "missing",
    ),
    "a trample division short of lethal": (
        creature("rhino", "A", "trample")
        + creature("bear", "B")
        + '[combat]\nattackers = { rhino = "B" }\nblockers = { bear = "rhino" }\n'
        + '[[combat.divide]]\nstep = "regular"\nsource = "rhino"\namounts = { bear = 1, B = 1 }\n',
        "combat.divide[0].amounts",
        "lethal damage to bear",
    ),
}


@pytest.mark.parametrize("case", MALFORMED)
def test_malformed_keyword_input_is_an_input_error(tmp_path: Path, case: str) -> None:
    """CONTRACT.md 2: exit 2, one message naming the file, the place and what is wrong."""
    text, path, words = MALFORMED[case]
    message = rejected(tmp_path, PLAYERS + text)
    assert f": {path}: " in message
    assert words in message


def test_player_wearing_a_hat_must_have_one(tmp_path: Path) -> None:
    """Unfinity ruling: a player wearing a hat has a hat."""
    message = rejected(tmp_path, "[players.A]\nwearing_hat = true\nhat = false\n[players.B]\n")
    assert ": players.A.hat: " in message


def holders() -> str:
    """A scenario in which a creature off combat holds each keyword: legal with every plugin."""
    text = PLAYERS + creature("bear", "A") + '[combat]\nattackers = { bear = "B" }\n'
    for kw in KEYWORDS:
        text += creature(f"holder_{kw}", "A", kw)
    return text


def test_plugins_lists_every_keyword() -> None:
    """CONTRACT.md 4: `ecs-combat plugins` lists each keyword with its plugin."""
    p = installed("plugins", "--json")
    assert p.returncode == 0, p.stderr
    listed = {kw: plugin["name"] for plugin in json.loads(p.stdout) for kw in plugin["keywords"]}
    for kw in KEYWORDS:
        assert listed.get(kw) == kw
    cards = {c for plugin in json.loads(p.stdout) for c in plugin["cards"]}
    assert "Hat Trick" in cards


def test_scenario_using_every_keyword_resolves(tmp_path: Path) -> None:
    """Control for the next test: with every plugin loaded the scenario is valid."""
    path = tmp_path / "holders.toml"
    path.write_text(holders())
    p = installed("resolve", str(path), "--json")
    assert p.returncode == 0, p.stderr


@pytest.mark.parametrize("keyword", KEYWORDS)
def test_blocking_a_plugin_makes_its_keyword_an_input_error(tmp_path: Path, keyword: str) -> None:
    """CONTRACT.md 4: `-p no:NAME` blocks the plugin; a scenario using it is invalid input."""
    message = rejected(tmp_path, holders(), "-p", f"no:{keyword}")
    assert f": creatures.holder_{keyword}.keywords[0]: " in message
    assert f"'{keyword}'" in message
    assert "blocked" in message
