"""Typed access to raw documents (scenarios, SPEC files) that names the place of every problem."""

from __future__ import annotations

import math
import re
import sys
import tomllib
from collections.abc import Mapping
from typing import Any

from ecs_combat.errors import InputError
from ecs_combat.suggest import did_you_mean

#: The largest magnitude of an integer in a document: far beyond any game, and small enough that
#: sums over many creatures stay exact in the batched engine's 64-bit arrays.
LIMIT = 1_000_000_000
#: The deepest tables and lists may nest in a document, counting the document itself: a scenario
#: needs 5 (``events[0].creature.counters``), a SPEC file 3.
MAX_DEPTH = 32
#: Characters a key can't hold: they would break the one-line error messages that name it.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


#: Where an item is: (where its container is, its key or index); None for the document.
_Trail = tuple["_Trail", object] | None


def _path(trail: _Trail) -> str:
    """The key path of a trail, as error messages show it."""
    keys: list[object] = []
    while trail is not None:
        trail, key = trail
        keys.append(key)
    path = ""
    for key in reversed(keys):
        if isinstance(key, int):
            path += f"[{key}]"
        else:
            shown = _CONTROL.sub(lambda m: repr(m.group())[1:-1], str(key))
            shown = shown.encode("utf-8", "backslashreplace").decode("utf-8")
            path = f"{path}.{shown}" if path else shown
    return path


def check_document(doc: Any, file: str) -> None:
    """Refuse a document that nests deeper than :data:`MAX_DEPTH`, has a key holding a control
    character, or text that is not Unicode (a lone surrogate, which JSON escapes can make).
    The first problem in document order is named; a document that is no table or list has
    nothing to check here."""
    if not isinstance(doc, Mapping | list):
        return
    stack: list[tuple[Any, int, _Trail]] = [(doc, 1, None)]
    while stack:
        item, depth, trail = stack.pop()
        if isinstance(item, str):
            if not item.isascii():
                _text(item, file, trail)
            continue
        if not isinstance(item, Mapping | list):
            continue
        if depth > MAX_DEPTH:
            raise InputError(
                file, _path(trail), f"tables and lists nest deeper than {MAX_DEPTH} levels"
            )
        items = list(item.items() if isinstance(item, Mapping) else enumerate(item))
        for key, _ in items:
            if type(key) is not int and not (type(key) is str and key.isprintable()):
                _key(key, file, (trail, key))
        for key, value in reversed(items):  # popped in document order
            if isinstance(value, str | Mapping | list):
                stack.append((value, depth + 1, (trail, key)))


def _key(key: object, file: str, trail: _Trail) -> None:
    if isinstance(key, str):
        _text(key, file, trail)
        if _CONTROL.search(key):
            raise InputError(file, _path(trail), "a key can't hold a control character")


def _text(text: str, file: str, trail: _Trail) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InputError(
            file,
            _path(trail),
            f"not valid Unicode text: a lone surrogate {text[exc.start]!r} at character "
            f"{exc.start}",
        ) from None


#: Strings, comments, brackets and line ends of TOML or JSON text, enough to follow nesting.
_TOKENS = re.compile(r"""\"(?:[^"\\\n]|\\.)*\"|'[^'\n]*'|#[^\n]*|[\[\]{}\n]""")


def too_deep(text: str, file: str, lines: bool = True) -> InputError:
    """The error for text its parser could not descend (RecursionError): it names the line where
    nesting passes :data:`MAX_DEPTH` when `lines` (text of several lines)."""
    depth, line = 0, 1
    for m in _TOKENS.finditer(text):
        token = m.group()
        if token == "\n":
            line += 1
        elif token in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                break
        elif token in "]}":
            depth -= 1
    where = f"line {line}" if lines else ""
    return InputError(file, where, f"tables and lists nest deeper than {MAX_DEPTH} levels")


def too_long_integer(text: str, file: str, lines: bool = True) -> InputError | None:
    """The error for text holding a decimal integer too long to convert (ValueError), or None."""
    limit = sys.get_int_max_str_digits()
    m = re.search(f"[0-9][0-9_]{{{limit},}}", text)
    if m is None or sum(c.isdigit() for c in m.group()) <= limit:
        return None
    where = f"line {text.count(chr(10), 0, m.start()) + 1}" if lines else ""
    return InputError(file, where, f"an integer of more than {limit:,} digits")


def decode_toml(text: str, file: str) -> Any:
    """A TOML document; every way the text can be wrong is an :class:`InputError`."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise duplicate_toml_key(text, file, str(exc)) or InputError(
            file, "", f"not valid TOML: {exc}"
        ) from None
    except RecursionError:
        raise too_deep(text, file) from None
    except ValueError as exc:  # an integer too long to convert
        raise too_long_integer(text, file) or InputError(
            file, "", f"not valid TOML: {exc}"
        ) from None


_OVERWRITE = re.compile(r"Cannot overwrite a value \(at line (\d+), column \d+\)")
_ASSIGNED = re.compile(
    r"\s*((?:[A-Za-z0-9_-]+|\"[^\"]*\"|'[^']*')(?:\s*\.\s*(?:[A-Za-z0-9_-]+|\"[^\"]*\"|'[^']*'))*)\s*="
)
_HEADER = re.compile(r"\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")


def duplicate_toml_key(text: str, file: str, message: str) -> InputError | None:
    """For TOML's "Cannot overwrite a value" error: one naming the duplicate key with its
    table (``creatures.boar.power: duplicate key 'power' (line 6)``); None for another error
    or a line this can't read."""
    found = _OVERWRITE.search(message)
    if found is None:
        return None
    n = int(found.group(1))
    lines = text.splitlines()
    if not 0 < n <= len(lines):
        return None
    assigned = _ASSIGNED.match(lines[n - 1])
    if assigned is None:
        return None
    key = ".".join(part.strip().strip("\"'") for part in assigned.group(1).split("."))
    table = ""
    for line in reversed(lines[: n - 1]):
        header = _HEADER.match(line)
        if header is not None:
            table = ".".join(p.strip().strip("\"'") for p in header.group(1).split("."))
            break
    where = f"{table}.{key}" if table else key
    return InputError(file, where, f"duplicate key {key.rsplit('.', 1)[-1]!r} (line {n})")


def describe_integer(value: int) -> str:
    """An integer as an error message shows it: its digits, or how many there are."""
    if abs(value) < 10**30:
        return str(value)
    digits = int(value.bit_length() * math.log10(2)) + 1
    return f"an integer of about {digits:,} digits"


def type_name(value: Any) -> str:
    """What a raw value is, in the words of a TOML or JSON document."""
    return {
        bool: "a boolean",
        int: "an integer",
        float: "a number",
        str: "a string",
        list: "a list",
        dict: "a table",
        type(None): "null",
    }.get(type(value), type(value).__name__)


class Checker:
    """Checks values read from one file, raising :class:`InputError` with key paths."""

    def __init__(self, file: str) -> None:
        self.file = file

    def fail(self, path: str, message: str) -> InputError:
        """The error for a problem at `path`."""
        return InputError(self.file, path, message)

    def table(self, value: Any, path: str) -> dict[str, Any]:
        """A table (dict)."""
        if not isinstance(value, Mapping):
            raise self.fail(path, f"must be a table, not {type_name(value)}")
        return dict(value)

    def keys(self, value: Mapping[str, Any], path: str, allowed: set[str] | frozenset[str]) -> None:
        """Refuse keys that are not allowed (they are usually typos)."""
        for key in value:
            if key not in allowed:
                where = f"{path}.{key}" if path else key
                raise self.fail(
                    where,
                    f"unknown key {key!r}{did_you_mean(key, allowed)} "
                    f"(allowed: {', '.join(sorted(allowed))})",
                )

    def integer(
        self, value: Any, path: str, minimum: int | None = None, maximum: int | None = None
    ) -> int:
        """An integer (not a boolean), optionally within bounds."""
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(path, f"must be an integer, not {type_name(value)}")
        if abs(value) > LIMIT:
            raise self.fail(
                path, f"{describe_integer(value)} is out of range (at most {LIMIT:,} either way)"
            )
        if maximum is not None and minimum is not None and not minimum <= value <= maximum:
            raise self.fail(path, f"must be between {minimum} and {maximum}, not {value}")
        if minimum is not None and value < minimum:
            raise self.fail(path, f"must be at least {minimum}, not {value}")
        return value

    def boolean(self, value: Any, path: str) -> bool:
        """true or false."""
        if not isinstance(value, bool):
            raise self.fail(path, f"must be true or false, not {type_name(value)}")
        return value

    def string(self, value: Any, path: str) -> str:
        """A non-empty string."""
        if not isinstance(value, str) or not value.strip():
            raise self.fail(path, f"must be a non-empty string, not {type_name(value)}")
        return value

    def string_list(self, value: Any, path: str) -> list[str]:
        """A list of non-empty strings."""
        if not isinstance(value, list):
            raise self.fail(path, f"must be a list of strings, not {type_name(value)}")
        return [self.string(v, f"{path}[{i}]") for i, v in enumerate(value)]
