"""Executors for the tasks of a simulation: a pool of local worker processes that knows which
task each worker runs, and a Dask cluster's executor, reached only after its scheduler has
answered a handshake.
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import multiprocessing.connection
import os
import signal
import socket
import struct
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from concurrent.futures import Executor, ProcessPoolExecutor
from typing import Any

from ecs_combat.errors import InputError
from ecs_combat.kernel.threads import THREADS_ENV
from ecs_combat.simulation.options import SCHEDULER

#: Environment variables worker processes get, so that numpy's libraries start no thread pools.
SINGLE_THREADED = {
    THREADS_ENV: "1",  # a worker's compiled kernel in one thread: the workers are the threads
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
}
DASK_EXTRA = 'pip install "ecs-combat[dask]"'
#: How long stopping a pool waits for its manager thread (it ends in milliseconds).
STOP_SECONDS = 5.0
#: How often a run waiting for its tasks looks for a Ctrl-C that Python swallowed.
CTRL_C_CHECK_SECONDS = 0.5


@contextlib.contextmanager
def environment(values: Mapping[str, str | None]) -> Iterator[None]:
    """Set (or, for None, unset) environment variables for the duration of the body."""
    saved = {key: os.environ.get(key) for key in values}

    def apply(pairs: Mapping[str, str | None]) -> None:
        for key, value in pairs.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value

    apply(values)
    try:
        yield
    finally:
        apply(saved)


# ---------------------------------------------------------------------------------------------
# Ctrl-C

#: Whether Ctrl-C was pressed inside :func:`ctrl_c_remembered`.
_ctrl_c_pressed = False


@contextlib.contextmanager
def ctrl_c_remembered() -> Iterator[None]:
    """Ctrl-C in the body raises KeyboardInterrupt as usual, and is remembered: one that
    Python swallows (raised while a weakref callback or a ``__del__`` method runs, where an
    exception is only printed) is raised again by :func:`raise_if_interrupted`, which a run
    calls between its chunks and, waiting for tasks, at least every
    :data:`CTRL_C_CHECK_SECONDS`. Nothing changes outside the main thread, or where SIGINT
    already has a handler other than Python's."""
    global _ctrl_c_pressed
    if (
        threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGINT) is not signal.default_int_handler
    ):
        yield
        return

    def pressed(signum: int, frame: object) -> None:
        global _ctrl_c_pressed
        _ctrl_c_pressed = True
        raise KeyboardInterrupt

    signal.signal(signal.SIGINT, pressed)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        _ctrl_c_pressed = False


def raise_if_interrupted() -> None:
    """Raise KeyboardInterrupt if Ctrl-C was pressed in :func:`ctrl_c_remembered`."""
    if _ctrl_c_pressed:
        raise KeyboardInterrupt


@contextlib.contextmanager
def ctrl_c_deferred() -> Iterator[None]:
    """Hold Ctrl-C back for the body (SIGINT blocked in this thread; one pressed meanwhile is
    raised as the body ends): for steps that must not be cut in two, such as starting a pool
    and registering its stop. Threads started in the body never take SIGINT; processes forked
    in it start with it blocked."""
    if not hasattr(signal, "pthread_sigmask"):  # Windows
        yield
        return
    before = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


# ---------------------------------------------------------------------------------------------
# The worker pool

#: glibc's mallopt parameters.
M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
#: In a worker process of a :class:`WorkerPool`: the pool's board and this worker's slot.
_board: tuple[Any, int] | None = None


def _start_worker(board: Any) -> None:
    """Set up a worker process of a :class:`WorkerPool`: take a slot on its board; leave
    Ctrl-C to the process that started it, and end when that process does, even if it was
    killed. Stopped by the pool (SIGTERM), it clears its slot: it did not die on its own."""
    global _board
    _keep_freed_memory()
    with board.get_lock():
        slot = next(i for i in range(0, len(board), 2) if board[i] == 0)
        board[slot] = os.getpid()
    _board = board, slot
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):  # held back since the fork: see WorkerPool
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    signal.signal(signal.SIGTERM, _stopped)
    parent = multiprocessing.parent_process()
    if parent is not None:
        threading.Thread(target=_exit_with, args=(parent,), daemon=True).start()


def _keep_freed_memory() -> None:
    """Have glibc's malloc keep the memory of freed arrays for the next chunk.

    Otherwise, depending on how a forked worker's heap happens to lie, it gives the memory of
    every chunk back to the system and maps it afresh for the next: ten times the page faults
    of a single process, and tasks 15% slower. A worker's memory stays bounded by its largest
    chunk all the same.
    """
    try:
        if not os.confstr("CS_GNU_LIBC_VERSION"):
            return
        libc = ctypes.CDLL(None)
    except (ValueError, OSError):  # not glibc
        return
    libc.mallopt(M_TRIM_THRESHOLD, 64 << 20)
    libc.mallopt(M_MMAP_THRESHOLD, 32 << 20)


def _stopped(signum: int, frame: object) -> None:
    mark_running(None)
    os._exit(128 + signum)


def _exit_with(parent: multiprocessing.process.BaseProcess) -> None:
    parent.join()
    os._exit(1)


def mark_running(task: int | None) -> None:
    """Say on the board which task this worker is running (None: none)."""
    if _board is not None:
        board, slot = _board
        board[slot + 1] = 0 if task is None else task + 1


class WorkerPool(ProcessPoolExecutor):
    """A pool of local worker processes that knows which task each one is running, so that
    one dying can be reported by its task.

    Started at once: on Linux the processes are forked (by default) and start in milliseconds
    with this process's registry, generator and engine (see :func:`prime`); the pool must be
    made before any other thread (such as the progress bar's) runs, so that no lock is copied
    held. Elsewhere, where forking is unsafe, they are spawned and build their own.

    Ctrl-C reaches the whole process group, the workers too: they ignore it from the moment
    they exist (it is held back while the pool starts, :func:`ctrl_c_deferred`, so a worker
    never sees it before it ignores it), and so do the threads the pool starts in this
    process, leaving it to the main thread. A Ctrl-C pressed while the pool starts is raised
    once it has, and stops it.
    """

    def __init__(self, workers: int, method: str | None = None) -> None:
        if method is None:
            method = "fork" if sys.platform == "linux" else "spawn"
        context = multiprocessing.get_context(method)
        #: (pid, task + 1) per worker; task 0 is none.
        self.board: Any = context.Array("q", 2 * workers)
        try:
            with ctrl_c_deferred(), environment(SINGLE_THREADED):
                super().__init__(
                    workers, mp_context=context, initializer=_start_worker, initargs=(self.board,)
                )
                for _ in range(workers):
                    self.submit(os.getpid).result()
        except BaseException:  # Ctrl-C pressed as it started, or a worker that did not
            with contextlib.suppress(Exception):
                self.stop()
            raise

    def tasks_of_dead_workers(self) -> list[int]:
        """After the pool broke: the tasks its dead workers were running."""
        self.shutdown(wait=True, cancel_futures=True)  # the other workers are stopped
        with self.board.get_lock():
            values = list(self.board)
        return sorted(task - 1 for task in values[1::2] if task > 0)

    def stop(self) -> None:
        """Shut the pool down at once, ending its worker processes mid-task, and wait for the
        pool's manager thread to finish with them (left running, it races the interpreter's
        exit, which then prints ``OSError: Bad file descriptor``)."""
        manager: threading.Thread | None = getattr(self, "_executor_manager_thread", None)
        # Taken before shutting down, which forgets them (and would otherwise wait for each
        # worker to finish its task: for ever, for a task that never ends).
        processes: dict[int, multiprocessing.Process] = getattr(self, "_processes", None) or {}
        running = list(processes.values())
        self.shutdown(wait=False, cancel_futures=True)
        for process in running:
            with contextlib.suppress(Exception):
                process.terminate()
        # A worker that doesn't end on SIGTERM (a handler inherited through the fork, a lock
        # held) is killed, or the manager thread would wait for it.
        # Its sentinel is ready once it has ended, whichever thread reaps it.
        deadline = time.monotonic() + STOP_SECONDS
        for process in running:
            with contextlib.suppress(Exception):
                left = max(0.0, deadline - time.monotonic())
                if not multiprocessing.connection.wait([process.sentinel], left):
                    process.kill()
        if manager is not None and manager is not threading.current_thread():
            manager.join(STOP_SECONDS)


#: How long the command waits for a Dask scheduler to connect and answer its handshake.
HANDSHAKE_SECONDS = 10.0
#: A Dask handshake is a few dozen bytes; an answer announcing more is not one.
MAX_HANDSHAKE = 1 << 16


def _receive(sock: socket.socket, n: int, deadline: float) -> bytes:
    """Exactly `n` bytes from `sock` before `deadline`; TimeoutError, or EOFError if the
    other side closes first."""
    data = bytearray()
    while len(data) < n:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        sock.settimeout(left)
        more = sock.recv(n - len(data))
        if not more:
            raise EOFError
        data += more
    return bytes(data)


def check_scheduler(address: str, timeout: float = HANDSHAKE_SECONDS) -> None:
    """Check that a Dask scheduler answers at `address` within `timeout` seconds: connect and
    read the handshake a Dask server sends first (its length, then its frames). Only plain TCP
    addresses (``tcp://host:port`` or ``host:port``) are checked; others are left to Dask.
    Raises :class:`InputError` for no answer, or an answer that is not Dask's."""
    from distributed.comm.addressing import parse_address, parse_host_port
    from distributed.protocol import loads
    from distributed.protocol.utils import unpack_frames

    try:
        scheme, location = parse_address(address)
        if scheme != "tcp":
            return
        host, port = parse_host_port(location)
    except ValueError as exc:
        raise InputError(SCHEDULER, address, f"not an address: {exc}") from None
    deadline = time.monotonic() + timeout
    not_dask = f"the service there does not answer as a Dask scheduler (within {timeout:g} s)"
    try:
        with socket.create_connection((host, port), timeout=timeout) as sock:
            (size,) = struct.unpack("<Q", _receive(sock, 8, deadline))
            if not 8 <= size <= MAX_HANDSHAKE:
                raise InputError(SCHEDULER, address, not_dask)
            info = loads(unpack_frames(_receive(sock, size, deadline)))
    except (TimeoutError, EOFError):
        raise InputError(SCHEDULER, address, not_dask) from None
    except OSError as exc:
        raise InputError(
            SCHEDULER, address, f"cannot connect to the Dask scheduler: {exc.strerror or exc}"
        ) from None
    except InputError:
        raise
    except Exception:  # frames Dask can't decode
        raise InputError(SCHEDULER, address, not_dask) from None
    if not isinstance(info, dict):
        raise InputError(SCHEDULER, address, not_dask)


@contextlib.contextmanager
def dask_executor(
    address: str, timeout: float = HANDSHAKE_SECONDS
) -> Iterator[tuple[Executor, int]]:
    """An executor running tasks on the Dask cluster whose scheduler is at `address`, and how
    many tasks the cluster runs at once; a scheduler that doesn't answer as Dask within
    `timeout` seconds is an :class:`InputError`."""
    try:
        from distributed import Client
    except ImportError:
        raise InputError(
            SCHEDULER, address, f"running on a Dask cluster needs Dask: {DASK_EXTRA}"
        ) from None
    check_scheduler(address, timeout)
    try:
        client = Client(address, timeout=f"{timeout:g}s")
    except (OSError, TimeoutError, ValueError) as exc:
        raise InputError(
            SCHEDULER, address, f"cannot connect to the Dask scheduler: {exc}"
        ) from None
    try:
        threads = sum(client.nthreads().values())
        yield client.get_executor(), max(threads, 1)
    finally:
        client.close()
