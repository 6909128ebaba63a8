"""A level of the decision tree laid out as battles a declaration at a time instead of a
node at a time (the tree's nodes are board by board): the first level of boards that all have
the same declarations becomes that many copies of the whole run of boards, each made from
slices (:func:`~ecs_combat.batched.board_copies.tile_boards`), and the level's values, records
and outcomes are mapped back to its nodes."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ecs_combat.batched import IntArray, repeated

I64 = np.int64


@dataclass(frozen=True)
class Layout:
    """A level's nodes laid out as battles in another order than their own: a declaration
    at a time."""

    node: IntArray  #: [battles] each battle's node
    battle: IntArray  #: [nodes] each node's battle
    #: Battles ``t * boards + i`` are nodes ``i * each + t``.
    each: int

    @staticmethod
    def tiled(each: int, board: IntArray, decl: IntArray) -> Layout | None:
        """The layout of a first level's declarations `decl` (of boards `board`), when every
        board has the same `each` declarations (:attr:`~.tree.Blocks.each`, 0: unknown) and
        the boards are consecutive battles; else None."""
        if not each or len(decl) % each:
            return None
        n = len(decl) // each
        if not n or int(board[decl[-1]]) - int(board[decl[0]]) != n - 1:
            return None
        t, i = np.arange(each, dtype=I64), np.arange(n, dtype=I64)
        # battle t * n + i is node i * each + t
        return Layout((i * each + t[:, None]).reshape(-1), (t * n + i[:, None]).reshape(-1), each)

    def block_rows(self, start: IntArray) -> tuple[IntArray, IntArray]:
        """``csr_rows(start, node)``: the rows of each battle's pairs in the blocks' CSR
        `start`, and each one's battle, for a first level whose boards have the same
        declarations (:attr:`~.tree.Blocks.each`)."""
        each = self.each
        n = len(self.node) // each
        per = int(start[each] - start[0])  # pairs of a board
        rows, owner = [], []
        board_first = np.arange(n, dtype=I64) * per
        first = start[: each + 1].tolist()
        for t in range(each):
            lo, hi = first[t], first[t + 1]
            rows.append((board_first[:, None] + np.arange(lo, hi, dtype=I64)).reshape(-1))
            owner.append(repeated(np.arange(t * n, (t + 1) * n, dtype=I64), hi - lo))
        return np.concatenate(rows), np.concatenate(owner)

    def by_node(self, values: IntArray) -> IntArray:
        """Rows of `values` by battle, in node order."""
        n = len(values) // self.each
        by_board = values.reshape(self.each, n, *values.shape[1:]).swapaxes(0, 1)
        return np.ascontiguousarray(by_board).reshape(values.shape)
