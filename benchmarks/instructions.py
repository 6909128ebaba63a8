"""Instructions per pass of the damage-step core's workloads, counted by valgrind's callgrind.

Wall-clock benchmarks on a shared machine move by 2x with the load; the number of
instructions executed does not. This counts, for each workload of `benchmarks/test_core.py`
(and the decision search's many tiny batches, and bulk turns with two combat phases),
the instructions of its passes alone: each workload runs its passes inside
``functools.reduce``, and callgrind counts only what runs inside that call
(``--collect-atstart=no --toggle-collect=functools_reduce``), so start-up, imports, drawing
and the warm-up pass are left out. Repeated runs of the same code give the same count to
within a few thousand instructions (start-up alone differs by tens of millions from run to
run, which is why a run with passes minus a run without was not precise enough). It compares
two checkouts side by side:

    python benchmarks/instructions.py                          # this checkout
    python benchmarks/instructions.py --base ../old/.venv/bin/python

``--base`` is the Python of another installation of ecs-combat (for example a worktree of the
commit a saved baseline was taken at); each workload runs on both, with the bundled plugins of
each, and the table shows the ratio. Needs ``valgrind`` on PATH (docs/performance.md).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys

#: Each workload's code: argv[1] is the number of passes after one warm-up pass.
PRELUDE = """
import functools
import sys
from importlib import metadata
from pathlib import Path
import ecs_combat
from ecs_combat import load_scenario
try:
    from ecs_combat.plugin.loading import load_registry
except ImportError:  # before 2026-12-01 it was in the registry's module
    from ecs_combat.plugin.registry import load_registry
passes = int(sys.argv[1])


def measure(one):
    # `one` run `passes` times inside functools.reduce: the only code callgrind counts (so
    # the workloads must not call functools.reduce themselves)
    functools.reduce(lambda _, __: one(), range(passes), None)
plugins = sorted(
    ep.value for ep in metadata.distribution("ecs-combat").entry_points if ep.group == "ecs_combat"
)
registry = load_registry(load=plugins, autoload=False)
root = Path(ecs_combat.__file__).resolve().parent.parent
"""

TOURNAMENT = """
from ecs_combat.simulation.generate import draw_battles
try:
    from ecs_combat.simulation.generators import make_generator
except ImportError:  # before 2026-12-01 it was in generate
    from ecs_combat.simulation.generate import make_generator
from ecs_combat.simulation.simulate import default_chunk_size, make_engine
from ecs_combat.simulation.spec import tournament
spec = tournament(registry)
generator = make_generator(spec, registry)
"""

#: `ecs-combat simulate SPEC` in process, start-up excluded: a pass reads nothing again and
#: draws, resolves and tallies the same battles in the default chunks.
SIMULATE = """
try:
    from ecs_combat.simulation.generators import make_generator
except ImportError:  # before 2026-12-01 it was in generate
    from ecs_combat.simulation.generate import make_generator
from ecs_combat.simulation.simulate import default_chunk_size, make_engine, simulate
try:
    from ecs_combat.simulation.spec_reader import load_spec
except ImportError:  # before 2026-12-01 it was in spec
    from ecs_combat.simulation.spec import load_spec
spec = load_spec(root / "{spec}", registry)
generator = make_generator(spec, registry)
engine = make_engine("batched", registry)
size = default_chunk_size(spec, "batched")
def one() -> None:
    simulate(generator, "batched", engine, 1, {battles}, size)


one()  # warm-up, not counted
measure(one)
"""

#: The built-in tournament as `ecs-combat simulate` runs it, blocks as drawn or decided.
TOURNAMENT_RUN = """
import dataclasses
from ecs_combat.simulation.simulate import simulate
spec = dataclasses.replace(spec, decisions="{decisions}")
generator = make_generator(spec, registry)
engine = make_engine("batched", registry)
size = default_chunk_size(spec, "batched")
def one() -> None:
    simulate(generator, "batched", engine, 1, 65_536, size)


one()  # warm-up, not counted
measure(one)
"""

WORKLOADS = {
    "batched tournament (2 chunks)": TOURNAMENT
    + """
size = 8192  # simulate's chunk until 2026-12-01: the same work in every version
chunks = [draw_battles(generator, 1, i * size, (i + 1) * size) for i in range(2)]
engine = make_engine("batched", registry)
def one() -> None:
    for drawn in chunks:
        engine.resolve_batch(drawn.batch)


one()  # warm-up, not counted
measure(one)
""",
    "tournament as the user runs it (65,536 battles)": TOURNAMENT
    + TOURNAMENT_RUN.format(decisions="drawn"),
    "tournament with decisions (65,536 battles)": TOURNAMENT
    + TOURNAMENT_RUN.format(decisions="optimal"),
    "melee as the user runs it (12,288 battles)": SIMULATE.format(
        spec="examples/specs/melee.toml", battles=12_288
    ),
    "2-drop pool as the user runs it (65,536 battles)": SIMULATE.format(
        spec="docs/examples/specs/two-drops.toml", battles=65_536
    ),
    "reference tournament (300 battles)": TOURNAMENT
    + """
drawn = draw_battles(generator, 1, 0, 300)
engine = make_engine("reference", registry)
def one() -> None:
    engine.resolve_batch(drawn.batch)


one()  # warm-up, not counted
measure(one)
""",
    "batched rules scenarios": """
from ecs_combat.batched.engine import BatchedEngine
scenarios = [load_scenario(p, registry) for p in sorted((root / "tests/scenarios").glob("*.toml"))]
engine = BatchedEngine(registry)
def one() -> None:
    engine.resolve_many(scenarios)


one()  # warm-up, not counted
measure(one)
""",
    "batched decisions (best_attacks, race.toml)": """
from ecs_combat.api_decisions import best_attacks
path = root / "examples/decisions/race.toml"
def one() -> None:
    best_attacks(path, registry)


one()  # warm-up, not counted
measure(one)
""",
    "batched bulk turns (extra-combat, 2 chunks)": """
import tomllib
from ecs_combat.batched.engine import BatchedEngine
from ecs_combat.simulation.generate import draw_battles
from ecs_combat.simulation.generators import make_generator
from ecs_combat.simulation.simulate import default_chunk_size
try:
    from ecs_combat.simulation.spec_reader import parse_spec
except ImportError:  # before 2026-12-01 it was in spec
    from ecs_combat.simulation.spec import parse_spec
path = root / "examples/specs/extra-combat.toml"
spec = parse_spec(tomllib.loads(path.read_text()), registry, path.name)
generator = make_generator(spec, registry)
size = default_chunk_size(spec, "batched")
chunks = [draw_battles(generator, 1, i * size, (i + 1) * size) for i in range(2)]
engine = BatchedEngine(registry)
def one() -> None:
    for drawn in chunks:
        engine.resolve_turn_batch(drawn.turn)


one()  # warm-up, not counted
measure(one)
""",
    "reference rules scenarios": """
from ecs_combat.reference.engine import ReferenceEngine
scenarios = [load_scenario(p, registry) for p in sorted((root / "tests/scenarios").glob("*.toml"))]
engine = ReferenceEngine(registry)
def one() -> None:
    for scenario in scenarios:
        engine.resolve(scenario)


one()  # warm-up, not counted
measure(one)
""",
    "decisions: best blocks of nine 3x3 boards": """
sys.path.insert(0, str(root / "benchmarks"))
from decision_boards import boards
from ecs_combat.decisions import best_blocks
scenarios = boards(registry, 3, 9)
def one() -> None:
    for scenario in scenarios:
        best_blocks(scenario, registry)


one()  # warm-up, not counted
measure(one)
""",
    "decisions: the nine 3x3 boards in one best_blocks_many": """
sys.path.insert(0, str(root / "benchmarks"))
from decision_boards import boards
from ecs_combat.decisions import best_blocks_many
scenarios = boards(registry, 3, 9)
def one() -> None:
    best_blocks_many(scenarios, registry)


one()  # warm-up, not counted
measure(one)
""",
}

VALGRIND = (
    "valgrind",
    "--tool=callgrind",
    "--collect-atstart=no",
    "--toggle-collect=functools_reduce",
    "--callgrind-out-file=/dev/null",
)
REFS = re.compile(r"Collected\s*:\s*(\d+)")


def instructions(python: str, code: str, passes: int) -> int:
    """Instructions executed inside the workload's ``functools.reduce`` by `python -P -c code
    passes` (-P: the current directory's ecs_combat is not imported in place of the installed
    one)."""
    run = subprocess.run(
        [*VALGRIND, python, "-P", "-c", code, str(passes)],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONHASHSEED": "0"},  # the same set orders in every run
    )
    found = REFS.search(run.stderr)
    if run.returncode != 0 or found is None:
        sys.exit(f"instructions.py: {python} failed:\n{run.stderr[-2000:]}")
    return int(found.group(1).replace(",", ""))


def per_pass(python: str, code: str, passes: int) -> float:
    """Instructions a pass costs."""
    return instructions(python, code, passes) / passes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", help="the Python of another ecs-combat installation")
    parser.add_argument(
        "--passes",
        type=int,
        default=3,
        help="passes counted on the batched engine (default 3; the reference engine's "
        "workloads, each pass a hundred times longer, count a third as many, at least one)",
    )
    parser.add_argument("-k", dest="only", default="", help="only workloads whose name has this")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        sys.exit("instructions.py: valgrind is not on PATH")
    if args.passes < 1:
        sys.exit("instructions.py: --passes must be at least 1")
    print(
        f"{'workload':36} {'this (M)':>10}"
        + (f" {'base (M)':>10} {'ratio':>6}" if args.base else "")
    )
    for name, body in WORKLOADS.items():
        if args.only not in name:
            continue
        code = PRELUDE + body
        passes = max(args.passes // 3, 1) if name.startswith("reference") else args.passes
        here = per_pass(sys.executable, code, passes)
        line = f"{name:36} {here / 1e6:10.1f}"
        if args.base:
            base = per_pass(args.base, code, passes)
            line += f" {base / 1e6:10.1f} {here / base:6.2f}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
