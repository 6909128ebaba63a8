"""What the kernel needs to draw a SPEC's battles block by block (:mod:`.spec_player`): the
numbers :meth:`SpecGenerator.draw <ecs_combat.simulation.generate.SpecGenerator.draw>` draws
from, and the rules ``assemble`` applies, as tables over the sets of drawn keywords."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ecs_combat.batched import CombatBatch

AnyArray = npt.NDArray[Any]


@dataclass(frozen=True)
class SpecBlocks:
    """A SPEC's blocks for the kernel (arrays as :func:`.spec_draw.draw_block` reads them)."""

    #: A block's batch at its largest (every battle with the most creatures, every block
    #: drawn, every cast): the kernel's arrays are made from it once.
    batch: CombatBatch
    #: The same with every keyword the SPEC may draw, for the schedule.
    probe: CombatBatch
    #: Battles a block.
    battles: int
    #: Matchup codes a side.
    codes: int
    sizes: AnyArray
    ranges: AnyArray
    keyword_limits: AnyArray
    #: The keyword mask of each set of drawn keywords (bit ``j``: the ``j``-th drawn).
    keyword_bits: AnyArray
    chance_limits: AnyArray
    player_chances: AnyArray
    tables: AnyArray
    legal: AnyArray
    #: Per ``[[casts]]`` entry: its card and its target kind (:data:`.spec_draw.ATTACKER`...).
    cast_cards: tuple[str, ...]
    cast_kinds: tuple[int, ...]
    #: A block's random numbers from its generator, `n` battles, as the numpy path draws
    #: them (:func:`.spec_draw.draw_block`'s first arguments but `n`).
    numbers: Callable[[np.random.Generator, int], tuple[AnyArray, ...]]
    #: The creature states drawn (the first chances), and the players' states, in order.
    creature_states: tuple[str, ...]
    player_states: tuple[str, ...]
