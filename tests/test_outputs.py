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
from ecs_combat.cli.simulate_run import OutputFailed, run_command
from ecs_combat.plugin.registry import Registry
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


def test_the_heatmap_shows_wins_trades_and_losses_scaled_in_percent() -> None:
    """Three panels: the attacker's wins, the trades, the blocker's wins; each scaled to its
    own rates, in percent; the wins with their intervals."""
    p = run("simulate", str(MELEE), "-n", "3000", "--seed", "2", "--json")
    doc = summary_of(p)
    doc["run"]["spec_file"] = str(MELEE)
    fig = heatmap_figure(doc)
    fig.canvas.draw()
    panels = [ax for ax in fig.axes if ax.images]
    bars = [ax for ax in fig.axes if not ax.images]
    assert len(panels) == 3 and len(bars) == 3
    assert [ax.get_title().split("\n")[0] for ax in panels] == [
        "attacker wins", "trades", "blocker wins",
    ]  # fmt: skip
    assert "melee.toml" in fig.get_suptitle()
    for ax, bar, count, interval in zip(
        panels, bars, ("attacker_wins", "trades", "blocker_wins"),
        ("attacker_win_rate_ci95", None, "blocker_win_rate_ci95"), strict=True,
    ):  # fmt: skip
        rates = [100 * m[count] / m["battles"] for m in doc["matchups"]]
        low, high = ax.images[0].get_clim()
        assert (low, high) == pytest.approx((min(rates), max(rates)))
        ticks = [t.get_text() for t in bar.get_yticklabels() if t.get_text()]
        assert ticks and all(t.endswith("%") for t in ticks)
        cells = [t.get_text().split("\n") for t in ax.texts]
        assert len(cells) == len(rates) and all(cell[0].endswith("%") for cell in cells)
        atol = 0.05 if "." in cells[0][0] else 0.5  # one decimal for a narrow range of rates
        assert np.isclose(float(cells[0][0].rstrip("%")), rates[0], atol=atol)
        if interval is not None:  # the rate's 95% interval under it
            lo, hi = (float(x) for x in cells[0][1].strip("()").split("-"))
            ci = doc["matchups"][0][interval]
            assert np.allclose([lo, hi], [100 * ci[0], 100 * ci[1]], atol=atol)
    assert panels[0].get_title().startswith("attacker wins")
    high = panels[0].images[0].get_clim()[1]
    assert high < 50  # the melee's attacker rarely wins: the scale is not 0-100%


def test_no_two_labels_of_the_charts_overlap(tmp_path: Path) -> None:
    """The heatmap's row and column labels and the card chart's names and figures, drawn: no
    two of their boxes overlap, and none leaves the figure."""
    from ecs_combat.simulation.card_summary import cards_figure

    p = run("simulate", str(MELEE), "-n", "3000", "--seed", "2", "--json")
    doc = summary_of(p)
    doc["run"]["spec_file"] = str(MELEE)
    pool = tmp_path / "pool.toml"
    pool.write_text("[pool]\nmana_value = 2\n")
    q = run("simulate", str(pool), "-n", "3000", "--seed", "2", "--json")
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    for fig in (heatmap_figure(doc), cards_figure(summary_of(q))):
        canvas = FigureCanvasAgg(fig)  # as savefig draws it
        canvas.draw()
        renderer = canvas.get_renderer()
        whole = fig.bbox
        labels = [
            t for ax in fig.axes for t in (*ax.get_xticklabels(), *ax.get_yticklabels(), *ax.texts)
            if t.get_text() and t.get_visible()
        ]  # fmt: skip
        boxes = [t.get_window_extent(renderer) for t in labels]
        for box in boxes:
            assert whole.x0 - 1 <= box.x0 and box.x1 <= whole.x1 + 1, box
        # level labels (row names, card names, figures): their boxes are the glyphs'
        inside = {x for ax in fig.axes for x in ax.texts}
        level = [
            (t, b) for t, b in zip(labels, boxes, strict=True)
            if t not in inside and not t.get_rotation()
        ]  # fmt: skip
        for i, (a, box) in enumerate(level):
            for b, other in level[i + 1 :]:
                assert not box.overlaps(other), (a.get_text(), b.get_text())
        # slanted column labels: parallel lines of text, apart by more than a line's height
        for ax in fig.axes:
            slanted = [t for t in ax.get_xticklabels() if t.get_text() and t.get_rotation()]
            if len(slanted) > 1:
                x = [t.get_window_extent(renderer).x1 for t in slanted]  # right-aligned ends
                apart = min(np.diff(x)) * np.sin(np.radians(slanted[0].get_rotation()))
                assert apart > slanted[0].get_fontsize() * fig.dpi / 72 * 1.2
