"""What `ecs-combat simulate` writes and prints (docs/simulate.md): output paths checked before
the run, a summary kept when a file can't be written after all, `--out` directories, the line
of a resumed run, and the heatmap and table naming the SPEC file."""

from __future__ import annotations

import errno
import json
import os
import resource
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from cli_run import Completed, run_cli

import ecs_combat.simulation.checkpoints
from ecs_combat.plugin.registry import Registry
from ecs_combat.simulation.command import OutputFailed, run_command
from ecs_combat.simulation.heatmap import heatmap_figure

ROOT = Path(__file__).resolve().parent.parent
MELEE = ROOT / "examples" / "specs" / "melee.toml"


def run(*args: str, file_size: int | None = None) -> subprocess.CompletedProcess[str] | Completed:
    """Run ecs-combat: with `file_size`, the installed command, no file of which may grow
    beyond that many bytes (writing more fails with EFBIG, as a full disk fails with ENOSPC);
    without, the command in this process (tests/cli_run.py)."""
    if file_size is None:
        unset = dict.fromkeys(k for k in os.environ if k.startswith("ECS_COMBAT_"))
        return run_cli(args, env={**unset, "COLUMNS": "200"})
    env = {k: v for k, v in os.environ.items() if not k.startswith("ECS_COMBAT_")}
    env["COLUMNS"] = "200"
    # No bytecode written under the limit: Python saves the .pyc of a module it compiles
    # without checking the write, so a truncated one would break every later process that
    # imports that module from the same cache (tests/conftest.py).
    env["PYTHONDONTWRITEBYTECODE"] = "1"

    def limit() -> None:
        if file_size is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_size, file_size))

    return subprocess.run(
        ["ecs-combat", *args], capture_output=True, text=True, env=env, preexec_fn=limit
    )


def summary_of(p: subprocess.CompletedProcess[str] | Completed) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(p.stdout)
    return doc


# -- output paths are checked before the run ------------------------------------------------


def test_an_unwritable_plot_is_refused_before_the_run(tmp_path: Path) -> None:
    out = tmp_path / "run"
    p = run("simulate", "-n", "2000", "--out", str(out), "--plot", str(tmp_path / "no" / "h.png"))
    assert p.returncode == 2
    assert "--plot" in p.stderr and "cannot write" in p.stderr
    assert p.stdout == "" and not out.exists()  # nothing ran


def test_a_plot_path_that_is_a_directory_is_refused(tmp_path: Path) -> None:
    (tmp_path / "h.png").mkdir()
    p = run("simulate", "-n", "2000", "--plot", str(tmp_path / "h.png"))
    assert p.returncode == 2 and "is a directory" in p.stderr and p.stdout == ""


# -- a file that can't be written after all --------------------------------------------------


def test_a_csv_that_fills_the_disk_still_gives_the_summary(tmp_path: Path) -> None:
    out = tmp_path / "battles.csv"
    p = run(
        "simulate", "-n", "50000", "--seed", "3", "--out", str(out), "--json", file_size=1 << 17
    )
    assert p.returncode == 1
    doc = summary_of(p)
    assert doc["battles"] == 50_000
    assert doc == {**summary_of(run("simulate", "-n", "50000", "--seed", "3", "--json")),
                   "run": doc["run"]}  # fmt: skip
    assert f"--out {out}: cannot write: File too large" in p.stderr
    assert "the file was not written" in p.stderr and "summary printed is complete" in p.stderr
    assert doc["run"]["output_errors"] == [p.stderr.strip().removeprefix("ecs-combat: ").split(
        " (the summary printed is complete)")[0]]  # fmt: skip
    assert list(tmp_path.iterdir()) == []  # no half-written file, no temporary file


def test_a_plot_that_cannot_be_written_after_the_run_keeps_the_summary(tmp_path: Path) -> None:
    png = tmp_path / "heatmap.png"
    p = run("simulate", "-n", "3000", "--seed", "2", "--plot", str(png), file_size=4096)
    assert p.returncode == 1
    assert "Keyword tournament: 3,000 battles" in p.stdout
    assert f"--plot {png}: cannot write: File too large" in p.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_checkpoint_that_cannot_be_saved_keeps_the_run_going(
    registry: Registry,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    write = ecs_combat.simulation.checkpoints.write_atomically

    def full_disk_at_task_2(path: Path, text: str) -> None:
        if path.name == "task-000002.json":
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        write(path, text)

    monkeypatch.setattr(ecs_combat.simulation.checkpoints, "write_atomically", full_disk_at_task_2)
    out = tmp_path / "run"
    with pytest.raises(OutputFailed) as info:
        run_command(registry, None, 400_000, 8, "batched", True, str(out))
    doc = json.loads(capsys.readouterr().out)
    assert doc["battles"] == 400_000
    assert "task-000002.json: cannot write: No space left on device" in str(info.value)
    assert "2 of 4 tasks are saved there" in str(info.value)
    assert sorted(f.name for f in out.iterdir()) == [
        "manifest.json",
        "task-000000.json",
        "task-000001.json",
    ]


# -- --out directories ------------------------------------------------------------------------


def test_a_directory_name_with_a_dot_is_a_checkpoint_directory(tmp_path: Path) -> None:
    for name in ("run-1.2", "run.v2/"):
        p = run("simulate", "-n", "2000", "--out", f"{tmp_path}/{name}")
        assert p.returncode == 0, p.stderr
        assert (tmp_path / name / "manifest.json").exists()


def test_an_unknown_file_suffix_or_an_existing_file_is_refused(tmp_path: Path) -> None:
    p = run("simulate", "-n", "10", "--out", str(tmp_path / "battles.xlsx"))
    assert p.returncode == 2 and "end the path with /" in p.stderr
    (tmp_path / "notes").write_text("mine")
    p = run("simulate", "-n", "10", "--out", str(tmp_path / "notes"))
    assert p.returncode == 2 and "is a file" in p.stderr
    assert (tmp_path / "notes").read_text() == "mine"


# -- a resumed run says so --------------------------------------------------------------------


def test_a_fully_resumed_run_says_nothing_was_resolved(tmp_path: Path) -> None:
    out = tmp_path / "D"
    assert run("simulate", "-n", "400000", "--seed", "1", "--out", str(out)).returncode == 0
    p = run("simulate", "-n", "400000", "--seed", "1", "--out", str(out), "--resume")
    assert p.returncode == 0, p.stderr
    assert f"all 400,000 battles resumed from {out}; 0 resolved in this run" in p.stdout
    assert "battles/s" not in p.stdout
    doc = summary_of(
        run("simulate", "-n", "400000", "--seed", "1", "--out", str(out), "--resume", "--json")
    )
    assert (doc["run"]["battles_resolved"], doc["run"]["battles_resumed"]) == (0, 400_000)
    assert doc["run"]["battles_per_second"] is None
    (out / "task-000001.json").unlink()
    p = run("simulate", "-n", "400000", "--seed", "1", "--out", str(out), "--resume")
    assert f"268,928 battles resumed from {out}; batched engine: 131,072 resolved" in p.stdout


# -- the SPEC file named; the heatmap scaled to the data ---------------------------------------


def test_the_table_names_the_spec_file() -> None:
    p = run("simulate", str(MELEE), "-n", "3000", "--seed", "2")
    assert p.returncode == 0, p.stderr
    assert "Spec melee.toml: 3,000 battles" in p.stdout


def test_the_heatmap_is_scaled_to_its_rates_in_percent_and_names_the_spec() -> None:
    p = run("simulate", str(MELEE), "-n", "3000", "--seed", "2", "--json")
    doc = summary_of(p)
    doc["run"]["spec_file"] = str(MELEE)
    rates = [100 * m["attacker_wins"] / m["battles"] for m in doc["matchups"]]
    fig = heatmap_figure(doc)
    fig.canvas.draw()
    heatmap, bar = fig.axes
    low, high = heatmap.images[0].get_clim()
    assert (low, high) == pytest.approx((min(rates), max(rates)))
    assert high < 50  # the melee's attacker rarely wins: the scale is not 0-100%
    ticks = [t.get_text() for t in bar.get_yticklabels() if t.get_text()]
    assert ticks and all(t.endswith("%") for t in ticks)
    # each cell: the rate in percent, its 95% interval under it
    cells = [t.get_text().split("\n") for t in heatmap.texts]
    assert len(cells) == len(rates) and all(rate.endswith("%") for rate, _ in cells)
    assert "melee.toml" in heatmap.get_title()
    assert np.isclose(float(cells[0][0].rstrip("%")), rates[0], atol=0.05)
    lo, hi = (float(x) for x in cells[0][1].strip("()").split("-"))
    ci = doc["matchups"][0]["attacker_win_rate_ci95"]
    assert np.allclose([lo, hi], [100 * ci[0], 100 * ci[1]], atol=0.05)
