"""Keyword instances as scenarios write them: ``flanking``, ``bushido 2``, ``protection from red``,
``protection from creatures``.

Each entry of a creature's keyword list is one instance (113.2c): a keyword listed twice has
two. A keyword whose definition takes a parameter (:attr:`Keyword.parameter`) must be given
one, and no other keyword may be.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from ecs_combat.plugin.definitions import (
    COLORS,
    FROM_WORDS,
    QUALITIES,
    PowerToughness,
    normalize_keyword,
)
from ecs_combat.plugin.registry import Registry
from ecs_combat.suggest import did_you_mean

Parameter = int | str | None
#: A ``pt`` parameter as written: ``+1/+0`` (each number 0 to 999).
PT_TEXT = re.compile(r"\+([0-9]{1,3})/\+([0-9]{1,3})")


class Instance(NamedTuple):
    """One instance of a keyword: its name and its parameter (a number, a color or quality
    (:data:`~ecs_combat.plugin.definitions.FROM_WORDS`), or None)."""

    name: str
    parameter: Parameter = None

    def __str__(self) -> str:
        if self.parameter is None:
            return self.name
        if isinstance(self.parameter, int):
            return f"{self.name} {self.parameter}"
        return f"{self.name} from {self.parameter}"


def parse_instance(text: str, registry: Registry) -> Instance:
    """Read one keyword entry; ValueError says what is wrong, in the game's words."""
    words = normalize_keyword(text)
    kw = registry.keyword(words)
    if kw is not None:
        if kw.parameter == "number":
            raise ValueError(f"{kw.name!r} takes a number: write it like {kw.name + ' 1'!r}")
        if kw.parameter == "color":
            raise ValueError(f"{kw.name!r} takes a color: write it like {kw.name + ' from red'!r}")
        if kw.parameter == "pt":
            raise ValueError(f"{kw.name!r} takes +X/+Y: write it like {kw.name + ' +1/+1'!r}")
        return Instance(kw.name)
    parts = words.split(" ")
    for cut in range(len(parts) - 1, 0, -1):  # the longest keyword name the entry starts with
        kw = registry.keyword(" ".join(parts[:cut]))
        if kw is None:
            continue
        rest = parts[cut:]
        if kw.parameter == "number":
            if len(rest) != 1 or not rest[0].isdigit():
                raise ValueError(f"{kw.name!r} takes a whole number, not {' '.join(rest)!r}")
            if len(rest[0]) > 9:
                raise ValueError(f"{kw.name} {rest[0]}: the number is too large")
            return Instance(kw.name, int(rest[0]))
        if kw.parameter == "color":
            if len(rest) != 2 or rest[0] != "from" or rest[1] not in FROM_WORDS:
                given = " ".join(rest)
                word = rest[-1] if rest[0] == "from" or len(rest) == 1 else given
                raise ValueError(
                    f"{kw.name!r} takes 'from' and a color ({', '.join(COLORS)}) or a quality "
                    f"({', '.join(QUALITIES)}), not {given!r}" + did_you_mean(word, FROM_WORDS)
                )
            return Instance(kw.name, rest[1])
        if kw.parameter == "pt":
            bonus = PT_TEXT.fullmatch(rest[0]) if len(rest) == 1 else None
            if bonus is None:
                raise ValueError(f"{kw.name!r} takes +X/+Y (such as +1/+0), not {' '.join(rest)!r}")
            return Instance(kw.name, PowerToughness.of(int(bonus[1]), int(bonus[2])))
        raise ValueError(f"{kw.name!r} takes nothing after it, not {' '.join(rest)!r}")
    raise ValueError(registry.unknown_keyword_reason(text))
