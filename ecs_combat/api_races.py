"""Races in the Python API (docs/races.md, "From Python"): play a race file or a
:class:`RaceScenario` to its end on either engine. Exported from :mod:`ecs_combat`."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ecs_combat.decisions.race import DrawnPolicy, OptimalPolicy, Policy, play_race
from ecs_combat.errors import InputError
from ecs_combat.plugin.loading import load_registry
from ecs_combat.plugin.registry import Registry
from ecs_combat.reference.engine import ReferenceEngine
from ecs_combat.rules.race import RaceState, TurnResolver
from ecs_combat.rules.result import TurnResult
from ecs_combat.scenario.race import RaceScenario, load_race
from ecs_combat.scenario.turns import TurnScenario


def race(
    given: str | Path | RaceScenario,
    registry: Registry | None = None,
    *,
    engine: str = "reference",
    policies: Mapping[str, Policy] | Policy | None = None,
    budget: float | None = None,
) -> RaceState:
    """Play a race (a file with ``[race]``, or a :class:`RaceScenario`) to its end, as
    ``ecs-combat race`` does: each turn on `engine` (``"reference"`` or ``"batched"``), each
    combat phase declared by `policies` (one per player id, one for both, or None: the race's
    own ``decisions``). `budget`: seconds of search at most in all. The final
    :class:`RaceState`: ``winner``, ``history`` (every turn), ``final_players``, ``seen``."""
    registry = registry if registry is not None else load_registry()
    scenario = given if isinstance(given, RaceScenario) else load_race(given, registry)
    if budget is not None and not budget > 0:
        raise InputError(None, "budget", f"must be a positive number of seconds, not {budget:g}")
    return play_race(scenario, registry, turn_resolver(engine, registry), policies, budget)


def turn_resolver(engine: str, registry: Registry) -> TurnResolver:
    """The engine's function resolving one turn."""
    if engine == "reference":
        return ReferenceEngine(registry).resolve_turn
    if engine != "batched":
        raise InputError(None, "engine", f"unknown engine {engine!r} (reference or batched)")
    from ecs_combat.batched.engine import BatchedEngine

    batched = BatchedEngine(registry)

    def one(turn: TurnScenario) -> TurnResult:
        return batched.resolve_turns([turn])[0]

    return one


__all__ = ["DrawnPolicy", "OptimalPolicy", "RaceScenario", "RaceState", "load_race", "race"]
