"""Writing ``resolve FILE.jsonl --json``: one JSON document a line, the text of
``json.dumps(doc)`` (``", "`` and ``": "`` between items, ASCII), made quickly.

:func:`json_line` encodes with orjson, which writes no spaces, and adds them outside strings:
exact when its text is ASCII without a backslash or DEL (which json escapes), where every ``"`` opens or closes a string.
Anything else (a non-ASCII or escaped character, a float, null, a value orjson refuses) is
written by ``json.dumps`` itself.
"""

from __future__ import annotations

import json
from typing import Any, TextIO

import orjson


def json_line(doc: Any) -> str:
    """``json.dumps(doc)``, for a document of strings, integers, booleans, None, lists and
    tables with string keys."""
    try:
        raw = orjson.dumps(doc)
    except TypeError:  # orjson.JSONEncodeError: an integer beyond 64 bits, a key not a string
        return json.dumps(doc)
    if not raw.isascii() or b"\\" in raw or b"\x7f" in raw:  # json escapes these its own way
        return json.dumps(doc)
    parts = raw.split(b'"')
    outside = parts[::2]
    words = b"".join(outside).replace(b"true", b"").replace(b"false", b"")
    if b"." in words or b"e" in words or b"null" in words:
        return json.dumps(doc)  # a float, or null, which orjson writes for NaN
    inside = b"".join(parts[1::2])
    if b"," not in inside and b":" not in inside:  # every , and : separates
        return raw.replace(b",", b", ").replace(b":", b": ").decode("ascii")
    parts[::2] = [p.replace(b",", b", ").replace(b":", b": ") for p in outside]
    return b'"'.join(parts).decode("ascii")


def json_document(doc: Any) -> str:
    """``json.dumps(doc, indent=2)`` (what ``resolve FILE --json`` prints), made by orjson
    when that is the same text: ASCII without a backslash, no float or null."""
    try:
        raw = orjson.dumps(doc, option=orjson.OPT_INDENT_2)
    except TypeError:  # orjson.JSONEncodeError: an integer beyond 64 bits, a key not a string
        return json.dumps(doc, indent=2)
    if not raw.isascii() or b"\\" in raw or b"\x7f" in raw:
        return json.dumps(doc, indent=2)
    outside = b"".join(raw.split(b'"')[::2]).replace(b"true", b"").replace(b"false", b"")
    if b"." in outside or b"e" in outside or b"null" in outside:
        return json.dumps(doc, indent=2)
    return raw.decode("ascii")


class LineWriter:
    """Writes lines to a text stream, flushing every `every` lines (a batch: its results are
    known together) and when asked (before an error is printed, at the end)."""

    def __init__(self, stream: TextIO, every: int = 1) -> None:
        self.stream = stream
        self.every = every
        self.pending = 0

    def write(self, line: str) -> None:
        self.stream.write(line + "\n")
        self.pending += 1
        if self.pending >= self.every:
            self.flush()

    def flush(self) -> None:
        self.stream.flush()
        self.pending = 0
