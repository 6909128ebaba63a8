"""Races in the Python API (docs/races.md, "From Python"): play a race file or a
:class:`RaceScenario` to its end on either engine (:func:`race`), or each battle built from
arrays as a race, with the results as a table (:func:`races`). Exported from
:mod:`ecs_combat`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ecs_combat.api import Array, Battles, Tables
from ecs_combat.batched import batch_to_scenarios
from ecs_combat.decisions.race import DrawnPolicy, OptimalPolicy, Policy, play_race
from ecs_combat.errors import InputError
from ecs_combat.plugin.loading import load_registry
from ecs_combat.plugin.registry import Registry
from ecs_combat.reference.engine import ReferenceEngine
from ecs_combat.rules.race import RaceState, TurnResolver
from ecs_combat.rules.result import TurnResult
from ecs_combat.scenario.race import (
    DECISIONS,
    HORIZONS,
    MOST_TURNS,
    RaceScenario,
    RaceSettings,
    load_race,
)
from ecs_combat.scenario.turns import TurnScenario
from ecs_combat.simulation.spec import race_seed


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
    from ecs_combat.batched import BatchedEngine

    batched = BatchedEngine(registry)

    def one(turn: TurnScenario) -> TurnResult:
        return batched.resolve_turns([turn])[0]

    return one


@dataclass
class RaceResults(Tables):
    """What :func:`races` gives: the table ``races``, one row per battle played as a race:
    ``race`` (the battle), ``winner`` (0: player A, 1: player B, -1: nobody, the turn limit
    came or both lost), ``turns_played``, ``life_a`` and ``life_b`` as the race ends,
    ``optimal`` (every decision proven optimal). :meth:`to_pandas` and :meth:`to_arrow` give
    it as a DataFrame or an Arrow table."""

    columns: dict[str, Array]
    #: Each race's final state (its turns, as turn files, in ``history``).
    states: list[RaceState]

    def _tables(self) -> dict[str, dict[str, Array]]:
        return {"races": self.columns}

    def to_pandas(self, table: str = "races") -> Any:
        return super().to_pandas(table)

    def to_arrow(self, table: str = "races") -> Any:
        return super().to_arrow(table)


def races(
    battles: Battles,
    registry: Registry | None = None,
    *,
    turns: int = 20,
    decisions: str = "optimal",
    horizon: str = "combat",
    seed: int = 0,
    engine: str = "reference",
    budget: float | None = None,
) -> RaceResults:
    """Play each battle of `battles` (:func:`ecs_combat.battles`: its creatures and life; its
    attacks and blocks are not used) as a race (RULES section 12), player A first: `turns`,
    `decisions`, `horizon` as a ``[race]`` table takes them; drawn decisions of battle k use
    a generator seeded from (`seed`, k). `budget`: seconds of search at most per race. The
    races are played one after another (Python per turn: for thousands of boards, expect
    about a tenth of a second a race with the combat horizon)."""
    registry = registry if registry is not None else load_registry()
    if not 1 <= turns <= MOST_TURNS:
        raise InputError(None, "turns", f"must be from 1 to {MOST_TURNS}, not {turns}")
    for name, value, allowed in (
        ("decisions", decisions, DECISIONS),
        ("horizon", horizon, HORIZONS),
    ):
        if value not in allowed:
            shown = " or ".join(repr(a) for a in allowed)
            raise InputError(None, name, f"unknown {name} {value!r} (one of {shown})")
    if budget is not None and not budget > 0:
        raise InputError(None, "budget", f"must be a positive number of seconds, not {budget:g}")
    resolve = turn_resolver(engine, registry)
    states = []
    for k, scenario in enumerate(batch_to_scenarios(battles.batch, registry)):
        own = race_seed(seed, k)
        settings = RaceSettings("A", turns, decisions, horizon, own)
        board = RaceScenario(f"battle {k}", scenario.players, scenario.creatures, settings)
        states.append(play_race(board, registry, resolve, budget=budget))
    winner = [-1 if s.winner is None else list(s.race.order).index(s.winner) for s in states]
    decided = [[d.optimal for t in s.history for d in t.decided] for s in states]
    columns: dict[str, Array] = {
        "race": np.arange(len(states), dtype=np.int64),
        "winner": np.array(winner, np.int8),
        "turns_played": np.array([len(s.history) for s in states], np.int64),
        "life_a": np.array([s.final_players["A"].life for s in states], np.int64),
        "life_b": np.array([s.final_players["B"].life for s in states], np.int64),
        "optimal": np.array([decisions == "optimal" and all(d) for d in decided], np.bool_),
    }
    return RaceResults(columns, states)


__all__ = [
    "DrawnPolicy",
    "OptimalPolicy",
    "RaceResults",
    "RaceScenario",
    "RaceState",
    "load_race",
    "race",
    "races",
]
