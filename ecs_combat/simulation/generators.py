"""The generator of a spec: battles drawn from its ranges (:mod:`.generate`), from a card pool
(:mod:`.card_draw`) or a tournament's matchups."""

from __future__ import annotations

from ecs_combat.plugin.registry import Registry
from ecs_combat.simulation.card_draw import CardGenerator
from ecs_combat.simulation.generate import Generator, SpecGenerator
from ecs_combat.simulation.spec import Spec, TournamentSpec
from ecs_combat.simulation.tournament_draw import TournamentGenerator


def make_generator(spec: Spec, registry: Registry) -> Generator:
    """The generator of a spec (a SPEC with a card pool: a :class:`CardGenerator`)."""
    if isinstance(spec, TournamentSpec):
        return TournamentGenerator(spec, registry)
    if spec.pool is not None:
        return CardGenerator(spec, registry)
    return SpecGenerator(spec, registry)
