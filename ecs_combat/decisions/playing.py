"""Where the decision tree's levels are played: the plugin set's compiled kernel for the small
levels it covers (docs/performance.md, "Compiled kernels"), else the batched engine; and some
nodes of any levels gathered into one level, to play them again with the engine's log."""

from __future__ import annotations

import numpy as np

from ecs_combat.batched import BatchedEngine, CombatBatch, IntArray, Played
from ecs_combat.decisions.nodes import Level

I64 = np.int64

#: Levels of at most this many creature rows are played in the compiled kernel when it covers
#: them (kernels on): 2-4x faster than the numpy engine on a search's small levels, no faster
#: on the decided tournament's (a few hundred thousand rows; docs/performance.md).
KERNEL_ROWS = 1 << 15
#: Levels of at most this many creature rows played in the kernel keep its log when the tree
#: records (their best lines are read from it; as many as the tree records); a larger
#: level's best lines are played again.
LOGGED_ROWS = 1 << 14


def play_level(
    engine: BatchedEngine, batch: CombatBatch, rows: int, record: bool, horizon: bool
) -> tuple[Played, bool]:
    """A level's batch played, and whether with a log (`record`): the numpy engine's, or
    the kernel's when it plays a level of at most :data:`LOGGED_ROWS` rows
    (:attr:`Played.logged`: the results it tells). A tree looking past the combat
    (`horizon`) reads every leaf's notes, so its levels stay with the engine."""
    if not horizon and rows <= KERNEL_ROWS and engine.kernel_takes(batch, legal=True):
        logged = record and rows <= LOGGED_ROWS
        return engine.play_batch(batch, record=False, kernel=True, log=logged), logged
    return engine.play_batch(batch, record=record), record


def nodes_level(levels: list[Level], nodes: IntArray, div: IntArray, owner: IntArray) -> Level:
    """Some distinct nodes of any `levels` as one level, in the order given, with their
    chosen divisions (`div` [R, 4], grouped by node; `owner`: each row's place in `nodes`)."""
    firsts = np.array([lv.first for lv in levels], I64)
    at = (firsts.searchsorted(nodes, side="right") - 1).tolist()
    decl = np.array(
        [int(levels[i].decl[n - firsts[i]]) for i, n in zip(at, nodes.tolist(), strict=True)],
        I64,
    )
    div_start = np.zeros(len(nodes) + 1, I64)
    np.cumsum(np.bincount(owner, minlength=len(nodes)), out=div_start[1:])
    return Level(0, decl, np.zeros(len(nodes), I64), div_start, div, nodes)
