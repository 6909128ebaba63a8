"""The library speaks of what a Python caller gave, the command line of its flags (issue 35):
a run's errors name a checkpoints directory, not ``--out``, and ``ecs-combat simulate`` says
the same errors in flags, word for word as before."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from ecs_combat.cli.flag_words import as_flags, in_flags
from ecs_combat.errors import InputError
from ecs_combat.plugin.registry import Registry
from ecs_combat.simulation.distribute import Simulation
from ecs_combat.simulation.spec import tournament

BIN = Path(sys.executable).parent


def test_a_python_caller_is_told_of_no_flag(registry: Registry, tmp_path: Path) -> None:
    """Resuming without a checkpoints directory, and a directory that already holds a run:
    the messages name the option as the library has it, and no flag."""
    with pytest.raises(InputError) as info:
        Simulation(tournament(registry), 1, 100, registry=registry, resume=True)
    assert str(info.value) == (
        "resume: needs a checkpoints directory, the directory of the run to resume"
    )
    out = tmp_path / "run"
    Simulation(tournament(registry), 1, 100, registry=registry, checkpoint=out).close()
    with pytest.raises(InputError) as info:
        Simulation(tournament(registry), 1, 100, registry=registry, checkpoint=out)
    assert str(info.value) == (
        f"checkpoints directory: {out}: already holds checkpoints of a run: resume that run "
        "to finish it, or choose another directory"
    )
    assert "--" not in str(info.value)


def test_the_command_line_says_them_in_flags() -> None:
    """Each option the library names becomes its flag; its advice, the flags' advice."""
    error = as_flags(
        InputError("checkpoints directory", "d", "holds checkpoints of a different run (seed 1 "
                   "there, 2 here); resume it with the same SPEC, number of battles, seed and "
                   "plugins, or choose another directory")
    )  # fmt: skip
    assert str(error) == (
        "--out: d: holds checkpoints of a different run (seed 1 there, 2 here); resume it with "
        "the same SPEC, --battles, --seed and plugins, or choose another directory"
    )
    assert str(as_flags(InputError("resume", "d", "holds no run to resume (no manifest.json "
                                   "there): check the directory, or start a new run instead "
                                   "of resuming"))) == (
        "--resume: d: holds no run to resume (no manifest.json there): check the directory, or "
        "drop --resume to start a run"
    )  # fmt: skip
    assert str(as_flags(InputError("scheduler", "x", "not an address"))) == (
        "--scheduler: x: not an address"
    )
    assert in_flags("results file b.csv: cannot write: full") == "--out b.csv: cannot write: full"
    assert str(as_flags(InputError("spec.toml", "battles", "must be 1 or more"))) == (
        "spec.toml: battles: must be 1 or more"  # a file's error is left as it is
    )


def test_the_command_says_the_flag(tmp_path: Path) -> None:
    """The installed command: a directory holding a run, run again without --resume."""
    out = tmp_path / "run"
    args = [str(BIN / "ecs-combat"), "simulate", "-n", "100", "--seed", "1", "--out", f"{out}/"]
    assert subprocess.run(args, capture_output=True, text=True).returncode == 0
    p = subprocess.run(args, capture_output=True, text=True)
    assert p.returncode == 2
    assert p.stderr == (
        f"ecs-combat: --out: {out}/: already holds checkpoints of a run: add --resume to finish "
        "it, or choose another directory\n"
    )
