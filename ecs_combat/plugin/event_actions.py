"""Scenario event actions plugins add (``{"at": ..., "action": NAME, "target": ID}``).

A plugin returns :class:`EventAction` objects from its ``register_event_actions`` hook. The
scenario reader accepts the action with a ``target`` naming a creature, at any point events
may be (``declare-blockers``, ``after STEP``); both engines apply it there to the creature if
it is still on the battlefield (nothing happens otherwise), then check state-based actions,
as after any event. The action belongs to its `keyword`: the keyword's systems run in a
combat with such an event, and blocking the keyword's plugin makes the action unknown.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ecs_combat.plugin.batch_context import BatchContext
from ecs_combat.plugin.context import CombatContext, Creature, IntArray
from ecs_combat.plugin.definitions import normalize_keyword

#: The core's event actions (CONTRACT.md section 1); a plugin's may not take these names.
CORE_EVENT_ACTIONS = (
    "grant",
    "remove",
    "counters",
    "pump",
    "damage",
    "enter",
    "remove-from-combat",
    "destroy",
    "cast",
)


@dataclass(frozen=True)
class EventAction:
    """An event action on one creature: `apply(combat, creature)` in the reference engine,
    `apply_batched(batch, rows)` in the batched engine with the target rows of one round of
    events (at most one per battle, each on the battlefield)."""

    name: str
    #: The keyword it belongs to (its systems run where the action is used).
    keyword: str
    apply: Callable[[CombatContext, Creature], None] = field(compare=False)
    apply_batched: Callable[[BatchContext, IntArray], None] | None = field(
        default=None, compare=False
    )
    rule: str = ""
    #: Plain words for the readable account ("gets a regeneration shield").
    summary: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "keyword", normalize_keyword(self.keyword))
