"""CPU time of bulk simulations by chunk size: the measurement behind
``ecs_combat.simulation.simulate.CHUNK_CREATURES`` (docs/performance.md, "Chunk size matters").

    python benchmarks/chunk_sizes.py                 # every workload, 2^14 to 2^17 creatures
    python benchmarks/chunk_sizes.py --only melee --sizes 15,16

Each workload is drawn, resolved on the batched engine and tallied as `ecs-combat simulate`
runs it, in this process, with chunks of about 2^k creatures; the fastest of three runs' CPU
time is shown (start-up and the first run's caches left out by a warm-up run).
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from pathlib import Path

from ecs_combat.plugin.loading import load_registry
from ecs_combat.simulation import simulate as sim
from ecs_combat.simulation.generators import make_generator
from ecs_combat.simulation.spec import Spec, tournament
from ecs_combat.simulation.spec_reader import load_spec
from ecs_combat.testing.registries import bundled_plugins

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="workloads whose name has this")
    parser.add_argument("--sizes", default="14,15,16,17", help="exponents k of 2^k creatures")
    args = parser.parse_args()
    registry = load_registry(load=sorted(bundled_plugins().values()), autoload=False)
    engine = sim.make_engine("batched", registry)
    workloads: dict[str, tuple[Spec, int]] = {
        "tournament": (tournament(registry), 1_000_000),
        "tournament, decisions": (
            dataclasses.replace(tournament(registry), decisions="optimal"),
            200_000,
        ),
        "melee": (load_spec(ROOT / "examples/specs/melee.toml", registry), 200_000),
        "2-drop pool": (load_spec(ROOT / "docs/examples/specs/two-drops.toml", registry), 400_000),
    }
    default = sim.CHUNK_CREATURES
    print(f"{'workload':22} {'creatures':>9} {'battles':>8} {'CPU s':>7} {'battles/s':>11}")
    for name, (spec, battles) in workloads.items():
        if args.only not in name:
            continue
        generator = make_generator(spec, registry)
        for k in (int(x) for x in args.sizes.split(",")):
            sim.CHUNK_CREATURES = 1 << k
            size = sim.default_chunk_size(spec, "batched")
            sim.simulate(generator, "batched", engine, 1, min(battles, 4 * size), size)
            best = float("inf")
            for _ in range(3):
                start = time.process_time()
                sim.simulate(generator, "batched", engine, 1, battles, size)
                best = min(best, time.process_time() - start)
            print(f"{name:22} {'2^' + str(k):>9} {size:8d} {best:7.3f} {battles / best:11,.0f}")
    sim.CHUNK_CREATURES = default


if __name__ == "__main__":
    main()
