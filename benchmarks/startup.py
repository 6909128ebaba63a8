"""Start-up of the ``ecs-combat`` command: whole processes, Python's own start-up subtracted.

Each command runs ``--runs`` times as a user runs it (the installed console script, output to
a pipe), alternating with ``python -c pass`` (Python's own start-up, with ``site``); the table
shows the median wall-clock and CPU (user + system) time of each, and each command's median
minus Python's. CPU time moves less with the machine's load than wall-clock time does; the
load average is printed with the table (docs/performance.md, "Start-up")::

    python benchmarks/startup.py                 # 21 runs of each
    python benchmarks/startup.py --runs 51
    python benchmarks/startup.py --base ../old   # also the sources of another checkout
    python benchmarks/startup.py --instructions --base ../old   # instructions (valgrind)

``--base DIR`` runs each command a second way, from the sources of the checkout DIR (its
``ecs_combat``, its bundled plugins and docs, found ahead of this editable installation; the
dependencies and entry points are this installation's), alternating with this one, so the
table compares the two under the same load.

``--instructions`` counts each command's instructions once instead (valgrind's callgrind, the
whole process), minus ``python -c pass``'s: a figure the machine's load does not move.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: The commands measured: a name and the arguments after ``ecs-combat``.
COMMANDS = {
    "--version": ["--version"],
    "resolve (small scenario)": ["resolve", str(ROOT / "examples/scenarios/cerberus-vs-boar.toml")],
    "blocks (3x3 board)": ["blocks", str(ROOT / "benchmarks/boards/three-by-three.toml")],
    "attacks (race.toml)": ["attacks", str(ROOT / "examples/decisions/race.toml")],
}


#: The environment of the runs: an installation's, with its bytecode cached (some shells set
#: PYTHONDONTWRITEBYTECODE, which would compile every module from source at each start).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


#: The console script's code, with this installation's editable finder out of the way.
BASE_MAIN = (
    "import sys; sys.meta_path[:] = [f for f in sys.meta_path "
    "if not type(f).__module__.startswith('__editable__')]; "
    "from ecs_combat.cli.main import main; main()"
)


def base_packages(root: Path) -> str:
    """A directory of links to a checkout's packages under their installed names."""
    links = Path(tempfile.mkdtemp(prefix="startup-base-"))
    for name, where in (("ecs_combat", "ecs_combat"), ("ecs_combat_keywords", "plugins"),
                        ("ecs_combat_docs", "docs")):  # fmt: skip
        (links / name).symlink_to((root / where).resolve())
    return str(links)


def timed(argv: list[str], env: dict[str, str] = ENV) -> tuple[float, float]:
    """Wall-clock and CPU seconds of one run of ``argv``, output discarded."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    # run elsewhere than in a checkout, whose ecs_combat would come first on sys.path
    subprocess.run(argv, stdout=subprocess.DEVNULL, check=True, env=env, cwd=tempfile.gettempdir())
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def instructions(argv: list[str], env: dict[str, str] = ENV) -> int:
    """Instructions one run of ``argv`` executes, start to exit (callgrind)."""
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *argv],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=True, env=env,
        cwd=tempfile.gettempdir(),
    )  # fmt: skip
    found = re.search(r"Collected : (\d+)", done.stderr)
    assert found is not None, done.stderr
    return int(found.group(1))


def count(script: str, base_argv: list[str], base_env: dict[str, str] | None) -> None:
    """Print each command's instructions beyond Python's own start-up (millions)."""
    python = instructions([sys.executable, "-c", "pass"])
    print(f"python -c pass: {python / 1e6:.1f} M instructions; beyond it (M):")
    for name, rest in COMMANDS.items():
        mine = instructions([script, *rest]) - python
        line = f"{name:33} {mine / 1e6:9.1f}"
        if base_env is not None:
            base = instructions([*base_argv, *rest], base_env) - python
            line += f"   base {base / 1e6:9.1f}   ratio {mine / base:.2f}"
        print(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=21, help="runs of each command")
    parser.add_argument("--base", help="a checkout whose sources to time too (PYTHONPATH)")
    parser.add_argument("--instructions", action="store_true", help="count instructions")
    args = parser.parse_args()
    base_env = {**ENV, "PYTHONPATH": base_packages(Path(args.base))} if args.base else None
    base_argv = [sys.executable, "-c", BASE_MAIN]
    script = shutil.which("ecs-combat", path=str(Path(sys.executable).parent)) or "ecs-combat"
    python = [sys.executable, "-c", "pass"]
    if args.instructions:
        for rest in COMMANDS.values():  # a first run writes the bytecode caches
            timed([script, *rest])
        count(script, base_argv, base_env)
        return
    runs: dict[str, list[tuple[float, float]]] = {"python -c pass": []}
    runs.update({name: [] for name in COMMANDS})
    if base_env is not None:
        runs.update({f"base {name}": [] for name in COMMANDS})
    for rest in COMMANDS.values():  # a first run writes the bytecode caches
        timed([script, *rest])
        if base_env is not None:
            timed([*base_argv, *rest], base_env)
    for _ in range(args.runs):  # alternating, so that a change of load touches every command
        runs["python -c pass"].append(timed(python))
        for name, rest in COMMANDS.items():
            runs[name].append(timed([script, *rest]))
            if base_env is not None:
                runs[f"base {name}"].append(timed([*base_argv, *rest], base_env))
    base_wall = statistics.median(w for w, _ in runs["python -c pass"])
    base_cpu = statistics.median(c for _, c in runs["python -c pass"])
    print(f"load average before the table: {os.getloadavg()[0]:.2f}; {args.runs} runs each")
    print(f"{'command':33} {'wall':>8} {'cpu':>8} {'wall-py':>8} {'cpu-py':>8}  (seconds, medians)")
    for name, times in runs.items():
        wall = statistics.median(w for w, _ in times)
        cpu = statistics.median(c for _, c in times)
        print(f"{name:33} {wall:8.3f} {cpu:8.3f} {wall - base_wall:8.3f} {cpu - base_cpu:8.3f}")


if __name__ == "__main__":
    main()
