"""``resolve FILE.jsonl --engine batched --json``, a chunk of lines at a time, with no Python
object for each common line: its text as bytes, orjson's document, the batch's columns
(:class:`~ecs_combat.scenario.quick_rows.RowReader`, :mod:`ecs_combat.batched.lines`), the
result's text from the run's arrays (:mod:`ecs_combat.batched.result_text`).

The lines of a chunk that are not of the common shape are read as before (the quick reader,
else the full reader, with its messages) and resolved as before
(:func:`~ecs_combat.cli.stream.resolve_stream`); each line's text is written in the order of
the file. The output, the messages and what is written before an error are the line-by-line
path's: when line N is invalid or refused, the results of the lines before it are written,
then :class:`~ecs_combat.cli.stream.StreamError` is raised.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator, Sequence
from itertools import islice
from pathlib import Path
from typing import TextIO, overload

from ecs_combat.batched import BatchedEngine, rows_to_batch
from ecs_combat.cards.notes import result_json
from ecs_combat.cli.json_lines import json_line
from ecs_combat.cli.stream import BATCH, StreamError, resolve_stream
from ecs_combat.errors import InputError, RefusedError
from ecs_combat.plugin.registry import Registry
from ecs_combat.rules.result import CombatResult
from ecs_combat.scenario.documents import json_line_document, open_json_lines
from ecs_combat.scenario.loader import parse_scenario
from ecs_combat.scenario.model import Scenario
from ecs_combat.scenario.quick import QuickReader
from ecs_combat.scenario.quick_rows import RowReader, collector_paused, decode_lines

#: Lines read, resolved and written at a time: about 8,000 creatures for two a line; 100,000
#: such lines take 61 MB in all (varied lines with keywords about 110 MB). 8,192 and 16,384
#: lines were no faster and took more.
CHUNK = 4096


class LineResolver:
    """Resolves the lines of JSON Lines files with the batched engine, writing the text of
    ``--json``."""

    def __init__(self, registry: Registry, engine: BatchedEngine, chunk: int | None = None) -> None:
        self.registry = registry
        self.engine = engine
        self.chunk = chunk or CHUNK
        self.rows = RowReader(registry)
        self.quick = QuickReader(registry, self.rows.legality)

    def stream(self, file: str, out: TextIO) -> Iterator[tuple[Scenario, CombatResult]]:
        """:meth:`write`, as the stream of :func:`resolve_stream` does its work: writing every
        result as it is iterated, yielding none."""
        self.write(file, out)
        yield from ()

    def write(self, file: str, out: TextIO) -> None:
        """Resolve every line of `file`, writing each result's line to `out` (flushed once a
        chunk). Raises :class:`StreamError` for the first invalid or refused line, after
        writing the results of the lines before it."""
        done = 0
        try:
            with open_json_lines(Path(file), file) as stream:
                for first, raws in _chunks(stream, self.chunk):
                    with collector_paused():  # many small acyclic objects: nothing to find
                        done = self._chunk(file, first, raws, done, out)
                    gc.collect(0)  # but the run's few cycles, made since the last collection
        except InputError as exc:  # the file can't be read
            raise StreamError(exc, exc.file, done) from None
        if not done:
            raise StreamError(InputError(file, "", "the file holds no scenario"), file, 0)

    def _chunk(self, file: str, first: int, raws: list[bytes], done: int, out: TextIO) -> int:
        """Resolve and write one chunk, lines ``first``, ``first + 1``, ... ; the number of
        results written in all."""
        places, docs, quotes = decode_lines(raws)
        rows, taken = self.rows.read(docs, quotes)
        quick = taken if len(places) == len(raws) else [places[k] for k in taken]
        slow: list[tuple[int, Scenario]] = []  # (place in the chunk, scenario)
        failure: InputError | None = None
        fast = set(quick) if len(quick) < len(raws) else set()
        end = len(raws)
        for i, raw in enumerate(raws if len(quick) < len(raws) else ()):
            if i in fast:
                continue
            try:
                # the quick reader takes the lines the row reader takes, when it is usable
                scenario = self._scenario(raw, f"{file}:{first + i}", not self.rows.usable)
            except InputError as exc:
                failure, end = exc, i
                break
            if scenario is not None:
                slow.append((i, scenario))
        if quick and quick[-1] >= end:  # leave out the quick lines after the failure
            keep = sum(1 for p in quick if p < end)
            chosen = taken[:keep]
            rows, _ = self.rows.read([docs[k] for k in chosen], [quotes[k] for k in chosen])
            quick = quick[:keep]
        text = ""
        if quick:
            files = _Places(file, first, quick)
            try:
                text = self.engine.json_lines(rows_to_batch(rows, self.registry, files))
            except (InputError, RefusedError):  # resolved as before, a batch at a time
                slow += [(i, self._scenario_of(raws[i], f"{file}:{first + i}")) for i in quick]
                slow.sort(key=lambda pair: pair[0])
                quick = []
        if not slow:
            out.write(text)
            out.flush()
            done += len(quick)
        else:
            done = self._write(quick, text.split("\n"), slow, done, out)
        if failure is not None:
            raise StreamError(failure, failure.file, done)
        return done

    def _write(
        self,
        quick: list[int],
        lines: list[str],
        slow: list[tuple[int, Scenario]],
        done: int,
        out: TextIO,
    ) -> int:
        """Write the results of a chunk's lines in the file's order: the quick lines' text, the
        others resolved as the line-by-line path resolves them."""
        parts: list[str] = []
        pairs = resolve_stream((sc for _, sc in slow), self.engine, BATCH)
        k = 0
        try:
            for i, _ in slow:
                while k < len(quick) and quick[k] < i:
                    parts.append(lines[k])
                    k += 1
                scenario, result = next(pairs)
                parts.append(json_line(result_json(scenario, result)))
        except StreamError as exc:
            _flush(parts, out)
            raise StreamError(exc.error, exc.scenario, done + len(parts)) from None
        parts += lines[k : len(quick)]
        _flush(parts, out)
        return done + len(parts)

    def _scenario(self, raw: bytes, where: str, quick: bool = True) -> Scenario | None:
        """A line read as the line-by-line path reads it: the quick reader (if `quick`), else
        the full reader; None for a blank line."""
        found = self.quick.scenario(raw, where) if quick else None
        if found is not None:
            return found
        doc = json_line_document(raw, where, "scenario", where.rpartition(":")[0])
        return None if doc is None else parse_scenario(doc, self.registry, where)

    def _scenario_of(self, raw: bytes, where: str) -> Scenario:
        found = self._scenario(raw, where)
        assert found is not None  # a line the row reader took
        return found


def _chunks(stream: Iterator[bytes], size: int) -> Iterator[tuple[int, list[bytes]]]:
    """The lines of a stream `size` at a time, with the number of the first."""
    first = 1
    while raws := list(islice(stream, size)):
        yield first, raws
        first += len(raws)


class _Places(Sequence[str]):
    """Where each quick line of a chunk is (``FILE:LINE``), made when asked (for a message)."""

    def __init__(self, file: str, first: int, places: list[int]) -> None:
        self.file, self.first, self.places = file, first, places

    @overload
    def __getitem__(self, i: int) -> str: ...

    @overload
    def __getitem__(self, i: slice) -> Sequence[str]: ...

    def __getitem__(self, i: int | slice) -> str | Sequence[str]:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        return f"{self.file}:{self.first + self.places[i]}"

    def __len__(self) -> int:
        return len(self.places)


def _flush(parts: list[str], out: TextIO) -> None:
    if parts:
        out.write("\n".join(parts) + "\n")
    out.flush()
