"""Which attacks of one board can still be chosen (RULES section 9, step 1), found before the
full search of :func:`~ecs_combat.decisions.decide.best_attacks` by cheaper searches.

An attack's value is its best blocks' (the lowest value of its block declarations), so the
exact value of any set of its declarations (their lowest) is an upper bound of it. On a board
of at least :data:`FEWEST_DECLARATIONS` (attack, block declaration) pairs, two rounds, each
one batched search (:func:`~ecs_combat.decisions.search.search_blocks`):

1. the attacks of at most one attacker, every declaration, searched as the full search does
   (the `top` best exactly, the others shown to be below them);
2. each larger attack against a few likely-best declarations only: the best blocks found for
   some of its attackers alone, together (when no blocker is in two of them).

An attack whose bound is below the `top`-th highest exact value can neither be shown nor tie
it: it is not searched again. When only attacks of at most one attacker are left, the first
round's search answers as the full search would; otherwise the attacks left are searched as
before. Either way the decision is the same, ties in section 9's order.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
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
#: The boards and sides of some attacks (by index in the attack declarations).
BoardsOf = Callable[[list[int]], tuple[CombatBatch, Sides]]


@dataclass(frozen=True)
class Kept:
    """The attacks left to search, and the candidate combats the rounds resolved; or, when
    every attack left is of at most one attacker, the first round's search (`searched`, made
    as the full search would be) and the attacks it searched (`attacks`: those left and some
    shown to be below them), which then answer as the full search would."""

    attacks: list[int]
    combats_resolved: int
    searched: BoardResults | None = None


@dataclass
class _Found:
    """What the rounds know of each attack (by index)."""

    exact: list[tuple[int, ...]]  #: values known exact (of some attacks)
    bound: dict[int, tuple[int, ...]]  #: upper bound of each attack searched
    best: dict[int, Pairs]  #: the best declaration found for each
    resolved: int = 0


def attacks_to_search(
    engine: BatchedEngine,
    objective: Objective,
    boards_of: BoardsOf,
    attacks: AttackDeclarations,
    block_decls: list[BlockDeclarations],
    top: int,
    guard: str,
) -> Kept:
    """The attacks (indices into `attacks`, whose block declarations are `block_decls`) that
    may be among the `top` best or tie with the `top`-th, in order; `guard` as
    :func:`~ecs_combat.decisions.search.search` takes it."""
    masks = [int(m) for m in attacks.masks.tolist()]
    sizes = [m.bit_count() for m in masks]
    everything = list(range(len(masks)))
    if max(sizes, default=0) <= 1 or sum(d.count for d in block_decls) < FEWEST_DECLARATIONS:
        return Kept(everything, 0)  # nothing or little to save: one search as before
    found = _Found([], {}, {})
    small = [i for i in everything if sizes[i] <= 1]
    first = _search(
        engine, objective, boards_of, small, [block_decls[i] for i in small], found, guard, top
    )
    found.exact += sorted((found.bound[i] for i in small if i in found.bound), reverse=True)[:top]
    single = {masks[i]: found.best[i] for i in small if i in found.best}
    larger = [i for i in everything if sizes[i] > 1]
    subsets = [_likely_best(masks[i], block_decls[i], single) for i in larger]
    _search(engine, objective, boards_of, larger, subsets, found, guard)
    for i, part in zip(larger, subsets, strict=True):
        if part.count == block_decls[i].count and i in found.bound:  # every declaration: exact
            found.exact.append(found.bound[i])
    if len(found.exact) < top:
        return Kept(everything, found.resolved)
    kth = sorted(found.exact, reverse=True)[top - 1]
    kept = [i for i in everything if found.bound.get(i, kth) >= kth]
    if all(sizes[i] <= 1 for i in kept):  # the first round searched them as the full search
        return Kept(small, found.resolved, first)
    return Kept(kept, found.resolved)


def search_attacks(
    engine: BatchedEngine,
    objective: Objective,
    boards_of: BoardsOf,
    attacks: AttackDeclarations,
    block_decls: list[BlockDeclarations],
    top: int,
    clock: Clock,
    budget: float | None,
    continuation: Continuation | None,
    guard: str,
) -> tuple[AttackDeclarations, list[BlockDeclarations], BoardResults, int]:
    """The attacks searched, their block declarations, the search, and the candidate combats
    resolved: without a budget or continuation, the attacks that can no longer be chosen
    pruned first (:func:`attacks_to_search`), whose first round may answer."""
    resolved = 0
    searched = None
    which = list(range(attacks.count))  # by index in `attacks`, as `boards_of` takes them
    if budget is None and continuation is None:  # the attacks that may still be chosen
        kept = attacks_to_search(engine, objective, boards_of, attacks, block_decls, top, guard)
        which, resolved, searched = kept.attacks, kept.combats_resolved, kept.searched
    decls = [block_decls[i] for i in which]
    if searched is None:
        boards, sides = boards_of(which)
        searched = search_blocks(
            engine, objective, boards, sides, decls, 1, clock, attack_top=top,
            record=True, continuation=continuation, guard=guard,
        )  # fmt: skip
        resolved += searched.tree.evaluated
    return some_attacks(attacks, which), decls, searched, resolved


def some_attacks(attacks: AttackDeclarations, which: list[int]) -> AttackDeclarations:
    """Attacks `which` of `attacks`, in that order."""
    return dataclasses.replace(
        attacks, masks=attacks.masks[which], tie_order=attacks.tie_order[which]
    )


def _search(
    engine: BatchedEngine,
    objective: Objective,
    boards_of: BoardsOf,
    which: list[int],
    decls: list[BlockDeclarations],
    found: _Found,
    guard: str,
    attack_top: int | None = None,
) -> BoardResults:
    """Search the best of `decls` for attacks `which` (with `attack_top`, only the
    `attack_top` best exactly, and as the full search does), into `found.bound` and
    `found.best`."""
    boards, sides = boards_of(which)
    results = search_blocks(
        engine, objective, boards, sides, decls, 1, Clock(None), attack_top,
        record=attack_top is not None, guard=guard,
    )  # fmt: skip
    found.resolved += results.tree.evaluated
    for j, (i, part) in enumerate(zip(which, decls, strict=True)):
        ranked = ranked_declarations(results, j, part.tie_order)
        if not len(ranked):  # shown to be below the `attack_top` best: no bound needed
            continue
        d = int(ranked[0])
        found.bound[i] = tuple(results.values[d].tolist())
        found.best[i] = _pairs(part, d - int(results.offset[j]))
    return results


def _pairs(decls: BlockDeclarations, d: int) -> Pairs:
    p = decls.pairs
    lo, hi = int(p.start[d]), int(p.start[d + 1])
    return frozenset(zip(p.blocker[lo:hi].tolist(), p.attacker[lo:hi].tolist(), strict=True))


def _likely_best(
    mask: int, decls: BlockDeclarations, single: dict[int, Pairs]
) -> BlockDeclarations:
    """The declarations of attack `mask` made of the best blocks found for some of its
    attackers alone (`single`: by mask of one attacker), when no blocker is in two of them
    (the attack's first declaration if none is legal)."""
    o = decls.options
    rows: list[MaskArray] = []  # each attacker's best blocks alone, if legal in this attack
    for b in range(mask.bit_length()):
        row = _row(single.get(1 << b, frozenset()), o) if mask >> b & 1 else None
        if row is not None:
            rows.append(row)
    k = len(rows)
    r = np.array(rows, I64).reshape(k, len(o.blockers))
    some = (np.arange(1 << k)[:, None] >> np.arange(k)[None, :]) & 1  # [2^k, k] each subset
    free = ((some @ (r != 0)) <= 1).all(axis=1)  # no blocker in two of them
    union = (some[free] @ r).astype(U64)  # disjoint blockers: the sum is the union
    hit = (decls.masks[None, :, :] == union[:, None, :]).all(axis=2).any(axis=0)
    chosen = hit.nonzero()[0]
    return _some(decls, chosen if len(chosen) else np.zeros(1, I64))


def _some(decls: BlockDeclarations, rows: IntArray) -> BlockDeclarations:
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
