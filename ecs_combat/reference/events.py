"""Scenario events in the reference world (grant, remove, counters, pump, damage, enter,
remove-from-combat, destroy) and the cards cast by them."""

from __future__ import annotations

from typing import TYPE_CHECKING

import esper

from ecs_combat.plugin.definitions import Card as CardDefinition
from ecs_combat.reference.components import (
    Attacking,
    Blocking,
    Controller,
    Damage,
    KeywordSources,
    Player,
    Stats,
    SummoningSick,
)
from ecs_combat.reference.damage import _fmt
from ecs_combat.reference.views import EntitySide, _CardTarget
from ecs_combat.rules.legality import why_not_a_legal_target
from ecs_combat.scenario.loader import Event

if TYPE_CHECKING:
    from ecs_combat.reference.engine import Combat


def apply_event(combat: Combat, ev: Event) -> None:
    """Apply one scenario event (CONTRACT.md section 1)."""
    if ev.action == "enter":
        assert ev.creature is not None and ev.attacking is not None
        e = combat.add_creature(ev.creature)
        esper.add_component(e, SummoningSick())
        defender = combat.players[ev.attacking]
        cid = ev.creature.id
        if ev.creature.controller != combat.sc.active_player:
            combat.note(
                f"{ev.at}: {cid} enters, but not attacking: only the attacking player's "
                "creatures can enter attacking (506.3b)"
            )
        elif esper.component_for_entity(defender, Player).lost:
            combat.note(
                f"{ev.at}: {cid} enters, but not attacking: {ev.attacking} has left the game "
                "(506.3c)"
            )
        else:
            esper.add_component(e, Attacking(defender))
            combat.note(f"{ev.at}: {cid} enters attacking {ev.attacking}, unblocked")
        return
    if ev.action == "damage" and ev.target in combat.players:
        esper.component_for_entity(combat.players[ev.target], Player).life -= ev.amount
        combat.note(f"{ev.at}: {ev.amount} damage to {ev.target}")
        return
    if ev.action == "cast":
        cast(combat, ev)
        return
    assert ev.target is not None
    e = combat.creatures.get(ev.target, -1)  # -1: its `enter` event never happened
    if e < 0 or not combat.on_battlefield(e):
        combat.note(
            f"{ev.describe()}: {ev.target} is no longer on the battlefield; nothing happens"
        )
        return
    src = esper.component_for_entity(e, KeywordSources)
    if ev.action == "grant":
        for kw, parameter in zip(ev.keywords, ev.parameters, strict=True):
            src.grant(kw, parameter)
        combat.note(f"{ev.at}: {ev.target} gains {', '.join(ev.keywords)}")
    elif ev.action == "remove":
        for kw in ev.keywords:
            src.remove(kw)
        combat.note(f"{ev.at}: {ev.target} loses {', '.join(ev.keywords)}")
    elif ev.action == "counters":
        for kind, change in ev.counters.items():
            combat.add_counters(e, kind, change)
        combat.note(f"{ev.at}: counters on {ev.target}: {_fmt(ev.counters, signed=True)}")
    elif ev.action == "pump":
        stats = esper.component_for_entity(e, Stats)
        stats.power_bonus += ev.power
        stats.toughness_bonus += ev.toughness
        combat.note(f"{ev.at}: {ev.target} gets {ev.power:+d}/{ev.toughness:+d}")
    elif ev.action == "damage":
        esper.component_for_entity(e, Damage).marked += ev.amount
        combat.note(f"{ev.at}: {ev.amount} damage to {ev.target}")
    elif ev.action == "remove-from-combat":
        combat.remove_from_combat(e)
        combat.note(f"{ev.at}: {ev.target} is removed from combat")
    elif ev.action == "destroy":
        combat.refresh_keywords()
        if not combat.destroy({e}):
            combat.note(f"{ev.at}: {ev.target} is not destroyed ({combat.kept.get(e, '')})")
        else:
            combat.leave_battlefield(e)
            combat.note(f"{ev.at}: {ev.target} is destroyed")


def cast(combat: Combat, ev: Event) -> None:
    """Cast a card from the card library; it checks its target as it resolves (608.2b)."""
    assert ev.card is not None and ev.caster is not None and ev.target is not None
    card = combat.reg.card(ev.card)
    assert card is not None
    problem = illegal_target(combat, card, ev.target, ev.caster)
    if problem:
        combat.note(f"{ev.at}: {card.name} does nothing: {problem}")
        return
    target = _CardTarget(combat, combat.creatures[ev.target], ev.caster, card.name)
    if card.resolve is not None:
        card.resolve(target)
    combat.note(f"{ev.at}: {card.name} on {ev.target}: {'; '.join(target.did)}")
    for why in target.why:
        combat.note(f"{card.name}: {why}")


def illegal_target(combat: Combat, card: CardDefinition, target: str, caster: str) -> str | None:
    """Why a target is illegal for a card as it resolves, or None if it is legal."""
    e = combat.creatures.get(target)
    if e is None or not combat.on_battlefield(e):
        return f"{target} is not on the battlefield"
    controller = combat.pid(esper.component_for_entity(e, Controller).player)
    combat.refresh_keywords()
    rule = card.target
    side = EntitySide(combat, e, opponent=controller != caster, spell_colors=card.colors)
    shroud = why_not_a_legal_target(side, combat.reg)
    if shroud is not None:
        says = shroud.says.format(creature=target, caster=caster)
        return f"{says} ({shroud.rule})"
    if rule.caster_controls and controller != caster:
        return f"{target} is controlled by {controller}, not {caster}"
    attacking = esper.has_component(e, Attacking)
    blocking = esper.has_component(e, Blocking)
    if rule.blocking_or_blocked:
        blocked = attacking and esper.component_for_entity(e, Attacking).blocked
        if not (blocking or blocked):
            return f"{target} is neither blocking nor blocked"
    elif rule.in_combat and not (attacking or blocking):
        return f"{target} is neither attacking nor blocking"
    return None
