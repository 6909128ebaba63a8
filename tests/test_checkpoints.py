"""Checkpoint directories (docs/distributed.md): every task file is verified before it counts,
manifests are validated, a directory is locked for the length of a run, and `--resume` needs a
run to resume."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cli_run import Completed, run_cli

from ecs_combat import load_registry
from ecs_combat.errors import InputError
from ecs_combat.plugin.registry import Registry
from ecs_combat.simulation.checkpoints import CHECKPOINT_FORMAT, digest
from ecs_combat.simulation.distribute import Simulation
from ecs_combat.simulation.simulate import summary
from ecs_combat.simulation.spec import tournament

#: Four tasks of the tournament (131,072 battles each).
BATTLES = 400_000
TASK = "task-000002.json"

Doc = dict[str, Any]


def run(*args: str) -> Completed:
    """The same command in this process (tests/cli_run.py), without ECS_COMBAT_ variables."""
    return run_cli(args, env=dict.fromkeys(k for k in os.environ if k.startswith("ECS_COMBAT_")))


def without_run(doc: Doc) -> Doc:
    return {k: v for k, v in doc.items() if k != "run"}


def finished(registry: Registry, directory: Path, seed: int = 8) -> Doc:
    """Run the tournament into `directory`; its summary."""
    spec = tournament(registry)
    simulation = Simulation(spec, seed, BATTLES, registry=registry, checkpoint=directory)
    return summary(simulation.generator, spec, seed, simulation.run())


def resumed(registry: Registry, directory: Path, seed: int = 8) -> tuple[Doc, Simulation]:
    spec = tournament(registry)
    simulation = Simulation(
        spec, seed, BATTLES, registry=registry, checkpoint=directory, resume=True
    )
    return summary(simulation.generator, spec, seed, simulation.run()), simulation


def edit(path: Path, change: Callable[[Doc], None], *, checksum: bool = False) -> None:
    """Change a task file's document; with `checksum`, recompute its checksum as if the change
    had been written by ecs-combat (so only the validation of its content can catch it)."""
    doc = json.loads(path.read_text())
    change(doc)
    if checksum:
        doc["sha256"] = digest({k: v for k, v in doc.items() if k != "sha256"})
    path.write_text(json.dumps(doc))


def add_one_blocker_death(doc: Doc) -> None:
    doc["counts"][0][-1] += 1


def add_one_battle(doc: Doc) -> None:
    doc["counts"][0][2] += 1


def move_outcome_columns(doc: Doc) -> None:
    columns = doc["columns"]
    i, j = columns.index("attacker_wins"), columns.index("blocker_wins")
    columns[i], columns[j] = columns[j], columns[i]


def swap_outcome_counts(doc: Doc) -> None:
    for row in doc["counts"]:
        row[3], row[4] = row[4], row[3]


def swap_matchup_labels(doc: Doc) -> None:
    for row in doc["counts"]:
        row[0], row[1] = row[1], row[0]


def float_count(doc: Doc) -> None:
    doc["counts"][0][2] = float(doc["counts"][0][2])


def code_out_of_range(doc: Doc) -> None:
    doc["counts"][0][0] = 99


def other_task(doc: Doc) -> None:
    doc["task"] = 3


@pytest.mark.parametrize(
    ("change", "checksum", "reason"),
    [
        (add_one_blocker_death, False, "checksum does not match"),
        (move_outcome_columns, False, "checksum does not match"),
        (swap_outcome_counts, False, "checksum does not match"),
        (swap_matchup_labels, False, "checksum does not match"),
        (float_count, False, "checksum does not match"),
        (add_one_battle, True, "outcomes do not add up"),
        (move_outcome_columns, True, "columns"),
        (float_count, True, "not an integer"),
        (code_out_of_range, True, "attacker_code is 99, out of range"),
        (other_task, True, "holds task 3"),
    ],
)
def test_a_task_file_that_does_not_verify_is_run_again(
    registry: Registry,
    tmp_path: Path,
    change: Callable[[Doc], None],
    checksum: bool,
    reason: str,
) -> None:
    whole = finished(registry, tmp_path)
    edit(tmp_path / TASK, change, checksum=checksum)
    again, _ = resumed(registry, tmp_path)
    assert without_run(again) == without_run(whole)
    assert again["run"]["tasks_resumed"] == 3
    [rejected] = again["run"]["checkpoints_rejected"]
    assert (rejected["task"], rejected["file"]) == (2, TASK)
    assert reason in rejected["reason"]
    json.loads((tmp_path / TASK).read_text())  # run again and written anew: it verifies now
    assert resumed(registry, tmp_path)[0]["run"]["checkpoints_rejected"] == []


def test_a_task_file_of_another_run_is_run_again(registry: Registry, tmp_path: Path) -> None:
    whole = finished(registry, tmp_path / "eleven", seed=11)
    finished(registry, tmp_path / "twelve", seed=12)
    shutil.copy(tmp_path / "twelve" / TASK, tmp_path / "eleven" / TASK)
    again, _ = resumed(registry, tmp_path / "eleven", seed=11)
    assert without_run(again) == without_run(whole)
    assert again["run"]["checkpoints_rejected"][0]["reason"] == "belongs to another run"


def test_resuming_says_which_files_are_run_again(tmp_path: Path) -> None:
    """The adversary's case: one count changed in a finished run, then --resume --json."""
    out = tmp_path / "D"
    args = ["simulate", "-n", str(BATTLES), "--seed", "11", "--json", "--out", str(out)]
    first = run(*args, "--workers", "2")
    assert first.returncode == 0, first.stderr
    edit(out / TASK, add_one_blocker_death)
    again = run(*args, "--resume")
    assert again.returncode == 0, again.stderr
    assert without_run(json.loads(again.stdout)) == without_run(json.loads(first.stdout))
    assert f"{out / TASK}: its checksum does not match its content; task 2" in again.stderr
    assert "is run again" in again.stderr
    assert json.loads(again.stdout)["run"]["checkpoints_rejected"][0]["task"] == 2


def test_task_files_carry_their_run_range_and_checksum(registry: Registry, tmp_path: Path) -> None:
    finished(registry, tmp_path)
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    doc = json.loads((tmp_path / TASK).read_text())
    assert doc["format"] == manifest["format"] == CHECKPOINT_FORMAT
    assert (
        doc["run"] == manifest["run"] == digest({k: v for k, v in manifest.items() if k != "run"})
    )
    assert (doc["task"], doc["start"], doc["stop"]) == (2, 262_144, 393_216)
    assert doc["sha256"] == digest({k: v for k, v in doc.items() if k != "sha256"})


# -- manifests -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[]", "holds list, not a checkpoint manifest"),
        ("null", "holds NoneType, not a checkpoint manifest"),
        ('"run"', "holds str, not a checkpoint manifest"),
        ("{}", "format None: not a checkpoint manifest"),
        ('{"format": "ecs-combat checkpoints 1"}', "another version of ecs-combat"),
        (f'{{"format": "{CHECKPOINT_FORMAT}"}}', "lacks run, seed"),
        ("{not json", "not JSON"),
    ],
)
def test_a_manifest_that_is_not_one_is_refused(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "manifest.json").write_text(text)
    p = run("simulate", "-n", "2000", "--seed", "1", "--out", str(tmp_path), "--resume")
    assert p.returncode == 2, p.stderr
    assert message in p.stderr and "manifest.json" in p.stderr
    assert "Traceback" not in p.stderr and "internal error" not in p.stderr


def test_an_edited_manifest_is_refused(registry: Registry, tmp_path: Path) -> None:
    finished(registry, tmp_path)
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    manifest["battles"] = 300_000
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(InputError, match="has been changed since its run wrote it"):
        resumed(registry, tmp_path)


# -- --resume needs a run --------------------------------------------------------------------


def test_resume_into_a_directory_without_a_run_is_refused(tmp_path: Path) -> None:
    typo = tmp_path / "runs" / "bigg"
    p = run("simulate", "-n", "2000", "--out", str(typo), "--resume")
    assert p.returncode == 2
    assert "holds no run to resume" in p.stderr and str(typo) in p.stderr
    assert not typo.exists()
    (tmp_path / "empty").mkdir()
    p = run("simulate", "-n", "2000", "--out", str(tmp_path / "empty"), "--resume")
    assert p.returncode == 2 and "holds no run to resume" in p.stderr


def test_api_resume_needs_a_run(registry: Registry, tmp_path: Path) -> None:
    with pytest.raises(InputError, match="holds no run to resume"):
        Simulation(tournament(registry), 1, 10, registry=registry, checkpoint=tmp_path, resume=True)


# -- the lock ---------------------------------------------------------------------------------


def test_a_second_run_into_a_locked_directory_is_refused(
    registry: Registry, tmp_path: Path
) -> None:
    """Two runs started into one new directory: the second is refused while the first is
    running (it holds the lock from its start to the end of its run). The second runs in this
    process too: flock(2) locks an open file, so a second opening is refused as another
    process's would be (test_the_lock_of_a_killed_run_does_not_outlive_it has a process of its
    own hold it)."""
    out = tmp_path / "new"
    installed = load_registry()  # the plugins the command loads, so the runs are the same
    first = Simulation(tournament(installed), 1, 5000, registry=installed, checkpoint=out)
    p = run("simulate", "-n", "5000", "--seed", "1", "--out", str(out))
    assert p.returncode == 2
    assert "another ecs-combat run is using this directory" in p.stderr
    p = run("simulate", "-n", "5000", "--seed", "1", "--out", str(out), "--resume")
    assert p.returncode == 2 and "another ecs-combat run" in p.stderr
    first.run()  # the lock ends with the run
    p = run("simulate", "-n", "5000", "--seed", "1", "--out", str(out), "--resume", "--json")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["run"]["tasks_resumed"] == 1


def test_the_lock_of_a_killed_run_does_not_outlive_it(tmp_path: Path) -> None:
    out = tmp_path / "run"
    holder = subprocess.Popen(
        [
            sys.executable, "-c",
            "import sys, time\n"
            "from ecs_combat import load_registry\n"
            "from ecs_combat.simulation.distribute import Simulation\n"
            "from ecs_combat.simulation.spec import tournament\n"
            "r = load_registry()\n"
            f"s = Simulation(tournament(r), 1, 5000, registry=r, checkpoint={str(out)!r})\n"
            "print('locked', flush=True)\n"
            "time.sleep(60)\n",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
        p = run("simulate", "-n", "5000", "--seed", "1", "--out", str(out), "--resume")
        assert p.returncode == 2 and "another ecs-combat run" in p.stderr
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    deadline = time.monotonic() + 30
    while True:  # the kernel lets the lock go as the process ends
        p = run("simulate", "-n", "5000", "--seed", "1", "--out", str(out), "--resume")
        if p.returncode == 0 or time.monotonic() > deadline:
            break
    assert p.returncode == 0, p.stderr
    assert sorted(f.name for f in out.iterdir()) == ["manifest.json", "task-000000.json"]
