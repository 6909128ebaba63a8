"""Block searches under a time budget in pieces of declarations (CONTRACT section 9,
docs/decisions.md "Budget and memory"): the declarations are listed a piece at a time, each
piece searched, the clock read before each, so that listing is bounded by the budget too
and a board with more declarations than fit in memory is searched in part.

Piece ``j`` of ``K`` holds the places ``j, j + K, j + 2K, ...`` of the product of the
blockers' choices (:func:`~.declarations.masks_at`), so the pieces searched first are spread
over the whole board, not its first corner. Each piece's answer is exact for the piece; the
board's best are the best of the pieces searched, ties shown in section 9's order. When every
piece is searched to the end, that is the exact answer (optimal); otherwise it never is.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Iterator

import numpy as np

from ecs_combat.decisions.answers import Choice, Decision
from ecs_combat.decisions.bounds import Clock, refuse_if_too_large
from ecs_combat.decisions.declarations import (
    BlockDeclarations,
    BlockOptions,
    blocker_options,
    declarations_of_masks,
    masks_at,
)
from ecs_combat.scenario.model import Scenario

I64 = np.int64
#: Declarations in one piece: its listing, tie order and first pass take a small part of a
#: second, so the clock is read often enough.
PIECE = 1 << 12
#: A board with more possible declarations than this is listed in pieces when searched
#: under a budget (a smaller one is listed at once: it takes a few hundredths of a second).
PIECEWISE_ABOVE = 1 << 14
#: Places of the product of the blockers' choices are counted in 64 bits.
MOST_PLACES = 1 << 62


def possible_declarations(options: BlockOptions) -> int:
    """How many declarations the blockers' choices make, before the least-blockers rule."""
    return math.prod(len(o) for o in blocker_options(options))


def pieces(options: BlockOptions, where: str | None) -> Iterator[BlockDeclarations]:
    """The board's legal declarations, a piece of at most :data:`PIECE` places at a time
    (module docstring); refused at once, naming its size, if its places can't be counted."""
    per_blocker = blocker_options(options)
    total = math.prod(len(o) for o in per_blocker)
    refuse_if_too_large(total, MOST_PLACES, where, "combat", "possible block declarations")
    count = max(-(-total // PIECE), 1)
    for j in range(count):
        places = np.arange(j, total, count, dtype=I64)
        yield declarations_of_masks(options, masks_at(options, per_blocker, places))


def best_in_pieces(
    scenario: Scenario,
    options: BlockOptions,
    clock: Clock,
    top: int,
    search: Callable[[BlockDeclarations, float | None], Decision],
) -> Decision:
    """The board's best blocks, its declarations searched piece by piece with `search` (the
    declarations of a piece and the seconds left -> that piece's decision) while the clock
    allows; the `top` best of all pieces searched, ties in section 9's order."""
    found: list[Decision] = []
    listed, every_piece = 0, True
    for piece in pieces(options, scenario.file):
        if clock.out():
            every_piece = False
            break
        listed += piece.count
        if piece.count:
            found.append(search(piece, clock.left()))
    if not found:
        return _nothing(scenario, options, clock, listed, search)
    first = found[0]
    terms = first.objective

    def key(c: Choice) -> tuple[object, ...]:
        return (tuple(c.score[t] for t in terms), tie_key(scenario, c.blockers))

    best = sorted((c for d in found for c in d.best), key=key)
    optimal = every_piece and all(d.optimal for d in found)
    best_score = key(best[0])[0] if best else None
    tied = sum(d.optimal_count for d in found if d.best and key(d.best[0])[0] == best_score)
    reason = None
    if not optimal:
        solved = sum(d.declarations for d in found if d.optimal)
        reason = (
            f"the budget of {clock.seconds:g} s ran out: {solved:,} of the {listed:,} block "
            f"declarations listed were searched to the end, of {possible_declarations(options):,}"
            " possible (listed a spread-out piece at a time); the best shown are the best solved"
        )
    return dataclasses.replace(
        first,
        optimal=optimal,
        declarations=listed,
        optimal_count=tied,
        best=best[:top],
        reason=reason,
        seconds=clock.elapsed,
        combats_resolved=sum(d.combats_resolved for d in found),
    )


def _nothing(
    scenario: Scenario,
    options: BlockOptions,
    clock: Clock,
    listed: int,
    search: Callable[[BlockDeclarations, float | None], Decision],
) -> Decision:
    """The answer when the clock ran out before any piece was searched."""
    empty = declarations_of_masks(options, np.zeros((0, len(options.blockers)), np.uint64))
    shape = search(empty, 0.0)
    return dataclasses.replace(
        shape,
        optimal=False,
        declarations=listed,
        optimal_count=0,
        best=[],
        reason=(
            f"the budget of {clock.seconds:g} s ran out before any of the "
            f"{possible_declarations(options):,} possible block declarations was searched"
        ),
        seconds=clock.elapsed,
        combats_resolved=0,
    )


def tie_key(scenario: Scenario, blockers: dict[str, str | list[str]]) -> tuple[object, ...]:
    """A declaration's place in the order ties are shown (RULES section 9), comparable across
    pieces: fewest creatures declared, then its (creature, what it blocks) pairs by place in
    the file."""
    place = {cid: i for i, cid in enumerate(scenario.creatures)}
    pairs = sorted(
        (place[b], place[a])
        for b, blocked in blockers.items()
        for a in ([blocked] if isinstance(blocked, str) else blocked)
    )
    return (len(blockers), pairs)
