"""Every scenario file with expected outcomes (tests/scenarios, the shared acceptance samples
among them) that the compiled kernel takes, resolved in it: the reference engine's outcome
exactly (`assert_kernel_agrees`), whose own answers test_scenarios.py pins against the
expected files; and the expected files' creature fields read from the kernel's outcome.

Shares test_kernels.py's compiled cache and plugin set (the bundled plugins).
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import pytest
from test_kernels import BUNDLED, engines_of, kernels_on  # noqa: F401

from ecs_combat import parse_scenario
from ecs_combat.batched.from_scenarios import scenarios_to_batch
from ecs_combat.testing import assert_kernel_agrees

HERE = Path(__file__).resolve().parent / "scenarios"
FILES = sorted(HERE.glob("*.toml"))
#: What the kernel resolved of FILES when this was written (of 199: the rest have scripted
#: events, explicit divisions and such): a plugin set or a kernel that
#: takes fewer (a refusal grown by mistake) fails the count below.
TAKEN_AT_LEAST = 76


def _taken() -> list[Path]:
    return [path for path in FILES if assert_kernel_agrees(BUNDLED, _doc(path), path.name)]


def _doc(path: Path) -> dict[str, Any]:
    return tomllib.loads(path.read_text())


@pytest.fixture(scope="module")
def taken() -> list[Path]:
    """The files the kernel resolves, each checked against the reference engine."""
    return _taken()


def test_the_kernel_takes_most_scenarios(taken: list[Path]) -> None:
    """Each taken file agreed with the reference engine (else the fixture failed); and the
    kernel takes as many as it did, so the agreement is not vacuous."""
    assert len(taken) >= TAKEN_AT_LEAST, [p.name for p in taken]


def test_expected_creatures_from_the_kernel(taken: list[Path]) -> None:
    """The expected files' `alive`, `damage`, `power` and `toughness` of each creature and
    `life` of each player, read from the kernel's outcome arrays (pinned, not only agreed)."""
    with_kernel, _ = engines_of(BUNDLED)
    kernel = with_kernel.kernel()
    assert kernel is not None
    checked = 0
    for path in taken:
        expected = json.loads(path.with_name(path.stem + ".expected.json").read_text())
        scenario = parse_scenario(_doc(path), BUNDLED, path.name)
        batch = scenarios_to_batch([scenario], BUNDLED)
        out = kernel.resolve(with_kernel.schedules.of([batch]), batch)
        ids = list(scenario.creatures)
        for name, fields in expected.get("creatures", {}).items():
            row = ids.index(name)
            got = {
                "alive": bool(out.alive[row]),
                "damage": int(out.damage[row]),
                "power": int(out.power[row]),
                "toughness": int(out.toughness[row]),
            }
            for key in got.keys() & fields.keys():
                assert got[key] == fields[key], f"{path.name}: creatures.{name}.{key}"
                checked += 1
        players = list(scenario.players)
        for name, fields in expected.get("players", {}).items():
            if "life" in fields:
                assert int(out.life[players.index(name)]) == fields["life"], f"{path.name}: {name}"
                checked += 1
    assert checked >= TAKEN_AT_LEAST
