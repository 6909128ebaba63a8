"""The readable account of a result another engine found (docs/output.md, "Both engines, one
account"): the batched engine resolves whole arrays and records no sentences as it goes, so
the notes of its account (declarations, events, cards, how damage was divided, what keywords
did) and the column of creatures that may attack again come from the reference engine's
resolution of the same combat or turn, which reaches the same outcome. That the two outcomes
are the same is checked, never assumed."""

from __future__ import annotations

import json

from ecs_combat.plugin.registry import Registry
from ecs_combat.reference.engine import ReferenceEngine
from ecs_combat.rules.result import CombatResult, TurnResult
from ecs_combat.scenario.model import Scenario
from ecs_combat.scenario.turns import TurnScenario


class EnginesDisagree(RuntimeError):
    """The reference engine's outcome is not the one being narrated: an internal error."""


class Narrator:
    """Words accounts of results found by another engine, with the reference engine."""

    def __init__(self, registry: Registry) -> None:
        self.engine = ReferenceEngine(registry)

    def combat(self, scenario: Scenario, result: CombatResult) -> CombatResult:
        """`result` with the reference engine's notes, strikes' reasons and may-attack
        column: the reference engine's result of `scenario`, once its ``resolve --json``
        document is found equal to `result`'s (:class:`EnginesDisagree` if not)."""
        told = self.engine.resolve(scenario)
        _same(scenario.file, told.to_json(), result.to_json())
        return told

    def turn(self, turn: TurnScenario, result: TurnResult) -> TurnResult:
        """:meth:`combat` for a turn."""
        told = self.engine.resolve_turn(turn)
        _same(turn.file, told.to_json(), result.to_json())
        return told


def _same(file: str | None, told: object, found: object) -> None:
    if told != found:
        raise EnginesDisagree(
            f"{file}: the reference engine, which words the readable account, finds another "
            f"outcome than the batched engine (its JSON document shows the batched one): "
            f"reference {json.dumps(told)[:300]}, batched {json.dumps(found)[:300]}"
        )
