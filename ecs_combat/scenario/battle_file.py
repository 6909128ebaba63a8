"""One battle's file (``.json`` or ``.toml``) read straight into columns, without a
:class:`~ecs_combat.scenario.model.Scenario`: how ``resolve`` reads a battle of many creatures.

The columns are the row reader's (:class:`~ecs_combat.scenario.quick_rows.RowReader`, which
reads the common lines of JSON Lines files the same way), so a battle is read here exactly
when it is of the common shape and the full reader would accept it; anything else (an error
to report, events, counters, a turn) gives None, and the caller reads the file with the full
reader (:func:`~ecs_combat.scenario.loader.iter_scenarios`), which names the first error with
its place. What the full reader checks of the text itself holds of the text read here: it is
ASCII without a backslash or DEL, so it has no escape, no lone surrogate and no control
character in a key; its nesting is fixed by the shape; a JSON key given twice shows as fewer
keys and strings than quotes (TOML refuses a key given twice). A JSON battle is read over
arrays without decoding it when it can be (:mod:`~ecs_combat.scenario.battle_scan`), else
decoded as lists (:mod:`~ecs_combat.scenario.battle_lists`), else as dictionaries.
"""

from __future__ import annotations

import os
import stat
import tomllib
from pathlib import Path

import orjson

from ecs_combat.scenario.battle_lists import listed_battle
from ecs_combat.scenario.battle_scan import scanned_battle
from ecs_combat.scenario.documents import MAX_FILE_BYTES
from ecs_combat.scenario.quick_rows import LineRows, RowReader, collector_paused

#: The largest file read here, the full reader's cap (a battle of 1,000,000 creatures is
#: about 100 MB of JSON); a larger one, and anything not a regular file, is left to the full
#: reader, which refuses it.
MAX_BYTES = MAX_FILE_BYTES


def read_battle(path: str | Path, reader: RowReader) -> LineRows | None:
    """The one battle of a ``.json`` or ``.toml`` file as columns, or None when the full
    reader must read it (the file can't be read, has an error, or is not of the common
    shape)."""
    suffix = Path(path).suffix.lower()
    if suffix not in (".json", ".toml"):
        return None
    try:
        with Path(path).open("rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                return None  # a device or a pipe: the full reader reads it, with its caps
            raw = f.read(MAX_BYTES + 1)
    except OSError:
        return None
    if len(raw) > MAX_BYTES:
        return None
    if not raw.isascii() or b"\\" in raw or b"\x7f" in raw or (suffix == ".toml" and b"\t" in raw):
        return None
    with collector_paused():  # a million small acyclic objects: nothing to find
        listed = None
        if suffix == ".json":  # over arrays, else as lists, else as dictionaries
            listed = scanned_battle(raw) or listed_battle(raw)
        if listed is not None:  # as dictionaries, the same columns refused
            rows, taken = reader.read([listed], [None])
        else:
            try:
                if suffix == ".json":
                    doc, quotes = orjson.loads(raw), raw.count(b'"')
                else:  # TOML refuses a key given twice: nothing to count
                    doc, quotes = tomllib.loads(raw.decode("ascii")), None
            except (orjson.JSONDecodeError, tomllib.TOMLDecodeError, RecursionError, ValueError):
                return None
            rows, taken = reader.read([doc], [quotes])
            del doc
        # the decoded document freed before the collector runs again, which would go through
        # every object of it still held
        del listed
    return rows if taken else None
