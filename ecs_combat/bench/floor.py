"""The floor: the simplest hand-written numpy code that resolves the keyword tournament.

It is the yardstick of the batched engine's overhead (docs/performance.md), not an engine:
it knows only the tournament's shape (one attacker against one blocker, power at least 1, no
events, no other keywords) and takes from the registry just which damage steps each strike
keyword deals damage in. Whatever the batched engine spends beyond it is the price of being
general.

Run it as a whole process to compare with ``ecs-combat simulate``::

    python -m ecs_combat.bench.floor --battles 1000000 --seed 1
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from ecs_combat.plugin.loading import load_registry
from ecs_combat.plugin.registry import Registry
from ecs_combat.simulation.spec import TOURNAMENT_RANGE, strike_keywords

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

#: Battles drawn and resolved at a time: memory stays bounded, and arrays of this size stay in
#: the CPU caches (measured fastest).
FLOOR_CHUNK = 1 << 16


def strike_table(registry: Registry, keywords: Sequence[str]) -> BoolArray:
    """[1 + len(keywords), steps]: whether a creature with keyword ``k - 1`` (row 0: none) deals
    damage in each step, if it is still alive."""
    table = np.zeros((len(keywords) + 1, len(registry.steps)), dtype=np.bool_)
    for row, name in enumerate([None, *keywords]):
        kw = registry.keywords[name] if name is not None else None
        strikes = kw.strikes_in if kw is not None else frozenset()
        withholds = kw.withholds_from if kw is not None else frozenset()
        struck = False
        for col, step in enumerate(registry.steps):
            if step.name in strikes:
                table[row, col] = True
            elif step.default:
                table[row, col] = not struck and step.name not in withholds
            struck |= step.name in strikes and not step.default
    return table


def resolve(table: BoolArray, drawn: IntArray) -> tuple[BoolArray, BoolArray]:
    """Resolve battles; `drawn` columns: attacker keyword, blocker keyword, attacker power,
    attacker toughness, blocker power, blocker toughness. Returns who is alive at the end."""
    ka, kb, pa, ta, pb, tb = drawn.T
    attacker_alive = np.ones(drawn.shape[0], dtype=np.bool_)
    blocker_alive = attacker_alive.copy()
    on_attacker = np.zeros(drawn.shape[0], dtype=np.int64)
    on_blocker = on_attacker.copy()
    for step in range(table.shape[1]):
        on_blocker += np.where(table[ka, step] & attacker_alive, pa, 0)
        on_attacker += np.where(table[kb, step] & blocker_alive, pb, 0)
        attacker_alive &= on_attacker < ta
        blocker_alive &= on_blocker < tb
    return attacker_alive, blocker_alive


def tally(drawn: IntArray, attacker_alive: BoolArray, blocker_alive: BoolArray, k: int) -> IntArray:
    """[k * k, 4] battles per (attacker keyword, blocker keyword) and outcome code
    (0 neither dies, 1 attacker wins, 2 blocker wins, 3 trade)."""
    outcome = 2 * ~attacker_alive + ~blocker_alive
    key = drawn[:, 0] * k + drawn[:, 1]
    counts: IntArray = np.bincount(key * 4 + outcome, minlength=k * k * 4).reshape(k * k, 4)
    return counts


def tournament(registry: Registry, battles: int, seed: int) -> IntArray:
    """Draw and resolve the tournament with one random generator; the [k * k, 4] tally."""
    keywords = strike_keywords(registry)
    k = len(keywords) + 1
    table = strike_table(registry, keywords)
    lo, hi = TOURNAMENT_RANGE
    low = np.array([0, 0, lo, lo, lo, lo])
    high = np.array([k, k, hi + 1, hi + 1, hi + 1, hi + 1])
    rng = np.random.default_rng(seed)
    counts = np.zeros((k * k, 4), dtype=np.int64)
    for start in range(0, battles, FLOOR_CHUNK):
        drawn = rng.integers(low, high, size=(min(FLOOR_CHUNK, battles - start), 6))
        counts += tally(drawn, *resolve(table, drawn), k)
    return counts


def main(argv: Sequence[str] | None = None) -> None:
    """Resolve the tournament and print the outcome counts and the time as JSON."""
    parser = argparse.ArgumentParser(prog="python -m ecs_combat.bench.floor", description=__doc__)
    parser.add_argument("--battles", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    began = time.perf_counter()
    counts = tournament(load_registry(), args.battles, args.seed)
    seconds = time.perf_counter() - began
    totals = counts.sum(axis=0).tolist()
    json.dump(
        {
            "battles": args.battles,
            "neither_dies": totals[0],
            "attacker_wins": totals[1],
            "blocker_wins": totals[2],
            "trades": totals[3],
            "seconds": round(seconds, 6),
        },
        sys.stdout,
    )
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
