"""A validated :class:`Scenario` written back as a scenario document (the format of
docs/scenarios.md), as ``resolve`` reads it: ``simulate --replay`` prints a drawn battle so."""

from __future__ import annotations

from typing import Any

from ecs_combat.plugin.registry import Registry
from ecs_combat.scenario.instances import Instance
from ecs_combat.scenario.model import CreatureSpec, Event, Scenario


def scenario_document(scenario: Scenario, registry: Registry) -> dict[str, Any]:
    """The scenario as a document that reads back to the same scenario: players, creatures,
    combat (attackers, blockers, divisions) and events. State that has its default value is
    left out."""
    players: dict[str, Any] = {}
    for pid, player in scenario.players.items():
        table: dict[str, Any] = {"life": player.life}
        table.update(_state(player.state, registry, "player"))
        players[pid] = table
    combat: dict[str, Any] = {"attackers": dict(scenario.attackers)}
    if scenario.blockers:
        combat["blockers"] = {
            blocker: attacked[0] if len(attacked) == 1 else list(attacked)
            for blocker, attacked in scenario.blockers.items()
        }
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
    table: dict[str, Any] = {
        "name": creature.name,
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
    if creature.summoning_sick:
        table["summoning_sick"] = True
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
