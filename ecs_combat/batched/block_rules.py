"""The combat of every battle of a batch as its blockers are declared (:func:`declaring_blockers`),
for the bulk decision search: the block rules judged then (``batched/views.py``: restrictions,
509.1a-b; how many attackers a creature may block, 509.1a; requirements, 509.1c: lure's, and
those the attack triggers made). The engines judge a scenario's blocks with the creatures as
they are then (after the attack triggers: RULES 4, ``rules/characteristics.py``); so does
this.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ecs_combat.batched.arrays import BoolArray, CombatBatch, IntArray
from ecs_combat.batched.views import (
    able_to_block,
    block_capacity,
    blockers_needed,
    legal_pairs,
    required_pairs,
)

if TYPE_CHECKING:
    from ecs_combat.batched.engine import BatchedEngine


@dataclass(frozen=True)
class DeclaringBlockers:
    """Every battle of a batch as its blockers are declared: attackers declared and their
    triggers resolved (508.1, 508.2), nothing blocked yet; the rules by its creature rows."""

    #: [N] creatures untapped on the battlefield that the rules allow to block at all.
    may_block: BoolArray
    #: Whether each (attacker row, blocker row) pair is allowed (509.1a-b restrictions).
    legal_blocks: Callable[[IntArray, IntArray], BoolArray]
    #: How many blockers each attacker row needs at least (509.1b), or None: one.
    blockers_needed: Callable[[IntArray], IntArray | None]
    #: How many requirements each (attacker row, blocker row) pair obeys (509.1c), or None.
    required: Callable[[IntArray, IntArray], IntArray | None]
    #: How many attackers at most each creature row may block (509.1a).
    capacity: Callable[[IntArray], IntArray]


def declaring_blockers(
    engine: BatchedEngine, batch: CombatBatch, defends: BoolArray
) -> DeclaringBlockers:
    """The batch's combats played to the declaration of blockers (its blocks and divisions
    are not read); `defends`: the defending player's creature rows."""
    state = engine.as_blockers_are_declared(batch)
    frame, kw, c, combat = state.frame, state.keywords, state.creatures, state.combat
    may = defends & c.on_bf & ~c.tapped
    if combat.returned is not None:  # new objects were never declared (RULES 11.3)
        may &= ~combat.returned
    rows = may.nonzero()[0]
    may[rows] = able_to_block(frame, kw, c, rows)
    return DeclaringBlockers(
        may,
        lambda a, b: legal_pairs(frame, kw, c, a, b),
        lambda a: blockers_needed(frame, kw, c, a),
        lambda a, b: required_pairs(frame, kw, c, combat, a, b),
        lambda b: block_capacity(frame, kw, c, b),
    )
