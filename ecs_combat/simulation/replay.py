"""One battle of a simulation as a scenario (``simulate --replay K``): drawn again from the
SPEC and seed alone (battle K is the same whichever chunk draws it), written as a scenario
document that ``resolve`` reads and resolves to the outcome the run recorded for it."""

from __future__ import annotations

from ecs_combat.batched.convert import batch_to_scenarios
from ecs_combat.errors import InputError
from ecs_combat.plugin.registry import Registry
from ecs_combat.scenario.model import Scenario
from ecs_combat.scenario.writer import scenario_document, toml_text
from ecs_combat.simulation.decided import decided
from ecs_combat.simulation.generate import Generator, draw_battles


def replay_scenario(generator: Generator, registry: Registry, seed: int, battle: int) -> Scenario:
    """Battle number `battle` of the run with `seed`, as the scenario the reference engine
    resolves for it (players A and B, creatures c0, c1, ... as in the per-creature table;
    a card's creature is named after the card, with its power, toughness and keywords)."""
    drawn, _ = decided(generator, draw_battles(generator, seed, battle, battle + 1), None)
    if drawn.turn is not None:
        raise InputError(
            "--replay",
            str(battle),
            "a SPEC with [turn] draws whole turns; --replay prints one-combat battles only",
        )
    scenario = batch_to_scenarios(drawn.batch, registry)[0]
    scenario.file = f"battle {battle}"
    pool = generator.pool
    if pool is not None and drawn.card is not None and drawn.batch.creature_names is None:
        for creature, card in zip(scenario.creatures.values(), drawn.card.tolist(), strict=True):
            creature.name = pool.names[card]  # named after its card (no plugin reads names)
    return scenario


def replay_text(
    generator: Generator, registry: Registry, seed: int, battle: int, comments: tuple[str, ...]
) -> str:
    """The scenario file (TOML) of one battle, after comment lines saying where it is from."""
    doc = scenario_document(replay_scenario(generator, registry, seed, battle), registry)
    return toml_text(doc, comments)
