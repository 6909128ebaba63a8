"""A validated :class:`Scenario` written back as a scenario document (the format of
docs/scenarios.md), as ``resolve`` reads it: ``simulate --replay`` prints a drawn battle so."""

from __future__ import annotations

import json
from typing import Any

from ecs_combat.plugin.registry import Registry
from ecs_combat.scenario.instances import Instance
from ecs_combat.scenario.model import CreatureSpec, Event, Scenario


def scenario_document(scenario: Scenario, registry: Registry) -> dict[str, Any]:
    """The scenario as a document that reads back to the same scenario: players, creatures,
    combat (attackers, blockers, bands, divisions) and events. State that has its default value is
    left out."""
    players: dict[str, Any] = {}
    for pid, player in scenario.players.items():
        table: dict[str, Any] = {"life": player.life}
        if player.lands:
            table["lands"] = list(player.lands)
        table.update(_state(player.state, registry, "player"))
        players[pid] = table
    combat: dict[str, Any] = {"attackers": dict(scenario.attackers)}
    if scenario.blockers:
        combat["blockers"] = {
            blocker: attacked[0] if len(attacked) == 1 else list(attacked)
            for blocker, attacked in scenario.blockers.items()
        }
    if scenario.bands:
        combat["bands"] = [list(band) for band in scenario.bands]
    if scenario.divisions:
        combat["divide"] = [
            {"step": d.step, "source": d.source, "amounts": dict(d.amounts)}
            for d in scenario.divisions
        ]
    doc: dict[str, Any] = {
        "players": players,
        "creatures": {cid: _creature(c, registry) for cid, c in scenario.creatures.items()},
        "combat": combat,
    }
    if scenario.events:
        doc["events"] = [_event(e, registry) for e in scenario.events]
    return doc


def _state(state: dict[str, Any], registry: Registry, owner: str) -> dict[str, Any]:
    fields = registry.state_fields(owner)
    return {
        key: value
        for key, value in state.items()
        if value is not None and (key not in fields or value != fields[key].default)
    }


def _keywords(names: tuple[str, ...], parameters: tuple[Any, ...]) -> list[str]:
    return [str(Instance(n, p)) for n, p in zip(names, parameters, strict=True)]


def _creature(creature: CreatureSpec, registry: Registry) -> dict[str, Any]:
    table: dict[str, Any] = {"name": creature.name} if creature.name != creature.id else {}
    table |= {
        "controller": creature.controller,
        "power": creature.power,
        "toughness": creature.toughness,
    }
    if creature.keywords:
        table["keywords"] = _keywords(creature.keywords, creature.parameters)
    if creature.colors:
        table["colors"] = list(creature.colors)
    if creature.counters:
        table["counters"] = dict(creature.counters)
    if creature.damage:
        table["damage"] = creature.damage
    if creature.types:
        table["types"] = list(creature.types)
    if creature.summoning_sick:
        table["summoning_sick"] = True
    if creature.tapped:
        table["tapped"] = True
    if creature.value is not None:
        table["value"] = creature.value
    if creature.targets:
        table["targets"] = {
            k: ids[0] if len(ids) == 1 else list(ids) for k, ids in creature.targets.items()
        }
    table.update(_state(creature.state, registry, "creature"))
    return table


def _event(event: Event, registry: Registry) -> dict[str, Any]:
    out: dict[str, Any] = {"at": event.at, "action": event.action}
    if event.action == "enter":
        assert event.creature is not None
        creature = _creature(event.creature, registry)
        creature.pop("summoning_sick", None)  # a creature entering always is
        out["creature"] = {"id": event.creature.id, **creature}
        if event.attacking is not None:
            out["attacking"] = event.attacking
        return out
    if event.target is not None:
        out["target"] = event.target
    if event.action in ("grant", "remove"):
        out["keywords"] = _keywords(event.keywords, event.parameters)
    elif event.action == "counters":
        out["counters"] = dict(event.counters)
    elif event.action == "pump":
        out["power"], out["toughness"] = event.power, event.toughness
    elif event.action == "damage":
        out["amount"] = event.amount
    elif event.action == "cast":
        out["card"] = event.card
        out["caster"] = event.caster
    return out


def toml_text(doc: dict[str, Any], comments: tuple[str, ...] = ()) -> str:
    """A scenario document as TOML, after `comments` (one ``#`` line each): players and
    creatures as ``[players.ID]`` and ``[creatures.ID]`` tables, ``[combat]``, then
    ``[[combat.divide]]`` and ``[[events]]`` entries; nested tables inline."""
    lines = [f"# {line}" for line in comments]
    for section in ("players", "creatures"):
        for key, table in doc.get(section, {}).items():
            lines += ["", f"[{section}.{_key(key)}]", *_assignments(table)]
    combat = dict(doc.get("combat", {}))
    divide = combat.pop("divide", [])
    lines += ["", "[combat]", *_assignments(combat)]
    for entry in divide:
        lines += ["", "[[combat.divide]]", *_assignments(entry)]
    for event in doc.get("events", []):
        lines += ["", "[[events]]", *_assignments(event)]
    return "\n".join(lines).lstrip("\n") + "\n"


def race_toml_text(doc: dict[str, Any], comments: tuple[str, ...] = ()) -> str:
    """A race document (docs/races.md) as TOML, after `comments`: players and creatures as
    for :func:`toml_text`, then ``[race]``."""
    lines = [f"# {line}" for line in comments]
    for section in ("players", "creatures"):
        for key, table in doc.get(section, {}).items():
            lines += ["", f"[{section}.{_key(key)}]", *_assignments(table)]
    lines += ["", "[race]", *_assignments(doc["race"])]
    return "\n".join(lines).lstrip("\n") + "\n"


def turn_toml_text(doc: dict[str, Any], comments: tuple[str, ...] = ()) -> str:
    """A turn document (docs/turns.md) as TOML, after `comments`: players and creatures as
    for :func:`toml_text`, ``[turn]``, then one ``[[combats]]`` entry per combat phase, each
    followed by its ``[[combats.divide]]`` and ``[[combats.events]]`` entries."""
    lines = [f"# {line}" for line in comments]
    for section in ("players", "creatures"):
        for key, table in doc.get(section, {}).items():
            lines += ["", f"[{section}.{_key(key)}]", *_assignments(table)]
    if "turn" in doc:
        lines += ["", "[turn]", *_assignments(doc["turn"])]
    for entry in doc.get("combats", []):
        combat = dict(entry)
        divide = combat.pop("divide", [])
        events = combat.pop("events", [])
        lines += ["", "[[combats]]", *_assignments(combat)]
        for item in divide:
            lines += ["", "[[combats.divide]]", *_assignments(item)]
        for event in events:
            lines += ["", "[[combats.events]]", *_assignments(event)]
    return "\n".join(lines).lstrip("\n") + "\n"


def _key(key: str) -> str:
    bare = key and all(c.isascii() and (c.isalnum() or c in "-_") for c in key)
    return key if bare else _value(key)


def _assignments(table: dict[str, Any]) -> list[str]:
    return [f"{_key(k)} = {_value(v)}" for k, v in table.items()]


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, dict):
        inner = ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items())
        return "{ " + inner + " }" if inner else "{}"
    raise TypeError(f"no TOML for {type(value).__name__}")
