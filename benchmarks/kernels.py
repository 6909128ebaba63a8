"""CPU time of the compiled kernel against the numpy engine, `resolve_batch` alone and the whole
pipeline as `ecs-combat simulate` runs it (docs/performance.md, "Compiled kernels").

    python benchmarks/kernels.py                       # the tournament and the example SPECs
    python benchmarks/kernels.py --only trigger         # attack and block triggers
    ECS_COMBAT_KERNEL_THREADS=1 python benchmarks/kernels.py --battles 65536

Both engines resolve the same drawn chunks in this process, alternating, fastest of five
rounds by CPU time (``time.process_time``: a loaded machine's waiting is left out; threads'
CPU time adds up, so this is the work, not the wall-clock time). A SPEC the kernel refuses
says why. The bundled plugins only. The tournament's pipeline is also timed against the
hand-written numpy floor (:mod:`ecs_combat.bench.floor`, same battles and seed), alternating.
"""

from __future__ import annotations

import argparse
import time
import tomllib
from importlib import metadata
from pathlib import Path

from ecs_combat import Registry, parse_scenario
from ecs_combat.batched.engine import BatchedEngine
from ecs_combat.batched.from_scenarios import scenarios_to_batch
from ecs_combat.bench import floor
from ecs_combat.plugin.loading import load_registry
from ecs_combat.simulation.generate import draw_battles
from ecs_combat.simulation.generators import make_generator
from ecs_combat.simulation.simulate import default_chunk_size, simulate
from ecs_combat.simulation.spec import tournament
from ecs_combat.simulation.spec_reader import parse_spec

ROOT = Path(__file__).resolve().parent.parent
#: The example melee without its card and hats (events and state the kernel lacks).
MELEE = """
attackers = 5
blockers_per_attacker = [0, 3]
power = [1, 6]
toughness = [1, 6]
life = 20
matchup = ["first strike", "deathtouch"]
[keywords]
"first strike" = 0.1
"double strike" = 0.05
deathtouch = 0.1
trample = 0.1
lifelink = 0.1
indestructible = 0.02
flying = 0.1
reach = 0.1
menace = 0.05
[blocker]
keywords = { trample = 0, menace = 0 }
"""
#: Attack and block triggers a SPEC can draw (keywords without numbers).
TRIGGERS = """
attackers = [1, 4]
blockers_per_attacker = [0, 3]
power = [1, 6]
toughness = [1, 6]
life = 20
[keywords]
exalted = 0.2
flanking = 0.2
"battle cry" = 0.1
"first strike" = 0.1
deathtouch = 0.1
trample = 0.1
"""
#: Damage dealt as counters (wither, infect: -1/-1 and poison counters) among others.
COUNTERS = """
attackers = [1, 3]
blockers_per_attacker = [0, 2]
power = [1, 5]
toughness = [1, 5]
life = 10
[keywords]
wither = 0.2
infect = 0.2
lifelink = 0.1
deathtouch = 0.1
trample = 0.1
"first strike" = 0.1
"""
#: Numbered triggers, which a SPEC can't draw: one board, copied (`resolve_batch` alone).
NUMBERED = """
[players.a]
life = 20
[players.b]
life = 20
[creatures.x]
controller = "a"
power = 3
toughness = 3
keywords = ["bushido 2", "rampage 1"]
[creatures.e]
controller = "a"
power = 1
toughness = 1
keywords = ["exalted"]
[creatures.y]
controller = "b"
power = 2
toughness = 2
keywords = ["bushido 1"]
[creatures.z]
controller = "b"
power = 2
toughness = 3
keywords = ["flanking"]
[combat]
attackers = { x = "b" }
blockers = { y = "x", z = "x" }
"""
SPECS = {
    "tournament": None,
    "melee without casts and hats": MELEE,
    "docs/examples/specs/trample.toml": (ROOT / "docs/examples/specs/trample.toml").read_text(),
    "examples/specs/melee.toml": (ROOT / "examples/specs/melee.toml").read_text(),
    "triggers: exalted, flanking, battle cry": TRIGGERS,
    "counters: wither, infect": COUNTERS,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--battles", type=int, default=65_536)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--only", default="", help="the workloads whose name contains this")
    args = parser.parse_args()
    plugins = sorted(
        ep.value for ep in metadata.distribution("ecs-combat").entry_points
        if ep.group == "ecs_combat"
    )  # fmt: skip
    registry = load_registry(load=plugins, autoload=False)
    engines = {"kernel": BatchedEngine(registry), "numpy": BatchedEngine(registry, kernels=False)}
    kernel = engines["kernel"].kernel()
    assert kernel is not None, "kernels are off (ECS_COMBAT_KERNELS=0, or no numba)"
    print(f"{'workload':<34} {'kernel':>10} {'numpy':>10} {'ratio':>6}  creatures/s (kernel)")
    for name, text in SPECS.items():
        if args.only not in name:
            continue
        spec = tournament(registry) if text is None else parse_spec(tomllib.loads(text), registry)
        generator = make_generator(spec, registry)
        size = default_chunk_size(spec, "batched")
        n = args.battles
        chunks = [draw_battles(generator, 1, s, min(s + size, n)).batch for s in range(0, n, size)]
        why = kernel.refusal(engines["kernel"].schedules.of([chunks[0]]), chunks[0])
        if why:
            print(f"{name:<34} the kernel refuses it: {why}")
            continue
        creatures = sum(b.n_creatures for b in chunks)
        for what in ("engine", "pipeline"):
            best = {k: float("inf") for k in engines}
            for _ in range(args.rounds + 1):  # the first round warms up
                for key, engine in engines.items():
                    began = time.process_time()
                    if what == "engine":
                        for batch in chunks:
                            engine.resolve_batch(batch)
                    else:
                        simulate(generator, "batched", engine, 1, n, size)
                    best[key] = min(best[key], time.process_time() - began)
            k, m = best["kernel"], best["numpy"]
            label = f"{name}, {what}"
            print(f"{label:<34} {k:>9.4f}s {m:>9.4f}s {k / m:>6.2f}  {creatures / k / 1e6:.2f} M")
        if text is None:  # the tournament's whole pipeline against the hand-written floor
            best = {k: float("inf") for k in ("kernel", "floor")}
            for _ in range(args.rounds + 1):
                for key in best:
                    began = time.process_time()
                    if key == "kernel":
                        simulate(generator, "batched", engines["kernel"], 1, n, size)
                    else:
                        floor.tournament(registry, n, 1)
                    best[key] = min(best[key], time.process_time() - began)
            k, f = best["kernel"], best["floor"]
            label = "tournament, pipeline / floor"
            print(f"{label:<34} {k:>9.4f}s {f:>9.4f}s {k / f:>6.2f}  (floor in the numpy column)")
    if args.only in "triggers: bushido, rampage (one board)":
        numbered(registry, engines, args.battles, args.rounds)


def numbered(
    registry: Registry, engines: dict[str, BatchedEngine], battles: int, rounds: int
) -> None:
    """`resolve_batch` alone on copies of one board with numbered triggers (:data:`NUMBERED`),
    in chunks of 8192 battles."""
    scenario = parse_scenario(tomllib.loads(NUMBERED), registry, "numbered.toml")
    chunks = [scenarios_to_batch([scenario] * min(8192, battles - s), registry)
              for s in range(0, battles, 8192)]  # fmt: skip
    creatures = sum(b.n_creatures for b in chunks)
    best = {k: float("inf") for k in engines}
    for _ in range(rounds + 1):
        for key, engine in engines.items():
            began = time.process_time()
            for batch in chunks:
                engine.resolve_batch(batch)
            best[key] = min(best[key], time.process_time() - began)
    k, m = best["kernel"], best["numpy"]
    label = "triggers: bushido, rampage, engine"
    print(f"{label:<34} {k:>9.4f}s {m:>9.4f}s {k / m:>6.2f}  {creatures / k / 1e6:.2f} M")


if __name__ == "__main__":
    main()
