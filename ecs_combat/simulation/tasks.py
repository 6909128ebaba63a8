"""The tasks of a bulk simulation on several processes or a cluster
(:mod:`ecs_combat.simulation.distribute`).

A task is a range of whole chunks of a run's battles, of a size decided by the spec and the
number of battles alone (:func:`task_ranges`), never by the number of workers. :func:`run_task`
runs one wherever an executor sends it: it rebuilds the plugin registry, the generator and the
engine once per worker process (or thread) from the picklable :class:`Job`, resolves its
chunks and returns their merged tally (:class:`TaskResult`).
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ecs_combat.errors import EcsCombatError, InputError, PluginError, RefusedError
from ecs_combat.plugin.loading import DISABLE_AUTOLOAD_ENV, PLUGINS_ENV, load_registry
from ecs_combat.plugin.registry import Registry
from ecs_combat.simulation.checkpoints import spec_key
from ecs_combat.simulation.executors import environment, mark_running
from ecs_combat.simulation.generate import Generator
from ecs_combat.simulation.generators import make_generator
from ecs_combat.simulation.simulate import (
    BatchResolver,
    ChunkResult,
    Tally,
    chunks,
    default_chunk_size,
    expected_creatures,
    make_engine,
    run_chunk,
)
from ecs_combat.simulation.spec import BattleSpec, Spec

#: A task holds about this many creatures: long enough that handing it to a worker costs
#: nothing next to resolving it, short enough that a run keeps every worker busy to its end.
TASK_CREATURES = 1 << 18
#: Larger runs get larger tasks, so a checkpoint directory holds at most this many files.
MAX_TASKS = 4096
#: Fault injection for the tests: a worker process (not the one that submitted the run) that
#: starts the task with this index exits at once, as a killed worker would.
KILL_TASK_ENV = "ECS_COMBAT_TEST_KILL_TASK"
#: Fault injection for the tests: a worker process (not the one that submitted the run) that
#: starts the task with this index never finishes it (it waits until it is stopped), so the
#: run cannot end by itself.
HOLD_TASK_ENV = "ECS_COMBAT_TEST_HOLD_TASK"


def task_battles(spec: Spec, battles: int) -> int:
    """Battles per task: whole batched-engine chunks of about :data:`TASK_CREATURES` creatures,
    more when the run would otherwise have over :data:`MAX_TASKS` tasks; a chunk of races a
    task (a SPEC with ``[race]``: each race is long work, so workers share them finely)."""
    chunk = default_chunk_size(spec, "batched")
    per_task = max(1, round(TASK_CREATURES / (expected_creatures(spec) * chunk))) * chunk
    if isinstance(spec, BattleSpec) and spec.race is not None:
        per_task = chunk
    at_least = -(-battles // MAX_TASKS)
    return max(per_task, -(-at_least // chunk) * chunk)


def task_ranges(spec: Spec, battles: int) -> list[tuple[int, int]]:
    """The (start, stop) battle ranges of the tasks of a run, in order."""
    return list(chunks(battles, task_battles(spec, battles)))


# ---------------------------------------------------------------------------------------------
# What a worker needs to rebuild the registry


@dataclass(frozen=True)
class PluginOptions:
    """How a process loads the plugins: the ``-p`` options and the plugin environment
    variables, as the submitting process saw them."""

    load: tuple[str, ...] = ()
    block: tuple[str, ...] = ()
    plugins_env: str | None = None
    disable_autoload_env: str | None = None

    @classmethod
    def current(cls, load: Sequence[str] = (), block: Sequence[str] = ()) -> PluginOptions:
        """The options `load` and `block` with this process's plugin environment variables."""
        return cls(
            tuple(load),
            tuple(sorted(block)),
            os.environ.get(PLUGINS_ENV),
            os.environ.get(DISABLE_AUTOLOAD_ENV),
        )

    def load_registry(self) -> Registry:
        """Load the plugins as the submitting process did."""
        with environment(
            {PLUGINS_ENV: self.plugins_env, DISABLE_AUTOLOAD_ENV: self.disable_autoload_env}
        ):
            return load_registry(load=self.load, block=self.block)


def fingerprint(registry: Registry) -> tuple[str, ...]:
    """What decides the battles besides the spec: the plugins (with versions), keywords,
    damage steps and cards, one line each."""
    lines = [
        f"plugin {p.name} {p.distribution or '-'} {p.version or '-'}" for p in registry.plugins
    ]
    lines += [f"keyword {name}" for name in registry.keywords]
    lines += [f"step {name}" for name in registry.step_names]
    lines += [f"card {card.name}" for card in registry.cards.values()]
    return tuple(lines)


@dataclass(frozen=True)
class Job:
    """Everything a worker needs to run tasks of one simulation; picklable."""

    plugins: PluginOptions
    #: The submitting process's :func:`fingerprint`; a worker that loads different plugins
    #: refuses to run.
    fingerprint: tuple[str, ...]
    spec: Spec
    engine: str
    seed: int
    chunk_size: int
    with_table: bool = False
    #: The process that submitted the run.
    origin_pid: int = field(default_factory=os.getpid)


@dataclass
class TaskResult:
    """What a task gives back: its merged tally, and its per-battle table when asked for."""

    index: int
    start: int
    stop: int
    tally: Tally
    chunks: int
    engine_seconds: float
    table: dict[str, Any] | None = None
    creatures: dict[str, Any] | None = None

    def as_chunk(self) -> ChunkResult:
        """The task as one chunk (what the per-battle file writer takes)."""
        return ChunkResult(
            self.index,
            self.start,
            self.stop,
            self.tally,
            self.engine_seconds,
            self.table,
            self.creatures,
        )


class RemoteError(Exception):
    """An ecs-combat error raised in a worker, carried back by class name and message (the
    errors' own constructors do not survive pickling)."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(kind, message)
        self.kind = kind
        self.message = message

    def local(self) -> EcsCombatError:
        """The error as this process raises it."""
        if self.kind == "RefusedError":
            return RefusedError(self.message)
        if self.kind == "InputError":
            return InputError(None, "", self.message)
        return PluginError(self.message)


#: Registries loaded in this process, by how they were loaded, with their fingerprints.
_registries: dict[PluginOptions, tuple[Registry, tuple[str, ...]]] = {}
_registries_lock = threading.Lock()
#: Generators and engines of the latest jobs, per thread (an engine is not shared by threads).
_local = threading.local()
KEPT_ENGINES = 4
EngineKey = tuple[PluginOptions, tuple[str, ...], str, str]


def _registry(plugins: PluginOptions) -> tuple[Registry, tuple[str, ...]]:
    with _registries_lock:
        if plugins not in _registries:
            registry = plugins.load_registry()
            _registries[plugins] = registry, fingerprint(registry)
        return _registries[plugins]


def _engines() -> dict[EngineKey, tuple[Generator, BatchResolver]]:
    engines: dict[EngineKey, tuple[Generator, BatchResolver]]
    engines = _local.__dict__.setdefault("engines", {})
    return engines


def _keep(key: EngineKey, state: tuple[Generator, BatchResolver]) -> None:
    engines = _engines()
    engines[key] = state
    while len(engines) > KEPT_ENGINES:
        del engines[next(iter(engines))]


def _worker_state(job: Job) -> tuple[Generator, BatchResolver]:
    """The generator and engine of a job, built once per process and thread."""
    key = (job.plugins, job.fingerprint, spec_key(job.spec), job.engine)
    state = _engines().get(key)
    if state is None:
        try:
            registry, found = _registry(job.plugins)
        except PluginError as exc:
            raise PluginError(f"a worker could not load the plugins: {exc}") from None
        if found != job.fingerprint:
            raise PluginError(_mismatch(job.fingerprint, found))
        state = make_generator(job.spec, registry), make_engine(job.engine, registry)
        _keep(key, state)
    return state


def prime(job: Job, registry: Registry, generator: Generator, engine: BatchResolver) -> None:
    """Give this process (and processes forked from it) the job's registry, generator and
    engine, so they are not built again."""
    with _registries_lock:
        _registries[job.plugins] = registry, job.fingerprint
    _keep((job.plugins, job.fingerprint, spec_key(job.spec), job.engine), (generator, engine))


def _mismatch(expected: tuple[str, ...], found: tuple[str, ...]) -> str:
    missing = [line for line in expected if line not in found]
    extra = [line for line in found if line not in expected]
    parts = []
    if missing:
        parts.append(f"lacks {'; '.join(missing)}")
    if extra:
        parts.append(f"also has {'; '.join(extra)}")
    what = ", and ".join(parts) or "orders them differently"
    return (
        f"a worker loaded other plugins than this process: it {what}. Install the same "
        "ecs-combat plugins (same versions) on every worker and give the same -p options"
    )


def run_task(
    job: Job,
    index: int,
    start: int,
    stop: int,
    on_chunk: Callable[[ChunkResult], None] | None = None,
) -> TaskResult:
    """Resolve battles ``start`` to ``stop - 1`` of the job's run, chunk by chunk, and merge
    their tallies in order. The per-battle tables (if the job asks for them) go to `on_chunk`,
    chunk by chunk, where the task runs in-process, and are returned joined otherwise."""
    mark_running(index)
    if os.getpid() != job.origin_pid:
        if os.environ.get(KILL_TASK_ENV) == str(index):
            os._exit(70)
        while os.environ.get(HOLD_TASK_ENV) == str(index):
            time.sleep(1)
    try:
        generator, engine = _worker_state(job)
        tally = Tally()
        engine_seconds = 0.0
        tables: list[dict[str, Any]] = []
        creatures: list[dict[str, Any]] = []
        n = 0
        for lo, hi in chunks(stop - start, job.chunk_size):
            n += 1
            result = run_chunk(
                generator, engine, job.seed, index, start + lo, start + hi, job.with_table
            )
            tally = tally.merge(result.tally)
            engine_seconds += result.engine_seconds
            if on_chunk is not None:
                on_chunk(result)
            elif result.table is not None and result.creatures is not None:
                tables.append(result.table)
                creatures.append(result.creatures)
    except EcsCombatError as exc:
        raise RemoteError(type(exc).__name__, str(exc)) from None
    finally:
        mark_running(None)
    table = creature_table = None
    if job.with_table and tables:
        table = {name: np.concatenate([t[name] for t in tables]) for name in tables[0]}
        creature_table = {
            name: np.concatenate([t[name] for t in creatures]) for name in creatures[0]
        }
    return TaskResult(index, start, stop, tally, n, engine_seconds, table, creature_table)
