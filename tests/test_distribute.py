"""Scaling out `ecs-combat simulate` (docs/distributed.md): local worker processes, a Dask
cluster, any executor; checkpoints, interruption and resuming. Every way of running gives the
summary of a single process for the same SPEC, battles and seed (CONTRACT.md section 3)."""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import shutil
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

import pytest

from ecs_combat.cli.flag_words import in_flags
from ecs_combat.errors import InputError, PluginError
from ecs_combat.plugin.loading import load_registry
from ecs_combat.plugin.registry import Registry
from ecs_combat.simulation.distribute import Simulation, WorkerDied, WorkerPool, run_simulation
from ecs_combat.simulation.executors import dask_executor
from ecs_combat.simulation.seeded_blocks import BLOCK
from ecs_combat.simulation.simulate import default_chunk_size, make_engine, max_chunk_size, summary
from ecs_combat.simulation.simulate import simulate as simulate_in_chunks
from ecs_combat.simulation.spec import tournament
from ecs_combat.simulation.spec_reader import parse_spec
from ecs_combat.simulation.tasks import (
    HOLD_TASK_ENV,
    KILL_TASK_ENV,
    MAX_TASKS,
    Job,
    PluginOptions,
    RemoteError,
    fingerprint,
    run_task,
    task_ranges,
)

ROOT = Path(__file__).resolve().parent.parent
MELEE = ROOT / "examples" / "specs" / "melee.toml"
#: Enough tournament battles for several tasks (131,072 battles each).
BATTLES = "400000"
BATTLE_TASKS = 400_000

SECOND_STRIKE = """
from ecs_combat import Keyword, hookimpl

@hookimpl
def register_keywords():
    return [Keyword("second strike", strikes_in=frozenset({"regular", "last-strike"}))]
"""


@pytest.fixture(scope="module")
def registry() -> Registry:
    """The plugins of this installation, found as a worker process finds them (entry points):
    workers check that they loaded the same plugins as the process that sent the tasks."""
    return load_registry()


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["ecs-combat", *args], capture_output=True, text=True, env=environment(env)
    )


def environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {**os.environ, **(extra or {})}
    env.pop("ECS_COMBAT_PLUGINS", None)
    for fault in (KILL_TASK_ENV, HOLD_TASK_ENV):
        if extra is None or fault not in extra:
            env.pop(fault, None)
    return env


def simulate(*args: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    p = run("simulate", *args, "--json", env=env)
    assert p.returncode == 0, p.stderr
    doc: dict[str, Any] = json.loads(p.stdout)
    return doc


def without_run(doc: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in doc.items() if k != "run"}


def task_files(directory: Path) -> list[Path]:
    return sorted(directory.glob("task-*.json"))


# -- the same results, however they are run --------------------------------------------------


def test_a_spec_file_on_workers_gives_the_single_process_summary() -> None:
    one = simulate(str(MELEE), "--battles", "50000", "--seed", "3")
    three = simulate(str(MELEE), "--battles", "50000", "--seed", "3", "--workers", "3")
    assert one["run"]["tasks"] > 1
    assert without_run(one) == without_run(three)


def test_results_depend_neither_on_chunk_size_nor_on_workers() -> None:
    docs = [
        simulate("--battles", "300000", "--seed", "5", "--chunk-size", size, "--workers", n)
        for size, n in (("700", "2"), ("5000", "3"), ("100000", "1"))
    ]
    assert [d["run"]["chunk_size"] for d in docs] == [700, 5000, 100000]
    assert without_run(docs[0]) == without_run(docs[1]) == without_run(docs[2])


def test_python_api_with_a_thread_pool_executor(registry: Registry) -> None:
    """Any concurrent.futures.Executor runs the tasks; tallies merge in task order, into the
    tally of the plain chunk-by-chunk loop of simulate.simulate."""
    spec = tournament(registry)
    simulation = Simulation(spec, 11, 300_000, registry=registry)
    alone = simulation.run()
    with ThreadPoolExecutor(3) as pool:
        pooled = Simulation(spec, 11, 300_000, registry=registry, chunk_size=3000).run(pool, 3)
    generator = simulation.generator
    engine = make_engine("batched", registry)
    looped = simulate_in_chunks(generator, "batched", engine, 11, 300_000, 10_000)
    a = summary(generator, spec, 11, alone)
    b = summary(generator, spec, 11, pooled)
    c = summary(generator, spec, 11, looped)
    assert without_run(a) == without_run(b) == without_run(c)
    assert (a["run"]["workers"], b["run"]["workers"]) == (1, 3)


def test_progress_counts_every_battle_once_across_workers(registry: Registry) -> None:
    seen: list[int] = []
    with ThreadPoolExecutor(2) as pool:
        Simulation(tournament(registry), 2, 500_000, registry=registry).run(pool, 2, seen.append)
    assert sum(seen) == 500_000
    assert len(seen) == 4  # one step per task


# -- tasks ------------------------------------------------------------------------------------


@pytest.mark.parametrize("battles", [1, 1023, 131_072, 400_000, 10_000_000, 2_000_000_000])
def test_tasks_cover_the_battles_in_whole_chunks(registry: Registry, battles: int) -> None:
    """Tasks depend only on the spec and the battles (not the engine or the workers): whole
    batched-engine chunks, so every seeded block is drawn once, and at most MAX_TASKS."""
    for spec in (
        tournament(registry),
        parse_spec({"attackers": 5, "blockers_per_attacker": [0, 3]}, registry),
    ):
        tasks = task_ranges(spec, battles)
        assert tasks[0][0] == 0 and tasks[-1][1] == battles
        assert all(a[1] == b[0] for a, b in itertools.pairwise(tasks))
        size = tasks[0][1] - tasks[0][0] if len(tasks) > 1 else None
        if size is not None:
            assert size % default_chunk_size(spec, "batched") == 0 and size % BLOCK == 0
        assert len(tasks) <= MAX_TASKS


# -- checkpoints and resuming -----------------------------------------------------------------


def test_out_dir_holds_a_manifest_and_one_file_per_task(tmp_path: Path) -> None:
    out = tmp_path / "run"
    doc = simulate("--battles", BATTLES, "--seed", "8", "--out", str(out), "--workers", "2")
    manifest = json.loads((out / "manifest.json").read_text())
    assert (manifest["seed"], manifest["battles"], manifest["tasks"]) == (8, 400_000, 4)
    assert manifest["spec"] == doc["spec"]
    assert [f.name for f in task_files(out)] == [f"task-00000{i}.json" for i in range(4)]
    files = [json.loads(f.read_text()) for f in task_files(out)]
    assert [f["task"] for f in files] == [0, 1, 2, 3]
    assert [(f["start"], f["stop"]) for f in files][-1] == (393_216, 400_000)
    assert sum(f["creatures"] for f in files) == doc["creatures"]
    assert not list(out.glob(".*"))  # no temporary file left
    again = simulate("--battles", BATTLES, "--seed", "8", "--out", str(out), "--resume")
    assert again["run"]["tasks_resumed"] == 4 and again["run"]["chunks"] == 0
    assert without_run(again) == without_run(doc)


def test_resume_takes_the_seed_of_the_run_it_resumes(tmp_path: Path) -> None:
    out = tmp_path / "run"
    first = simulate("--battles", "2000", "--out", str(out))
    again = simulate("--battles", "2000", "--out", str(out), "--resume")
    assert again["seed"] == first["seed"]


def test_an_interrupted_run_resumes_to_the_uninterrupted_summary(tmp_path: Path) -> None:
    """Kill -9 part-way: only whole task files are left, and --resume (with another number of
    workers) ends with exactly the summary of an uninterrupted run."""
    psutil = pytest.importorskip("psutil")
    out = tmp_path / "run"
    args = ["simulate", "--battles", "6000000", "--seed", "12", "--json", "--out", str(out)]
    p = subprocess.Popen(
        ["ecs-combat", *args, "--workers", "2"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=environment(),
    )
    deadline = time.monotonic() + 60
    while not task_files(out) and p.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    workers = psutil.Process(p.pid).children()
    p.send_signal(signal.SIGKILL)
    p.wait()
    _, alive = psutil.wait_procs(workers, timeout=10)
    assert alive == []  # the workers end with the process that started them
    files = task_files(out)
    assert 0 < len(files) < 46  # killed part-way
    for f in files:
        doc = json.loads(f.read_text())  # every task file is complete
        assert f.name == f"task-{doc['task']:06d}.json"
    resumed = simulate(*args[1:-2], "--out", str(out), "--resume", "--workers", "1")
    assert resumed["run"]["tasks_resumed"] == len(files)
    assert not list(out.glob(".*"))  # temporary files of the killed run are cleared
    whole = simulate(*args[1:-2], "--workers", "2")
    assert without_run(resumed) == without_run(whole)


@contextlib.contextmanager
def sigint_at_default() -> Iterator[None]:
    """Processes started in the body get SIGINT at its default, as a shell starts a foreground
    job: an ignored SIGINT is inherited, and this test process may have had it ignored by a
    test before (a first full run of the suite on a fresh clone did: the run then ignored the
    interrupt, as a program started with Ctrl-C ignored should)."""
    before = signal.getsignal(signal.SIGINT)
    if before is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        if before is signal.SIG_IGN:
            signal.signal(signal.SIGINT, before)


@pytest.mark.parametrize("sent", ["SIGINT", "SIGTERM"])
def test_ctrl_c_stops_the_workers_and_says_what_is_saved(tmp_path: Path, sent: str) -> None:
    """Ctrl-C in the middle of a run (SIGINT to the terminal's foreground job: the command and
    its workers), and SIGTERM to the command alone (`kill PID`), which it handles as Ctrl-C.
    The worker that takes task 2 never finishes it (HOLD_TASK_ENV), so the run is still going
    when the interrupt comes, however late: the 6,000,000 battles alone take a second or two,
    which a test process waiting for a busy machine could miss entirely (the command then
    ended with 0)."""
    psutil = pytest.importorskip("psutil")
    out = tmp_path / "run"
    with sigint_at_default():
        p = subprocess.Popen(
            ["ecs-combat", "simulate", "-n", "6000000", "--out", str(out), "--workers", "2"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=environment({HOLD_TASK_ENV: "2"}),
            start_new_session=True,  # its own process group, as a terminal's foreground job
        )
    try:
        deadline = time.monotonic() + 60
        while not task_files(out) and p.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert task_files(out) and p.poll() is None  # under way: tasks saved, one held
        workers = psutil.Process(p.pid).children()
        assert len(workers) == 2
        if sent == "SIGINT":
            os.killpg(p.pid, signal.SIGINT)
        else:
            os.kill(p.pid, signal.SIGTERM)
        _, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:  # not stopped by the interrupt: the test fails, the run ends
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    assert p.returncode == 130
    assert "interrupted;" in err and "tasks are saved in" in err and "--resume" in err
    assert "Traceback" not in err
    _, alive = psutil.wait_procs(workers, timeout=10)
    assert alive == []


def test_a_dying_worker_is_reported_by_task_and_the_run_resumes(tmp_path: Path) -> None:
    out = tmp_path / "run"
    args = ("--battles", "1000000", "--seed", "9", "--out", str(out), "--workers", "2")
    p = run("simulate", *args, "--json", env={KILL_TASK_ENV: "6"})
    assert p.returncode == 1
    assert p.stdout == "" and "Traceback" not in p.stderr
    assert "a worker process ended abruptly while running task 6 (battles 786,432-917,503)" in (
        p.stderr
    )
    assert "--resume" in p.stderr and str(out) in p.stderr
    saved = task_files(out)
    assert 0 < len(saved) < 8  # 8 tasks: 7 of 131,072 battles, the last of 82,496
    assert "task-000006.json" not in [f.name for f in saved]
    resumed = simulate(*args, "--resume")
    assert resumed["run"]["tasks_resumed"] == len(saved)
    assert without_run(resumed) == without_run(simulate("--battles", "1000000", "--seed", "9"))


def test_without_checkpoints_a_dying_worker_says_how_to_keep_them() -> None:
    p = run("simulate", "--battles", "600000", "--workers", "2", env={KILL_TASK_ENV: "1"})
    assert p.returncode == 1
    assert "task 1 (battles 131,072-262,143)" in p.stderr and "--out DIR" in p.stderr


@pytest.fixture(scope="module")
def seed_8_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], Path]:
    """`simulate --battles BATTLES --seed 8 --out DIR`, run once: its summary and DIR (tests
    copy DIR before changing it)."""
    out = tmp_path_factory.mktemp("seed-8") / "run"
    return simulate("--battles", BATTLES, "--seed", "8", "--out", str(out)), out


def copy_of(run: tuple[dict[str, Any], Path], tmp_path: Path) -> tuple[dict[str, Any], Path]:
    doc, out = run
    return doc, Path(shutil.copytree(out, tmp_path / "run"))


def test_a_damaged_task_file_is_run_again(
    tmp_path: Path, seed_8_run: tuple[dict[str, Any], Path]
) -> None:
    doc, out = copy_of(seed_8_run, tmp_path)
    (out / "task-000002.json").write_text('{"task": 2, "sta')
    again = simulate("--battles", BATTLES, "--seed", "8", "--out", str(out), "--resume")
    assert again["run"]["tasks_resumed"] == 3
    assert without_run(again) == without_run(doc)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("--seed", "9"), "seed 8 there, 9 here"),
        (("--battles", "500000"), "battles 400000 there, 500000 here"),
        ((str(MELEE),), "another spec"),
    ],
    ids=["seed", "battles", "spec"],
)
def test_resume_refuses_a_directory_of_another_run(
    tmp_path: Path, change: tuple[str, ...], message: str, seed_8_run: tuple[dict[str, Any], Path]
) -> None:
    _, out = copy_of(seed_8_run, tmp_path)
    args = ["--battles", BATTLES, "--seed", "8", "--out", str(out), "--resume"]
    if len(change) == 2:
        args[args.index(change[0]) + 1] = change[1]
    else:
        args = [*change, *args]
    p = run("simulate", *args)
    assert p.returncode == 2
    assert message in p.stderr and "different run" in p.stderr
    assert len(task_files(out)) == 4  # nothing touched


def test_resume_refuses_other_plugins(tmp_path: Path) -> None:
    out = tmp_path / "run"
    simulate("--battles", "2000", "--seed", "1", "--out", str(out))
    p = run(
        "-p", "no:trample", "simulate", "-n", "2000", "--seed", "1", "--out", str(out), "--resume"
    )
    assert p.returncode == 2 and "other plugins" in p.stderr


def test_out_dir_of_a_run_needs_resume(tmp_path: Path) -> None:
    out = tmp_path / "run"
    simulate("--battles", "2000", "--seed", "1", "--out", str(out))
    p = run("simulate", "--battles", "2000", "--seed", "1", "--out", str(out))
    assert p.returncode == 2 and "--resume" in p.stderr


def test_out_dir_with_other_files_is_refused(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    p = run("simulate", "--battles", "2000", "--out", str(tmp_path))
    assert p.returncode == 2 and "not empty" in p.stderr
    assert [f.name for f in tmp_path.iterdir()] == ["notes.txt"]


def test_resume_needs_an_out_dir(tmp_path: Path) -> None:
    p = run("simulate", "--battles", "10", "--resume")
    assert p.returncode == 2 and "--out DIR" in p.stderr
    p = run("simulate", "--battles", "10", "--resume", "--out", str(tmp_path / "b.csv"))
    assert p.returncode == 2 and "--out DIR" in p.stderr


def test_per_battle_file_from_workers_is_the_single_process_file(tmp_path: Path) -> None:
    one, two = tmp_path / "one.csv", tmp_path / "two.csv"
    simulate("--battles", "300000", "--seed", "2", "--out", str(one))
    simulate("--battles", "300000", "--seed", "2", "--out", str(two), "--workers", "2")
    assert one.read_bytes() == two.read_bytes()


def test_api_refuses_checkpointing_per_battle_tables(registry: Registry, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="not checkpointed"):
        Simulation(tournament(registry), 1, 10, checkpoint=tmp_path, with_table=True)


def test_api_checkpoint_of_another_run_is_an_input_error(
    registry: Registry, tmp_path: Path
) -> None:
    spec = tournament(registry)
    Simulation(spec, 1, 5000, registry=registry, checkpoint=tmp_path).run()
    with pytest.raises(InputError, match="seed 1 there, 2 here"):
        Simulation(spec, 2, 5000, registry=registry, checkpoint=tmp_path, resume=True)


# -- the cluster's workers and their plugins --------------------------------------------------


def test_a_worker_with_other_plugins_refuses_naming_the_difference(registry: Registry) -> None:
    spec = tournament(registry)
    job = Job(
        PluginOptions.current(),
        (*fingerprint(registry), "keyword sixth strike"),
        spec,
        "batched",
        1,
        1024,
    )
    with pytest.raises(RemoteError) as info:  # carried back to the submitting process
        run_task(job, 0, 0, 1024)
    error = info.value.local()
    assert isinstance(error, PluginError)
    assert "lacks keyword sixth strike" in str(error) and "same ecs-combat plugins" in str(error)


def test_local_workers_load_the_plugins_of_the_command(tmp_path: Path) -> None:
    (tmp_path / "second_strike_plugin.py").write_text(SECOND_STRIKE)
    env = {"PYTHONPATH": f"{tmp_path}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    args = ["-p", "second_strike_plugin", "simulate", "-n", "300000", "--seed", "3", "--json"]
    one = run(*args, env=env)
    two = run(*args, "--workers", "2", env=env)
    assert one.returncode == 0 and two.returncode == 0, two.stderr
    assert "second strike" in json.loads(two.stdout)["spec"]["keywords"]
    assert without_run(json.loads(one.stdout)) == without_run(json.loads(two.stdout))


def test_scheduler_without_dask_says_how_to_install(tmp_path: Path) -> None:
    (tmp_path / "distributed.py").write_text("raise ImportError('distributed is not installed')\n")
    env = {"PYTHONPATH": f"{tmp_path}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    p = run("simulate", "-n", "10", "--scheduler", "tcp://127.0.0.1:8786", env=env)
    assert p.returncode == 2
    assert 'pip install "ecs-combat[dask]"' in p.stderr and "Traceback" not in p.stderr


def test_scheduler_and_workers_together_are_refused() -> None:
    p = run("simulate", "-n", "10", "--scheduler", "tcp://127.0.0.1:8786", "--workers", "2")
    assert p.returncode == 2 and "--workers" in p.stderr


# -- a broken pool, a scheduler that is not one, bounds ---------------------------------------


class BreaksOnSubmit(ThreadPoolExecutor):
    """A process pool whose worker died as it took task 1: it has not failed that task yet
    when it refuses the next one, as ProcessPoolExecutor does in the moment between them."""

    def __init__(self) -> None:
        super().__init__(1)
        self.submitted = 0

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Future[Any]:
        self.submitted += 1
        if self.submitted == 2:
            return Future()  # the dead worker's task, not failed yet
        if self.submitted > 2:
            raise BrokenProcessPool("A child process terminated abruptly")
        return super().submit(fn, *args, **kwargs)


def test_a_pool_broken_before_its_tasks_fail_is_a_dead_worker(registry: Registry) -> None:
    simulation = Simulation(tournament(registry), 1, BATTLE_TASKS, registry=registry)
    with BreaksOnSubmit() as pool, pytest.raises(WorkerDied) as info:
        simulation.run(pool, 1)
    assert "a worker process ended abruptly" in str(info.value)
    # the library's words to a Python caller; the command line says them in flags
    assert str(info.value).endswith(
        "give a checkpoints directory to keep finished tasks, and resume the run from it to "
        "run only the rest"
    )
    assert "--" not in str(info.value)
    assert in_flags(str(info.value)).endswith(
        "run with --out DIR to keep finished tasks, and --resume to run only the rest"
    )


def test_a_killed_worker_is_always_reported_by_its_task(tmp_path: Path) -> None:
    """The race of a killed worker: a few runs, every one reported by the task."""
    for attempt in range(4):
        out = tmp_path / f"run{attempt}"
        args = ("-n", "2000000", "--seed", "9", "--out", str(out), "--workers", "2", "--json")
        p = run("simulate", *args, env={KILL_TASK_ENV: "6"})
        assert p.returncode == 1, p.stderr
        assert "internal error" not in p.stderr
        assert "while running task 6 (battles 786,432-917,503)" in p.stderr
        assert "run the same command with --resume to run the rest" in p.stderr


class Service:
    """A TCP service on the loopback that is not a Dask scheduler: it sends `greeting` to
    whoever connects (nothing: it stays silent) and keeps the connection open."""

    def __init__(self, greeting: bytes) -> None:
        self.server = socket.create_server(("127.0.0.1", 0))
        self.server.settimeout(0.2)
        self.greeting = greeting
        self.connections: list[socket.socket] = []
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    @property
    def address(self) -> str:
        return f"tcp://127.0.0.1:{self.server.getsockname()[1]}"

    def serve(self) -> None:
        while not self.stopped.is_set():
            try:
                connection, _ = self.server.accept()
            except TimeoutError:
                continue
            self.connections.append(connection)
            if self.greeting:
                connection.sendall(self.greeting)

    def __enter__(self) -> Service:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopped.set()
        self.thread.join(5)
        for connection in self.connections:
            connection.close()
        self.server.close()


def test_a_scheduler_address_that_is_not_dask_is_refused() -> None:
    pytest.importorskip("distributed")
    with Service(b"SSH-2.0-OpenSSH_9.6\r\n" + bytes(range(256))) as service:
        p = run("simulate", "-n", "10", "--scheduler", service.address)
    assert p.returncode == 2, p.stderr
    assert "does not answer as a Dask scheduler" in p.stderr
    assert "MemoryError" not in p.stderr and "Traceback" not in p.stderr


def test_a_silent_scheduler_is_given_up_on() -> None:
    pytest.importorskip("distributed")
    outcome: list[BaseException] = []

    def connect(address: str) -> None:
        try:
            with dask_executor(address, timeout=0.5):
                pass
        except BaseException as exc:
            outcome.append(exc)

    with Service(b"") as service:
        waiting = threading.Thread(target=connect, args=(service.address,), daemon=True)
        waiting.start()
        waiting.join(60)  # the limit is half a second: this only bounds a hang
        assert not waiting.is_alive(), "still waiting for a scheduler that never answers"
    [error] = outcome
    assert isinstance(error, InputError)
    assert "does not answer as a Dask scheduler (within 0.5 s)" in str(error)


def test_chunk_size_is_bounded(registry: Registry) -> None:
    bound = max_chunk_size(tournament(registry))
    assert bound == 1_048_576
    p = run("simulate", "-n", "5000", "--chunk-size", str(bound + 1))
    assert p.returncode == 2
    assert "--chunk-size" in p.stderr and f"at most {bound:,} battles" in p.stderr
    melee = run("simulate", str(MELEE), "-n", "5000", "--chunk-size", str(bound))
    assert melee.returncode == 2 and "at most" in melee.stderr
    assert simulate("-n", "5000", "--chunk-size", str(bound))["run"]["chunk_size"] == bound


def test_no_more_workers_than_tasks() -> None:
    one = simulate("-n", "5000", "--seed", "1", "--workers", "32")
    assert (one["run"]["tasks"], one["run"]["workers"]) == (1, 1)
    four = simulate("-n", BATTLES, "--seed", "1", "--workers", "8")
    assert (four["run"]["tasks"], four["run"]["workers"]) == (4, 4)
    assert without_run(four) == without_run(simulate("-n", BATTLES, "--seed", "1"))


def test_a_resumed_run_with_nothing_to_do_starts_no_workers(tmp_path: Path) -> None:
    psutil = pytest.importorskip("psutil")
    out = tmp_path / "run"
    simulate("-n", BATTLES, "--seed", "1", "--out", str(out))
    seen: list[int] = []
    p = subprocess.Popen(
        ["ecs-combat", "simulate", "-n", BATTLES, "--seed", "1", "--out", str(out), "--resume",
         "--workers", "4", "--json"],
        stdout=subprocess.PIPE, text=True, env=environment(),
    )  # fmt: skip
    with contextlib.suppress(psutil.NoSuchProcess):
        while p.poll() is None:
            seen.append(len(psutil.Process(p.pid).children()))
    stdout, _ = p.communicate()
    assert p.returncode == 0
    assert json.loads(stdout)["run"]["workers"] == 1
    assert max(seen, default=0) == 0


def test_run_simulation_starts_no_more_processes_than_tasks(registry: Registry) -> None:
    run = run_simulation(tournament(registry), 1, 5000, registry=registry, workers=8)
    assert (run.tasks, run.workers) == (1, 1)


def test_a_stopped_pool_leaves_no_manager_thread_behind() -> None:
    """Otherwise the thread races the interpreter's exit (OSError: Bad file descriptor)."""
    pool = WorkerPool(2)
    manager = pool._executor_manager_thread
    assert manager is not None and manager.is_alive()
    pool.stop()
    assert not manager.is_alive()
