"""Setting up the reference world and declaring attackers and blockers (508, 509), with the
systems and triggers of the declare-attackers and declare-blockers steps."""

from __future__ import annotations

from typing import TYPE_CHECKING

import esper

from ecs_combat.errors import InputError
from ecs_combat.plugin.payloads import AttackDeclaration, BlockDeclaration
from ecs_combat.reference.components import Attacking, Blocking, Player, State, Stats, Tapped
from ecs_combat.reference.state_based import destroy
from ecs_combat.reference.triggers import resolve_triggers
from ecs_combat.rules.legality import lethal_damage_message

if TYPE_CHECKING:
    from ecs_combat.reference.combat import Combat


def set_up(combat: Combat) -> None:
    """Create the scenario's players, who take their seats in the combat, and creatures."""
    board, sc = combat.board, combat.now.scenario
    for p in sc.players.values():
        board.add_player(Player(p.id, p.life, state=dict(p.state), lands=p.lands))
    combat.now.players.update(board.players)
    for spec in sc.creatures.values():
        board.add_creature(spec)
    refs = [k for k, f in board.reg.state_fields("creature").items() if f.kind == "creature"]
    for e in board.creatures.values():  # creature references as entities
        values = esper.component_for_entity(e, State).values
        for key in refs:
            if values.get(key) is not None:
                values[key] = board.creatures[values[key]]
    board.refresh_keywords()
    check_marked_damage(combat)


def check_marked_damage(combat: Combat) -> None:
    """A creature can't start the combat with lethal damage marked unless nothing destroys
    it (704.5g): that is an input error."""
    board, sc = combat.board, combat.now.scenario
    toughness = {
        spec.id: esper.component_for_entity(board.creatures[spec.id], Stats).toughness
        for spec in sc.creatures.values()
    }
    lethal = {
        board.creatures[spec.id]: spec
        for spec in sc.creatures.values()
        if 0 < toughness[spec.id] <= spec.damage  # 704.5g (0 or less: 704.5f, it dies)
    }
    for e in sorted(destroy(combat, set(lethal)), key=board.order):
        spec = lethal[e]
        raise InputError(
            sc.file,
            f"{spec.path}.damage",
            lethal_damage_message(spec.damage, toughness[spec.id], spec.toughness),
        )


def declare_attackers(combat: Combat) -> None:
    """The declare-attackers step (508): attackers, the systems (attack triggers), taps."""
    board, sc = combat.board, combat.now.scenario
    for cid, defender in sc.attackers.items():
        e = board.creatures[cid]
        esper.add_component(e, Attacking(board.players[defender]))
    board.refresh_keywords()
    attackers = [board.creatures[cid] for cid in sc.attackers]
    declaration = AttackDeclaration(attackers, set(attackers))
    combat.run_systems("declare-attackers", declaration)
    for e in attackers:  # 508.1f
        if e in declaration.taps:
            esper.add_component(e, Tapped())
    resolve_triggers(combat, declaration.triggers)  # 508.2
    board.refresh_keywords()


def declare_blockers(combat: Combat) -> None:
    """The declare-blockers step (509): blockers, the systems (block triggers), which resolve
    (603.3b)."""
    board, now = combat.board, combat.now
    now.result.notes_before_blocks = len(now.result.notes)
    blocks: list[tuple[int, int]] = []
    for bid, attacked in now.scenario.blockers.items():
        b = board.creatures[bid]
        # An attacker or blocker that left the battlefield or combat before blocks (toughness
        # 0 after the attack triggers, 704.5f; its player left the game, 800.4a) can't be
        # blocked or block: that block is not declared (509.1a).
        still = [
            board.creatures[a]
            for a in attacked
            if esper.has_component(board.creatures[a], Attacking)
        ]
        if not still or not board.on_battlefield(b):
            continue
        esper.add_component(b, Blocking(still))
        for a in still:
            att = esper.component_for_entity(a, Attacking)
            att.blocked = True
            att.blockers.append(b)
            blocks.append((b, a))
    board.refresh_keywords()
    if now.scenario.attackers:
        blocking = BlockDeclaration(blocks)
        combat.run_systems("declare-blockers", blocking)
        resolve_triggers(combat, blocking.triggers)
