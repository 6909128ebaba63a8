"""The JSON Schema of the scenario format (`ecs-combat schema`) and the loader agree.

The loader lists the keys it allows in its "unknown key" messages; each table of
`ecs_combat.scenario.schema` must list exactly those. Every valid scenario of the project
validates against the schema, and the invalid ones are rejected exactly when their fault is
one of keys or types.
"""

from __future__ import annotations

import json
import re
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from ecs_combat import load_registry, parse_scenario
from ecs_combat.errors import InputError
from ecs_combat.plugin.registry import Registry
from ecs_combat.scenario.events import EVENT_ACTIONS
from ecs_combat.scenario.json_schema import scenario_schema
from ecs_combat.scenario.loader import read_documents
from ecs_combat.scenario.schema import (
    COMBAT_TABLE,
    DIVISION,
    EVENT,
    SCENARIO,
    TURN_TABLES,
    creature_table,
    player_table,
)
from ecs_combat.scenario.turn_loader import is_turn, parse_turn

ROOT = Path(__file__).resolve().parent.parent
VALID = (
    sorted((ROOT / "tests" / "scenarios").glob("*.toml"))
    + sorted((ROOT / "docs" / "examples").glob("*.toml"))
    + sorted((ROOT / "docs" / "examples").glob("*.json"))
    + sorted((ROOT / "docs" / "examples").glob("*.jsonl"))
    + sorted((ROOT / "docs" / "examples" / "turns").glob("*.*"))
)
#: Invalid scenarios whose fault is one of keys or types: the schema rejects them. The loader
#: rejects the others for what their values mean (an illegal block, a division that doesn't
#: total the power, an id that refers to nothing), which a schema can't see.
KEY_OR_TYPE_FAULTS = {
    "122.1b-defender-counter",
    "122.1b-firstest-strike-counter",
    "122.1b-last-strike-counter",
    "122.1b-triple-strike-counter-event",
    "704.5a-player-starts-at-zero-life",
    "blocker-lists-attacker-twice",
    "division-unknown-step",
    "grant-unknown-keyword",
    "keywords-is-a-string",
    "negative-counter-count",
    "negative-division-amount",
    "negative-noncombat-damage",
    "one-player",
    "power-is-a-boolean",
    "power-is-a-float",
    "scenario-event-unknown-step",
    "scenario-unknown-card",
    "scenario-unknown-keyword",
    "unknown-creature-key",
    # docs/examples/invalid
    "typo",
    "power-string",
    "unknown-point",
    "unknown-keyword",
}
INVALID = [
    p
    for folder in (ROOT / "tests" / "invalid", ROOT / "docs" / "examples" / "invalid")
    for p in sorted(folder.glob("*.toml"))
    if p.stem != "toml-syntax-error"
]


@pytest.fixture(scope="module")
def validator(registry: Registry) -> jsonschema.Draft202012Validator:
    schema = scenario_schema(registry)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def base() -> dict[str, Any]:
    """A valid scenario with one creature of each player, one attack and one block."""
    return {
        "players": {"A": {}, "B": {}},
        "creatures": {
            "x": {"controller": "A", "power": 2, "toughness": 2},
            "y": {"controller": "B", "power": 2, "toughness": 2},
        },
        "combat": {"attackers": {"x": "B"}, "blockers": {"y": "x"}},
    }


def allowed_by_loader(registry: Registry, doc: dict[str, Any], where: str) -> set[str]:
    """The keys the loader allows at `where`, read from its message for an unknown key."""
    with pytest.raises(InputError) as caught:
        (parse_turn if is_turn(doc) else parse_scenario)(doc, registry, "probe.json")
    assert caught.value.path == f"{where}.zz_not_a_key".lstrip("."), caught.value
    found = re.search(r"\(allowed: (.*)\)$", caught.value.message)
    assert found, caught.value.message
    return set(found.group(1).split(", "))


def probes() -> list[tuple[str, dict[str, Any], Any]]:
    """(place, a document with an unknown key there, the keys the schema's table lists: a
    set, or a function of the registry for tables plugins add keys to)."""
    bogus = {"zz_not_a_key": 1}
    out = []
    doc = {**base(), **bogus}
    out.append(("", doc, set(SCENARIO)))
    doc = base()
    doc["players"]["A"] = dict(bogus)
    out.append(("players.A", doc, player_table))
    doc = base()
    doc["creatures"]["x"].update(bogus)
    out.append(("creatures.x", doc, creature_table))
    doc = base()
    doc["combat"].update(bogus)
    out.append(("combat", doc, set(COMBAT_TABLE)))
    doc = base()
    doc["combat"]["divide"] = [dict(bogus)]
    out.append(("combat.divide[0]", doc, set(DIVISION)))
    for action, (required, optional) in EVENT_ACTIONS.items():
        doc = base()
        doc["events"] = [{"at": "declare-blockers", "action": action, **bogus}]
        assert set(required | optional) <= set(EVENT), action
        out.append((f"events[0] ({action})", doc, {"at", "action"} | required | optional))
    doc = base()
    entering = {"id": "z", "controller": "A", "power": 1, "toughness": 1, **bogus}
    doc["events"] = [
        {"at": "declare-blockers", "action": "enter", "attacking": "B", "creature": entering}
    ]
    # The loader allows paired_with there only to say why it can't be (the schema leaves it out).
    out.append(("events[0].creature", doc, creature_table))
    out += turn_probes()
    return out


def turn_probes() -> list[tuple[str, dict[str, Any], Any]]:
    """The same for the tables of a turn file."""
    bogus = {"zz_not_a_key": 1}
    turn: dict[str, Any] = {**base(), "turn": {}, "combats": [base()["combat"]]}
    del turn["combat"]
    shared = {"players", "creatures"}
    out: list[tuple[str, dict[str, Any], Any]] = [
        ("", {**turn, **bogus}, shared | set(TURN_TABLES[""]))
    ]
    out.append(("turn", {**turn, "turn": dict(bogus)}, set(TURN_TABLES["turn"])))
    cast = {"card": "Hat Trick", "caster": "A", "main": 1, "target": "x", **bogus}
    out.append(
        ("turn.casts[0]", {**turn, "turn": {"casts": [cast]}}, set(TURN_TABLES["turn.casts[i]"]))
    )
    phase = {**turn["combats"][0], **bogus}
    out.append(("combats[0]", {**turn, "combats": [phase]}, set(TURN_TABLES["combats[i]"])))
    return out


@pytest.mark.parametrize(("where", "doc", "listed"), probes(), ids=[p[0] for p in probes()])
def test_schema_tables_list_exactly_the_keys_the_loader_allows(
    registry: Registry, where: str, doc: dict[str, Any], listed: Any
) -> None:
    keys = listed if isinstance(listed, set) else set(listed(registry))
    assert allowed_by_loader(registry, doc, where.split(" ")[0]) == keys


def test_event_fields_per_action_match_the_loader(
    validator: jsonschema.Draft202012Validator,
) -> None:
    """Each action allows its own fields and no other event field."""
    for action, (required, optional) in EVENT_ACTIONS.items():
        for other in sorted(set(EVENT) - {"at", "action"} - required - optional):
            doc = base()
            doc["events"] = [{"at": "declare-blockers", "action": action, other: "x"}]
            assert not validator.is_valid(doc), (action, other)


@pytest.mark.parametrize("path", VALID, ids=[p.name for p in VALID])
def test_valid_scenarios_validate(
    registry: Registry, validator: jsonschema.Draft202012Validator, path: Path
) -> None:
    for where, doc in read_documents(path):
        (parse_turn if is_turn(doc) else parse_scenario)(doc, registry, where)  # accepted
        errors = [e.message for e in validator.iter_errors(doc)]
        assert errors == [], where


@pytest.mark.parametrize("path", INVALID, ids=[p.stem for p in INVALID])
def test_invalid_scenarios_rejected_for_keys_and_types(
    validator: jsonschema.Draft202012Validator, path: Path
) -> None:
    """(Some faults, like a division that doesn't total the power, are found only as damage
    is assigned: tests/test_audit_invalid.py runs them all through `ecs-combat resolve`.)"""
    doc = tomllib.loads(path.read_text())
    assert validator.is_valid(doc) == (path.stem not in KEY_OR_TYPE_FAULTS)


def test_every_key_fault_listed_exists() -> None:
    assert {p.stem for p in INVALID} >= KEY_OR_TYPE_FAULTS


def test_wearing_a_hat_needs_a_hat(
    validator: jsonschema.Draft202012Validator, registry: Registry
) -> None:
    """The hats plugin's own check, which the loader runs (a schema checks keys and types)."""
    doc = base()
    doc["players"]["A"] = {"wearing_hat": True, "hat": False}
    assert validator.is_valid(doc)
    with pytest.raises(InputError, match="a player wearing a hat has a hat"):
        parse_scenario(doc, registry, "s.json")
    doc["players"]["A"] = {"wearing_hat": True}
    assert validator.is_valid(doc)
    assert parse_scenario(doc, registry, "s.json").players["A"].state["hat"] is True


def test_keywords_in_any_spelling(validator: jsonschema.Draft202012Validator) -> None:
    doc = base()
    doc["creatures"]["x"]["keywords"] = ["First  Strike", " TRAMPLE "]
    doc["creatures"]["x"]["counters"] = {"Flying": 1}
    assert validator.is_valid(doc)
    doc["creatures"]["x"]["keywords"] = ["first-strike"]
    assert not validator.is_valid(doc)


def test_schema_command_prints_the_schema() -> None:
    """The command's schema is that of the plugins it loads: the installed ones."""
    p = subprocess.run(["ecs-combat", "schema"], capture_output=True, text=True, check=True)
    assert json.loads(p.stdout) == scenario_schema(load_registry())


def test_schema_follows_blocked_plugins() -> None:
    p = subprocess.run(
        ["ecs-combat", "-p", "no:trample", "schema", "scenario"],
        capture_output=True,
        text=True,
        check=True,
    )
    schema = json.loads(p.stdout)
    keywords = schema["$defs"]["creature"]["properties"]["keywords"]["items"]["examples"]
    assert "trample" not in keywords
    assert "deathtouch" in keywords


def test_colors_in_any_case_as_the_loader_reads_them(
    validator: jsonschema.Draft202012Validator, registry: Registry
) -> None:
    """`colors = ["Red"]` loads (colors are read in any case, a color twice counts once): the
    schema accepts what the loader accepts, and refuses what it refuses."""
    doc = base()
    doc["creatures"]["x"]["colors"] = ["Red", " GREEN ", "red"]
    assert validator.is_valid(doc)
    assert parse_scenario(doc, registry, "s.json").creatures["x"].colors == ("red", "green")
    doc["creatures"]["x"]["colors"] = ["purple"]
    assert not validator.is_valid(doc)
    with pytest.raises(InputError, match="unknown color 'purple'"):
        parse_scenario(doc, registry, "s.json")
