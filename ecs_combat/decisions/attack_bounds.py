"""Which attacks of some boards can still be chosen (RULES section 9, step 1), found before the
full search of :func:`~ecs_combat.decisions.attacks.best_attacks_many` by cheaper searches.

An attack's value is its best blocks' (the lowest value of its block declarations), so the
exact value of any set of its declarations (their lowest) is an upper bound of it. On each
board of at least :data:`FEWEST_DECLARATIONS` (attack, block declaration) pairs, two rounds,
each one batched search (:func:`~ecs_combat.decisions.search.search_blocks`) over every such
board at once:

1. the attacks of at most one attacker, every declaration, searched as the full search does
   (the `top` best exactly, the others shown to be below them);
2. each larger attack against a few likely-best declarations only: the best blocks found for
   some of its attackers alone, together (when no blocker is in two of them).

An attack whose bound is below the `top`-th highest exact value of its board can neither be
shown nor tie it: it is not searched again. When only attacks of at most one attacker are
left, the first round's search answers for that board as the full search would; the attacks
left on the other boards (and every attack of the boards not pruned) are then searched
together. Either way each board's decision is the same, ties in section 9's order.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from ecs_combat.batched import BatchedEngine, CombatBatch, IntArray, csr_rows
from ecs_combat.decisions.bounds import Clock
from ecs_combat.decisions.declarations import (
    AttackDeclarations,
    BlockDeclarations,
    BlockOptions,
    DeclaredPairs,
    MaskArray,
)
from ecs_combat.decisions.objective import Objective, Sides
from ecs_combat.decisions.search import BoardResults, ranked_declarations, search_blocks
from ecs_combat.decisions.tree import Continuation

I64 = np.int64
U64 = np.uint64

#: Boards with fewer (attack, block declaration) pairs than this are searched in one search:
#: the rounds' fixed cost outweighs what they save there (docs/performance.md, "Bulk races").
FEWEST_DECLARATIONS = 100

#: One block declaration as its (blocker, attacker) pairs, by place in the file.
Pairs = frozenset[tuple[int, int]]
#: Some attacks, each as (board, attack index in the board's attack declarations).
Picks = list[tuple[int, int]]
#: The boards of play and sides of some attacks, one battle each, in the order given.
BoardsOf = Callable[[Picks], tuple[CombatBatch, Sides]]


@dataclass(frozen=True)
class Attacks:
    """One board of play's attacks (the attacking player's declarations) and each one's
    block declarations."""

    attacks: AttackDeclarations
    blocks: list[BlockDeclarations]


@dataclass(frozen=True)
class Searched:
    """One board's attacks as finally searched: those searched (`attacks`, `blocks`), the
    search holding them (its boards ``first`` to ``first + attacks.count - 1``), and the
    candidate combats resolved for the board (its boards' nodes in every search)."""

    attacks: AttackDeclarations
    blocks: list[BlockDeclarations]
    results: BoardResults
    first: int
    resolved: int


@dataclass
class _Found:
    """What the rounds know of each attack, by (board, attack index)."""

    bound: dict[tuple[int, int], tuple[int, ...]]  #: upper bound of each attack searched
    best: dict[tuple[int, int], Pairs]  #: the best declaration found for each
    resolved: dict[int, int]  #: candidate combats resolved per board


def search_attacks(
    engine: BatchedEngine,
    objective: Objective,
    boards_of: BoardsOf,
    boards: Sequence[Attacks],
    top: int,
    clock: Clock,
    continuation: Continuation | None,
    guard: str,
    prune: bool = True,
) -> list[Searched]:
    """Each board's attacks searched (the `top` best of each exactly, ties in order): with
    `prune`, those that can no longer be chosen left out first by the rounds above, whose
    first may answer. `guard` as :func:`~ecs_combat.decisions.search.search` takes it."""
    found = _Found({}, {}, {b: 0 for b in range(len(boards))})
    pruned = [b for b, x in enumerate(boards) if prune and _prunable(x)]
    kept = {b: list(range(x.attacks.count)) for b, x in enumerate(boards)}
    out: dict[int, Searched] = {}
    if pruned:
        small = {b: _sized(boards[b], lambda k: k <= 1) for b in pruned}
        picks = [(b, i) for b in pruned for i in small[b]]
        first = _search(engine, objective, boards_of, boards, picks, found, guard, top)
        single: dict[tuple[int, int], Pairs] = {}
        for (b, i), pairs in found.best.items():
            single[b, int(boards[b].attacks.masks[i])] = pairs
        larger = {b: _sized(boards[b], lambda k: k > 1) for b in pruned}
        subsets = {b: [_likely_best(boards[b], i, single, b) for i in larger[b]] for b in pruned}
        picks = [(b, i) for b in pruned for i in larger[b]]
        _search(
            engine, objective, boards_of, boards, picks, found, guard,
            subsets=[d for b in pruned for d in subsets[b]],
        )  # fmt: skip
        at = 0
        for b in pruned:
            mine = small[b]
            kept[b] = _kept(boards[b], mine, zip(larger[b], subsets[b], strict=True), found, b, top)
            if all(int(boards[b].attacks.masks[i]).bit_count() <= 1 for i in kept[b]):
                out[b] = Searched(
                    _some(boards[b].attacks, mine),
                    [boards[b].blocks[i] for i in mine],
                    first,
                    at,
                    found.resolved[b],
                )
            at += len(mine)
    rest = [b for b in range(len(boards)) if b not in out]
    if rest:
        picks = [(b, i) for b in rest for i in kept[b]]
        sizes = [len(kept[b]) for b in rest]
        results = _search(
            engine, objective, boards_of, boards, picks, found, guard, top,
            clock=clock, continuation=continuation, groups=sizes,
        )  # fmt: skip
        at = 0
        for b, n in zip(rest, sizes, strict=True):
            out[b] = Searched(
                _some(boards[b].attacks, kept[b]),
                [boards[b].blocks[i] for i in kept[b]],
                results,
                at,
                found.resolved[b],
            )
            at += n
    return [out[b] for b in range(len(boards))]


def _prunable(board: Attacks) -> bool:
    """Whether a board's rounds may save anything: attacks of more than one attacker, and at
    least :data:`FEWEST_DECLARATIONS` (attack, block declaration) pairs."""
    most = max((int(m).bit_count() for m in board.attacks.masks.tolist()), default=0)
    return most > 1 and sum(d.count for d in board.blocks) >= FEWEST_DECLARATIONS


def _sized(board: Attacks, keep: Callable[[int], bool]) -> list[int]:
    return [i for i, m in enumerate(board.attacks.masks.tolist()) if keep(int(m).bit_count())]


def _kept(
    board: Attacks,
    small: list[int],
    larger: Iterable[tuple[int, BlockDeclarations]],
    found: _Found,
    b: int,
    top: int,
) -> list[int]:
    """The attacks of board `b` that may still be among the `top` best or tie the `top`-th
    (all of them while fewer than `top` values are known exactly): `small` searched with
    every declaration, `larger` with some (each attack's)."""
    exact = sorted((found.bound[b, i] for i in small if (b, i) in found.bound), reverse=True)
    exact = exact[:top]
    for i, part in larger:
        if part.count == board.blocks[i].count and (b, i) in found.bound:
            exact.append(found.bound[b, i])  # every declaration: exact
    everything = list(range(board.attacks.count))
    if len(exact) < top:
        return everything
    kth = sorted(exact, reverse=True)[top - 1]
    return [i for i in everything if found.bound.get((b, i), kth) >= kth]


def _some(attacks: AttackDeclarations, which: list[int]) -> AttackDeclarations:
    """Attacks `which` of `attacks`, in that order."""
    return dataclasses.replace(
        attacks, masks=attacks.masks[which], tie_order=attacks.tie_order[which]
    )


def _search(
    engine: BatchedEngine,
    objective: Objective,
    boards_of: BoardsOf,
    boards: Sequence[Attacks],
    picks: Picks,
    found: _Found,
    guard: str,
    attack_top: int | None = None,
    subsets: list[BlockDeclarations] | None = None,
    clock: Clock | None = None,
    continuation: Continuation | None = None,
    groups: list[int] | None = None,
) -> BoardResults:
    """Search the best blocks of attacks `picks` (against `subsets` of their declarations
    if given, else all), into `found`: with `attack_top`, only each board's `attack_top`
    best exactly, as the full search does (recorded, for the answers; `groups`: how many of
    `picks` each board has, in order; default: each board's picks in a row)."""
    batch, sides = boards_of(picks)
    decls = subsets if subsets is not None else [boards[b].blocks[i] for b, i in picks]
    if groups is None:
        groups = [len(list(g)) for _, g in itertools.groupby(b for b, _ in picks)]
    results = search_blocks(
        engine, objective, batch, sides, decls, 1, clock or Clock(None), attack_top,
        record=attack_top is not None, continuation=continuation, guard=guard,
        groups=np.concatenate([[0], np.cumsum(groups)]).astype(I64),
    )  # fmt: skip
    per_board = _nodes_per_board(results) if len(boards) > 1 else None
    for j, ((b, i), part) in enumerate(zip(picks, decls, strict=True)):
        if per_board is not None:
            found.resolved[b] += int(per_board[j])
        ranked = ranked_declarations(results, j, part.tie_order)
        if not len(ranked):  # shown to be below the `attack_top` best: no bound needed
            continue
        d = int(ranked[0])
        found.bound[b, i] = tuple(results.values[d].tolist())
        found.best[b, i] = _pairs(part, d - int(results.offset[j]))
    if per_board is None:  # one board: every battle resolved (some again, in pieces)
        found.resolved[0] += results.tree.evaluated
    return results


def _nodes_per_board(results: BoardResults) -> IntArray:
    """[boards] the candidate combats of each board in a search (its nodes)."""
    tree = results.tree
    n = len(results.offset) - 1
    out = np.zeros(n, I64)
    for level in tree.levels:
        out += np.bincount(tree.blocks.board[level.decl], minlength=n)
    return out


def _pairs(decls: BlockDeclarations, d: int) -> Pairs:
    p = decls.pairs
    lo, hi = int(p.start[d]), int(p.start[d + 1])
    return frozenset(zip(p.blocker[lo:hi].tolist(), p.attacker[lo:hi].tolist(), strict=True))


def _likely_best(
    board: Attacks, i: int, single: dict[tuple[int, int], Pairs], b: int = 0
) -> BlockDeclarations:
    """The declarations of attack `i` of a board made of the best blocks found for some of
    its attackers alone (`single`: by board and mask of one attacker), when no blocker is
    in two of them (the attack's first declaration if none is legal)."""
    mask = int(board.attacks.masks[i])
    decls = board.blocks[i]
    o = decls.options
    rows: list[MaskArray] = []  # each attacker's best blocks alone, if legal in this attack
    for bit in range(mask.bit_length()):
        row = _row(single.get((b, 1 << bit), frozenset()), o) if mask >> bit & 1 else None
        if row is not None:
            rows.append(row)
    k = len(rows)
    r = np.array(rows, I64).reshape(k, len(o.blockers))
    some = (np.arange(1 << k)[:, None] >> np.arange(k)[None, :]) & 1  # [2^k, k] each subset
    free = ((some @ (r != 0)) <= 1).all(axis=1)  # no blocker in two of them
    union = (some[free] @ r).astype(U64)  # disjoint blockers: the sum is the union
    hit = (decls.masks[None, :, :] == union[:, None, :]).all(axis=2).any(axis=0)
    chosen = hit.nonzero()[0]
    return _some_declarations(decls, chosen if len(chosen) else np.zeros(1, I64))


def _some_declarations(decls: BlockDeclarations, rows: IntArray) -> BlockDeclarations:
    """Declarations `rows` of `decls` (a bound needs no tie order: theirs is their order)."""
    p = decls.pairs
    pairs, _ = csr_rows(p.start, rows)
    count = p.start[rows + 1] - p.start[rows]
    return BlockDeclarations(
        decls.options,
        decls.masks[rows],
        np.arange(len(rows), dtype=I64),
        DeclaredPairs(
            np.concatenate([[0], count.cumsum()]).astype(I64),
            p.blocker[pairs],
            p.attacker[pairs],
            p.rank[pairs],
        ),
    )


def _row(pairs: Pairs, options: BlockOptions) -> MaskArray | None:
    """Blocks `pairs` as a row of masks of the attack `options` are of (the attackers each
    blocker blocks, as bits), or None if a blocker in them can't block in that attack."""
    blockers, attackers = options.blockers.tolist(), options.attackers.tolist()
    row = np.zeros(len(blockers), U64)
    for blocker, attacker in pairs:
        if blocker not in blockers:
            return None
        row[blockers.index(blocker)] |= U64(1 << attackers.index(attacker))
    return row
