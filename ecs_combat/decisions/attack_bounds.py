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

from ecs_combat.batched import BatchedEngine, CombatBatch
from ecs_combat.decisions.bounds import Clock
from ecs_combat.decisions.declarations import (
    AttackDeclarations,
    BlockDeclarations,
    declarations_of_masks,
)
from ecs_combat.decisions.objective import Objective, Sides
from ecs_combat.decisions.search import ranked_declarations, search_blocks

#: One block declaration as its (blocker, attacker) pairs, by place in the file.
Pairs = frozenset[tuple[int, int]]
#: The boards and sides of some attacks (by index in the attack declarations).
BoardsOf = Callable[[list[int]], tuple[CombatBatch, Sides]]


@dataclass(frozen=True)
class Kept:
    """The attacks left to search, and the candidate combats the rounds resolved."""

    attacks: list[int]
    combats_resolved: int


@dataclass
class _Found:
    """What the rounds know of each attack (by index)."""

    exact: dict[int, tuple[int, ...]]  #: value of the attacks searched in full
    bound: dict[int, tuple[int, ...]]  #: upper bound of the others searched in part
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
    if max(sizes, default=0) <= 1:  # nothing to save: one search as before
        return Kept(everything, 0)
    found = _Found({}, {}, {})
    small = [i for i in everything if sizes[i] <= 1]
    _search(engine, objective, boards_of, small, [block_decls[i] for i in small], found, guard)
    for i in small:
        found.exact[i] = found.bound.pop(i)
    single = {masks[i]: found.best[i] for i in small}
    larger = [i for i in everything if sizes[i] > 1]
    subsets = [_likely_best(masks[i], block_decls[i], single) for i in larger]
    _search(engine, objective, boards_of, larger, subsets, found, guard)
    for i, part in zip(larger, subsets, strict=True):
        if part.count == block_decls[i].count:  # every declaration: exact
            found.exact[i] = found.bound.pop(i)
    if len(found.exact) < top:
        return Kept(everything, found.resolved)
    kth = sorted(found.exact.values(), reverse=True)[top - 1]
    kept = [
        i for i in everything if found.exact.get(i, kth) >= kth and found.bound.get(i, kth) >= kth
    ]
    return Kept(kept, found.resolved)


def _search(
    engine: BatchedEngine,
    objective: Objective,
    boards_of: BoardsOf,
    which: list[int],
    decls: list[BlockDeclarations],
    found: _Found,
    guard: str,
) -> None:
    """Search the best of `decls` for attacks `which`, into `found.bound` and `found.best`."""
    boards, sides = boards_of(which)
    results = search_blocks(engine, objective, boards, sides, decls, 1, Clock(None), guard=guard)
    found.resolved += results.tree.evaluated
    for j, (i, part) in enumerate(zip(which, decls, strict=True)):
        ranked = ranked_declarations(results, j, part.tie_order)
        d = int(ranked[0])
        found.bound[i] = tuple(results.values[d].tolist())
        found.best[i] = _pairs(part, d - int(results.offset[j]))


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
    places = {_pairs(decls, d): d for d in range(decls.count)}
    bits = [1 << b for b in range(mask.bit_length()) if mask >> b & 1]
    chosen: set[int] = set()
    for n in range(len(bits) + 1):
        for some in itertools.combinations(bits, n):
            parts = [single[b] for b in some if b in single]
            union = frozenset().union(*parts)
            free = sum(map(len, parts)) == len(union) == len({b for b, _ in union})
            if free and union in places:  # no blocker in two of them, and legal
                chosen.add(places[union])
    if not chosen:
        chosen.add(0)
    return declarations_of_masks(decls.options, decls.masks[sorted(chosen)])
