"""State-based actions in the reference engine (704): players lose and leave the game,
creatures die or are destroyed, the `dies` systems and their triggers, sacrifice; triggered
abilities resolving (603.3b), with state-based actions after each."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import esper

from ecs_combat.errors import call_plugin
from ecs_combat.plugin.payloads import Deaths, Destruction, StateCheck, Trigger
from ecs_combat.reference.components import (
    Attacking,
    Card,
    Controller,
    Damage,
    OnBattlefield,
    Player,
    Stats,
)

if TYPE_CHECKING:
    from ecs_combat.reference.playing import Playing


def state_based_actions(combat: Playing) -> list[str]:
    """704.5a, f, g and the plugins' conditions: players lose, creatures die; the `dies`
    systems follow, and the state-based actions are checked again after them (704.3: a dies
    trigger's counters annihilate, 704.5q; what it returns can die) until a check finds
    nothing that dies. Returns who died, in scenario order, a creature once for each time it
    died (a creature that returned can die again: RULES 11.11)."""
    board = combat.board
    died: list[str] = []
    while True:
        now = check_state(combat)
        died += now
        if not now or not combat.systems.at["dies"]:
            return sorted(died, key=lambda cid: board.order(board.creatures[cid]))


def check_state(combat: Playing) -> list[str]:
    """One check of the state-based actions (704.3), then the `dies` systems and triggers.
    Returns who died: in the check, then as the triggers resolved."""
    board = combat.board
    check = StateCheck(set(), set(), set())
    for e, (_, stats, dmg, _) in esper.get_components(Card, Stats, Damage, OnBattlefield):
        if stats.toughness <= 0:
            check.dies.add(e)
        elif dmg.marked >= stats.toughness:
            check.destroy.add(e)
    for e, p in esper.get_component(Player):
        if not p.lost and p.life <= 0:
            check.loses.add(e)
    context = combat.context
    put: list[tuple[int, str, int]] = []
    outer, context.counters_put = context.counters_put, put
    try:
        combat.run_systems("state-based-actions", check)
    finally:
        context.counters_put = outer
    destroyed = destroy(combat, check.destroy - check.dies)
    died = [
        board.cid(e)
        for e in sorted(destroyed | check.dies, key=lambda e: board.order(e))
        if board.on_battlefield(e)
    ]
    for cid in died:
        board.leave_battlefield(board.creatures[cid])
    left_with_counters(combat, put, {board.creatures[cid] for cid in died})
    losers = [e for e, p in esper.get_component(Player) if e in check.loses and not p.lost]
    for e in losers:
        esper.component_for_entity(e, Player).lost = True
        combat.note(
            f"player {board.pid(e)} {check.why.get(e, 'is at 0 or less life and loses (704.5a)')}"
        )
    if losers and not board.game_over():
        players_leave(combat, losers)
    return died + creatures_died(combat, [board.creatures[cid] for cid in died])


def left_with_counters(combat: Playing, put: list[tuple[int, str, int]], gone: set[int]) -> None:
    """The counters the check's systems put on or removed from creatures that left in that
    same check are undone: every action of one check happens at once (704.3), so a creature
    dies with the counters it had, and its `dies` triggers read them (704.5q)."""
    for e, kind, change in reversed(put):
        if e in gone:
            combat.board.add_counters(e, kind, -change)


def destroy(combat: Playing, creatures: set[int]) -> set[int]:
    """Creatures about to be destroyed, less those a system exempts (701.8); why those were
    kept is the combat's `kept`."""
    if not creatures:
        return creatures
    destruction = Destruction(set(creatures))
    combat.run_systems("destroy", destruction)
    combat.now.kept = destruction.kept
    return destruction.creatures


def creatures_died(combat: Playing, entities: list[int]) -> list[str]:
    """The `dies` systems for creatures that just died (700.4), unless the game is over; the
    "dies" triggers they put on the stack resolve as block triggers do (RULES 11.5). Returns
    who died as they resolved (a creature once for each time)."""
    board = combat.board
    died: list[str] = []
    if entities and combat.systems.at["dies"] and not board.game_over():
        deaths = Deaths(sorted(entities, key=board.order))
        combat.run_systems("dies", deaths)
        board.refresh_keywords()
        died = resolve_triggers(combat, deaths.triggers, dies=True)
        for e in entities:  # what returned, as it returned (RULES 9: value)
            if board.on_battlefield(e):
                stats = esper.component_for_entity(e, Stats)
                board.returned[board.cid(e)] = stats.power + stats.toughness
    return died


def resolve_triggers(combat: Playing, triggers: list[Trigger], dies: bool = False) -> list[str]:
    """Resolve triggered abilities in APNAP order (603.3b): the active player's go on the
    stack first, so the other players' resolve first, the last in turn order first; one
    player's in the order of their sources, one source's in the order its keyword instances
    are listed (RULES 7, 11.5), whichever plugins they come from. State-based actions are
    checked after each (704.3); none resolves once the game is over, nor one whose controller
    has left the game (800.4a). A trigger whose source has left still resolves (113.7a);
    `dies` triggers are those of creatures that died, which the account does not remark on.
    Triggers put on the stack while these resolve (a creature dies) resolve first. Returns
    who died in the checks after them."""
    board, now, context = combat.board, combat.now, combat.context
    rank = {e: i for i, e in enumerate(now.players.values())}
    seated = [t for t in triggers if not context.lost(board.controller(t.source))]
    ordered = sorted(
        enumerate(seated),
        key=lambda it: (
            -rank[board.controller(it[1].source)],
            board.order(it[1].source),
            board.listed_at(it[1].source, it[1].keyword, it[1].instance),
            it[0],
        ),
    )
    outer, now.new_objects = now.new_objects, set()
    new_objects = now.new_objects
    died: list[str] = []
    try:
        for _, t in ordered:
            if board.game_over():
                break
            died += resolve_trigger(combat, t, new_objects, dies)
    finally:
        now.new_objects = outer
        if outer is not None:  # what returned is a new object to the triggers below too
            outer |= new_objects
    return died


def resolve_trigger(combat: Playing, t: Trigger, new_objects: set[int], dies: bool) -> list[str]:
    """One trigger resolves, then state-based actions are checked (returns who died).
    Creatures that returned as new objects since it was put on the stack (`new_objects`) are
    not what it knew (400.7)."""
    board, context = combat.board, combat.context
    if not dies and (not board.on_battlefield(t.source) or t.source in new_objects):
        combat.note(
            f"a trigger of {board.cid(t.source)} resolves though its source left the "
            "battlefield (113.7a): what it does to its source does nothing"
        )
    outer, context.stale = context.stale, frozenset(new_objects)
    try:
        call_plugin(t.plugin, "a triggered ability", t.resolve, context, t)
    finally:
        context.stale = outer
    board.refresh_keywords()
    died = state_based_actions(combat)
    if died:
        combat.note(f"after the trigger: {', '.join(died)} died")
    return died


def sacrifice(combat: Playing, entities: Iterable[int]) -> None:
    """Their controllers sacrifice creatures (701.17): those on the battlefield leave it
    together and die (700.4); the `dies` systems run once for all of them, and state-based
    actions are checked after them (704.3)."""
    board = combat.board
    gone = [e for e in dict.fromkeys(entities) if board.on_battlefield(e)]
    if not gone:
        return
    for e in gone:
        board.leave_battlefield(e)
    creatures_died(combat, gone)
    if combat.systems.at["dies"]:
        state_based_actions(combat)


def destroy_creatures(combat: Playing, entities: Iterable[int]) -> list[int]:
    """An effect destroys creatures (701.8): the `destroy` systems may keep some
    (indestructible, regeneration: why in the combat's `kept`); the others leave the
    battlefield together and die, the `dies` systems run once for them and state-based
    actions are checked after them. Returns the entities destroyed, in scenario order."""
    board = combat.board
    about = {e for e in entities if board.on_battlefield(e)}
    if not about:
        return []
    board.refresh_keywords()
    destroyed = sorted(destroy(combat, about), key=board.order)
    if destroyed:
        sacrifice(combat, destroyed)  # leaving and dying are the same from here on
    return destroyed


def players_leave(combat: Playing, losers: list[int]) -> None:
    """A player who loses leaves the game, with their creatures (800.4a); the account says
    so, and which attackers it leaves attacking nobody."""
    board = combat.board
    gone: dict[int, list[str]] = {e: [] for e in losers}
    for e, (ctrl, _) in list(esper.get_components(Controller, OnBattlefield)):
        if ctrl.player in losers:
            gone[ctrl.player].append(board.cid(e))
            board.leave_battlefield(e)
    stopped: dict[int, list[str]] = {e: [] for e in losers}
    for e, att in list(esper.get_component(Attacking)):
        if att.defender in losers:
            stopped[att.defender].append(board.cid(e))
            esper.remove_component(e, Attacking)
    for e in losers:
        creatures = ", ".join(gone[e])
        text = f"player {board.pid(e)} leaves the game (800.4a)"
        text += f" with its creatures: {creatures}" if creatures else ""
        if stopped[e]:
            verb = "attacks" if len(stopped[e]) == 1 else "attack"
            text += f"; {', '.join(stopped[e])} no longer {verb} (506.4)"
        combat.note(text)
