"""Bulk simulation with decisions (``decisions = "optimal"``, CONTRACT section 8): each drawn
battle's blocks are not the drawn ones but the defending player's best, searched exactly as
RULES section 9 says, with the attacking player's best damage divisions.

Everything is array work over the battles of a chunk (:mod:`.block_search`). Battles of one *shape* (attackers,
creatures that may block) share one enumeration of raw declarations (each creature blocks
nothing or one attacker, 509.1a); which of them each battle may declare comes from the
keywords' restrictions pair by pair (:class:`~ecs_combat.simulation.keyword_bits.KeywordBits`),
as a mask per (battle, declaration). The legal ones of many battles are searched together
(:func:`ecs_combat.decisions.search.search`), and each battle gets its best declaration (ties
as RULES section 9 shows them first) and the divisions of the best line, to be resolved by the
run's engine.
"""

from __future__ import annotations

import dataclasses
import weakref

import numpy as np

from ecs_combat.batched.arrays import BatchOutcome, BoolArray, CombatBatch, IntArray
from ecs_combat.batched.boards import Segments, with_declarations
from ecs_combat.batched.engine import BatchedEngine
from ecs_combat.decisions.objective import Objective, Sides
from ecs_combat.simulation.block_search import BlockSearch, Legality
from ecs_combat.simulation.generate import Drawn, Generator
from ecs_combat.simulation.keyword_bits import KeywordBits, RowFacts
from ecs_combat.simulation.turn_decided import TurnDecider

I64 = np.int64


class Decider:
    """Chooses the blocks (and divisions) of drawn battles with the batched engine's search."""

    def __init__(self, generator: Generator) -> None:
        self.bits: KeywordBits = generator.bits
        self.possible: np.uint64 = generator.possible
        registry = self.bits.registry
        self.engine = BatchedEngine(registry)
        self.objective = Objective.default(registry)
        self.color_keywords = {
            name for name, kw in registry.keywords.items() if kw.parameter == "color"
        }
        self.search = BlockSearch(self.engine, self.objective)

    @property
    def combats_resolved(self) -> int:
        """Candidate combats resolved, over every chunk decided (for measurements)."""
        return self.search.combats_resolved

    def decide(self, drawn: Drawn, outcomes: bool = False) -> tuple[Drawn, BatchOutcome | None]:
        """The battles with the defending player's best blocks and the best line's
        divisions instead of the drawn blocks; with `outcomes`, also their outcomes as the
        search resolved them (the batched engine's)."""
        batch = drawn.batch
        best = self.search.best(
            batch, self._sides(batch), ~drawn.attacking_side, self._legality(batch), outcomes
        )
        decided = dataclasses.replace(drawn, batch=with_declarations(batch, best.declarations))
        if not outcomes:
            return decided, None
        assert best.outcome is not None
        return decided, best.outcome[0]

    def _legality(self, batch: CombatBatch) -> Legality:
        """The blocks the keywords' restrictions allow, from the batch's keyword bits."""
        bits, possible = self.bits, self.possible
        facts = self._facts(batch)

        def pairs(pa: IntArray, pb: IntArray) -> BoolArray:
            return bits.legal_blocks(
                batch.keywords[pa], batch.keywords[pb], possible,
                batch.power[pa], batch.power[pb], facts.take(pa), facts.take(pb),
            )  # fmt: skip

        def need(attackers: IntArray) -> IntArray | None:
            return bits.blockers_needed(batch.keywords[attackers], possible)

        return Legality(pairs if bits.restricts_blocks(possible) else None, need)

    def _sides(self, batch: CombatBatch) -> Sides:
        """Player 2i attacks, 2i + 1 defends (as drawn); a creature's value is its power
        plus toughness as drawn (RULES section 9)."""
        ps = Segments.of(batch.player_battle, batch.n_battles).start
        return Sides(ps, ps + 1, (batch.power + batch.toughness).astype(I64))

    def _facts(self, batch: CombatBatch) -> RowFacts:
        """The rows' colors and keyword parameters, from the batch's keyword instances."""
        n = batch.n_creatures
        names = batch.keyword_names
        colors = self.color_keywords

        def values(keyword: str) -> IntArray:
            out = np.zeros(n, I64)
            if keyword not in names:
                return out
            on = (batch.instance_keyword == names.index(keyword)) & (batch.instance_parameter >= 0)
            rows, p = batch.instance_row[on], batch.instance_parameter[on]
            if keyword in colors:
                np.bitwise_or.at(out, rows, np.int64(1) << p)
            else:
                np.add.at(out, rows, p)
            return out

        return RowFacts(batch.colors, values)


_deciders: weakref.WeakKeyDictionary[Generator, Decider] = weakref.WeakKeyDictionary()
_turn_deciders: weakref.WeakKeyDictionary[Generator, TurnDecider] = weakref.WeakKeyDictionary()


def decided(
    generator: Generator, drawn: Drawn, engine: object
) -> tuple[Drawn, BatchOutcome | None]:
    """The drawn battles as the generator's spec says: blocks as drawn, or with
    ``decisions = "optimal"`` the best blocks (:class:`Decider`). When `engine` is the
    batched engine, also their outcomes (the search resolved them with it); else None: the
    engine is to resolve them. Turns (a SPEC with ``[turn]``) are decided phase by phase as
    they are played (:class:`~ecs_combat.simulation.turn_decided.TurnDecider`): None."""
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
        decider = _deciders[generator] = Decider(generator)
    return decider.decide(drawn, outcomes=isinstance(engine, BatchedEngine))
