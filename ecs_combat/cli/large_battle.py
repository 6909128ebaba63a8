"""``resolve FILE`` for a battle of many creatures: the engine chosen by the battle's size, and
``--json`` written from the batched engine's arrays.

A battle of :data:`LARGE_BATTLE` creatures or more is resolved with the batched engine unless
``--engine`` says otherwise, and standard error says so. A ``.json`` or ``.toml`` file of at
least :data:`LARGE_FILE` bytes holding one battle of the common shape is read straight into
columns (:func:`~ecs_combat.scenario.battle_file.read_battle`); with the batched engine and
``--json`` its result's text, ``json.dumps(result, indent=2)``, is made from the run's arrays
(:func:`~ecs_combat.batched.result_text.json_pieces`) and written as it is made. Anything
else takes the ordinary path (the full reader, its messages, a :class:`CombatResult`), with
the same output. This module imports only click until a large file is read (a small
scenario's ``resolve`` starts quickly).
"""

from __future__ import annotations

import os
import stat
import sys
from typing import TYPE_CHECKING, BinaryIO

import click

from ecs_combat.errors import InputError, RefusedError

if TYPE_CHECKING:
    from ecs_combat.plugin.registry import Registry
    from ecs_combat.scenario.quick_rows import LineRows

#: Creatures from which ``resolve`` picks the batched engine for a battle, unless told.
LARGE_BATTLE = 1_000
#: Bytes from which a ``.json`` or ``.toml`` file is read into columns first (a battle of
#: 1,000 creatures is about 50 KB or more): a smaller one is read by the full reader alone.
LARGE_FILE = 1 << 15
#: glibc's ``mallopt`` options: freed memory kept up to a size, memory asked for ahead, the
#: size from which a block is mapped on its own (and unmapped when freed).
_M_TRIM_THRESHOLD, _M_TOP_PAD, _M_MMAP_THRESHOLD = -1, -2, -3


def pick_engine(given: str | None, creatures: int, file: str) -> str:
    """The engine `given` with ``--engine``; else the batched engine for a battle of
    :data:`LARGE_BATTLE` creatures or more (said on standard error), the reference engine for
    a smaller one."""
    if given is not None:
        return given
    if creatures < LARGE_BATTLE:
        return "reference"
    click.echo(
        f"ecs-combat: {file}: {creatures:,} creatures, resolved with the batched engine "
        f"(from {LARGE_BATTLE:,}; --engine reference to use the reference engine)",
        err=True,
    )
    return "batched"


def read_columns(registry: Registry, file: str) -> LineRows | None:
    """The battle of a large ``.json`` or ``.toml`` file as columns, or None for the ordinary
    path."""
    try:
        found = os.stat(file)
    except OSError:
        return None
    if not stat.S_ISREG(found.st_mode) or found.st_size < LARGE_FILE:
        return None
    from ecs_combat.scenario.battle_file import read_battle
    from ecs_combat.scenario.quick_rows import RowReader

    keep_freed_memory()
    return read_battle(file, RowReader(registry))


def keep_freed_memory() -> None:
    """Have the C library (glibc's ``mallopt``; elsewhere nothing) keep the memory freed by a
    large battle's arrays for the next ones instead of returning it to the system: each
    array of a million values otherwise takes its pages afresh, a page fault per 4 KB (a
    third of the page faults of a 1,000,000-creature ``resolve``, and of its system time)."""
    import ctypes

    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError, TypeError):  # no such C library, or no mallopt
        return
    for option, size in ((_M_TRIM_THRESHOLD, 1 << 30), (_M_TOP_PAD, 1 << 28)):
        mallopt(option, size)
    mallopt(_M_MMAP_THRESHOLD, (1 << 32) - 1)


def write_json(registry: Registry, rows: LineRows, file: str, out: BinaryIO | None = None) -> bool:
    """Resolve a battle read as columns with the batched engine and write ``--json``'s text
    (``json.dumps(result, indent=2)`` and a line end); False, having written nothing, when the
    engine refuses the battle or its text can't be made from arrays (the ordinary path then
    resolves it, with its messages)."""
    from ecs_combat.batched import BatchedEngine, rows_to_batch

    try:
        pieces = BatchedEngine(registry).json_document(rows_to_batch(rows, registry, [file]))
    except (InputError, RefusedError, ValueError):
        return False
    if out is None:
        sys.stdout.flush()
        out = sys.stdout.buffer
    for piece in pieces:
        out.write(piece.encode("ascii"))
    out.flush()
    return True
