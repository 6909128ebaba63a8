"""Running a bulk simulation on several processes or a cluster, with checkpoints.

The battles of a run are cut into **tasks**: consecutive ranges of whole chunks of battles, of a
size decided by the spec and the number of battles alone (:func:`~ecs_combat.simulation.tasks.task_ranges`), never by the
number of workers. A task is run by :func:`~ecs_combat.simulation.tasks.run_task` wherever an executor sends it: it rebuilds
the plugin registry, the generator and the engine once per worker process (or thread) from the
picklable :class:`~ecs_combat.simulation.tasks.Job`, resolves its chunks and returns their merged tally. Tallies are merged
in task order, so the summary is the one a single process gives, for any number of workers,
any chunk size and any executor: a ``ProcessPoolExecutor`` (``--workers N``), a Dask client's
executor (``--scheduler ADDRESS``) or any other ``concurrent.futures.Executor``
(:mod:`ecs_combat.simulation.executors`).

With a checkpoint directory (:mod:`ecs_combat.simulation.checkpoints`) every finished task is written to
its own verified file, beside a manifest naming the run; resuming skips the tasks already there.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ecs_combat.errors import EcsCombatError, InputError
from ecs_combat.plugin.registry import Registry
from ecs_combat.simulation.checkpoints import Checkpoints, Rejected
from ecs_combat.simulation.executors import (
    CTRL_C_CHECK_SECONDS,
    ctrl_c_deferred,
    raise_if_interrupted,
)
from ecs_combat.simulation.executors import WorkerPool as WorkerPool
from ecs_combat.simulation.generators import make_generator
from ecs_combat.simulation.options import CHECKPOINTS, CHUNK_SIZE, RESUME
from ecs_combat.simulation.simulate import (
    MAX_CHUNK_CREATURES,
    ChunkResult,
    Run,
    Tally,
    default_chunk_size,
    make_engine,
    max_chunk_size,
)
from ecs_combat.simulation.spec import Spec
from ecs_combat.simulation.tasks import (
    Job,
    PluginOptions,
    RemoteError,
    TaskResult,
    fingerprint,
    prime,
    run_task,
    task_ranges,
)

# ---------------------------------------------------------------------------------------------
# Running


@dataclass
class DistributedRun(Run):
    """A finished simulation run as tasks, how many came from checkpoints, and the task files
    that did not verify (their tasks were run again)."""

    tasks: int = 0
    tasks_resumed: int = 0
    checkpoints_rejected: list[Rejected] = field(default_factory=list)

    def describe(self) -> dict[str, Any]:
        """How the run was made, with its tasks."""
        return {
            **super().describe(),
            "tasks": self.tasks,
            "tasks_resumed": self.tasks_resumed,
            "checkpoints_rejected": [r.as_json() for r in self.checkpoints_rejected],
        }


class TaskFailed(EcsCombatError):
    """A task raised an unexpected error on a worker."""


def _is_lost_worker(exc: BaseException) -> bool:
    """Whether an exception says the worker running a task went away (rather than the task
    failing): a broken process pool, or Dask's ``KilledWorker``."""
    return isinstance(exc, BrokenProcessPool) or type(exc).__name__ == "KilledWorker"


class Simulation:
    """One bulk simulation, ready to run in this process or on any executor.

    Building it checks everything (the spec against the registry, the chunk size, the
    checkpoint directory) and readies this process's generator and engine, which processes
    forked from it inherit. `plugins` says how workers load the plugins (default: as this
    process does with no ``-p`` option); `registry` is this process's registry, loaded from
    `plugins` when not given. With `checkpoint`, the directory is locked (until :meth:`run`
    ends, or :meth:`close`) and each finished task is saved there; with `resume` the tasks
    saved there that verify are not run again (:attr:`rejected`: those that don't). `with_table`
    asks for per-battle tables (not with checkpoints).
    """

    def __init__(
        self,
        spec: Spec,
        seed: int,
        battles: int,
        engine: str = "batched",
        *,
        registry: Registry | None = None,
        plugins: PluginOptions | None = None,
        chunk_size: int | None = None,
        checkpoint: str | Path | None = None,
        resume: bool = False,
        with_table: bool = False,
    ) -> None:
        if with_table and checkpoint is not None:
            raise ValueError("per-battle tables are not checkpointed: ask for one or the other")
        if chunk_size is not None and chunk_size > max_chunk_size(spec):
            raise InputError(
                CHUNK_SIZE,
                str(chunk_size),
                f"at most {max_chunk_size(spec):,} battles for this SPEC (about "
                f"{MAX_CHUNK_CREATURES:,} creatures a chunk, to bound memory); results do not "
                "depend on it",
            )
        if resume and checkpoint is None:
            raise InputError(
                RESUME, "", f"needs a {CHECKPOINTS}, the directory of the run to resume"
            )
        self.spec = spec
        self.seed = seed
        self.battles = battles
        self.engine = engine
        plugins = plugins if plugins is not None else PluginOptions.current()
        registry = registry if registry is not None else plugins.load_registry()
        self.generator = make_generator(spec, registry)
        resolver = make_engine(engine, registry)
        self.chunk_size = chunk_size or default_chunk_size(spec, engine)
        self.job = Job(
            plugins, fingerprint(registry), spec, engine, seed, self.chunk_size, with_table
        )
        prime(self.job, registry, self.generator, resolver)
        self.tasks = task_ranges(spec, battles)
        self.checkpoints: Checkpoints | None = None
        self.done: dict[int, Tally] = {}
        #: Task files found that did not verify: their tasks are run again.
        self.rejected: list[Rejected] = []
        if checkpoint is not None:
            manifest = Checkpoints.manifest_of(
                spec, seed, battles, self.tasks, self.job.fingerprint
            )
            self.checkpoints = Checkpoints.open(checkpoint, manifest, resume)
            if resume:
                self.done, self.rejected = self.checkpoints.load(self.tasks, self.generator.n_codes)
        self.resumed = sorted(self.done)
        self._chunks = 0
        self._engine_seconds = 0.0

    @property
    def todo(self) -> list[int]:
        """The tasks still to run."""
        return [i for i in range(len(self.tasks)) if i not in self.done]

    @property
    def saved(self) -> int:
        """How many tasks the checkpoint directory holds for this run."""
        if self.checkpoints is None:
            return 0
        return len(set(self.resumed) | self.checkpoints.saved)

    def close(self) -> None:
        """Release the checkpoint directory's lock (nothing without one)."""
        if self.checkpoints is not None:
            self.checkpoints.close()

    def describe_tasks(self, indices: Sequence[int]) -> str:
        """Tasks and their battles, for messages: runs of consecutive tasks as ranges."""
        runs: list[list[int]] = []
        for index in sorted(indices):
            if runs and runs[-1][1] == index - 1:
                runs[-1][1] = index
            else:
                runs.append([index, index])
        parts = []
        for first, last in runs:
            battles = f"battles {self.tasks[first][0]:,}-{self.tasks[last][1] - 1:,}"
            name = f"task {first}" if first == last else f"tasks {first}-{last}"
            parts.append(f"{name} ({battles})")
        return ", ".join(parts)

    def run(
        self,
        executor: Executor | None = None,
        workers: int | None = None,
        on_progress: Callable[[int], None] | None = None,
        on_rows: Callable[[ChunkResult], None] | None = None,
    ) -> DistributedRun:
        """Run the tasks not done yet and merge all tallies in task order.

        Without `executor` the tasks run in this process, chunk by chunk; with one, they are
        submitted to it, a few per worker at a time (`workers`: how many tasks it runs at
        once, default the CPU count). `on_progress` gets the battles of each chunk or task as
        it finishes, in any order (first, those of the resumed tasks); `on_rows` gets the
        per-battle tables in battle order. The checkpoint directory stays locked until the
        run ends. Raises :class:`WorkerDied` when a worker goes away, :class:`TaskFailed` when
        a task fails unexpectedly, and the engine's errors.
        """
        if self.checkpoints is not None:
            self.checkpoints.lock.acquire()
        try:
            return self._run(executor, workers, on_progress, on_rows)
        finally:
            self.close()

    def _run(
        self,
        executor: Executor | None,
        workers: int | None,
        on_progress: Callable[[int], None] | None,
        on_rows: Callable[[ChunkResult], None] | None,
    ) -> DistributedRun:
        began = time.perf_counter()
        resumed = Tally()
        for index in self.resumed:
            resumed = resumed.merge(self.done[index])
        if on_progress is not None and self.resumed:
            on_progress(resumed.battles)
        todo = self.todo
        if executor is None:
            for index in todo:

                def each_chunk(chunk: ChunkResult) -> None:
                    raise_if_interrupted()
                    if on_rows is not None and chunk.table is not None:
                        on_rows(chunk)
                    if on_progress is not None:
                        on_progress(chunk.stop - chunk.start)

                start, stop = self.tasks[index]
                try:
                    self._finished(run_task(self.job, index, start, stop, each_chunk))
                except RemoteError as exc:  # as a worker's: the error as raised here
                    raise exc.local() from None
        else:
            self._run_on(executor, todo, workers or os.cpu_count() or 1, on_progress, on_rows)
        total = Tally()
        for index in range(len(self.tasks)):
            total = total.merge(self.done[index])
        return DistributedRun(
            total,
            self.engine,
            self.chunk_size,
            self._chunks,
            time.perf_counter() - began,
            self._engine_seconds,
            workers=workers or 1,
            battles_resumed=resumed.battles,
            creatures_resumed=resumed.creatures,
            tasks=len(self.tasks),
            tasks_resumed=len(self.resumed),
            checkpoints_rejected=list(self.rejected),
        )

    def _finished(self, result: TaskResult) -> None:
        if self.checkpoints is not None:
            self.checkpoints.save(result.index, result.start, result.stop, result.tally)
        self.done[result.index] = result.tally
        self._chunks += result.chunks
        self._engine_seconds += result.engine_seconds

    def _run_on(
        self,
        executor: Executor,
        todo: Sequence[int],
        workers: int,
        on_progress: Callable[[int], None] | None,
        on_rows: Callable[[ChunkResult], None] | None,
    ) -> None:
        """Submit the tasks `todo` to `executor`, a few per worker at a time; keep each result
        as it comes, and with tables give them to `on_rows` in battle order."""
        window = 2 * workers + 2
        queue = iter(todo)
        running: dict[Future[TaskResult], int] = {}
        rows: dict[int, TaskResult] = {}
        in_order = iter(todo)
        waiting_for = next(in_order, None)

        def submit() -> BaseException | None:
            """Submit tasks up to the window; the error if the executor refuses one because a
            worker went away (a broken pool refuses before it fails the tasks in flight)."""
            # Tables wait for their turn in memory: bound them too, not only the running tasks.
            while len(running) + len(rows) < window:
                index = next(queue, None)
                if index is None:
                    return None
                start, stop = self.tasks[index]
                try:
                    future = executor.submit(run_task, self.job, index, start, stop)
                except BrokenProcessPool as exc:
                    return exc
                running[future] = index
            return None

        try:
            broken = submit()
            while running:
                if broken is not None:
                    self._fail(broken, running, executor)
                complete, _ = wait(
                    running, timeout=CTRL_C_CHECK_SECONDS, return_when=FIRST_COMPLETED
                )
                raise_if_interrupted()
                failed: BaseException | None = None
                for future in sorted(complete, key=lambda f: running[f]):
                    if future.exception() is not None:
                        failed = failed or future.exception()
                        continue
                    index = running.pop(future)
                    result = future.result()
                    table, result.table = result.table, None
                    self._finished(result)
                    if on_progress is not None:
                        on_progress(result.stop - result.start)
                    if table is not None:
                        result.table = table
                        rows[index] = result
                        while waiting_for is not None and waiting_for in rows:
                            ready = rows.pop(waiting_for)
                            if on_rows is not None:
                                on_rows(ready.as_chunk())
                            waiting_for = next(in_order, None)
                if failed is not None:
                    self._fail(failed, running, executor)
                broken = submit()
            if broken is not None:
                self._fail(broken, running, executor)
        finally:
            for future in running:
                future.cancel()

    def _fail(
        self, error: BaseException, running: dict[Future[TaskResult], int], executor: Executor
    ) -> None:
        """Keep the tasks that did finish, then raise the error that stopped the run."""
        dead: list[int] = []
        if _is_lost_worker(error) and isinstance(executor, WorkerPool):
            dead = executor.tasks_of_dead_workers()  # waits until every future is settled
        lost: list[int] = []
        for future, index in sorted(running.items(), key=lambda item: item[1]):
            if future.done() and not future.cancelled() and future.exception() is None:
                self._finished(future.result())
            else:
                lost.append(index)
        if isinstance(error, RemoteError):
            raise error.local() from None
        if _is_lost_worker(error):
            culprits = [i for i in dead if i in lost]
            raise WorkerDied(self, culprits or lost, error, running=bool(culprits)) from None
        failed = next(i for f, i in running.items() if f.done() and f.exception() is error)
        hint = ""
        if isinstance(error, ModuleNotFoundError):
            hint = " (install ecs-combat and the same plugins on every worker)"
        raise TaskFailed(
            f"{self.describe_tasks([failed])} failed on a worker: "
            f"{type(error).__name__}: {error}{hint}"
        ) from error


class WorkerDied(EcsCombatError):
    """A worker went away (killed, or out of memory) while running some tasks."""

    def __init__(
        self, simulation: Simulation, lost: Sequence[int], error: BaseException, running: bool
    ) -> None:
        self.lost = list(lost)
        if isinstance(error, BrokenProcessPool):
            what = "a worker process ended abruptly"
        else:
            what = f"a worker died ({type(error).__name__}: {error})"
        tasks = simulation.describe_tasks(self.lost) if self.lost else "its tasks"
        when = f"while running {tasks}" if running else f"while {tasks} were in flight"
        store = simulation.checkpoints
        if store is not None:
            rest = (
                f"{simulation.saved} of {len(simulation.tasks)} tasks are saved in "
                f"{store.directory}: resume the run from its {CHECKPOINTS} to run the rest"
            )
        else:
            rest = (
                f"give a {CHECKPOINTS} to keep finished tasks, and resume the run from it to "
                "run only the rest"
            )
        super().__init__(f"{what} {when}; {rest}")


def run_simulation(
    spec: Spec,
    seed: int,
    battles: int,
    engine: str = "batched",
    *,
    executor: Executor | None = None,
    workers: int | None = None,
    registry: Registry | None = None,
    plugins: PluginOptions | None = None,
    chunk_size: int | None = None,
    checkpoint: str | Path | None = None,
    resume: bool = False,
    on_progress: Callable[[int], None] | None = None,
) -> DistributedRun:
    """Build a :class:`Simulation` and run it: in this process, on `executor`, or, given only
    `workers` above 1, on that many local processes (never more than there are tasks to
    run)."""
    simulation = Simulation(
        spec,
        seed,
        battles,
        engine,
        registry=registry,
        plugins=plugins,
        chunk_size=chunk_size,
        checkpoint=checkpoint,
        resume=resume,
    )
    if executor is not None:
        return simulation.run(executor, workers, on_progress)
    workers = local_workers(workers or 1, simulation)
    if workers == 1:
        return simulation.run(None, 1, on_progress)
    with contextlib.ExitStack() as stack:
        with ctrl_c_deferred():  # the pool is stopped however the run ends
            pool = WorkerPool(workers)
            stack.callback(pool.stop)
        return simulation.run(pool, workers, on_progress)


def local_workers(asked: int, simulation: Simulation) -> int:
    """How many local processes to run a simulation on: as many as asked, but no more than it
    has tasks to run (at least 1: a run with nothing to do runs in this process)."""
    return max(1, min(asked, len(simulation.todo)))
