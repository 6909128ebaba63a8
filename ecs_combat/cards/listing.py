"""The card library as one list: the database's creature cards and the plugins' cards.

Each entry has the facts CONTRACT section 7 lists (name, mana cost, mana value, colors, types,
and for creatures power, toughness and keywords), how exactly the loaded plugins model it
(status and ignored text), its first set and its source (``database`` or the plugin's name).
A plugin's card with the name of a database card stands in its place (with its set).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ecs_combat.cards.database import CardFacts, database
from ecs_combat.cards.library import (
    DATABASE,
    CreatureCard,
    database_creature,
    modelings,
    plugin_creature,
    plugin_of_card,
)
from ecs_combat.plugin.definitions import Card, SplitCard
from ecs_combat.plugin.registry import Registry
from ecs_combat.scenario.instances import Instance, parse_instance

#: Card types (205.2a) as they appear on type lines, lower case.
CARD_TYPES = (
    "artifact", "battle", "creature", "enchantment", "instant", "kindred", "land",
    "planeswalker", "sorcery", "tribal",
)  # fmt: skip
EXACT = "exact"
APPROXIMATE = "approximate"


@dataclass(frozen=True)
class CardEntry:
    """One card of the library as ``ecs-combat cards`` shows it."""

    name: str
    mana_cost: str
    mana_value: float
    colors: tuple[str, ...]
    types: tuple[str, ...]
    type_line: str
    text: str
    #: The first set it was printed in (database cards), else None.
    set: str | None
    #: ``database`` or the plugin's name.
    source: str
    #: What a creature made from it gets (None for a spell).
    creature: CreatureCard | None = None
    #: A split card's halves, else empty.
    faces: tuple[CardEntry, ...] = ()

    @property
    def keywords(self) -> tuple[str, ...]:
        """The keyword instances the plugins model (a creature card's)."""
        return self.creature.keywords if self.creature is not None else ()

    @property
    def ignored(self) -> tuple[str, ...]:
        """Its rules text no loaded plugin models."""
        return self.creature.ignored if self.creature is not None else ()

    @property
    def status(self) -> str:
        """``exact`` or ``approximate``."""
        return APPROXIMATE if self.ignored else EXACT

    def to_json(self) -> dict[str, Any]:
        """The JSON object of CONTRACT section 7."""
        out: dict[str, Any] = {
            "name": self.name,
            "mana_cost": self.mana_cost,
            "mana_value": _number(self.mana_value),
            "colors": list(self.colors),
            "types": list(self.types),
            "type_line": self.type_line,
        }
        if self.creature is not None:
            out |= {
                "power": self.creature.power,
                "toughness": self.creature.toughness,
                "keywords": list(self.creature.keywords),
            }
        out |= {
            "status": self.status,
            "ignored_text": list(self.ignored),
            "text": self.text,
            "set": self.set,
            "source": self.source,
        }
        if self.faces:
            out["faces"] = [face.to_json() for face in self.faces]
        return out


def _number(value: float) -> float | int:
    return int(value) if float(value).is_integer() else value


def types_of(type_line: str) -> tuple[str, ...]:
    """The card types a database card's type line names; a creature card at least."""
    words = type_line.split("—")[0].lower().split()
    found = tuple(w for w in words if w in CARD_TYPES)
    return found or ("creature",)


def database_entry(facts: CardFacts, creature: CreatureCard) -> CardEntry:
    """A database card."""
    return CardEntry(
        facts.name,
        facts.mana_cost,
        facts.mana_value,
        facts.colors,
        types_of(facts.type_line),
        facts.type_line,
        facts.text,
        facts.set,
        DATABASE,
        creature,
    )


def plugin_entry(card: Card | SplitCard, registry: Registry, set_code: str | None) -> CardEntry:
    """A plugin's card; a split card with its halves as `faces`."""
    source = plugin_of_card(card.name, registry) or "plugin"
    if isinstance(card, SplitCard):
        faces = tuple(plugin_entry(face, registry, None) for face in card.faces)
        return CardEntry(
            card.name,
            " // ".join(face.cost for face in card.faces),
            card.mana_value,
            card.colors,
            card.types,
            " // ".join(face.printed_type_line for face in card.faces),
            "\n//\n".join(face.text for face in card.faces),
            set_code,
            source,
            faces=faces,
        )
    return CardEntry(
        card.name,
        card.cost,
        card.mana_value,
        card.colors,
        card.types,
        card.printed_type_line,
        card.text,
        set_code,
        source,
        plugin_creature(card, registry) if card.is_creature else None,
    )


def library_entries(registry: Registry) -> list[CardEntry]:
    """Every card of the library in name order: the plugins' and the database's."""
    table = database()
    plugin = registry.library()
    taken = {c.name.casefold() for c in plugin}
    entries = []
    for card in plugin:
        facts = table.find(card.name)
        entries.append(plugin_entry(card, registry, None if facts is None else facts.set))
    for facts, modeling in zip(table.cards, modelings(registry), strict=True):
        if facts.name.casefold() not in taken:
            entries.append(database_entry(facts, database_creature(facts, modeling)))
    entries.sort(key=lambda e: e.name.casefold())
    return entries


@dataclass(frozen=True)
class CardQuery:
    """What ``ecs-combat cards`` asks for; every filter given must hold."""

    #: Part of the name (or a split card's half's name), any case.
    text: str = ""
    #: Keywords it must have: a name (``bushido``: any number) or an instance (``bushido 2``).
    keywords: tuple[Instance | str, ...] = ()
    mana_value: float | None = None
    #: Colors it must have; ``colorless``: none.
    colors: tuple[str, ...] = ()
    set: str | None = None
    status: str | None = None
    plugin_only: bool = False

    def matches(self, entry: CardEntry) -> bool:
        """Whether the card passes every filter."""
        names = [entry.name, *(face.name for face in entry.faces)]
        if self.text and not any(self.text.casefold() in n.casefold() for n in names):
            return False
        if self.mana_value is not None and entry.mana_value != self.mana_value:
            return False
        for color in self.colors:
            if color not in entry.colors if color != "colorless" else entry.colors:
                return False
        if self.set is not None and (entry.set or "").casefold() != self.set.casefold():
            return False
        if self.status is not None and entry.status != self.status:
            return False
        if self.plugin_only and entry.source == DATABASE:
            return False
        return all(_has_keyword(entry, k) for k in self.keywords)


def _has_keyword(entry: CardEntry, wanted: Instance | str) -> bool:
    if isinstance(wanted, str):
        return any(k == wanted or k.startswith(f"{wanted} ") for k in entry.keywords)
    return str(wanted) in entry.keywords


def keyword_filter(text: str, registry: Registry) -> Instance | str:
    """A ``--keyword`` value: a keyword's name, or one instance (``bushido 2``); ValueError
    says why it is neither."""
    kw = registry.keyword(text)
    if kw is not None:
        return kw.name
    try:
        return parse_instance(text, registry)
    except ValueError:
        raise ValueError(registry.unknown_keyword_reason(text)) from None


def counts(entries: Iterable[CardEntry]) -> tuple[int, int]:
    """How many of the cards are exact and approximate."""
    exact = approximate = 0
    for entry in entries:
        if entry.status == EXACT:
            exact += 1
        else:
            approximate += 1
    return exact, approximate


def find_entries(query: CardQuery, entries: Sequence[CardEntry]) -> list[CardEntry]:
    """The entries the query matches, in order."""
    return [e for e in entries if query.matches(e)]
