"""A damaged or stale kernel cache never fails a run: each damage a cache can take (a module
removed, edited or cut short, numba's index naming another kernel's module, its files
truncated, a cache directory that can't be written, runs starting at once) is repaired or
worked around, with at most one line on standard error, and the run's summary is the same
bytes as the numpy engine's (docs/performance.md, "A damaged kernel cache").

One kernel is compiled for the file (no plugins: the smallest kernel, about 12 s of CPU);
each test damages a copy of its cache."""

from __future__ import annotations

import errno
import importlib.util
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from cli_run import run_cli

from ecs_combat import Registry, parse_scenario
from ecs_combat.batched import scenarios_to_batch
from ecs_combat.batched.engine import BatchedEngine
from ecs_combat.kernel import cache, cache_repair, compiles
from ecs_combat.kernel.generate import KernelSource
from ecs_combat.kernel.runner import Kernel

NOT_JITTED = os.environ.get("NUMBA_DISABLE_JIT") == "1"
pytestmark = pytest.mark.skipif(NOT_JITTED, reason="numba compiles nothing")
#: The four timing fields of the summary, left out when comparing (BRIEF: byte-identical).
TIMING = ('"seconds"', '"engine_seconds"', '"battles_per_second"', '"creatures_per_second"')
COMPILING = "compiling the plugin set's kernel"


def run(directory: Path, kernels: str = "1") -> subprocess.Popen[str]:
    """A small keyword tournament with no plugins (the kernel's one_on_one_range), started
    with `directory` as the kernel cache."""
    env = dict(os.environ)
    env.pop("NUMBA_CACHE_DIR", None)  # numba's cache beside the module, where it is damaged
    env |= {
        "ECS_COMBAT_DISABLE_PLUGIN_AUTOLOAD": "1",
        "ECS_COMBAT_KERNELS": kernels,
        "ECS_COMBAT_KERNEL_CACHE": str(directory),
    }
    return subprocess.Popen(
        ["ecs-combat", "simulate", "-n", "2000", "--seed", "3", "--json"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def finished(process: subprocess.Popen[str]) -> tuple[str, list[str]]:
    """A run's summary without its timing fields, and its lines on standard error; it must
    succeed."""
    out, err = process.communicate(timeout=300)
    assert process.returncode == 0, err
    assert "Traceback" not in err
    summary = "".join(line for line in out.splitlines(True) if not line.lstrip().startswith(TIMING))
    return summary, err.splitlines()


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A cache holding the kernel, compiled by two runs started at once (the kernel's lock:
    one compiles, the other waits and reads what it compiled), and the numpy engine's
    summary of the run."""
    directory = tmp_path_factory.mktemp("kernels") / "cache"
    numpy = run(directory, kernels="0")
    expected, said = finished(numpy)
    assert said == []
    first, second = run(directory), run(directory)
    (one, said_one), (two, said_two) = finished(first), finished(second)
    assert one == two == expected
    compiles = [said for said in (said_one, said_two) if said]
    assert len(compiles) == 1 and len(compiles[0]) == 1 and COMPILING in compiles[0][0]
    return directory, expected


def damaged(compiled: tuple[Path, str], tmp_path: Path) -> tuple[Path, Path]:
    """A copy of the compiled cache, and its kernel's module."""
    directory = tmp_path / "cache"
    shutil.copytree(compiled[0], directory)
    (module,) = directory.glob(f"{cache.PREFIX}*.py")
    return directory, module


@pytest.mark.parametrize("damage", ["removed", "edited", "truncated"])
def test_module_damaged(compiled: tuple[Path, str], tmp_path: Path, damage: str) -> None:
    """The generated module removed, edited or cut short (numba's files kept): written again,
    and numba's compiled code read as before (no compile, nothing said)."""
    directory, module = damaged(compiled, tmp_path)
    text = module.read_text()
    if damage == "removed":
        module.unlink()
    elif damage == "edited":
        module.write_text(text.replace("def ", "def  ", 1) + "\nX = 1\n")
    else:
        module.write_text(text[: len(text) // 2])
    summary, said = finished(run(directory))
    assert (summary, said) == (compiled[1], [])
    assert module.read_text() == text


def test_index_names_another_module(compiled: tuple[Path, str], tmp_path: Path) -> None:
    """numba's index naming a kernel module that does not exist (what an edited template, or
    an upgrade, left behind: ModuleNotFoundError before): its files removed and the kernel
    compiled again, one line saying so; the next run reads the new entry."""
    directory, module = damaged(compiled, tmp_path)
    digest = module.stem.removeprefix(cache.PREFIX)
    other = ("0" if digest[0] != "0" else "1") + digest[1:]
    for index in (directory / "__pycache__").glob("*.nbi"):
        index.write_bytes(index.read_bytes().replace(digest.encode(), other.encode()))
    summary, said = finished(run(directory))
    assert summary == compiled[1]
    assert len(said) == 2 and "ModuleNotFoundError" in said[0], said
    assert "can't be read" in said[0] and "ecs-combat kernels clear" in said[0]
    assert COMPILING in said[1]
    assert finished(run(directory)) == (compiled[1], [])


def test_kernels_clear(compiled: tuple[Path, str], tmp_path: Path) -> None:
    """`ecs-combat kernels clear` (the installed command) removes every kernel and what numba
    keeps of it, nothing else: exit 0; an extra argument: exit 2, one line."""
    directory, _ = damaged(compiled, tmp_path)
    (directory / "notes.txt").write_text("mine")
    (directory / f"{cache.PREFIX}0.py.x1y2.tmp").write_text("")  # what a killed write leaves
    env = dict(os.environ, ECS_COMBAT_KERNEL_CACHE=str(directory))
    done = subprocess.run(
        ["ecs-combat", "kernels", "clear"], env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"{directory}: 1 kernel(s) removed (")
    left = sorted(p.relative_to(directory).as_posix() for p in directory.rglob("*"))
    assert left == ["__pycache__", "notes.txt"]
    bad = subprocess.run(
        ["ecs-combat", "kernels", "clear", "x"], env=env, capture_output=True, text=True
    )
    assert bad.returncode == 2
    assert bad.stderr.splitlines() == [
        "ecs-combat: kernels clear: got unexpected extra argument (x)"
    ]


# numba's cache guarded, on a small function compiled in this process (a fraction of a second).


def tiny(directory: Path) -> Any:
    """A small cached numba function in a module of its own in `directory`, loaded afresh,
    its cache guarded."""
    path = directory / "tiny_cached.py"
    path.write_text(
        "from numba import njit\n\n\n@njit(cache=True)\ndef double(x):\n    return 2 * x\n"
    )
    spec = importlib.util.spec_from_file_location("tiny_cached", path)
    assert spec is not None and spec.loader is not None
    module: ModuleType = importlib.util.module_from_spec(spec)
    sys.modules["tiny_cached"] = module
    spec.loader.exec_module(module)
    cache_repair.guard(module.double)
    return module.double


@pytest.fixture
def said(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The lines the cache says (one a process: reset for each test), as they come."""
    monkeypatch.setitem(cache_repair._said, "said", False)
    monkeypatch.setitem(compiles._announce, "on", False)  # the compile line: not ours
    lines: list[str] = []
    monkeypatch.setattr(cache_repair.log, "warning", lambda f, *a: lines.append(f % a))
    monkeypatch.setattr(cache.log, "warning", lambda f, *a: lines.append(f % a))
    return lines


@pytest.mark.parametrize("part", ["nbi", "nbc"])
def test_truncated_files(tmp_path: Path, said: list[str], part: str) -> None:
    """An index or data file cut short (a full disk): removed, compiled again, one line."""
    assert tiny(tmp_path)(2) == 4
    assert said == []
    (target,) = (tmp_path / "__pycache__").glob(f"*.{part}")
    target.write_bytes(target.read_bytes()[:20])
    double = tiny(tmp_path)
    assert double(3) == 6 and double.stats.cache_misses
    assert (
        len(said) == 1 and "can't be read" in said[0] and "removed, compiling it again" in said[0]
    )
    assert cache_repair.signatures(double) == 1  # kept again
    assert tiny(tmp_path)(4) == 8 and not tiny(tmp_path).stats.cache_misses


def test_cache_not_writable(
    tmp_path: Path, said: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """numba's cache can't be written (read-only, full): compiled in memory, one line."""
    double = tiny(tmp_path)

    def full(*args: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(double._cache.inner, "save_overload", full)
    assert double(5) == 10
    assert (
        len(said) == 1 and "compiled in memory for this run" in said[0] and "ENOSPC" not in said[0]
    )
    assert "No space left on device" in said[0]


def test_cache_dir_not_writable(
    tmp_path: Path, said: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A kernel cache directory that can't be made (a file in its place; read-only, full):
    the module is written to a temporary directory, one line."""
    blocked = tmp_path / "file"
    blocked.write_text("")
    monkeypatch.setenv(cache.CACHE_ENV, str(blocked / "kernels"))
    source = KernelSource((), (), "X = 1\n", "t" * 20)
    path = cache.write(source)
    assert path.read_text() == "X = 1\n" and blocked not in path.parents
    assert len(said) == 1 and "can't be written" in said[0] and str(blocked) in said[0]
    assert cache.write(source) == path and len(said) == 1  # the same place, said once
    monkeypatch.setattr(cache, "write", lambda source: blocked / "kernels" / "k.py")
    with cache.locked(source):  # no lock file can be made: compiled without the lock
        pass


def test_module_not_loadable(
    tmp_path: Path, said: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A module the cache can't load (numba finding no directory it may write its cache in):
    loaded from a temporary directory, one line."""
    monkeypatch.setenv(cache.CACHE_ENV, str(tmp_path))
    source = KernelSource((), (), "X = 1\n", "u" * 20)
    imported = cache._imported
    calls: list[Path] = []

    def once(name: str, path: Path) -> ModuleType:
        calls.append(path)
        if len(calls) == 1:
            raise RuntimeError("cannot cache function 'resolve_range': no locator available")
        return imported(name, path)

    monkeypatch.setattr(cache, "_imported", once)
    try:
        assert cache.load(source).X == 1
    finally:
        sys.modules.pop(cache.PREFIX + source.digest, None)
    assert calls[0].parent == tmp_path and calls[1].parent != tmp_path
    assert len(said) == 1 and "no locator available" in said[0] and "kernels clear" in said[0]


def test_damaged_files_not_removable(
    tmp_path: Path, said: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A damaged index whose files can't be removed (a read-only cache): compiled in memory,
    nothing written, one line."""
    assert tiny(tmp_path)(2) == 4
    (index,) = (tmp_path / "__pycache__").glob("*.nbi")
    index.write_bytes(b"\x80\x05")
    damaged_bytes = index.read_bytes()

    def refuse(self: Path, missing_ok: bool = False) -> None:
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(Path, "unlink", refuse)
    double = tiny(tmp_path)
    assert cache_repair.signatures(double) == 0
    assert double(3) == 6
    assert len(said) == 1 and "compiling it in memory" in said[0]
    assert index.read_bytes() == damaged_bytes


def test_clear_fails_in_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """`kernels clear` where a file can't be removed: exit 1, one line."""

    def refuse() -> list[Path]:
        raise PermissionError(errno.EACCES, "Permission denied", "/cache/k.py")

    monkeypatch.setattr(cache, "clear", refuse)
    done = run_cli(["kernels", "clear"])
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        "ecs-combat: the kernel cache can't be emptied: [Errno 13] Permission denied: '/cache/k.py'"
    ]


def test_module_written_nowhere(
    registry: Registry, tmp_path: Path, said: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The kernel's module can be written neither to the cache nor to a temporary directory
    (a full disk): the kernel refuses its batches, the numpy engine answers, one line."""
    blocked = tmp_path / "file"
    blocked.write_text("")
    monkeypatch.setenv(cache.CACHE_ENV, str(blocked / "kernels"))

    def full(prefix: str = "") -> str:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(cache.tempfile, "mkdtemp", full)
    monkeypatch.setattr(cache, "_nowhere", {})
    text = (
        '[players.a]\nlife = 20\n[players.b]\nlife = 20\n[creatures.x]\ncontroller = "a"\n'
        'power = 2\ntoughness = 2\n[combat]\nattackers = { x = "b" }\n'
    )
    batch = scenarios_to_batch([parse_scenario(tomllib.loads(text), registry, "t.toml")], registry)
    schedule = BatchedEngine(registry, kernels=False).schedules.of([batch])
    kernel = Kernel(registry)
    monkeypatch.delitem(sys.modules, cache.PREFIX + kernel.source.digest, raising=False)
    why = kernel.refusal(schedule, batch)
    assert why.startswith("the kernel's module can't be written") and "No space left" in why
    assert kernel.refusal(schedule, batch) == why
    assert said == [f"{why}: the numpy engine resolves every batch"]
