"""The bundled database of real creature cards (package data; provenance in data/README.md).

Cards are looked up by exact name, case-insensitively. The whole table loads once per process,
as columns, in a single `json.loads`.
"""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass
from functools import cache
from importlib import resources

from ecs_combat.plugin.definitions import COLOR_SYMBOLS, COLORS

DATA = "data/creatures.json.gz"


@dataclass(frozen=True)
class CardFacts:
    """One real creature card as printed (its first printing's set)."""

    name: str
    mana_cost: str
    mana_value: float
    #: Color words in WUBRG order (105.1).
    colors: tuple[str, ...]
    type_line: str
    power: int
    toughness: int
    #: Rules text, lines separated by newlines; reminder text included.
    text: str
    set: str
    released: str
    #: An Un-card (silver-bordered or acorn).
    funny: bool


@dataclass(frozen=True)
class CardTable:
    """Every card of the database, as columns in name order, and an index by folded name."""

    cards: tuple[CardFacts, ...]
    by_name: dict[str, int]

    def find(self, name: str) -> CardFacts | None:
        """The card with exactly this name, ignoring case, or None."""
        i = self.by_name.get(name.casefold())
        return None if i is None else self.cards[i]

    def __len__(self) -> int:
        return len(self.cards)


def _colors(letters: str) -> tuple[str, ...]:
    found = {COLOR_SYMBOLS[ch] for ch in letters}
    return tuple(c for c in COLORS if c in found)


@cache
def database() -> CardTable:
    """The bundled card database (loaded on first use)."""
    raw = resources.files("ecs_combat.cards").joinpath(DATA).read_bytes()
    cols = json.loads(gzip.decompress(raw))
    cards = tuple(
        CardFacts(
            name=name,
            mana_cost=cost,
            mana_value=float(mv),
            colors=_colors(colors),
            type_line=type_line,
            power=power,
            toughness=toughness,
            text=text,
            set=set_code,
            released=released,
            funny=funny,
        )
        for name, cost, mv, colors, type_line, power, toughness, text, set_code, released, funny
        in zip(
            cols["name"], cols["mana_cost"], cols["mana_value"], cols["colors"],
            cols["type_line"], cols["power"], cols["toughness"], cols["text"], cols["set"],
            cols["released"], cols["funny"], strict=True,
        )
    )  # fmt: skip
    return CardTable(cards, {c.name.casefold(): i for i, c in enumerate(cards)})


def find_card(name: str) -> CardFacts | None:
    """The database card with exactly this name, ignoring case, or None."""
    return database().find(name)
