"""Creatures that return to the battlefield as new objects (400.7), in the reference engine.

The entity (the creature's handle) stays, so its id and later events naming it find the new
object; what belonged to the old object goes: its state, damage, counters, effects and marks,
references to it in plugins' state, and what triggers put on the stack before it returned
would do to it (:attr:`CombatState.new_objects`, read by the context while a trigger resolves).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import esper

from ecs_combat.reference.components import (
    Damage,
    KeywordSources,
    OnBattlefield,
    State,
    Stats,
    SummoningSick,
    Tapped,
)
from ecs_combat.reference.components import Player as PlayerComponent

if TYPE_CHECKING:
    from ecs_combat.reference.playing import Playing


def return_to_battlefield(combat: Playing, entity: int) -> None:
    """A creature that died returns as a new object: as its spec put it onto the battlefield,
    but untapped, not in combat, summoning sick, with no damage, counters, marks or state of
    the old object; nothing happens to a token (111.8) or a creature on the battlefield."""
    spec = combat.board.specs[combat.board.cid(entity)]
    if spec.token or combat.board.on_battlefield(entity):
        return
    esper.add_component(entity, Stats(spec.power, spec.toughness))
    esper.add_component(entity, Damage())
    printed = list(zip(spec.keywords, spec.parameters, strict=True))
    esper.add_component(entity, KeywordSources(printed=printed))
    esper.try_remove_component(entity, Tapped)
    combat.board.remove_from_combat(entity)
    esper.add_component(entity, OnBattlefield())
    if not esper.has_component(entity, SummoningSick):
        esper.add_component(entity, SummoningSick())
    combat.now.struck.pop(entity, None)
    combat.context.forget(entity)
    _forget_state(combat, entity)
    combat.now.returned.add(entity)
    if combat.now.new_objects is not None:
        combat.now.new_objects.add(entity)


def _forget_state(combat: Playing, entity: int) -> None:
    """The new object's plugin state is the default (printed state stays), and creature
    references to the old object, on any creature or player, are cleared (a pair is broken on
    both sides)."""
    fields = combat.reg.state_fields("creature")
    values = esper.component_for_entity(entity, State).values
    for key, f in fields.items():
        if not f.printed and f.default_from is None:
            values[key] = f.default
    for key, f in fields.items():
        if not f.printed and f.default_from is not None:
            values[key] = values.get(f.default_from, f.default)
    refs = [k for k, f in fields.items() if f.kind == "creature"]
    for other in combat.board.creature_entities():
        _clear(esper.component_for_entity(other, State).values, refs, entity)
    player_refs = [k for k, f in combat.reg.state_fields("player").items() if f.kind == "creature"]
    if player_refs:
        for player in combat.board.players.values():
            _clear(esper.component_for_entity(player, PlayerComponent).state, player_refs, entity)


def _clear(values: dict[str, Any], keys: list[str], entity: int) -> None:
    for key in keys:
        if values.get(key) == entity:
            values[key] = None
