"""Decisions of many boards from Python (``ecs_combat.best_attacks_of``, ``best_blocks_of``)
against the decided tournament's decisions of the same boards, per board, in CPU time.

The boards are the keyword tournament's (``simulate`` without a SPEC), drawn with a seed; the
decided tournament decides them with ``decisions = "optimal"`` (:func:`decided`: attacks, then
blocks against them); the Python calls take the same boards as :class:`~ecs_combat.Battles`
(every attacking creature may attack) and give their tables. Rounds alternate between the
two; the table shows the fastest round of each, in microseconds of CPU per board, and the
ratio (docs/performance.md, "Decisions of many boards from Python")::

    python benchmarks/bulk_decisions.py                       # 65,536 boards, 3 rounds
    python benchmarks/bulk_decisions.py --boards 20000 --rounds 5
    python benchmarks/bulk_decisions.py --one 200             # also best_attacks a board at a time
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import time
from collections.abc import Callable

import numpy as np

import ecs_combat
from ecs_combat.api import Battles
from ecs_combat.decisions.decided import Decider
from ecs_combat.plugin.loading import load_registry
from ecs_combat.simulation.deciding import decided
from ecs_combat.simulation.generate import draw_battles
from ecs_combat.simulation.generators import make_generator
from ecs_combat.simulation.spec import tournament


def cpu(run: Callable[[], object]) -> float:
    """CPU seconds (user and system) of one call."""
    before = time.process_time()
    run()
    return time.process_time() - before


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=65_536)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--one", type=int, default=0, help="boards for best_attacks one by one")
    args = parser.parse_args()
    registry = load_registry()
    spec = dataclasses.replace(tournament(registry), decisions="optimal")
    generator = make_generator(spec, registry)
    drawn = draw_battles(generator, args.seed, 0, args.boards)
    boards = Battles(drawn.batch, drawn.attacking_side)
    decider = Decider(registry)

    def tournament_attacks() -> None:
        # what simulate does for a chunk: decide, then resolve the decided battles
        chosen, _ = decided(generator, drawn, None)
        decider.engine.resolve_batch(chosen.batch)

    def tournament_blocks() -> None:
        decider.decide_blocks(drawn, outcomes=True)

    runs: dict[str, Callable[[], object]] = {
        "decided tournament (attacks and blocks)": tournament_attacks,
        "best_attacks_of(battles)": lambda: ecs_combat.best_attacks_of(boards, registry),
        "decided tournament (blocks against the drawn attack)": tournament_blocks,
        "best_blocks_of(battles)": lambda: ecs_combat.best_blocks_of(boards, registry),
    }
    for run in runs.values():  # warm-up: the engines' plans and masks
        run()
    best = dict.fromkeys(runs, float("inf"))
    for _ in range(args.rounds):
        for name, run in runs.items():
            best[name] = min(best[name], cpu(run))
    n = args.boards
    print(
        f"{n:,} tournament boards, fastest of {args.rounds} rounds, load {os.getloadavg()[0]:.1f}"
    )
    names = list(runs)
    for name in names:
        print(f"{name:55s} {best[name] / n * 1e6:8.1f} us a board")
    print(f"best_attacks_of / tournament: {best[names[1]] / best[names[0]]:.2f}x")
    print(f"best_blocks_of / tournament:  {best[names[3]] / best[names[2]]:.2f}x")
    if args.one:
        from ecs_combat.batched.convert import batch_to_scenarios

        some = batch_to_scenarios(drawn.batch, registry)[: args.one]
        for s in some:
            s.attackers, s.blockers = {}, {}
        seconds = cpu(lambda: [ecs_combat.best_attacks(s, registry, top=1) for s in some])
        print(f"best_attacks one board at a time: {seconds / len(some) * 1e6:8.1f} us a board")
    assert np.all(ecs_combat.best_attacks_of(boards, registry).battles["battle"] >= 0)


if __name__ == "__main__":
    main()
