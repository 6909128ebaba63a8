"""`ecs-combat bench --check`: exit status 1 and a line naming each target of
docs/performance.md a run misses, 0 when all are met. The figures are fed in, not timed."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from click.testing import CliRunner

from ecs_combat.bench import bench as bench_module
from ecs_combat.bench.bench import missed_targets
from ecs_combat.cli.main import cli

#: A report in `run_bench`'s shape that meets every target.
MET: dict[str, Any] = {
    "rows": [
        {"workload": w, "engine": e, "battles": 10, "creatures": 20, "seconds": s,
         "engine_seconds": None, "battles_per_second": 10 / s, "creatures_per_second": 20 / s}
        for w, e, s in [("tournament", "batched", 0.001), ("tournament", "reference", 1.0),
                        ("tournament", "floor", 0.0005), ("melee", "batched", 0.001),
                        ("melee", "reference", 1.0)]
    ],
    "targets": {
        "batched_vs_reference": 1000.0,
        "batched_vs_floor_time": 2.0,
        "melee_creatures_per_second": 7e6,
        "melee_engine_creatures_per_second": 12e6,
    },
    "whole_process": {"simulate": 0.5, "floor": 0.3, "ratio": 0.5 / 0.3},
}  # fmt: skip


def report(**changes: float) -> dict[str, Any]:
    """MET with some figures changed (`whole_ratio` for the whole-process ratio)."""
    out = copy.deepcopy(MET)
    for key, value in changes.items():
        if key == "whole_ratio":
            out["whole_process"]["ratio"] = value
        else:
            out["targets"][key] = value
    return out


def test_all_targets_met() -> None:
    assert missed_targets(MET) == []


def test_reference_ratio_below_300() -> None:
    (line,) = missed_targets(report(batched_vs_reference=299.0))
    assert line.startswith("batched vs reference") and "299x" in line and "300x" in line


def test_whole_process_floor_ratio_above_4() -> None:
    """The whole-process ratio decides, not the in-process one."""
    assert missed_targets(report(batched_vs_floor_time=5.0)) == []
    (line,) = missed_targets(report(whole_ratio=4.2))
    assert "whole processes" in line and "4.20x" in line


def test_in_process_floor_ratio_when_whole_processes_were_not_timed() -> None:
    measured = report(batched_vs_floor_time=4.5)
    del measured["whole_process"]
    (line,) = missed_targets(measured)
    assert "in this process" in line and "4.50x" in line


def test_melee_below_10_million_inside_the_engine() -> None:
    """The engine's own rate decides; the whole pipeline's (with drawing) does not."""
    (line,) = missed_targets(report(melee_engine_creatures_per_second=9.9e6))
    assert line.startswith("melee") and "9,900,000" in line
    assert missed_targets(report(melee_creatures_per_second=1e6)) == []


def test_every_miss_is_listed() -> None:
    missed = missed_targets(
        report(batched_vs_reference=10.0, whole_ratio=9.0, melee_engine_creatures_per_second=1.0)
    )
    assert len(missed) == 3


@pytest.mark.parametrize(
    ("figures", "status"),
    [(MET, 0), (report(melee_engine_creatures_per_second=5e6), 1)],
    ids=["met", "melee-missed"],
)
def test_check_sets_the_exit_status(
    monkeypatch: pytest.MonkeyPatch, figures: dict[str, Any], status: int
) -> None:
    """`bench --check` exits 1 and names the missed target on standard error; without
    `--check` the same figures exit 0."""
    monkeypatch.setattr(bench_module, "run_bench", lambda *args: figures)
    runner = CliRunner()
    checked = runner.invoke(cli, ["bench", "--json", "--check"])
    assert checked.exit_code == status, checked.output
    assert ("missed: melee" in checked.stderr) == (status == 1)
    assert runner.invoke(cli, ["bench", "--json"]).exit_code == 0


def test_check_with_a_tiny_run() -> None:
    """A real (tiny) run: the verdict and the exit status agree."""
    runner = CliRunner()
    tiny = ["--battles", "2000", "--reference-battles", "20", "--melee-battles", "200"]
    result = runner.invoke(cli, ["bench", *tiny, "--repeat", "1", "--in-process", "--check"])
    missed = [line for line in result.stderr.splitlines() if line.startswith("missed: ")]
    assert result.exit_code == (1 if missed else 0)
