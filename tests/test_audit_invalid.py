"""Invalid scenarios from the rules audit: exit status 2 and one clear message (CONTRACT.md 2).

Each ``tests/invalid/NAME.toml`` breaks a rule of RULES.md (an illegal attack or block, an illegal
explicit division, a keyword that can't be a counter, 122.1b) or the scenario format; its
``NAME.expected.json`` gives the key path the message must name and words it must contain (the
creatures, the rule). The installed ``ecs-combat resolve`` must refuse it with both engines: exit
status 2, nothing on standard output, one line on standard error naming the file and the place in
it, and no traceback. Every file is checked in this process (:mod:`cli_run`), and a sample
through the installed command.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from cli_run import run_cli

HERE = Path(__file__).resolve().parent / "invalid"
FILES = sorted(HERE.glob("*.toml"))


def installed(path: Path, engine: str) -> subprocess.CompletedProcess[str]:
    """The installed command."""
    env = {**os.environ, "COLUMNS": "200"}
    env.pop("ECS_COMBAT_PLUGINS", None)
    return subprocess.run(
        ["ecs-combat", "resolve", str(path), "--json", "--engine", engine],
        capture_output=True,
        text=True,
        env=env,
    )


def in_process(path: Path, engine: str) -> Any:
    """The same command, in this process."""
    args = ["resolve", str(path), "--json", "--engine", engine]
    return run_cli(args, env={"COLUMNS": "200", "ECS_COMBAT_PLUGINS": None})


def test_there_are_invalid_scenarios() -> None:
    assert len(FILES) >= 50


@pytest.mark.parametrize("engine", ["reference", "batched"])
@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_invalid_scenario_exits_2_with_one_message(path: Path, engine: str) -> None:
    """CONTRACT.md 2: invalid input gives exit status 2 and one message naming file and place."""
    check(path, in_process(path, engine))


#: Files also run through the installed command, on both engines: one per kind of check
#: (an illegal block, an illegal division, a counter, the format).
SAMPLE = [
    next(f for f in FILES if f.stem.startswith(kind + "-"))
    for kind in ("509.1a", "510.1c", "122.1b", "scenario")
]


@pytest.mark.parametrize("engine", ["reference", "batched"])
@pytest.mark.parametrize("path", SAMPLE, ids=[f.stem for f in SAMPLE])
def test_the_installed_command_refuses_them_alike(path: Path, engine: str) -> None:
    check(path, installed(path, engine))


def check(path: Path, p: Any) -> None:
    expected = json.loads(path.with_name(path.stem + ".expected.json").read_text())
    assert p.returncode == 2, (p.returncode, p.stdout, p.stderr)
    assert p.stdout == ""
    assert "Traceback" not in p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1, p.stderr
    assert path.name in lines[0]
    assert expected["path"] in lines[0]
    for word in expected["mentions"]:
        assert word in lines[0], f"{word!r} not in {lines[0]!r}"
