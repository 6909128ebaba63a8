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

import itertools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

import ecs_combat.decisions.bounds as limits
from ecs_combat.batched import BatchedEngine, BoolArray, CombatBatch, IntArray, csr_rows
from ecs_combat.decisions.bounds import LEVEL_ROWS, Clock, guard_combats
from ecs_combat.decisions.children import Children
from ecs_combat.decisions.declarations import BlockDeclarations
from ecs_combat.decisions.divisions import StepChoices
from ecs_combat.decisions.nodes import Level, Resolved
from ecs_combat.decisions.objective import Objective, Sides, lexicographic_ranks
from ecs_combat.decisions.tree import Blocks, Continuation, Tree

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
    guard: str | None = None,
    groups: IntArray | None = None,
) -> BoardResults:
    """Solve the `top` best block declarations of every board (and those tied with the best).

    With `attack_top`, the boards are one attack declaration each and only the `attack_top`
    boards of highest value matter: a board whose value is shown to be below theirs is not
    searched further. `groups`: the boards' groups (those of group ``g`` being boards
    ``groups[g]:groups[g + 1]``: the attacks of one board of play each), each group's
    `attack_top` best apart from the others' (None: one group). Without `bounds`, every declaration is searched to the end (to measure
    what the bounds save). With `record`, the tree records what it can for the results of
    its nodes (:meth:`Tree.results_of`). With `continuation`, leaves are valued past their
    combat (:attr:`Tree.continuation`; it needs `record`). `guard`: as :func:`search` takes it.
    """
    offset = np.concatenate([[0], np.cumsum([d.count for d in declarations])]).astype(I64)
    blocks = blocks_of(declarations)
    tree = Tree(engine, objective, boards, sides, blocks, record=record, continuation=continuation)
    return search(tree, offset, top, clock, attack_top, bounds, guard, groups)


def search(
    tree: Tree,
    offset: IntArray,
    top: int,
    clock: Clock,
    attack_top: int | None = None,
    bounds: bool = True,
    guard: str | None = None,
    groups: IntArray | None = None,
) -> BoardResults:
    """:func:`search_blocks` over the declarations of a new tree (``tree.blocks``), those
    of board ``b`` being ``offset[b]:offset[b + 1]``. Levels are resolved in pieces of at
    most :data:`~.bounds.LEVEL_ROWS` creature rows, the `clock` read between them. With
    `guard` (the file searched, or ""), a search of more than
    :data:`~.bounds.MOST_COMBATS` candidate combats is refused (:func:`~.bounds.guard_combats`):
    as counted once every declaration is resolved, and as the tree grows."""
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
    resolved, seen, bounded, choices = _first_pass(tree, root, clock, count=guard is not None)
    board_of = blocks.board
    cut = np.zeros(n_decl, np.bool_)
    left_out = np.zeros(n_decl, np.bool_)  # too large to search under a budget
    chunk = FIRST_CHUNK
    final: IntArray | None = None  # the ranks of the final values
    while not clock.out():
        solved = tree.solved[0]
        ranks = lexicographic_ranks(tree.values[0])
        if not left_out.any() and bool(solved.all()):  # nothing to cut or expand
            if guard is not None and chunk == FIRST_CHUNK:
                guard_combats(float(n_decl), guard or None, declarations=n_decl)
            final = ranks
            break
        lower = np.where(solved | bounded, ranks, -1)
        threshold = _thresholds(
            board_of, offset, np.where(solved, ranks, int(ranks.max(initial=0)) + 1), top
        )
        pending = ~solved & ~cut & seen & ~left_out  # unseen: the clock ran out in the first pass
        if bounds:
            cut |= pending & (lower > threshold[board_of])
        if attack_top is not None and bounds:
            skip = _boards_below(offset, solved, ranks, lower, attack_top, groups)
            cut |= pending & skip[board_of]
        pending &= ~cut
        if guard is not None and chunk == FIRST_CHUNK:  # what the search may have to expand
            if clock.seconds is not None:  # under a budget: search what fits, never optimal
                left_out = _too_many_choices(pending, choices, n_decl)
                pending &= ~left_out
            combats = n_decl + float(np.exp(choices[pending]).sum())
            guard_combats(combats, guard or None, declarations=n_decl)
        if not pending.any():
            final = ranks
            break
        # the most promising first: the lowest lower bounds of each board
        places = _lowest(pending.nonzero()[0], lower, board_of, chunk if bounds else n_decl)
        chunk *= 4
        _solve(tree, root, resolved, places, clock, guard)
    return BoardResults(tree, board_of, offset, tree.values[0], tree.solved[0], cut, final)


def _too_many_choices(pending: BoolArray, choices: npt.NDArray[np.float64], n: int) -> BoolArray:
    """The pending declarations left out so that the rest fit the memory guard: those with
    the most division choices first (their values stay unsolved)."""
    out = np.zeros(len(pending), np.bool_)
    places = pending.nonzero()[0]
    counts = np.rint(np.exp(choices[places]))  # whole numbers of choices
    room = limits.MOST_COMBATS - n
    if n + counts.sum() <= limits.MOST_COMBATS:
        return out
    order = np.argsort(-counts, kind="stable")
    kept_total = np.cumsum(counts[order][::-1])[::-1]  # what stays if these and later stay
    drop = int(np.searchsorted(-kept_total, -room, side="left"))
    out[places[order[:drop]]] = True
    return out


def _first_pass(
    tree: Tree, root: Level, clock: Clock, count: bool
) -> tuple[Resolved | None, BoolArray, BoolArray, npt.NDArray[np.float64]]:
    """Resolve every declaration with the default divisions (:func:`_resolve_level`): the
    root level's resolution if one piece, which declarations were resolved, whose value is a
    lower bound (the defending player had no division to choose on the default line), and
    with `count`, the log of each declaration's division choices in the first step where
    anyone divides on its default line (else 0: not counted)."""
    n_decl = len(root.decl)
    seen = np.zeros(n_decl, np.bool_)
    bounded = np.zeros(n_decl, np.bool_)
    logs = np.zeros(n_decl, np.float64)

    def piece(lo: int, hi: int, resolved: Resolved) -> None:
        seen[lo:hi] = bounded[lo:hi] = True
        counted = np.zeros(hi - lo, np.bool_)
        for rec in resolved.records:
            bounded[lo:hi] &= ~rec.defending_battles
            if count:
                first = rec.battles & ~counted  # the first step with a choice: its children
                logs[lo:hi] += np.where(first, rec.log_choices(hi - lo), 0.0)
                counted |= rec.battles

    whole, _ = _resolve_level(tree, root, 0, clock, piece)
    return whole, seen, bounded, logs


def _resolve_level(
    tree: Tree,
    level: Level,
    li: int,
    clock: Clock,
    each: Callable[[int, int, Resolved], None] | None = None,
) -> tuple[Resolved | None, BoolArray]:
    """Resolve level `li` (just added) in pieces of at most :data:`LEVEL_ROWS` creature rows
    while the clock allows, its values and leaves into the tree, `each` called with each
    piece's nodes and resolution: the level's resolution if it was one piece (else None: its
    nodes are resolved again to be expanded, :func:`_view`), and which nodes have a step to
    expand (none of those left unresolved)."""
    n = len(level.decl)
    ends = _piece_ends(tree.rows_of(level.decl), LEVEL_ROWS)
    whole: Resolved | None = None
    # one piece, or a tree that keeps or reads every level whole: the level itself
    if len(ends) == 2 or tree.keep_outcomes or tree.continuation is not None:
        whole, ends = tree.resolve(level), [0, n]
    else:
        tree.played.append(None)
    open_ = np.zeros(n, np.bool_)
    for lo, hi in itertools.pairwise(ends):
        if whole is None and clock.out():
            break
        resolved = whole or tree.resolve(_view(level, np.arange(lo, hi, dtype=I64)), keep=False)
        tree.values[li][lo:hi] = resolved.values
        tree.solved[li][lo:hi] = resolved.first < 0
        open_[lo:hi] = resolved.first >= 0
        if each is not None:
            each(lo, hi, resolved)
    return whole, open_


def _piece_ends(rows: IntArray, most: int) -> list[int]:
    """Where pieces of consecutive nodes (`rows` creature rows each) end: each piece has at
    most `most` rows, or is one node; the first starts at 0 (listed)."""
    total = rows.cumsum()
    ends = [0]
    while ends[-1] < len(rows):
        below = int(total[ends[-1] - 1]) if ends[-1] else 0
        ends.append(max(int(total.searchsorted(below + most, side="right")), ends[-1] + 1))
    return ends


def _view(level: Level, places: IntArray) -> Level:
    """Some nodes of a level already added, to be resolved again (without keeping)."""
    rows, _ = csr_rows(level.div_start, places)
    count = level.div_start[places + 1] - level.div_start[places]
    return Level(
        level.first,
        level.decl[places],
        level.start_step[places],
        np.concatenate([[0], count.cumsum()]).astype(I64),
        level.div[rows],
        ids=level.node_ids(places),
    )


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


def _solve(
    tree: Tree,
    root: Level,
    resolved: Resolved | None,
    places: IntArray,
    clock: Clock,
    guard: str | None,
) -> None:
    """Search root nodes `places` to the end (unless the clock runs out), and back up:
    depth first, levels resolved in pieces of at most :data:`LEVEL_ROWS` creature rows and
    made of as many nodes' children as fit in that many rows (the rest wait on a stack),
    so memory is bounded by the depth."""
    Todo = tuple[Level, Resolved | None, IntArray, list[tuple[StepChoices, Children]] | None]
    todo: list[Todo] = [(root, resolved, places, None)]
    while todo and not clock.out():
        level, resolved, places, known = todo.pop()
        if not len(places):
            continue
        if resolved is None:  # resolved in pieces: some of these nodes again
            take = _piece_ends(tree.rows_of(level.decl[places]), LEVEL_ROWS)[1]
            if take < len(places):
                todo.append((level, None, places[take:], None))
            level = _view(level, places[:take])
            resolved, places = tree.resolve(level, keep=False), np.arange(take, dtype=I64)
        if known is None:
            known = tree.kinds_of(level, resolved, places, _grown(tree, guard))
        take = tree.fitting(level, places, known, LEVEL_ROWS)
        if take < len(places):  # the rest later, after these nodes' subtrees
            todo.append((level, resolved, places[take:], known[take:]))
        nxt = tree.children_of(level, resolved, places[:take], known[:take])
        assert nxt is not None
        if guard is not None:
            guard_combats(tree.n_nodes + len(nxt.decl), guard or None, grown=True)
        tree.add_level(nxt)
        done, open_ = _resolve_level(tree, nxt, len(tree.levels) - 1, clock)
        todo.append((nxt, done, open_.nonzero()[0], None))
    tree.back_up()


def _grown(tree: Tree, guard: str | None) -> Callable[[int], None] | None:
    """With `guard`, a check refusing a node with so many children that the tree would
    hold more than :data:`~.bounds.MOST_COMBATS` candidate combats."""
    if guard is None:
        return None
    return lambda children: guard_combats(tree.n_nodes + children, guard or None, grown=True)


def _boards_below(
    offset: IntArray,
    leaf: BoolArray,
    ranks: IntArray,
    lower: IntArray,
    attack_top: int,
    groups: IntArray | None = None,
) -> BoolArray:
    """Boards whose value is surely below the `attack_top`-th best board's of their group
    (`groups` as :func:`search_blocks` takes it; None: one group): at most their lowest
    solved value, while that many boards of the group are at least their lowest lower
    bound."""
    n = len(offset) - 1
    if groups is None:
        groups = np.array([0, n], I64)
    upper = np.full(n, np.iinfo(I64).max, I64)
    low = np.full(n, -1, I64)
    some = offset[1:] > offset[:-1]
    if some.any():
        starts = offset[:-1][some]
        upper[some] = np.minimum.reduceat(np.where(leaf, ranks, np.iinfo(I64).max), starts)
        low[some] = np.minimum.reduceat(np.where(leaf, ranks, lower), starts)
    size = np.diff(groups)
    group = np.repeat(np.arange(len(size), dtype=I64), size)
    order = np.lexsort((-low, group))  # each group's boards, highest lowest bound first
    full = size >= attack_top
    kth = np.full(len(size), np.iinfo(I64).min, I64)  # nothing is below it
    kth[full] = low[order[groups[:-1][full] + attack_top - 1]]
    out: BoolArray = upper < kth[group]
    return out
