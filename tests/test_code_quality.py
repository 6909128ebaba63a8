"""Lint, format and type checks run with the tests, so CI enforces them (pyproject.toml config)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ["ecs_combat", "plugins", "tests", "benchmarks", "examples", "tools"]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True)


@pytest.mark.parametrize(
    "command",
    [("ruff", "check", *SOURCES), ("ruff", "format", "--check", *SOURCES), ("mypy",)],
    ids=["ruff-check", "ruff-format", "mypy"],
)
def test_clean(command: tuple[str, ...]) -> None:
    result = run(*command)
    assert result.returncode == 0, result.stdout + result.stderr
