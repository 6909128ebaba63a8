"""The batched engine: many combats at once as numpy structure-of-arrays.

This package's public face: every name the rest of ecs_combat uses from it is imported from
here (``from ecs_combat.batched import BatchedEngine``), each module imported only when one of
its names is first used, so naming an array type does not load the engine.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ecs_combat.batched.arrays import (
        ACTION_CODE,
        BatchOutcome,
        BoolArray,
        CombatBatch,
        IntArray,
        MaskArray,
        StepDivisions,
    )
    from ecs_combat.batched.block_rules import DeclaringBlockers, declaring_blockers
    from ecs_combat.batched.board_copies import Copies, copy_boards, tile_boards
    from ecs_combat.batched.boards import (
        Declarations,
        Outcomes,
        Rows,
        Segments,
        csr_rows,
        join_outcomes,
        replaced,
        take_outcomes,
        with_declarations,
        without_blocks,
    )
    from ecs_combat.batched.convert import ReferenceBatchEngine, batch_to_scenarios
    from ecs_combat.batched.declared import play_declarations
    from ecs_combat.batched.engine import BatchedEngine, Played
    from ecs_combat.batched.from_scenarios import scenarios_to_batch
    from ecs_combat.batched.lines import rows_to_batch
    from ecs_combat.batched.numeric import (
        STRIDED_FROM,
        as_slice,
        distinct_rows,
        distinct_values,
        mask_of,
        repeated,
        row_ranges,
        run_starts,
        tiled,
    )
    from ecs_combat.batched.phase_start import PhaseStart
    from ecs_combat.batched.state import Schedule
    from ecs_combat.batched.turn import NO_TARGET, DrawnPhase, MainCasts, TurnBatch
    from ecs_combat.batched.turn_play import played_phases

#: Each public name -> the module that defines it.
_PUBLIC = {
    "ACTION_CODE": "ecs_combat.batched.arrays",
    "BatchOutcome": "ecs_combat.batched.arrays",
    "BoolArray": "ecs_combat.batched.arrays",
    "CombatBatch": "ecs_combat.batched.arrays",
    "IntArray": "ecs_combat.batched.arrays",
    "MaskArray": "ecs_combat.batched.arrays",
    "StepDivisions": "ecs_combat.batched.arrays",
    "DeclaringBlockers": "ecs_combat.batched.block_rules",
    "declaring_blockers": "ecs_combat.batched.block_rules",
    "play_declarations": "ecs_combat.batched.declared",
    "Copies": "ecs_combat.batched.board_copies",
    "copy_boards": "ecs_combat.batched.board_copies",
    "tile_boards": "ecs_combat.batched.board_copies",
    "Declarations": "ecs_combat.batched.boards",
    "Outcomes": "ecs_combat.batched.boards",
    "Rows": "ecs_combat.batched.boards",
    "Segments": "ecs_combat.batched.boards",
    "csr_rows": "ecs_combat.batched.boards",
    "join_outcomes": "ecs_combat.batched.boards",
    "replaced": "ecs_combat.batched.boards",
    "take_outcomes": "ecs_combat.batched.boards",
    "with_declarations": "ecs_combat.batched.boards",
    "without_blocks": "ecs_combat.batched.boards",
    "ReferenceBatchEngine": "ecs_combat.batched.convert",
    "batch_to_scenarios": "ecs_combat.batched.convert",
    "BatchedEngine": "ecs_combat.batched.engine",
    "Played": "ecs_combat.batched.engine",
    "scenarios_to_batch": "ecs_combat.batched.from_scenarios",
    "rows_to_batch": "ecs_combat.batched.lines",
    "STRIDED_FROM": "ecs_combat.batched.numeric",
    "as_slice": "ecs_combat.batched.numeric",
    "distinct_rows": "ecs_combat.batched.numeric",
    "distinct_values": "ecs_combat.batched.numeric",
    "mask_of": "ecs_combat.batched.numeric",
    "repeated": "ecs_combat.batched.numeric",
    "row_ranges": "ecs_combat.batched.numeric",
    "run_starts": "ecs_combat.batched.numeric",
    "tiled": "ecs_combat.batched.numeric",
    "PhaseStart": "ecs_combat.batched.phase_start",
    "Schedule": "ecs_combat.batched.state",
    "DrawnPhase": "ecs_combat.batched.turn",
    "MainCasts": "ecs_combat.batched.turn",
    "NO_TARGET": "ecs_combat.batched.turn",
    "TurnBatch": "ecs_combat.batched.turn",
    "played_phases": "ecs_combat.batched.turn_play",
}


def __getattr__(name: str) -> Any:
    """The public names of :data:`_PUBLIC`, imported on first use."""
    where = _PUBLIC.get(name)
    if where is None:
        raise AttributeError(f"module 'ecs_combat.batched' has no attribute {name!r}")
    value = getattr(importlib.import_module(where), name)
    globals()[name] = value
    return value


__all__ = [
    "ACTION_CODE",
    "NO_TARGET",
    "STRIDED_FROM",
    "BatchOutcome",
    "BatchedEngine",
    "BoolArray",
    "CombatBatch",
    "Copies",
    "Declarations",
    "DeclaringBlockers",
    "DrawnPhase",
    "IntArray",
    "MainCasts",
    "MaskArray",
    "Outcomes",
    "PhaseStart",
    "Played",
    "ReferenceBatchEngine",
    "Rows",
    "Schedule",
    "Segments",
    "StepDivisions",
    "TurnBatch",
    "as_slice",
    "batch_to_scenarios",
    "copy_boards",
    "csr_rows",
    "declaring_blockers",
    "distinct_rows",
    "distinct_values",
    "join_outcomes",
    "mask_of",
    "play_declarations",
    "played_phases",
    "repeated",
    "replaced",
    "row_ranges",
    "rows_to_batch",
    "run_starts",
    "scenarios_to_batch",
    "take_outcomes",
    "tile_boards",
    "tiled",
    "with_declarations",
    "without_blocks",
]
