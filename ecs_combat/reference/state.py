"""What belongs to one combat phase of the reference engine, apart from the creatures.

A :class:`CombatState` is made new for each combat phase (and for each stretch of a turn outside
combat), so nothing of one phase is left for the next to clear: its scenario, the order its
players act in, its result, who has struck, the block requirements its triggers made.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ecs_combat.rules.result import CombatResult
from ecs_combat.scenario.model import Division, Scenario


@dataclass
class CombatState:
    """One combat phase's own state; the creatures' is their components (:class:`Board`)."""

    #: Its declarations, events and divisions.
    scenario: Scenario
    #: Its players' entities in APNAP order from its attacking player (101.4); outside combat,
    #: in turn order.
    players: dict[str, int]
    result: CombatResult = field(default_factory=CombatResult)
    #: The scenario's explicit divisions of damage, by (step, source).
    divisions: dict[tuple[str, str], Division] = field(init=False)
    #: The damage steps each creature has dealt combat damage in (or was a striker of) this
    #: combat, by entity; a creature not in it has struck in none.
    struck: dict[int, list[str]] = field(default_factory=dict)
    #: Requirements triggers made (509.1c) this combat: (blocker, attacker, keyword) entities.
    required_blocks: list[tuple[int, int, str]] = field(default_factory=list)
    #: Why creatures were kept from destruction at the last destruction.
    kept: dict[int, str] = field(default_factory=dict)
    #: While triggers resolve: the creatures that returned as new objects since they were
    #: put on the stack (400.7); what those triggers do to them does nothing.
    new_objects: set[int] | None = None
    #: How many of each player's ``sacrifices`` ids the sacrifices so far have taken.
    sacrifices_taken: dict[str, int] = field(default_factory=dict)
    #: The creatures that returned to the battlefield as new objects this combat phase
    #: (400.7): a declared blocker among them does not block (RULES 13, version 1.3).
    returned: set[int] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.divisions = {(d.step, d.source): d for d in self.scenario.divisions}
