"""Typed access to raw documents (scenarios, SPEC files) that names the place of every problem."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ecs_combat.errors import InputError

#: The largest magnitude of an integer in a document: far beyond any game, and small enough that
#: sums over many creatures stay exact in the batched engine's 64-bit arrays.
LIMIT = 1_000_000_000


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
                    where, f"unknown key {key!r} (allowed: {', '.join(sorted(allowed))})"
                )

    def integer(
        self, value: Any, path: str, minimum: int | None = None, maximum: int | None = None
    ) -> int:
        """An integer (not a boolean), optionally within bounds."""
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(path, f"must be an integer, not {type_name(value)}")
        if abs(value) > LIMIT:
            raise self.fail(path, f"{value} is out of range (at most {LIMIT:,} either way)")
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
