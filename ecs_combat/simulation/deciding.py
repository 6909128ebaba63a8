"""Which drawn battles a simulation decides (``decisions = "optimal"``), and by whom: the
generator's spec says; the deciding is :mod:`ecs_combat.decisions`' (one decider per
generator, kept while the generator lives)."""

from __future__ import annotations

import dataclasses
import weakref

from ecs_combat.batched import BatchedEngine, BatchOutcome
from ecs_combat.decisions.decided import Decider
from ecs_combat.decisions.turn_decided import TurnDecider
from ecs_combat.simulation.generate import Drawn, Generator

_deciders: weakref.WeakKeyDictionary[Generator, Decider] = weakref.WeakKeyDictionary()
_turn_deciders: weakref.WeakKeyDictionary[Generator, TurnDecider] = weakref.WeakKeyDictionary()


def decided(
    generator: Generator, drawn: Drawn, engine: object, distinct: bool = False
) -> tuple[Drawn, BatchOutcome | None]:
    """The drawn battles as the generator's spec says: attacks and blocks as drawn, or with
    ``decisions = "optimal"`` the best attacks and blocks (:class:`Decider`). When `engine`
    is the batched engine, also their outcomes if the search kept them; else None: the
    engine is to resolve them. Turns (a SPEC with ``[turn]``) are decided phase by phase as
    they are played (:class:`~ecs_combat.decisions.turn_decided.TurnDecider`): None. `distinct`:
    the battles' boards are all different (none is looked for twice)."""
    if generator.spec.decisions != "optimal":
        return drawn, None
    if drawn.turn is not None:  # each combat phase decided as it begins
        declarer = _turn_deciders.get(generator)
        if declarer is None:
            declarer = _turn_deciders[generator] = TurnDecider(generator.bits.registry)
        return dataclasses.replace(
            drawn, turn=dataclasses.replace(drawn.turn, declarer=declarer)
        ), None
    decider = _deciders.get(generator)
    if decider is None:
        decider = _deciders[generator] = Decider(generator.bits.registry)
    return decider.decide(drawn, isinstance(engine, BatchedEngine), distinct=distinct)
