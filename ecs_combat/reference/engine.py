"""The reference engine: one combat at a time, creatures as esper entities, every rule spelled out.

It is the oracle for the batched engine. Each combat (or turn) lives in its own esper world
(:func:`~ecs_combat.reference.world.isolated_world`), so two combats never see each other's
entities. :class:`~ecs_combat.reference.combat.Combat` plays one combat,
:class:`~ecs_combat.reference.turn.TurnRun` a turn of several combat phases.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from ecs_combat.plugin.registry import Registry
from ecs_combat.reference.combat import Combat
from ecs_combat.reference.world import isolated_world
from ecs_combat.rules.pipeline import plan_steps
from ecs_combat.rules.result import CombatResult, TurnResult
from ecs_combat.scenario.model import Scenario

if TYPE_CHECKING:
    from ecs_combat.scenario.turns import TurnScenario


class ReferenceEngine:
    """Resolves scenarios one at a time with esper."""

    name = "reference"

    def __init__(self, registry: Registry) -> None:
        self.registry = registry
        self.plans = plan_steps(registry)

    def resolve(self, scenario: Scenario) -> CombatResult:
        """Resolve one combat."""
        with isolated_world():
            return Combat(self.registry, self.plans, scenario).run()

    def resolve_many(self, scenarios: Iterable[Scenario]) -> list[CombatResult]:
        """Resolve combats one after another."""
        return [self.resolve(s) for s in scenarios]

    def resolve_turn(self, turn: TurnScenario) -> TurnResult:
        """Resolve a turn's phases in one world (:mod:`ecs_combat.reference.turn`)."""
        from ecs_combat.reference.turn import TurnRun  # turns alone need it

        with isolated_world():
            return TurnRun(self.registry, self.plans, turn).run()

    def resolve_turns(self, turns: Iterable[TurnScenario]) -> list[TurnResult]:
        """Resolve turns one after another."""
        return [self.resolve_turn(t) for t in turns]
