"""The Python API's readable accounts and simulated battles (docs/python.md, "Accounts, replays
and generated scenarios"): the text ``ecs-combat resolve`` prints for a combat or a turn, battle
K of a simulation as a scenario (``simulate --replay K``), and the scenarios a SPEC draws.
Exported from :mod:`ecs_combat`."""

from __future__ import annotations

import io
from pathlib import Path
from typing import TYPE_CHECKING

from ecs_combat.errors import InputError
from ecs_combat.plugin.loading import load_registry
from ecs_combat.plugin.registry import Registry
from ecs_combat.rules.result import CombatResult, TurnResult
from ecs_combat.scenario.model import Scenario
from ecs_combat.scenario.turns import TurnScenario

if TYPE_CHECKING:
    from ecs_combat.scenario.race import RaceScenario
    from ecs_combat.simulation.generate import Generator

#: The width the account is laid out for: nothing is cut or wrapped (it is the plain layout).
WIDTH = 200


def account(
    scenario: Scenario | TurnScenario,
    result: CombatResult | TurnResult | None = None,
    *,
    engine: str = "reference",
    registry: Registry | None = None,
) -> str:
    """The readable account of a combat or a turn: the text ``ecs-combat resolve FILE``
    prints in a pipe (docs/output.md), line for line. `result`: the scenario's result (from
    :func:`~ecs_combat.api.resolve`); without it the scenario is resolved on `engine` first.
    As in the command, a result of the batched engine (which records no sentences) is worded
    by the reference engine, its outcome checked to be the same (docs/output.md)."""
    from ecs_combat.api import resolve
    from ecs_combat.console import text_console
    from ecs_combat.console.account import render
    from ecs_combat.console.turn_account import render_turn
    from ecs_combat.reference.narration import Narrator

    if result is None:
        (result,) = resolve(scenario, engine, registry)  # type: ignore[arg-type]
    if not result.worded:
        narrator = Narrator(registry if registry is not None else load_registry())
        if isinstance(scenario, TurnScenario) and isinstance(result, TurnResult):
            result = narrator.turn(scenario, result)
        elif isinstance(scenario, Scenario) and isinstance(result, CombatResult):
            result = narrator.combat(scenario, result)
    out = io.StringIO()
    console = text_console(out, WIDTH)
    if isinstance(scenario, TurnScenario):
        if not isinstance(result, TurnResult):
            raise InputError(None, "result", "a turn's account needs its TurnResult")
        render_turn(scenario, result, console)
    else:
        if not isinstance(result, CombatResult):
            raise InputError(None, "result", "a combat's account needs its CombatResult")
        render(scenario, result, console)
    return out.getvalue()


def _generator(spec: str | Path | None, registry: Registry, decisions: str | None) -> Generator:
    """The battles' generator of a SPEC file (the keyword tournament without one), with
    `decisions` (``"drawn"`` or ``"optimal"``) in place of its own if given."""
    import dataclasses

    from ecs_combat.simulation.generators import make_generator
    from ecs_combat.simulation.spec import decisions_refused, drawn_refused, tournament
    from ecs_combat.simulation.spec_reader import load_spec

    chosen = load_spec(str(spec), registry) if spec is not None else tournament(registry)
    if decisions is not None and decisions != chosen.decisions:
        if decisions not in ("drawn", "optimal"):
            raise InputError(None, "decisions", f"must be 'drawn' or 'optimal', not {decisions!r}")
        chosen = dataclasses.replace(chosen, decisions=decisions)
        why = (decisions_refused if decisions == "optimal" else drawn_refused)(chosen, registry)
        if why is not None:
            raise InputError(None, "decisions", f"refused for this SPEC: {why}")
    return make_generator(chosen, registry)


def replay(
    battle: int,
    spec: str | Path | None = None,
    *,
    seed: int,
    decisions: str | None = None,
    registry: Registry | None = None,
) -> Scenario | TurnScenario | RaceScenario:
    """Battle number `battle` of the simulation of `spec` (the keyword tournament without
    one) with `seed`, as ``ecs-combat simulate [SPEC] --seed S --replay K`` prints it, read
    back: a :class:`Scenario` (a :class:`TurnScenario` for a SPEC with ``[turn]``) that
    :func:`~ecs_combat.api.resolve` resolves to the outcome the run recorded for it, and
    :func:`account` tells; for a SPEC with ``[race]``, the :class:`RaceScenario` that
    :func:`ecs_combat.race` plays as the run did. The same battle whatever the run's size,
    engine or workers."""
    from ecs_combat.scenario.race import parse_race
    from ecs_combat.scenario.turn_loader import parse_turn
    from ecs_combat.simulation.replay import replay_race, replay_scenario, replay_turn

    registry = registry if registry is not None else load_registry()
    if battle < 0:
        raise InputError(None, "battle", f"must be 0 or more, not {battle}")
    if seed < 0:
        raise InputError(None, "seed", f"must be 0 or more, not {seed}")
    generator = _generator(spec, registry, decisions)
    race = replay_race(generator, registry, seed, battle)
    if race is not None:
        return parse_race(race, registry, f"battle {battle}")
    turn = replay_turn(generator, registry, seed, battle)
    if turn is not None:
        return parse_turn(turn, registry, f"battle {battle}")
    return replay_scenario(generator, registry, seed, battle)


def scenarios(
    spec: str | Path | None = None,
    *,
    battles: int = 100,
    seed: int,
    start: int = 0,
    decisions: str | None = None,
    registry: Registry | None = None,
) -> list[Scenario]:
    """Random scenarios drawn from a SPEC file (the keyword tournament without one): battles
    `start` to `start + battles - 1` of the simulation with `seed`, each the scenario
    ``simulate --replay K`` gives for it (declarations included: drawn, or the defending
    player's best blocks with ``decisions="optimal"``). A SPEC with ``[turn]`` is refused:
    :func:`replay` gives its turns one at a time."""
    from ecs_combat.batched import batch_to_scenarios
    from ecs_combat.simulation.deciding import decided
    from ecs_combat.simulation.generate import draw_battles
    from ecs_combat.simulation.spec import BattleSpec

    registry = registry if registry is not None else load_registry()
    if battles < 1:
        raise InputError(None, "battles", f"must be 1 or more, not {battles}")
    if start < 0 or seed < 0:
        raise InputError(None, "start" if start < 0 else "seed", "must be 0 or more")
    generator = _generator(spec, registry, decisions)
    if isinstance(generator.spec, BattleSpec) and generator.spec.turn is not None:
        raise InputError(
            str(spec), "turn", "a SPEC with [turn] draws turns: replay(K) gives each one"
        )
    drawn, _ = decided(generator, draw_battles(generator, seed, start, start + battles), None)
    out = batch_to_scenarios(drawn.batch, registry)
    pool = generator.pool
    for k, scenario in enumerate(out):
        scenario.file = f"battle {start + k}"
    if pool is not None and drawn.card is not None and drawn.batch.creature_names is None:
        cards = drawn.card.tolist()
        rows = (c for s in out for c in s.creatures.values())
        for creature, card in zip(rows, cards, strict=True):
            creature.name = pool.names[card]
    return out


__all__ = ["account", "replay", "scenarios"]
