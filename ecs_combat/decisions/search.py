"""Exact search for the best blocks on many boards at once, and the best attacks over them.

Every declaration is first resolved with the default divisions (one batch). A declaration
where nobody had to divide is solved by that. Otherwise the default divisions are one line of
play of the attacking player: where the defending player had no division to choose on that
line, its score is a lower bound of the declaration's value (the attacking player can always
play it). The defending player wants the lowest value, so a declaration whose lower bound is
above the `top`-th best solved value of its board can neither be shown nor tie the best: it
is not searched further. The rest are searched to the end (:mod:`.tree`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ecs_combat.batched.arrays import BoolArray, CombatBatch, IntArray
from ecs_combat.batched.engine import BatchedEngine
from ecs_combat.decisions.declarations import BlockDeclarations
from ecs_combat.decisions.objective import Objective, Sides, lexicographic_ranks
from ecs_combat.decisions.tree import Blocks, Clock, Continuation, Level, Resolved, Tree

I64 = np.int64


@dataclass
class BoardResults:
    """The searched declarations of many boards (global declaration index ``d``)."""

    tree: Tree
    board: IntArray  #: [D] board of each declaration
    offset: IntArray  #: [n_boards + 1] first declaration of each board
    values: IntArray  #: [D, T]
    solved: BoolArray  #: [D] value exact
    #: [D] shown to be worse than the board's `top` best without being solved.
    cut: BoolArray
    #: :func:`lexicographic_ranks` of `values`, if known.
    ranks: IntArray | None = None

    def complete(self, board: int) -> bool:
        """Whether every declaration of the board is solved or cut."""
        lo, hi = self.offset[board], self.offset[board + 1]
        return bool((self.solved[lo:hi] | self.cut[lo:hi]).all())


def blocks_of(declarations: list[BlockDeclarations]) -> Blocks:
    """The pairs of every declaration of every board, as :class:`Blocks`."""
    pairs = [d.pairs for d in declarations]
    if len(pairs) == 1:  # one board: its own arrays
        p = pairs[0]
        board = np.zeros(len(p.start) - 1, I64)
        return Blocks(board, p.start, p.blocker, p.attacker, p.rank)
    counts = np.array([len(p.start) - 1 for p in pairs], I64)
    ends = np.array([p.start[-1] for p in pairs], I64)
    shift = np.concatenate([[0], ends.cumsum()[:-1]]).astype(I64)
    return Blocks(
        board=np.arange(len(pairs), dtype=I64).repeat(counts),
        start=np.concatenate(
            [
                *(p.start[:-1] + s for p, s in zip(pairs, shift.tolist(), strict=True)),
                [int(ends.sum())],
            ]
        ).astype(I64),
        blocker=np.concatenate([p.blocker for p in pairs]) if pairs else np.zeros(0, I64),
        attacker=np.concatenate([p.attacker for p in pairs]) if pairs else np.zeros(0, I64),
        rank=np.concatenate([p.rank for p in pairs]) if pairs else np.zeros(0, I64),
    )


def search_blocks(
    engine: BatchedEngine,
    objective: Objective,
    boards: CombatBatch,
    sides: Sides,
    declarations: list[BlockDeclarations],
    top: int,
    clock: Clock,
    attack_top: int | None = None,
    bounds: bool = True,
    record: bool = False,
    continuation: Continuation | None = None,
) -> BoardResults:
    """Solve the `top` best block declarations of every board (and those tied with the best).

    With `attack_top`, the boards are one attack declaration each and only the `attack_top`
    boards of highest value matter: a board whose value is shown to be below theirs is not
    searched further. Without `bounds`, every declaration is searched to the end (to measure
    what the bounds save). With `record`, the tree records what it can for the results of
    its nodes (:meth:`Tree.results_of`). With `continuation`, leaves are valued past their
    combat (:attr:`Tree.continuation`; it needs `record`).
    """
    offset = np.concatenate([[0], np.cumsum([d.count for d in declarations])]).astype(I64)
    blocks = blocks_of(declarations)
    tree = Tree(engine, objective, boards, sides, blocks, record=record, continuation=continuation)
    return search(tree, offset, top, clock, attack_top, bounds)


def search(
    tree: Tree,
    offset: IntArray,
    top: int,
    clock: Clock,
    attack_top: int | None = None,
    bounds: bool = True,
) -> BoardResults:
    """:func:`search_blocks` over the declarations of a new tree (``tree.blocks``), those
    of board ``b`` being ``offset[b]:offset[b + 1]``."""
    blocks = tree.blocks
    n_decl = len(blocks.board)
    root = Level(
        first=0,
        decl=np.arange(n_decl, dtype=I64),
        start_step=np.zeros(n_decl, I64),
        div_start=np.zeros(n_decl + 1, I64),
        div=np.zeros((0, 4), I64),
    )
    tree.add_level(root)
    resolved = tree.resolve(root)
    tree.values[0][:] = resolved.values
    tree.solved[0][:] = resolved.first < 0
    bounded = np.ones(n_decl, np.bool_)  # the default line is a lower bound
    for rec in resolved.records:
        bounded &= ~rec.defending_battles
    board_of = blocks.board
    cut = np.zeros(n_decl, np.bool_)
    chunk = FIRST_CHUNK
    final: IntArray | None = None  # the ranks of the final values
    while not clock.out():
        solved = tree.solved[0]
        ranks = lexicographic_ranks(tree.values[0])
        lower = np.where(solved | bounded, ranks, -1)
        threshold = _thresholds(
            board_of, offset, np.where(solved, ranks, int(ranks.max(initial=0)) + 1), top
        )
        pending = ~solved & ~cut
        if bounds:
            cut |= pending & (lower > threshold[board_of])
        if attack_top is not None and bounds:
            skip = _boards_below(offset, solved, ranks, lower, attack_top)
            cut |= pending & skip[board_of]
        pending &= ~cut
        if not pending.any():
            final = ranks
            break
        # the most promising first: the lowest lower bounds of each board
        places = _lowest(pending.nonzero()[0], lower, board_of, chunk if bounds else n_decl)
        chunk *= 4
        _solve(tree, root, resolved, places, clock)
    return BoardResults(tree, board_of, offset, tree.values[0], tree.solved[0], cut, final)


def _ranking_keys(results: BoardResults, rows: IntArray, tie: IntArray) -> list[IntArray]:
    """np.lexsort keys putting declarations `rows` best first: lowest value term by term,
    then lowest `tie` (the order ties are shown, RULES section 9)."""
    values = results.values[rows]
    return [tie, *(values[:, t] for t in range(values.shape[1] - 1, -1, -1))]


def ranked_declarations(results: BoardResults, board: int, tie_order: IntArray) -> IntArray:
    """The board's solved declarations, best (lowest value) first, ties in the order shown
    (`tie_order`: each of the board's declarations' place in that order)."""
    lo, hi = int(results.offset[board]), int(results.offset[board + 1])
    solved = lo + results.solved[lo:hi].nonzero()[0]
    return solved[np.lexsort(_ranking_keys(results, solved, tie_order[solved - lo]))]


def best_declarations(results: BoardResults, tie_key: IntArray) -> IntArray:
    """Every board's best solved declaration, as :func:`ranked_declarations` ranks them
    first, or -1; `tie_key` orders each board's declarations as ties are shown ([D], distinct
    within a board)."""
    n = len(results.offset) - 1
    solved = results.solved
    ranks = lexicographic_ranks(results.values) if results.ranks is None else results.ranks
    ties = int(tie_key.max(initial=0)) + 1
    if float(ranks.max(initial=0) + 1) * ties >= 2.0**62:  # one key would overflow: sort
        rows = solved.nonzero()[0]
        keys = _ranking_keys(results, rows, tie_key[rows])
        order = rows[np.lexsort([*keys, results.board[rows]])]
        boards = results.board[order]
        first = np.ones(len(order), np.bool_)
        first[1:] = boards[1:] != boards[:-1]
        out = np.full(n, -1, I64)
        out[boards[first]] = order[first]
        return out
    key = np.where(solved, ranks * ties + tie_key, np.iinfo(I64).max)
    return _first_lowest(results.offset, results.board, key, solved)


def _first_lowest(offset: IntArray, board: IntArray, key: IntArray, among: BoolArray) -> IntArray:
    """Per board (declarations ``offset[b]:offset[b + 1]``, `board` each one's), the
    declaration of lowest `key` among `among` (the first of equal ones), or -1."""
    n = len(offset) - 1
    each = _declarations_each(offset)
    if each:  # as many declarations each: a pass per place, not one reduction per board
        lowest = offset[:-1] + _lowest_by_place(key, n, each)[1]
        out: IntArray = np.where(among[lowest], lowest, -1)
        return out
    out = np.full(n, -1, I64)
    some = offset[1:] > offset[:-1]
    if not some.any():
        return out
    low = np.minimum.reduceat(key, offset[:-1][some])
    lowest = np.zeros(n, I64)
    lowest[some] = low
    hit = (among & (key == lowest[board])).nonzero()[0]
    first = np.ones(len(hit), np.bool_)
    first[1:] = board[hit][1:] != board[hit][:-1]
    out[board[hit][first]] = hit[first]
    return out


#: Up to this many declarations a board, boards with as many each find their lowest values
#: with a pass per place instead of a reduction per board (slow for short segments).
FEW_DECLARATIONS = 16


def _declarations_each(offset: IntArray) -> int:
    """How many declarations every board has, if they all have as many (at least one and
    at most :data:`FEW_DECLARATIONS`), else 0."""
    if len(offset) < 2 or offset[0] != 0:
        return 0
    each = int(offset[1])
    if not 0 < each <= FEW_DECLARATIONS or offset[-1] != each * (len(offset) - 1):
        return 0
    return 0 if np.count_nonzero(np.diff(offset) != each) else each


def _lowest_by_place(values: IntArray, n: int, each: int) -> tuple[IntArray, IntArray]:
    """For `n` boards of `each` consecutive values: each board's lowest value and the place
    of the first one that low."""
    boards = values.reshape(n, each)
    low = boards[:, 0].copy()
    at = np.zeros(n, I64)
    for j in range(1, each):  # whole-array passes: assigning through a mask is slower
        place = boards[:, j]
        lower = place < low
        np.minimum(low, place, out=low)
        np.copyto(at, j, where=lower)
    return low, at


#: Declarations solved per board in the first round; each later round takes four times more.
FIRST_CHUNK = 16


def _thresholds(board_of: IntArray, offset: IntArray, solved_rank: IntArray, top: int) -> IntArray:
    """The `top`-th best solved rank of each board (its declarations ``offset[b]:offset[b + 1]``,
    `board_of` each declaration's board), above every rank while fewer are solved."""
    n = len(offset) - 1
    each = _declarations_each(offset)
    if top == 1 and each:  # as many declarations each: a pass per place
        return _lowest_by_place(solved_rank, n, each)[0]
    out = np.full(n, int(solved_rank.max(initial=0)) + 1, I64)
    if top == 1 and len(board_of):
        some = offset[1:] > offset[:-1]
        out[some] = np.minimum.reduceat(solved_rank, offset[:-1][some])
        return out
    order = np.lexsort((solved_rank, board_of))
    boards = board_of[order]
    first = boards.searchsorted(boards, side="left")
    at = (np.arange(len(order)) - first == top - 1).nonzero()[0]
    out[boards[at]] = solved_rank[order[at]]
    return out


def _lowest(places: IntArray, lower: IntArray, board_of: IntArray, chunk: int) -> IntArray:
    """Up to `chunk` of `places` per board, those with the lowest lower bounds."""
    order = np.lexsort((lower[places], board_of[places]))
    places = places[order]
    boards = board_of[places]
    first = boards.searchsorted(boards, side="left")
    return np.sort(places[np.arange(len(places)) - first < chunk])


def _solve(tree: Tree, root: Level, resolved: Resolved, places: IntArray, clock: Clock) -> None:
    """Search root nodes `places` to the end (unless the clock runs out), and back up."""
    level = root
    while len(places) and not clock.out():
        nxt = tree.children_of(level, resolved, places)
        if nxt is None:
            break
        tree.add_level(nxt)
        resolved = tree.resolve(nxt)
        li = len(tree.levels) - 1
        tree.values[li][:] = resolved.values
        tree.solved[li][:] = resolved.first < 0
        level, places = nxt, (resolved.first >= 0).nonzero()[0]
    tree.back_up()


def _boards_below(
    offset: IntArray, leaf: BoolArray, ranks: IntArray, lower: IntArray, attack_top: int
) -> BoolArray:
    """Boards whose value is surely below the `attack_top`-th best board's: at most their
    lowest solved value, while that many boards are at least their lowest lower bound."""
    n = len(offset) - 1
    upper = np.full(n, np.iinfo(I64).max, I64)
    low = np.full(n, -1, I64)
    for b in range(n):
        lo, hi = offset[b], offset[b + 1]
        if hi == lo:
            continue
        solved = ranks[lo:hi][leaf[lo:hi]]
        if len(solved):
            upper[b] = solved.min()
        bounds = np.where(leaf[lo:hi], ranks[lo:hi], lower[lo:hi])
        low[b] = bounds.min()
    if n < attack_top:
        return np.zeros(n, np.bool_)
    kth = np.sort(low)[::-1][attack_top - 1]
    out: BoolArray = upper < kth
    return out
