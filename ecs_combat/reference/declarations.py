"""Setting up the reference world and declaring attackers and blockers (508, 509), with the
systems and triggers of the declare-attackers and declare-blockers steps."""

from __future__ import annotations

from typing import TYPE_CHECKING

import esper

from ecs_combat.errors import InputError
from ecs_combat.plugin.payloads import AttackDeclaration, BlockDeclaration
from ecs_combat.reference.components import Attacking, Blocking, Player, State, Stats, Tapped
from ecs_combat.reference.state_based import destroy, resolve_triggers, state_based_actions
from ecs_combat.rules.legality import lethal_damage_message

if TYPE_CHECKING:
    from ecs_combat.reference.playing import Playing


def set_up(combat: Playing) -> None:
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


def check_marked_damage(combat: Playing) -> None:
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


def declare_attackers(combat: Playing) -> None:
    """The declare-attackers step (508): attackers, the systems (attack triggers), taps.
    State-based actions are checked as attackers are declared, before their triggers: the
    first check of the combat (a creature's +1/+1 and -1/-1 counters annihilate, 704.5q:
    RULES 13, version 1.3)."""
    board, sc = combat.board, combat.now.scenario
    for cid, defender in sc.attackers.items():
        e = board.creatures[cid]
        esper.add_component(e, Attacking(board.players[defender]))
    state_based_actions(combat)
    board.refresh_keywords()
    attackers = [board.creatures[cid] for cid in sc.attackers]
    declaration = AttackDeclaration(attackers, set(attackers))
    combat.run_systems("declare-attackers", declaration)
    for e in attackers:  # 508.1f
        if e in declaration.taps:
            esper.add_component(e, Tapped())
    resolve_triggers(combat, declaration.triggers)  # 508.2
    board.refresh_keywords()


def declare_blockers(combat: Playing) -> None:
    """The declare-blockers step (509): blockers, the systems (block triggers), which resolve
    (603.3b)."""
    board, now = combat.board, combat.now
    blocks: list[tuple[int, int]] = []
    declared: dict[str, tuple[str, ...]] = {}
    for bid, attacked in now.scenario.blockers.items():
        b = board.creatures[bid]
        # A listed blocker that left the battlefield before blocks (an attack trigger, the
        # state-based actions after it; its player left the game, 800.4a) doesn't block, even
        # if it returned as a new object (400.7); an attacker that left the battlefield or
        # combat is not blocked. Such a block is not declared (509.1a, RULES 11.3).
        if not board.on_battlefield(b) or b in now.returned:
            combat.note(
                f"{bid} left the battlefield before blockers were declared: it doesn't block "
                "(509.1a)"
            )
            continue
        still = [
            board.creatures[a]
            for a in attacked
            if esper.has_component(board.creatures[a], Attacking)
        ]
        if not still:
            continue
        esper.add_component(b, Blocking(still))
        declared[bid] = tuple(board.cid(a) for a in still)
        for a in still:
            att = esper.component_for_entity(a, Attacking)
            att.blocked = True
            att.blockers.append(b)
            blocks.append((b, a))
    now.result.notes_before_blocks = len(now.result.notes)
    now.result.blocks = declared
    board.refresh_keywords()
    if now.scenario.attackers:
        blocking = BlockDeclaration(blocks)
        combat.run_systems("declare-blockers", blocking)
        if blocking.added:
            _add_blocks(combat, blocking.added, declared)
        resolve_triggers(combat, blocking.triggers)


def _add_blocks(
    combat: Playing, added: list[tuple[int, int]], declared: dict[str, tuple[str, ...]]
) -> None:
    """Blocks the declare-blockers systems added (702.22h): each blocker blocks the attacker
    too, after the attackers it was declared blocking."""
    board = combat.board
    for b, a in added:
        if not (board.on_battlefield(b) and esper.has_component(a, Attacking)):
            continue
        blk = esper.try_component(b, Blocking)
        if blk is None:
            esper.add_component(b, Blocking([a]))
        elif a not in blk.attackers:
            blk.attackers.append(a)
        att = esper.component_for_entity(a, Attacking)
        att.blocked = True
        if b not in att.blockers:
            att.blockers.append(b)
        bid = board.cid(b)
        declared[bid] = (*declared.get(bid, ()), board.cid(a))
    board.refresh_keywords()
