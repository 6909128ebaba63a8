"""Scenario events in the reference world (grant, remove, counters, pump, damage, enter,
remove-from-combat, destroy), the cards cast by them, and spells cast in a main phase."""

from __future__ import annotations

from typing import TYPE_CHECKING

import esper

from ecs_combat.errors import call_plugin
from ecs_combat.plugin.definitions import Card as CardDefinition
from ecs_combat.plugin.payloads import EventDamage
from ecs_combat.plugin.phases import CastInMain
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
from ecs_combat.reference.damage import amounts_text
from ecs_combat.reference.state_based import destroy_creatures, state_based_actions
from ecs_combat.reference.views import CardTarget, EntitySide
from ecs_combat.rules.legality import why_not_a_legal_target
from ecs_combat.scenario.events import token_creature
from ecs_combat.scenario.model import CreatureSpec, Event

if TYPE_CHECKING:
    from ecs_combat.reference.playing import Playing


def apply_event(combat: Playing, ev: Event) -> None:
    """Apply one scenario event (CONTRACT.md section 1)."""
    if ev.action == "enter":
        assert ev.creature is not None and ev.attacking is not None
        e = combat.board.add_creature(ev.creature)
        esper.add_component(e, SummoningSick())
        defender = combat.board.players[ev.attacking]
        cid = ev.creature.id
        if ev.creature.controller != combat.now.scenario.active_player:
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
    if ev.action == "damage" and ev.target in combat.board.players:
        player = combat.board.players[ev.target]
        amount = event_damage(combat, player, True, ev.amount)
        esper.component_for_entity(player, Player).life -= amount
        combat.note(f"{ev.at}: {_damage_words(ev.amount, amount)} to {ev.target}")
        return
    if ev.action == "cast":
        cast(combat, ev)
        return
    assert ev.target is not None
    e = combat.board.creatures.get(ev.target, -1)  # -1: its `enter` event never happened
    if e < 0 or not combat.board.on_battlefield(e):
        combat.note(
            f"{ev.describe()}: {ev.target} is no longer on the battlefield; nothing happens"
        )
        return
    added = combat.reg.event_actions.get(ev.action)
    if added is not None:
        plugin = combat.reg.event_action_plugin[ev.action]
        call_plugin(plugin, f"event action {ev.action!r}", added.apply, combat.context, e)
        combat.note(f"{ev.at}: {ev.target} {added.summary or ev.action}")
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
            combat.board.add_counters(e, kind, change)
        combat.note(f"{ev.at}: counters on {ev.target}: {amounts_text(ev.counters, signed=True)}")
    elif ev.action == "pump":
        stats = esper.component_for_entity(e, Stats)
        stats.power_bonus += ev.power
        stats.toughness_bonus += ev.toughness
        combat.note(f"{ev.at}: {ev.target} gets {ev.power:+d}/{ev.toughness:+d}")
    elif ev.action == "damage":
        amount = event_damage(combat, e, False, ev.amount)
        esper.component_for_entity(e, Damage).marked += amount
        combat.note(f"{ev.at}: {_damage_words(ev.amount, amount)} to {ev.target}")
    elif ev.action == "remove-from-combat":
        combat.board.remove_from_combat(e)
        combat.note(f"{ev.at}: {ev.target} is removed from combat")
    elif ev.action == "destroy":
        if destroy_creatures(combat, [e]):
            combat.note(f"{ev.at}: {ev.target} is destroyed")
        else:
            combat.note(f"{ev.at}: {ev.target} is not destroyed ({combat.now.kept.get(e, '')})")


def event_damage(combat: Playing, recipient: int, to_player: bool, amount: int) -> int:
    """How much of a `damage` event's noncombat damage is dealt, once the ``event-damage``
    systems have prevented what they prevent (never below 0)."""
    if not combat.systems.at["event-damage"]:
        return amount
    payload = EventDamage(recipient, to_player, amount)
    combat.run_systems("event-damage", payload)
    return max(0, min(amount, payload.amount))


def _damage_words(would: int, dealt: int) -> str:
    if dealt == would:
        return f"{dealt} damage"
    if dealt == 0:
        return f"{would} damage (all of it prevented)"
    return f"{dealt} damage ({would - dealt} of {would} prevented)"


def cast(combat: Playing, ev: Event) -> None:
    """Cast a card from the card library by a `cast` event; it checks its target as it
    resolves (608.2b)."""
    assert ev.card is not None and ev.caster is not None
    token = ev.creature if ev.token is not None else None
    resolve_spell(combat, ev.card, ev.caster, ev.target, token, ev.at)


def cast_in_main(combat: Playing, cast: CastInMain) -> None:
    """Cast a spell during a main phase (``turn.casts``), outside combat: it resolves (608.2b:
    an illegal target, such as one a card wants attacking or blocking, makes it do nothing),
    then state-based actions are checked (704.3). Nothing happens once the game is over.

    No creature is attacking or blocking then: the caller ends each combat phase (removes
    creatures from combat) before the main phase that follows it.
    """
    at = f"main phase {cast.main}"
    if combat.board.game_over():
        combat.note(f"{at}: {cast.card} is not cast: the game is over")
        return
    card = combat.reg.card(cast.card)
    assert card is not None  # checked as the turn was read
    token = None
    if cast.token is not None:
        token = token_creature(card, cast.token, cast.caster, combat.reg, cast.path)
    resolve_spell(combat, card.name, cast.caster, cast.target, token, at)
    combat.board.refresh_keywords()
    died = state_based_actions(combat)
    if died:
        combat.note(f"after {card.name}: {', '.join(died)} died")


def resolve_spell(
    combat: Playing,
    name: str,
    caster: str,
    target: str | None,
    token: CreatureSpec | None,
    at: str,
) -> None:
    """A spell resolves: its target is checked (608.2b), its effect applied, and the
    creature token it creates (`token`, the card's ``creates`` with its id) enters under the
    caster's control, not in combat. State-based actions are the caller's."""
    card = combat.reg.card(name)
    assert card is not None
    entity = None
    on = ""
    if card.target.kind != "none":
        assert target is not None
        problem = illegal_target(combat, card, target, caster)
        if problem:
            combat.note(f"{at}: {card.name} does nothing: {problem}")
            return
        entity = (
            combat.board.players[target]
            if target in combat.board.players
            else combat.board.creatures[target]
        )
        on = f" on {target}"
    effect = CardTarget(combat.board, entity, caster, card.name)
    if card.resolve is not None:
        card.resolve(effect)
    if token is not None:
        combat.board.add_creature(token)
        effect.did.append(
            f"{token.id} enters, a {token.power}/{token.toughness} {token.name} token of "
            f"{caster}, not in combat"
        )
    combat.note(f"{at}: {card.name}{on}: {'; '.join(effect.did)}")
    for why in effect.why:
        combat.note(f"{card.name}: {why}")


def illegal_target(combat: Playing, card: CardDefinition, target: str, caster: str) -> str | None:
    """Why a target is illegal for a card as it resolves, or None if it is legal. A player
    ("any target", 115.4) is legal while in the game."""
    player = combat.board.players.get(target)
    if player is not None:
        if card.target.kind != "any":
            return f"{target} is a player, not a creature"
        if esper.component_for_entity(player, Player).lost:
            return f"{target} has left the game"
        return None
    e = combat.board.creatures.get(target)
    if e is None or not combat.board.on_battlefield(e):
        return f"{target} is not on the battlefield"
    controller = combat.board.pid(esper.component_for_entity(e, Controller).player)
    combat.board.refresh_keywords()
    rule = card.target
    side = EntitySide(combat.board, e, opponent=controller != caster, spell_colors=card.colors)
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
