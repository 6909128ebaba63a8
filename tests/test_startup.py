"""Which heavy modules each command imports (docs/performance.md, "Start-up"): a command
imports what it needs when it runs, so that `ecs-combat --version` loads click alone, a
`resolve` never loads the batched engine, pandas or matplotlib, and a command printing to a
pipe (as here) never loads Rich.

Each command runs as the console script runs it (``ecs_combat.cli.main:main``) in a process of
its own, which prints the modules it had imported as it exited; the processes run side by side.
Wall-clock limits are not asserted here (they are measured by benchmarks/startup.py).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BOARD = ROOT / "benchmarks" / "boards" / "three-by-three.toml"
SEED = ROOT / "examples" / "scenarios" / "cerberus-vs-boar.toml"

#: Run the command of argv[1:] as the console script does; at exit, print the imported modules.
RUNNER = """
import atexit, json, sys
atexit.register(lambda: print(json.dumps(sorted(sys.modules)), file=sys.stderr))
sys.argv = ["ecs-combat", *sys.argv[1:]]
from ecs_combat.cli.main import main
main()
"""

#: Third-party packages a command may import or not, and our own heavy parts.
HEAVY = (
    "numpy", "pandas", "matplotlib", "pyarrow", "rich", "dask", "distributed", "numba",
    "esper", "pluggy", "orjson", "scipy", "networkx", "ecs_combat.batched", "ecs_combat.decisions",
    "ecs_combat.simulation", "ecs_combat.reference", "ecs_combat_keywords",
    "ecs_combat.cards.library", "difflib",
)  # fmt: skip

#: The variables with which Rich takes a pipe for a terminal, left out of the runs' environment.
TERMINAL_VARIABLES = ("FORCE_COLOR", "TTY_COMPATIBLE")

#: Each command and the heavy modules it may import (any other is a failure, and so is one
#: listed under `needs` that it does not import: the check must see the command do its work).
COMMANDS: dict[str, tuple[list[str], set[str], set[str]]] = {
    # name: (arguments, may import, needs)
    "version": (["--version"], set(), set()),
    "docs": (["docs"], set(), set()),
    # in a pipe: the plain layout, without Rich; no card named: the card library stays out
    "resolve": (
        ["resolve", str(SEED)],
        {"numpy", "esper", "pluggy", "ecs_combat.reference", "ecs_combat_keywords"},
        {"ecs_combat.reference", "ecs_combat_keywords"},
    ),
    "blocks": (
        ["blocks", str(BOARD)],
        {
            "numpy",
            "esper",
            "pluggy",
            "ecs_combat.reference",
            "ecs_combat_keywords",
            "ecs_combat.batched",
            "ecs_combat.decisions",
        },
        {"ecs_combat.batched", "ecs_combat.decisions"},
    ),
    # a bulk run: numba allowed (compiled kernels), not pandas, pyarrow, matplotlib or Dask
    "simulate": (
        ["simulate", "-n", "2000", "--seed", "1"],
        {
            "numpy",
            "rich",
            "esper",
            "pluggy",
            "numba",
            "ecs_combat.reference",
            "ecs_combat_keywords",
            "ecs_combat.batched",
            "ecs_combat.decisions",
            "ecs_combat.simulation",
            "ecs_combat.cards.library",
            "difflib",
        },
        {"ecs_combat.batched", "ecs_combat.simulation"},
    ),
}


def heavy(modules: list[str]) -> set[str]:
    """The entries of :data:`HEAVY` among imported modules."""
    return {h for h in HEAVY for m in modules if m == h or m.startswith(h + ".")}


@pytest.fixture(scope="module")
def imported() -> dict[str, list[str]]:
    """Each command's imported modules, the commands run side by side."""
    runs = {
        name: subprocess.Popen(
            [sys.executable, "-c", RUNNER, *args],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env={k: v for k, v in os.environ.items() if k not in TERMINAL_VARIABLES},
        )
        for name, (args, _, _) in COMMANDS.items()
    }
    out = {}
    for name, p in runs.items():
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
        out[name] = json.loads(err.strip().splitlines()[-1])
    return out


@pytest.mark.parametrize("name", list(COMMANDS))
def test_a_command_imports_only_what_it_needs(imported: dict[str, list[str]], name: str) -> None:
    _, allowed, needs = COMMANDS[name]
    found = heavy(imported[name])
    assert found <= allowed, f"{name} imports {sorted(found - allowed)}"
    assert needs <= found, f"{name} did not import {sorted(needs - found)}: did it run?"


def test_version_imports_none_of_the_package_but_the_command_line(
    imported: dict[str, list[str]],
) -> None:
    ours = {m for m in imported["version"] if m.startswith("ecs_combat")}
    assert ours == {"ecs_combat", "ecs_combat.errors"} | {
        f"ecs_combat.cli{part}" for part in ("", ".main", ".common", ".flags")
    }
    assert "importlib.metadata" not in imported["version"]  # the version is ours, not read


def test_a_plain_scenario_loads_neither_turns_nor_json_lines(
    imported: dict[str, list[str]],
) -> None:
    """A one-combat TOML file: the turn and race machinery and the quick JSON Lines reader stay
    out."""
    found = set(imported["resolve"])
    assert not found & {
        "ecs_combat.reference.turn",
        "ecs_combat.scenario.race",
        "ecs_combat.cli.turn_command",
        "ecs_combat.scenario.quick",
        "orjson",
    }
