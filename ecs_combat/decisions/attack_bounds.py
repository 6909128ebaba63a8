"""Which attacks of one board can still be chosen (RULES section 9, step 1), found before the
full search of :func:`~ecs_combat.decisions.decide.best_attacks` by cheaper searches.

An attack's value is its best blocks' (the lowest value of its block declarations), so the
exact value of any set of its declarations (their lowest) is an upper bound of it. Rounds, each
one batched search (:func:`~ecs_combat.decisions.search.search_blocks`):

1. the attacks of at most one attacker, every declaration: their exact values;
2. each larger attack against a few likely-best declarations only: the best blocks found for
   some of its attackers alone, together (when no blocker is in two of them).

An attack whose bound is below the `top`-th highest exact value can neither be shown nor tie
it, and neither can a fully searched attack below it: they are not searched again. The rest
are searched as before, so the decision is the same, ties in section 9's order.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ecs_combat.batched import BatchedEngine, CombatBatch
from ecs_combat.decisions.bounds import Clock
from ecs_combat.decisions.declarations import (
    AttackDeclarations,
    BlockDeclarations,
    BlockOptions,
    MaskArray,
    declarations_of_masks,
)
from ecs_combat.decisions.objective import Objective, Sides
from ecs_combat.decisions.search import BoardResults, ranked_declarations, search_blocks

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
    chosen: set[int] = set()
    for n in range(len(rows) + 1):
        for some in itertools.combinations(rows, n):
            used = np.zeros(len(o.blockers), I64)
            union = np.zeros(len(o.blockers), U64)
            for r in some:
                used += r != 0
                union |= r
            if (used > 1).any():  # a blocker in two of them
                continue
            chosen.update((decls.masks == union).all(axis=1).nonzero()[0].tolist())
    if not chosen:
        chosen.add(0)
    return declarations_of_masks(o, decls.masks[sorted(chosen)])


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
