"""One battle of a simulation as a scenario (``simulate --replay K``): drawn again from the
SPEC and seed alone (battle K is the same whichever chunk draws it), written as a scenario
document that ``resolve`` reads and resolves to the outcome the run recorded for it. A SPEC
with ``[turn]`` gives a turn file (docs/turns.md): each combat phase's declarations as the
run made them. A SPEC with ``[race]`` gives a race file (docs/races.md)."""

from __future__ import annotations

from typing import Any

from ecs_combat.batched import BatchedEngine, batch_to_scenarios, played_phases
from ecs_combat.plugin.registry import Registry
from ecs_combat.scenario.model import Scenario
from ecs_combat.scenario.writer import (
    race_toml_text,
    scenario_document,
    toml_text,
    turn_toml_text,
)
from ecs_combat.simulation.deciding import decided
from ecs_combat.simulation.generate import Drawn, Generator, draw_battles
from ecs_combat.simulation.races import race_scenario
from ecs_combat.simulation.spec import BattleSpec
from ecs_combat.simulation.turns import PLAYER_IDS, SIDES, TurnSpec


def _drawn(generator: Generator, seed: int, battle: int) -> Drawn:
    drawn, _ = decided(generator, draw_battles(generator, seed, battle, battle + 1), None)
    return drawn


def _named(scenario: Scenario, generator: Generator, drawn: Drawn, battle: int) -> Scenario:
    """The battle's scenario named `battle K`, a card pool's creatures after their cards."""
    scenario.file = f"battle {battle}"
    pool = generator.pool
    if pool is not None and drawn.card is not None and drawn.batch.creature_names is None:
        for creature, card in zip(scenario.creatures.values(), drawn.card.tolist(), strict=True):
            creature.name = pool.names[card]  # named after its card (no plugin reads names)
    return scenario


def replay_scenario(generator: Generator, registry: Registry, seed: int, battle: int) -> Scenario:
    """Battle number `battle` of the run with `seed`, as the scenario the reference engine
    resolves for it (players A and B, creatures c0, c1, ... as in the per-creature table;
    a card's creature is named after the card, with its power, toughness and keywords); for
    a SPEC with ``[turn]``, its first combat phase (:func:`replay_turn` gives the turn)."""
    drawn = _drawn(generator, seed, battle)
    return _named(batch_to_scenarios(drawn.batch, registry)[0], generator, drawn, battle)


def replay_turn(
    generator: Generator, registry: Registry, seed: int, battle: int
) -> dict[str, Any] | None:
    """Battle `battle` of a run of a SPEC with ``[turn]`` as a turn document (docs/turns.md),
    or None for another SPEC. Its ``[[combats]]`` entries are the combat phases' declarations
    as the run made them: the first phase's drawn ones, and each later phase's as it began
    (from the drawn intentions the state allowed, played on the batched engine). The turn's
    creatures are written as their cards (``card = "Throat Wolf"``: the card gives the turn
    its phases), its spells as ``turn.casts``."""
    spec = generator.spec
    if not isinstance(spec, BattleSpec) or spec.turn is None:
        return None
    drawn = _drawn(generator, seed, battle)
    assert drawn.turn is not None  # a SPEC with [turn] draws turns
    phases = played_phases(BatchedEngine(registry).schedules, drawn.turn)
    scenarios = [
        _named(batch_to_scenarios(phase, registry)[0], generator, drawn, battle) for phase in phases
    ]
    first = scenario_document(scenarios[0], registry)
    return {
        "players": first["players"],
        "creatures": _turn_creatures(first["creatures"], spec.turn),
        "turn": _turn_table(spec.turn),
        "combats": [_combat_entry(scenario_document(s, registry)) for s in scenarios],
    }


def _turn_creatures(creatures: dict[str, Any], turn: TurnSpec) -> dict[str, Any]:
    """The battle's creatures, the turn's own (the last rows of each battle) as their cards."""
    ids = list(creatures)
    extra = ids[len(ids) - len(turn.creatures) :]
    out = dict(creatures)
    for cid, creature in zip(extra, turn.creatures, strict=True):
        controller = PLAYER_IDS[SIDES.index(creature.controller)]
        out[cid] = {"card": creature.card, "controller": controller}
    return out


def _turn_table(turn: TurnSpec) -> dict[str, Any]:
    table: dict[str, Any] = {"active": PLAYER_IDS[0]}
    if turn.casts:
        table["casts"] = [
            {"card": c.card, "caster": PLAYER_IDS[SIDES.index(c.caster)], "main": c.main}
            for c in turn.casts
        ]
    return table


def _combat_entry(doc: dict[str, Any]) -> dict[str, Any]:
    """A ``[[combats]]`` entry: the phase's combat table with its events."""
    entry = dict(doc["combat"])
    if doc.get("events"):
        entry["events"] = doc["events"]
    return entry


def replay_race(
    generator: Generator, registry: Registry, seed: int, battle: int
) -> dict[str, Any] | None:
    """Race `battle` of a run of a SPEC with ``[race]`` as a race document (docs/races.md)
    that ``ecs-combat race`` plays to what the run played (its ``seed`` the race's own), or
    None for another SPEC."""
    spec = generator.spec
    if not isinstance(spec, BattleSpec) or spec.race is None:
        return None
    drawn = draw_battles(generator, seed, battle, battle + 1)
    board = _named(batch_to_scenarios(drawn.batch, registry)[0], generator, drawn, battle)
    race = race_scenario(board, spec.race, battle)
    doc = scenario_document(board, registry)
    return {
        "players": doc["players"],
        "creatures": doc["creatures"],
        "race": race.settings.to_json(),
    }


def replay_text(
    generator: Generator, registry: Registry, seed: int, battle: int, comments: tuple[str, ...]
) -> str:
    """The scenario file (TOML) of one battle, after comment lines saying where it is from;
    for a SPEC with ``[turn]``, the turn file."""
    race = replay_race(generator, registry, seed, battle)
    if race is not None:
        return race_toml_text(race, comments)
    turn = replay_turn(generator, registry, seed, battle)
    if turn is not None:
        said = (
            "A whole turn of A: each [[combats]] entry is a combat phase, as the run declared it."
        )
        return turn_toml_text(turn, (*comments, said))
    doc = scenario_document(replay_scenario(generator, registry, seed, battle), registry)
    return toml_text(doc, comments)
