"""Bulk simulation with decisions (``decisions = "optimal"``, CONTRACT sections 8 and 9): each
drawn battle's attack is the attacking player's best set of its drawn attackers
(:mod:`.attack_search`), its blocks the defending player's best against it, searched exactly as
RULES section 9 says, with both players' best damage divisions.

Everything is array work over the battles of a chunk (:mod:`.block_search`). Battles of one
*shape* (attackers, creatures that may block) share one enumeration of raw declarations (each
creature blocks nothing or a set of attackers up to its capacity, 509.1a: one, more with "can
block an additional creature" or "any number"); which of them each battle may declare is
judged as the engines judge a scenario's blocks, on the combat as blockers are declared (its
attack triggers resolved: :func:`~ecs_combat.batched.block_rules.declaring_blockers`): the
restrictions pair by pair and the least numbers of blockers (509.1a-b), and of those, the
declarations obeying as many of the attack triggers' requirements as any does (509.1c:
provoke), as a mask per (battle, declaration). The legal ones of many battles are searched
together (:func:`ecs_combat.decisions.search.search`), and each battle gets its best
declaration (ties as RULES section 9 shows them first) and the divisions of the best line, to
be resolved by the run's engine.
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar, Protocol, TypeVar

import numpy as np

from ecs_combat.batched import (
    BatchedEngine,
    BatchOutcome,
    BoolArray,
    CombatBatch,
    Declarations,
    IntArray,
    Rows,
    copy_boards,
    declaring_blockers,
    with_declarations,
)
from ecs_combat.decisions.attack_search import AttackSearch
from ecs_combat.decisions.block_search import Best, BlockSearch, Legality
from ecs_combat.decisions.bounds import Clock
from ecs_combat.decisions.distinct import distinct_boards, spread
from ecs_combat.decisions.objective import Objective, Sides
from ecs_combat.plugin.registry import Registry

I64 = np.int64
#: Each creature row's value, and whether it is a `value` key (None: none is).
Values = tuple[IntArray, BoolArray | None]


class DrawnBattles(Protocol):
    """Drawn battles as a bulk simulation holds them (a dataclass): their combats and which
    creatures are the attacking player's."""

    __dataclass_fields__: ClassVar[dict[str, Any]]

    @property
    def batch(self) -> CombatBatch:
        """The battles' first combat phase, as drawn."""
        ...

    @property
    def attacking_side(self) -> BoolArray:
        """[N] whether each creature belongs to the attacking player."""
        ...


Drawn = TypeVar("Drawn", bound=DrawnBattles)


class Decider:
    """Chooses the attacks, blocks and divisions of drawn battles with the batched engine's
    search."""

    def __init__(self, registry: Registry) -> None:
        self.registry = registry
        self.engine = BatchedEngine(registry)
        self.objective = Objective.default(registry)
        self.search = BlockSearch(self.engine, self.objective)
        self.attacks = AttackSearch(self.search)
        #: Whether :meth:`decide` decides each distinct board of a batch once (:mod:`.distinct`).
        self.distinct = True
        fields = registry.state_fields("creature")
        self._refs = tuple(k for k, f in fields.items() if f.kind == "creature")

    @property
    def combats_resolved(self) -> int:
        """Candidate combats resolved, over every chunk decided (for measurements)."""
        return self.search.combats_resolved

    def decide(
        self,
        drawn: Drawn,
        outcomes: bool = False,
        values: Values | None = None,
        distinct: bool = False,
    ) -> tuple[Drawn, BatchOutcome | None]:
        """The battles with the attacking player's best attack among its drawn attackers,
        the defending player's best blocks against it and the best line's divisions,
        instead of the drawn declarations; their outcomes are for the run's engine to
        resolve (None). `values`: each creature's value and whether it is a `value` key (default:
        power plus toughness as drawn, :meth:`_sides`). Each distinct board is decided once
        (:mod:`.distinct`) unless `distinct` says the boards are so already."""
        batch = drawn.batch
        rows = Rows.by_battle(batch)
        boards = None
        if values is None and self.distinct and not distinct:
            boards = distinct_boards(batch, drawn.attacking_side, rows, self.registry)
        if boards is None:
            declarations = self._attacks(batch, drawn.attacking_side, rows, values)
        else:  # each board once (its first battle's copy), spread to the battles
            copies = copy_boards(batch, boards.first, self._refs, rows)
            sides = drawn.attacking_side[copies.creature_row]
            found = self._attacks(copies.batch, sides, copies.segments(), None)
            declarations = spread(found, copies, boards, batch, rows)
        return dataclasses.replace(drawn, batch=with_declarations(batch, declarations)), None

    def _attacks(
        self, batch: CombatBatch, attacking_side: BoolArray, rows: Rows, values: Values | None
    ) -> Declarations:
        """:meth:`decide`'s declarations of every battle of a batch."""
        sides = self._sides(batch, rows, values)
        return self.attacks.best(batch, sides, ~attacking_side, rows).declarations

    def decide_blocks(
        self, drawn: Drawn, outcomes: bool = False, values: Values | None = None
    ) -> tuple[Drawn, BatchOutcome | None]:
        """The battles with the defending player's best blocks against their attackers as
        given and the best line's divisions; with `outcomes`, also their outcomes as the
        search resolved them (the batched engine's). `values` as for :meth:`decide`."""
        batch = drawn.batch
        best = self.best(batch, ~drawn.attacking_side, outcomes, values=values)
        decided = dataclasses.replace(drawn, batch=with_declarations(batch, best.declarations))
        if not outcomes:
            return decided, None
        assert best.outcome is not None
        return decided, best.outcome[0]

    def best(
        self,
        batch: CombatBatch,
        defends: BoolArray,
        outcomes: bool = False,
        clock: Clock | None = None,
        values: Values | None = None,
    ) -> Best:
        """The best blocks of a batch's battles by the creatures `defends` (the defending
        player's), judged on the combat as blockers are declared; `clock`: a time budget
        (:meth:`BlockSearch.best`); `values` as for :meth:`decide`."""
        at = declaring_blockers(self.engine, batch, defends)
        legality = Legality(at.legal_blocks, at.blockers_needed, at.required, at.capacity)
        rows = Rows.by_battle(batch)
        sides = self._sides(batch, rows, values)
        return self.search.best(
            batch, sides, at.may_block, legality, outcomes, rows=rows, clock=clock
        )

    def _sides(self, batch: CombatBatch, rows: Rows, values: Values | None = None) -> Sides:
        """A battle's first player attacks, its second defends (as drawn); a creature's value
        is as `values` gives it, else its power plus toughness as drawn (RULES section 9)."""
        ps = rows.players.start
        if values is not None:
            return Sides(ps, ps + 1, *values)
        return Sides(ps, ps + 1, (batch.power + batch.toughness).astype(I64))
