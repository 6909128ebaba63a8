"""What a run logs for ``resolve``'s results beyond the final state, step by step, as arrays
(:mod:`.results` builds the results from it)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import numpy.typing as npt

from ecs_combat.batched.arrays import IntArray

AnyArray = npt.NDArray[Any]


@dataclass
class Log:
    """What ``resolve`` prints beyond the final state, gathered step by step as arrays."""

    #: Damage dealt: step, source row, recipient (creature row or -1 - player row), amount,
    #: and the place among the source's recipients.
    damage: list[tuple[int, IntArray, IntArray, IntArray, IntArray]] = dataclasses.field(
        default_factory=list
    )
    #: Life gained: step, player row, source row, amount.
    gains: list[tuple[int, IntArray, IntArray, IntArray]] = dataclasses.field(default_factory=list)
    #: Creatures that died in a step's state-based actions.
    died: list[tuple[int, IntArray]] = dataclasses.field(default_factory=list)
    #: Combatants of a step: rows, whether each deals damage, its keywords, the steps it struck
    #: in before (bit per step), its power.
    strikes: list[tuple[int, AnyArray, AnyArray, AnyArray, AnyArray, AnyArray]] = dataclasses.field(
        default_factory=list
    )
