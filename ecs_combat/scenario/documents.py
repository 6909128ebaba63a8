"""Opening input files the same way for every command: scenarios (``resolve``) and SPEC files
(``simulate``).

One reader gives both commands the same messages: ``no such file``, the accepted file types,
invalid TOML or JSON, duplicate JSON keys, text that is not valid Unicode, nesting deeper than
:data:`checks.MAX_DEPTH`, integers too long to read, and a document of the other kind ("this
looks like a SPEC file: use `ecs-combat simulate`"). A ``.jsonl`` file is read one line at a
time, so memory stays bounded however long it is. A line of more than
:data:`MAX_LINE_BYTES` (64 MiB), or a ``.toml`` or ``.json`` file of more than
:data:`MAX_FILE_BYTES` (1 GiB), is refused once that much is read (an endless stream too).
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, BinaryIO, Literal

from ecs_combat.errors import InputError
from ecs_combat.scenario.checks import check_document, decode_toml, too_deep, too_long_integer

Kind = Literal["scenario", "spec"]

#: File types each kind of document may be written in.
SUFFIXES: dict[Kind, tuple[str, ...]] = {
    "scenario": (".toml", ".json", ".jsonl"),
    "spec": (".toml", ".json"),
}
#: Top-level keys that mark each kind of document (scenario format 1.1 included).
MARKS: dict[Kind, frozenset[str]] = {
    "scenario": frozenset({"players", "creatures", "combat", "events", "turn", "combats"}),
    "spec": frozenset(
        {
            "attackers",
            "blockers_per_attacker",
            "power",
            "toughness",
            "life",
            "keywords",
            "state",
            "attacker",
            "blocker",
            "casts",
            "decisions",
            "matchup",
            "turn",
            "pool",
            "race",
        }
    ),
}
#: The most bytes one line of a JSON Lines file may hold (64 MiB): a longer line (an endless
#: one, such as a ``.jsonl`` name for ``/dev/zero``) is refused once this much is read.
MAX_LINE_BYTES = 64 << 20
#: The most bytes a ``.toml`` or ``.json`` file may hold (1 GiB): a battle of a million
#: creatures written as JSON is about 100 MB. A larger file (an endless one) is refused
#: once this much is read.
MAX_FILE_BYTES = 1 << 30
#: Bytes read at a time from a ``.toml`` or ``.json`` file (its UTF-8 checked as it comes).
_READ_CHUNK = 1 << 20
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_WHAT: dict[Kind, str] = {"scenario": "a scenario", "spec": "a SPEC file"}
_COMMAND: dict[Kind, str] = {"scenario": "ecs-combat resolve", "spec": "ecs-combat simulate"}
#: What an empty file lacks, said in its error.
_NEEDS: dict[Kind, str] = {
    "scenario": "a scenario needs [players.NAME] and [creatures.NAME] tables (docs/scenarios.md)",
    "spec": "a SPEC file needs at least one key, such as attackers = 2 (docs/simulate.md); "
    "without a SPEC, `ecs-combat simulate` runs the keyword tournament",
}


class _Duplicated(dict[str, Any]):
    """A JSON object that had a key twice (:class:`_DuplicateKeyDecoder`)."""

    duplicate: str = ""


class _DuplicateKeyDecoder:
    """Decodes JSON objects, marking one that has a key twice; :meth:`check` then names it
    with the path of its table (the hook alone doesn't know where an object is)."""

    def __init__(self, file: str) -> None:
        self.file = file
        #: Whether some object had a key twice.
        self.found = False

    def __call__(self, pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in pairs:
            if key in out:
                self.found = True
                marked = _Duplicated(out)
                marked.duplicate = key
                return marked
            out[key] = value
        return out

    def check(self, doc: Any, path: str = "") -> None:
        """Raise the :class:`InputError` of the first duplicate key, in document order."""
        if isinstance(doc, _Duplicated):
            key = doc.duplicate
            raise InputError(self.file, f"{path}.{key}" if path else key, f"duplicate key {key!r}")
        if isinstance(doc, dict):
            for key, value in doc.items():
                self.check(value, f"{path}.{key}" if path else key)
        elif isinstance(doc, list):
            for i, value in enumerate(doc):
                self.check(value, f"{path}[{i}]")


def is_turn(doc: Any) -> bool:
    """Whether a raw document describes a turn (it has ``turn`` or ``combats``)."""
    return isinstance(doc, Mapping) and bool(doc.keys() & {"turn", "combats"})


def is_race(doc: Any) -> bool:
    """Whether a raw document describes a race (it has ``race``)."""
    return isinstance(doc, Mapping) and "race" in doc


def file_kind(path: str | Path) -> Literal["race", "turn", "combat"]:
    """What a scenario file holds, by its first document: a race (``race``), turns (``turn``
    or ``combats``) or combats (anything else, an empty file too). Reads only that document;
    an unreadable file is an :class:`InputError`."""
    for _, doc in read_documents(path, "scenario"):
        return "race" if is_race(doc) else "turn" if is_turn(doc) else "combat"
    return "combat"


def is_turn_file(path: str | Path) -> bool:
    """Whether a scenario file holds turns: its first document has ``turn`` or ``combats``.
    Reads only that document; an unreadable file is an :class:`InputError`."""
    for _, doc in read_documents(path, "scenario"):
        return is_turn(doc)
    return False


#: Reads some lines of a JSON Lines file at once (their bytes, their locations): what it gives
#: for a line instead of None is yielded in place of its document.
Quick = Callable[[list[bytes], list[str]], list[Any]]
#: Lines of a JSON Lines file read quickly at a time, and the most bytes they take.
QUICK_LINES, QUICK_BYTES = 1024, 1 << 24


def read_documents(
    path: str | Path, kind: Kind, quick: Quick | None = None
) -> Iterator[tuple[str, Any]]:
    """Yield (location, raw document) for each document in a file: one for .toml and .json,
    one per non-blank line for .jsonl (location ``FILE:LINE``), read as it goes (`quick`
    reads :data:`QUICK_LINES` lines at a time first, :class:`Quick`)."""
    p = Path(path)
    file = str(path)
    suffix = p.suffix.lower()
    if suffix not in SUFFIXES[kind]:
        raise InputError(file, "", f"unknown file type: use {_either(SUFFIXES[kind])}")
    if suffix == ".jsonl":
        yield from _json_lines(p, file, kind, quick)
        return
    text = _read(p, file)
    if not text.strip():
        raise InputError(file, "", f"the file is empty: {_NEEDS[kind]}")
    if suffix == ".toml":
        doc = decode_toml(text, file)
        check_document(doc, file)
        if kind == "scenario" and doc == {}:
            raise InputError(file, "", f"the file holds only comments: {_NEEDS[kind]}")
        yield file, checked(doc, file, kind, file, surrogates=False)
    else:
        doc = decode_json(text, file)
        check_document(doc, file)
        yield file, checked(doc, file, kind, file, surrogates=_may_escape_surrogates(text))


def _read(p: Path, file: str) -> str:
    """A file's text, or an :class:`InputError` saying why it can't be read: read a chunk at
    a time and checked as it comes (random bytes or a NUL byte are refused at once), and
    refused past :data:`MAX_FILE_BYTES` (an endless file too)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    parts: list[str] = []
    size = 0
    try:
        with p.open("rb") as stream:
            while chunk := stream.read(_READ_CHUNK):
                if size + len(chunk) > MAX_FILE_BYTES:
                    raise InputError(file, "", _too_large("the file", MAX_FILE_BYTES))
                pending = len(decoder.getstate()[0])
                try:
                    parts.append(decoder.decode(chunk))
                except UnicodeDecodeError as exc:
                    at = size - pending + exc.start
                    raise InputError(file, f"byte {at}", "not valid UTF-8 text") from None
                if (nul := chunk.find(b"\0")) >= 0:  # TOML and JSON refuse it raw
                    raise InputError(file, f"byte {size + nul}", "a NUL byte: not text")
                size += len(chunk)
            try:
                parts.append(decoder.decode(b"", final=True))
            except UnicodeDecodeError as exc:  # the file ends inside a character
                at = size - len(decoder.getstate()[0]) + exc.start
                raise InputError(file, f"byte {at}", "not valid UTF-8 text") from None
    except FileNotFoundError:
        raise InputError(file, "", "no such file") from None
    except IsADirectoryError:
        raise InputError(file, "", "is a directory, not a file") from None
    except PermissionError:
        raise InputError(file, "", "permission denied") from None
    except OSError as exc:
        raise InputError(file, "", f"cannot read: {exc.strerror or exc}") from None
    return "".join(parts)


def _too_large(what: str, cap: int) -> str:
    size = f"{cap >> 20:,} MiB ({cap:,} bytes)" if cap >= 1 << 20 else f"{cap:,} bytes"
    return f"{what} is larger than {size}, the most ecs-combat reads"


class _TooLong(bytes):
    """What a JSON Lines file gives in place of a line longer than :data:`MAX_LINE_BYTES`
    (not ASCII: no quick reader takes it); :func:`json_line_document` refuses it."""


class JsonLines:
    """A JSON Lines file's lines as bytes, read one at a time: a line longer than
    :data:`MAX_LINE_BYTES` is given as a :class:`_TooLong` marker, the last line given."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self._over = False

    def __enter__(self) -> JsonLines:
        return self

    def __exit__(self, *exc: object) -> None:
        self._stream.close()

    def __iter__(self) -> Iterator[bytes]:
        return self

    def __next__(self) -> bytes:
        if self._over:
            raise StopIteration
        line = self._stream.readline(MAX_LINE_BYTES + 1)
        if not line:
            raise StopIteration
        if len(line) > MAX_LINE_BYTES and not (
            len(line) == MAX_LINE_BYTES + 1 and line.endswith(b"\n")
        ):
            self._over = True
            return _TooLong(b"\xff")
        return line


def _json_lines(p: Path, file: str, kind: Kind, quick: Quick | None) -> Iterator[tuple[str, Any]]:
    """The documents of a JSON Lines file, one line at a time (what `quick` reads of a line
    instead, some lines at a time)."""
    with open_json_lines(p, file) as stream:
        if quick is None:
            for n, raw in enumerate(stream, 1):
                doc = json_line_document(raw, f"{file}:{n}", kind, file)
                if doc is not None:
                    yield f"{file}:{n}", doc
            return
        n = 0
        while raws := _some_lines(stream):
            wheres = [f"{file}:{n + i}" for i in range(1, len(raws) + 1)]
            n += len(raws)
            for raw, where, found in zip(raws, wheres, quick(raws, wheres), strict=True):
                if found is None:
                    found = json_line_document(raw, where, kind, file)
                if found is not None:
                    yield where, found


def _some_lines(stream: JsonLines) -> list[bytes]:
    """The next :data:`QUICK_LINES` lines, fewer once they hold :data:`QUICK_BYTES`."""
    raws: list[bytes] = []
    size = 0
    for raw in stream:
        raws.append(raw)
        size += len(raw)
        if len(raws) == QUICK_LINES or size >= QUICK_BYTES or isinstance(raw, _TooLong):
            break
    return raws


def open_json_lines(p: Path, file: str) -> JsonLines:
    """A JSON Lines file opened to be read line by line (as bytes, :class:`JsonLines`), or an
    :class:`InputError` saying why it can't be."""
    try:
        return JsonLines(p.open("rb"))
    except FileNotFoundError:
        raise InputError(file, "", "no such file") from None
    except IsADirectoryError:
        raise InputError(file, "", "is a directory, not a file") from None
    except PermissionError:
        raise InputError(file, "", "permission denied") from None
    except OSError as exc:
        raise InputError(file, "", f"cannot read: {exc.strerror or exc}") from None


def json_line_document(raw: bytes, where: str, kind: Kind, file: str) -> Any:
    """The document of one line of a JSON Lines file read at `where` (``FILE:LINE``), checked
    as a document of `kind`; None for a blank line; an :class:`InputError` if it is not
    one."""
    if isinstance(raw, _TooLong):
        raise InputError(where, "", _too_large("the line", MAX_LINE_BYTES))
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(where, f"byte {exc.start}", "not valid UTF-8 text") from None
    if not line.strip():
        return None
    doc = decode_json(line, where, lines=False)
    check_document(doc, where)
    return checked(doc, where, kind, file, surrogates=_may_escape_surrogates(line))


def decode_json(text: str, file: str, lines: bool = True) -> Any:
    """A JSON document; `lines` tells whether the text may have several lines to name."""
    decoder = _DuplicateKeyDecoder(file)
    try:
        doc = json.loads(text, object_pairs_hook=decoder)
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno}" if lines else ""
        raise InputError(file, where, f"not valid JSON: {exc.msg}") from None
    except RecursionError:
        raise too_deep(text, file, lines) from None
    except ValueError as exc:  # an integer too long to convert
        found = too_long_integer(text, file, lines)
        raise found or InputError(file, "", f"not valid JSON: {exc}") from None
    if decoder.found:
        try:
            decoder.check(doc)
        except RecursionError:
            raise too_deep(text, file, lines) from None
    return doc


def checked(doc: Any, where: str, kind: Kind, file: str, surrogates: bool = True) -> Any:
    """The document read at `where` in `file`, once its text is known to be valid Unicode (if
    it may hold `surrogates`) and it is not of the other kind; an :class:`InputError` naming
    the place otherwise."""
    if surrogates:
        _check_text(doc, where, "")
    other: Kind = "spec" if kind == "scenario" else "scenario"
    shared = MARKS[kind] & MARKS[other]  # `turn`: a turn file's and a SPEC's
    if isinstance(doc, Mapping) and not doc.keys() & (MARKS[kind] - shared):
        found = sorted(doc.keys() & (MARKS[other] - shared))
        if found:
            what = "a turn file" if other == "scenario" and "turn" in doc else _WHAT[other]
            raise InputError(
                where,
                "",
                f"this looks like {what} (it has {_some(found)}), "
                f"not {_WHAT[kind]}: use `{_COMMAND[other]} {file}`",
            )
    return doc


def _may_escape_surrogates(text: str) -> bool:
    """Whether JSON text may hold a surrogate: only a ``\\uD800``-``\\uDFFF`` escape writes one
    (TOML refuses them, and decoded UTF-8 never has them)."""
    return _SURROGATE_ESCAPE.search(text) is not None


def _check_text(value: Any, file: str, path: str) -> None:
    """Refuse strings (keys too) that are not valid Unicode text, such as a lone surrogate
    written ``"\\ud800"`` in JSON: no name could be printed or stored."""
    if isinstance(value, str):
        _check_string(value, file, path)
    elif isinstance(value, Mapping):
        for key, item in value.items():
            where = f"{path}.{key}" if path else str(key)
            if isinstance(key, str):
                _check_string(key, file, where)
            _check_text(item, file, where)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _check_text(item, file, f"{path}[{i}]")


def _check_string(text: str, file: str, path: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InputError(
            file,
            path,
            f"not valid Unicode text: a lone surrogate {text[exc.start]!r} at character "
            f"{exc.start}",
        ) from None


def _either(items: tuple[str, ...]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} or {items[-1]}"


def _some(keys: list[str]) -> str:
    return ", ".join(keys) if len(keys) <= 3 else f"{', '.join(keys[:3])}, ..."
