"""Where one board's ``best_blocks`` spends its CPU, kernels on and off, and what a faster
search could give at most (docs/performance.md, "One board's best blocks, part by part").

Each part of :func:`ecs_combat.decisions.decide.best_blocks` is timed by wrapping the
function that does it (``time.process_time`` around each call): the scenario checked, the
one-battle template, the block options and declarations, the sides, the search, the
choices written, their outcomes (of which the results read or played again, and their JSON).
Rounds of the nine boards alternate between the numpy path (``ECS_COMBAT_KERNELS=0``) and
the kernels; the table shows the fastest round of each part, in microseconds of CPU per
board. The ceilings: the whole call over what is left with a search that costs nothing, and
also with outcomes as cheap as the numpy path's (read from its recorded levels). With
``--free-search`` the parts are not timed: instead the whole call is timed as it is and with
a search that costs nothing (each board's search result kept from the warm round and
returned again: everything else runs as it does), numpy and kernels, rounds alternating::

    ECS_COMBAT_KERNEL_THREADS=1 python benchmarks/decision_parts.py          # nine 3x3 boards
    ECS_COMBAT_KERNEL_THREADS=1 python benchmarks/decision_parts.py --size 4 --rounds 7
    ECS_COMBAT_KERNEL_THREADS=1 python benchmarks/decision_parts.py --free-search
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from importlib import metadata
from typing import Any

from decision_boards import boards

import ecs_combat.api_decisions as api
import ecs_combat.decisions.decide as decide
import ecs_combat.decisions.tree_answers as answers
from ecs_combat.plugin.loading import load_registry

#: (module or class, function, part's name), in the order shown.
PARTS: list[tuple[Any, str, str]] = [
    (api, "decision_scenario", "scenario checked"),
    (decide, "_template", "template batch"),
    (decide, "block_options", "block options"),
    (decide, "block_declarations", "declarations"),
    (decide, "_sides", "sides"),
    (decide, "search_blocks", "search"),
    (decide, "choice_of", "choices written"),
    (decide, "with_outcomes", "outcomes"),
    (answers.TreeAnswers, "results_of", "  of which results (read or played again)"),
    (decide, "result_json", "  of which JSON"),
]

spent: dict[str, float] = {}


def timed(function: Callable[..., Any], name: str) -> Callable[..., Any]:
    """`function`, its CPU time added to ``spent[name]`` at each call."""

    def call(*args: Any, **kwargs: Any) -> Any:
        before = time.process_time()
        try:
            return function(*args, **kwargs)
        finally:
            spent[name] = spent.get(name, 0.0) + time.process_time() - before

    return call


def free_search(args: argparse.Namespace, scenarios: list[Any], registry: Any) -> None:
    """The whole call, as it is and with each board's search result kept from the warm
    round (a search that costs nothing), numpy and kernels, rounds alternating."""
    search = decide.search_blocks
    kept: dict[tuple[str, int], Any] = {}
    free = [False]
    at = [0]

    def kept_search(*a: Any, **k: Any) -> Any:
        key = (os.environ["ECS_COMBAT_KERNELS"], at[0] % len(scenarios))
        at[0] += 1
        if not free[0] or key not in kept:
            kept[key] = search(*a, **k)
        return kept[key]

    decide.search_blocks = kept_search  # type: ignore[assignment]
    n = args.boards * args.calls
    best: dict[tuple[str, bool], float] = {}
    for r in range(args.rounds + 1):  # the first round warms up (and keeps the results)
        for kernels in ("0", "1"):
            for free[0] in (False, True):
                os.environ["ECS_COMBAT_KERNELS"] = kernels
                decide._ENGINES.clear()
                at[0] = 0
                before = time.process_time()
                for _ in range(args.calls):
                    for s in scenarios:
                        api.best_blocks(s, registry)
                spent = (time.process_time() - before) / n * 1e6
                if r:
                    best[kernels, free[0]] = min(best.get((kernels, free[0]), spent), spent)
    print(f"{args.boards} boards of {args.size}x{args.size}, fastest of {args.rounds} rounds, us")
    whole = best["0", False]
    for (kernels, free_), spent in sorted(best.items()):
        what = ("numpy", "kernels")[kernels == "1"] + (", the search free" if free_ else "")
        print(f"{what:30} {spent:8.1f}  numpy path / this {whole / spent:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=3, help="attackers and blockers a board")
    parser.add_argument("--boards", type=int, default=9)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=10, help="calls of each board a round")
    parser.add_argument("--free-search", action="store_true", help="a search that costs nothing")
    args = parser.parse_args()
    names = sorted(
        e.value for e in metadata.distribution("ecs-combat").entry_points if e.group == "ecs_combat"
    )
    registry = load_registry(load=names, autoload=False)
    scenarios = boards(registry, args.size, args.boards)
    if args.free_search:
        free_search(args, scenarios, registry)
        return
    for owner, name, part in PARTS:
        setattr(owner, name, timed(getattr(owner, name), part))
    n = args.boards * args.calls
    best: dict[str, dict[str, float]] = {"0": {}, "1": {}}
    for r in range(args.rounds + 1):  # the first round warms up (and compiles)
        for kernels in ("0", "1"):
            os.environ["ECS_COMBAT_KERNELS"] = kernels
            decide._ENGINES.clear()
            spent.clear()
            before = time.process_time()
            for _ in range(args.calls):
                for s in scenarios:
                    api.best_blocks(s, registry)
            spent["whole call"] = time.process_time() - before
            if r:
                for part, seconds in spent.items():
                    held = best[kernels].get(part, float("inf"))
                    best[kernels][part] = min(held, seconds / n * 1e6)
    print(f"{args.boards} boards of {args.size}x{args.size}, fastest of {args.rounds} rounds, us")
    print(f"{'part':44} {'numpy':>8} {'kernels':>8}")
    for part in ["whole call", *(p for _, _, p in PARTS)]:
        print(f"{part:44} {best['0'].get(part, 0):8.1f} {best['1'].get(part, 0):8.1f}")
    numpy, kernel = best["0"], best["1"]
    free = {k: v["whole call"] - v["search"] for k, v in best.items()}
    cheap = free["1"] - max(kernel["outcomes"] - numpy["outcomes"], 0.0)
    print(f"numpy / kernels, whole call: {numpy['whole call'] / kernel['whole call']:.2f}x")
    print(
        f"ceiling, a search that costs nothing: numpy path {numpy['whole call'] / free['0']:.2f}x,"
    )
    print(f"  kernels {numpy['whole call'] / free['1']:.2f}x, ", end="")
    print(f"with outcomes as cheap as the numpy path's {numpy['whole call'] / cheap:.2f}x")


if __name__ == "__main__":
    main()
