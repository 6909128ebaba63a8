"""Scenario validation (CONTRACT.md section 1): every problem names its place and what is wrong."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import pytest

from ecs_combat import InputError, ReferenceEngine, load_scenarios, parse_scenario
from ecs_combat.plugin.registry import Registry

BASE = """
[players.A]
[players.B]

[creatures.bear]
controller = "A"
power = 2
toughness = 2

[creatures.cub]
controller = "B"
power = 1
toughness = 1

[combat]
attackers = { bear = "B" }
blockers = { cub = "bear" }
"""


def doc(extra: str = "", base: str = BASE) -> dict[str, Any]:
    return tomllib.loads(base + extra)


def error(registry: Registry, document: dict[str, Any]) -> InputError:
    """The input error of a document, found as it is read or, for the state it starts in
    (lethal damage already marked), as the reference engine begins the combat."""
    with pytest.raises(InputError) as info:
        ReferenceEngine(registry).resolve(parse_scenario(document, registry, "s.toml"))
    return info.value


def test_valid_scenario_parses(registry: Registry) -> None:
    s = parse_scenario(doc(), registry, "s.toml")
    assert s.attackers == {"bear": "B"}
    assert s.blockers == {"cub": ("bear",)}
    assert s.active_player == "A"


@pytest.mark.parametrize(
    ("mutate", "path", "fragment"),
    [
        (lambda d: d.update(extra=1), "extra", "unknown key"),
        (lambda d: d["creatures"]["bear"].update(pwoer=1), "creatures.bear.pwoer", "unknown key"),
        (lambda d: d["creatures"]["bear"].update(power="2"), "creatures.bear.power", "integer"),
        (lambda d: d["creatures"]["bear"].update(power=True), "creatures.bear.power", "integer"),
        (lambda d: d["creatures"]["bear"].update(power=10**19), "creatures.bear.power", "out of range"),
        (lambda d: d["creatures"]["bear"].pop("toughness"), "creatures.bear.toughness", "missing"),
        (lambda d: d["creatures"]["bear"].update(toughness=0), "creatures.bear.toughness", "704.5f"),
        (lambda d: d["creatures"]["bear"].update(damage=2), "creatures.bear.damage", "704.5g"),
        (lambda d: d["creatures"]["bear"].update(damage=-1), "creatures.bear.damage", "at least 0"),
        (lambda d: d["creatures"]["bear"].update(controller="Z"), "creatures.bear.controller", "unknown player"),
        (lambda d: d["creatures"]["bear"].update(keywords="flying"), "creatures.bear.keywords", "list"),
        (lambda d: d["creatures"]["bear"].update(keywords=["quadruple strike"]), "creatures.bear.keywords[0]", "quadruple strike"),
        (lambda d: d["creatures"]["bear"].update(counters={"firstest strike": 1}), "creatures.bear.counters.firstest strike", "122.1b"),
        (lambda d: d["creatures"]["bear"].update(hat="yes"), "creatures.bear.hat", "true or false"),
        (lambda d: d["creatures"]["bear"].update(paired_with="nobody"), "creatures.bear.paired_with", "unknown creature"),
        (lambda d: d["players"]["A"].update(life="x"), "players.A.life", "integer"),
        (lambda d: d["players"].pop("B"), "players", "two players"),
        (lambda d: d["creatures"].update(A={"controller": "A", "power": 1, "toughness": 1}), "creatures.A", "player"),
        (lambda d: d["combat"]["attackers"].update(ghost="B"), "combat.attackers.ghost", "unknown creature"),
        (lambda d: d["combat"]["attackers"].update(bear="A"), "combat.attackers.bear", "own controller"),
        (lambda d: d["combat"]["attackers"].update(bear="Q"), "combat.attackers.bear", "unknown player"),
        (lambda d: d["combat"]["attackers"].update(cub="A"), "combat.attackers.cub", "active player"),
        (lambda d: d["combat"]["blockers"].update(cub="ghost"), "combat.blockers.cub", "unknown creature"),
        (lambda d: d["combat"]["blockers"].update(cub="cub"), "combat.blockers.cub", "not attacking"),
        (lambda d: d["combat"]["blockers"].update(cub=[]), "combat.blockers.cub", "at least one"),
        (lambda d: d["combat"]["blockers"].update(cub=["bear", "bear"]), "combat.blockers.cub", "twice"),
        (lambda d: d["combat"]["blockers"].update(bear="bear"), "combat.blockers.bear", "attacking"),
        (lambda d: d["combat"].update(divide={}), "combat.divide", "list"),
        (lambda d: d.update(events=[{"at": "declare-blockers"}]), "events[0].action", "missing"),
        (lambda d: d.update(events=[{"at": "after lunch", "action": "grant"}]), "events[0].at", "unknown point"),
        (lambda d: d.update(events=[{"at": "declare-blockers", "action": "explode"}]), "events[0].action", "unknown action"),
        (lambda d: d.update(events=[{"at": "declare-blockers", "action": "grant", "target": "bear"}]), "events[0].keywords", "missing"),
        (lambda d: d.update(events=[{"at": "declare-blockers", "action": "grant", "target": "bear", "keywords": ["first strike"], "amount": 1}]), "events[0].amount", "unknown key"),
        (lambda d: d.update(events=[{"at": "declare-blockers", "action": "destroy", "target": "ghost"}]), "events[0].target", "unknown creature"),
        (lambda d: d.update(events=[{"at": "declare-blockers", "action": "destroy", "target": "A"}]), "events[0].target", "player"),
        (lambda d: d.update(events=[{"at": "declare-blockers", "action": "damage", "target": "bear", "amount": -2}]), "events[0].amount", "at least 0"),
        (lambda d: d.update(events=[{"at": "declare-blockers", "action": "cast", "card": "Lightning Bolt", "caster": "A", "target": "bear"}]), "events[0].card", "card library"),
        (lambda d: d.update(events=[{"at": "declare-blockers", "action": "enter", "attacking": "B", "creature": {"controller": "A", "power": 1, "toughness": 1}}]), "events[0].creature.id", "missing"),
        (lambda d: d.update(events=[{"at": "declare-blockers", "action": "enter", "attacking": "B", "creature": {"id": "bear", "controller": "A", "power": 1, "toughness": 1}}]), "events[0].creature.id", "duplicate"),
        (lambda d: d.update(events=[{"at": "declare-blockers", "action": "enter", "attacking": "A", "creature": {"id": "pup", "controller": "A", "power": 1, "toughness": 1}}]), "events[0].attacking", "own controller"),
    ],
)  # fmt: skip
def test_invalid_scenarios_name_the_place(
    registry: Registry, mutate: Any, path: str, fragment: str
) -> None:
    d = doc()
    mutate(d)
    err = error(registry, d)
    assert err.path == path
    assert fragment in err.message
    assert str(err).startswith(f"s.toml: {path}: ")


def test_event_target_must_have_entered_before_the_event(registry: Registry) -> None:
    """Events are checked in the order they happen: a creature entering later can't be targeted."""
    d = doc()
    d["events"] = [
        {"at": "declare-blockers", "action": "destroy", "target": "pup"},
        {
            "at": "after regular",
            "action": "enter",
            "attacking": "B",
            "creature": {"id": "pup", "controller": "A", "power": 1, "toughness": 1},
        },
    ]
    err = error(registry, d)
    assert err.path == "events[0].target"
    assert "enters only later" in err.message


@pytest.mark.parametrize(
    ("division", "path", "fragment"),
    [
        ({"step": "regular", "source": "bear"}, "combat.divide[0].amounts", "missing"),
        ({"step": "second", "source": "bear", "amounts": {}}, "combat.divide[0].step", "unknown damage step"),
        ({"step": "regular", "source": "ghost", "amounts": {}}, "combat.divide[0].source", "unknown creature"),
        ({"step": "regular", "source": "bear", "amounts": {"A": 2}}, "combat.divide[0].amounts.A", "can assign damage only to"),
        ({"step": "regular", "source": "bear", "amounts": {"cub": -1}}, "combat.divide[0].amounts.cub", "at least 0"),
    ],
)  # fmt: skip
def test_invalid_divisions(
    registry: Registry, division: dict[str, Any], path: str, fragment: str
) -> None:
    d = doc()
    d["combat"]["divide"] = [division]
    err = error(registry, d)
    assert (err.path, fragment in err.message) == (path, True)


def test_second_division_for_the_same_source_and_step(registry: Registry) -> None:
    d = doc()
    d["combat"]["divide"] = [{"step": "regular", "source": "bear", "amounts": {"cub": 2}}] * 2
    assert error(registry, d).path == "combat.divide[1]"


def test_702_95_pairing_is_with_a_creature_on_the_battlefield(registry: Registry) -> None:
    """702.95: soulbond pairs creatures on the battlefield; one entering later can't be named."""
    enter = {
        "at": "declare-blockers",
        "action": "enter",
        "attacking": "B",
        "creature": {"id": "pup", "controller": "A", "power": 1, "toughness": 1},
    }
    d = doc()
    d["creatures"]["bear"]["paired_with"] = "pup"
    d["events"] = [enter]
    err = error(registry, d)
    assert (err.path, "enters only later" in err.message) == ("creatures.bear.paired_with", True)
    d = doc()
    d["events"] = [{**enter, "creature": {**enter["creature"], "paired_with": "bear"}}]
    assert error(registry, d).path == "events[0].creature.paired_with"


def test_keywords_are_case_insensitive(registry: Registry) -> None:
    d = doc()
    d["creatures"]["bear"]["keywords"] = ["Double  Strike", "FIRST strike"]
    s = parse_scenario(d, registry, "s.toml")
    assert s.creatures["bear"].keywords == ("double strike", "first strike")


def test_json_and_jsonl_files(registry: Registry, tmp_path: Path) -> None:
    d = doc()
    (tmp_path / "one.json").write_text(json.dumps(d))
    (tmp_path / "many.jsonl").write_text(json.dumps(d) + "\n\n" + json.dumps(d) + "\n")
    assert len(load_scenarios(tmp_path / "one.json", registry)) == 1
    assert len(load_scenarios(tmp_path / "many.jsonl", registry)) == 2


def test_jsonl_errors_name_the_line(registry: Registry, tmp_path: Path) -> None:
    d = doc()
    bad = doc()
    bad["creatures"]["bear"]["power"] = "x"
    f = tmp_path / "many.jsonl"
    f.write_text(json.dumps(d) + "\n" + json.dumps(bad) + "\n")
    with pytest.raises(InputError) as info:
        load_scenarios(f, registry)
    assert str(info.value).startswith(f"{f}:2: creatures.bear.power:")


def test_json_duplicate_keys_are_errors(registry: Registry, tmp_path: Path) -> None:
    f = tmp_path / "dup.json"
    f.write_text('{"players": {"A": {}, "A": {}}}')
    with pytest.raises(InputError, match="duplicate key 'A'"):
        load_scenarios(f, registry)


@pytest.mark.parametrize(
    ("name", "text", "fragment"),
    [
        ("bad.toml", "[players\n", "not valid TOML"),
        ("bad.json", "{", "not valid JSON"),
        ("bad.yaml", "a: 1", "unknown file type"),
        ("empty.jsonl", "\n", "no scenario"),
    ],
)
def test_unreadable_files(
    registry: Registry, tmp_path: Path, name: str, text: str, fragment: str
) -> None:
    f = tmp_path / name
    f.write_text(text)
    with pytest.raises(InputError, match=fragment):
        load_scenarios(f, registry)


def test_missing_file(registry: Registry, tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        load_scenarios(tmp_path / "nope.toml", registry)
