"""Triggered abilities resolving in the reference engine (603.3b, 704.3, 113.7a, 400.7)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ecs_combat.errors import call_plugin
from ecs_combat.plugin.payloads import Trigger
from ecs_combat.reference.state_based import state_based_actions

if TYPE_CHECKING:
    from ecs_combat.reference.combat import Combat


def resolve_triggers(combat: Combat, triggers: list[Trigger]) -> None:
    """Resolve triggered abilities in APNAP order (603.3b): the active player's go on the
    stack first, so the other players' resolve first, the last in turn order first; one
    player's in the order of their sources, one source's in the order its keyword instances
    are listed (RULES 7), whichever plugins they come from. State-based actions are checked
    after each (704.3); none resolves once the game is over. A trigger whose source has left
    still resolves (113.7a)."""
    board, now = combat.board, combat.now
    rank = {e: i for i, e in enumerate(now.players.values())}
    ordered = sorted(
        enumerate(triggers),
        key=lambda it: (
            -rank[board.controller(it[1].source)],
            board.order(it[1].source),
            board.listed_at(it[1].source, it[1].keyword, it[1].instance),
            it[0],
        ),
    )
    now.new_objects = set()
    try:
        for _, t in ordered:
            if board.game_over():
                return
            resolve_trigger(combat, t, now.new_objects)
    finally:
        now.new_objects = None


def resolve_trigger(combat: Combat, t: Trigger, new_objects: set[int]) -> None:
    """One trigger resolves, then state-based actions are checked. Creatures that returned
    as new objects since it was put on the stack (`new_objects`) are not what it knew
    (400.7)."""
    board, context = combat.board, combat.context
    if not board.on_battlefield(t.source) or t.source in new_objects:
        combat.note(
            f"a trigger of {board.cid(t.source)} resolves though its source left the "
            "battlefield (113.7a): what it does to its source does nothing"
        )
    context.stale = frozenset(new_objects)
    try:
        call_plugin(t.plugin, "a triggered ability", t.resolve, context, t)
    finally:
        context.stale = frozenset()
    board.refresh_keywords()
    died = state_based_actions(combat)
    if died:
        combat.note(f"after the trigger: {', '.join(died)} died")
