"""Creature cards by name, for scenarios: the plugins' creature cards first, then the database.

``card = "Serra Angel"`` on a creature takes its name, power, toughness, colors and keywords
from here (:func:`creature_card`). A misspelt name gets the closest card names
(:func:`closest_card_names`), found among the names sharing a word's first letters with it
(an index built once per process), so a typo costs milliseconds rather than a pass of
:mod:`difflib` over every name.
"""

from __future__ import annotations

import difflib
from collections import OrderedDict
from dataclasses import dataclass
from functools import cache
from typing import Any

from ecs_combat.cards.database import CardFacts, database
from ecs_combat.cards.modeling import LineReader, Modeling, model_card
from ecs_combat.plugin.definitions import CARD_TYPES, Card
from ecs_combat.plugin.registry import Registry
from ecs_combat.scenario.instances import parse_instance

#: Where a database card comes from (a plugin card says its plugin's name instead).
DATABASE = "database"
#: Registries whose modeling of every database card is kept (the newest ones).
_KEPT = 4
#: How many letters of each word the suggestion index keys on.
_PREFIX = 3


@dataclass(frozen=True)
class CreatureCard:
    """What a creature made from a card takes from it."""

    name: str
    power: int
    toughness: int
    #: Color words in WUBRG order.
    colors: tuple[str, ...]
    #: Keyword instances as scenarios write them (``bushido 1``), those the plugins model.
    keywords: tuple[str, ...]
    #: Its rules text that no loaded plugin models (empty: an exact card).
    ignored: tuple[str, ...]
    #: ``database``, or the name of the plugin whose card it is.
    source: str
    #: Its card types besides creature (``CARD_TYPES``), from its type line.
    types: tuple[str, ...] = ()

    @property
    def status(self) -> str:
        """``exact`` or ``approximate``."""
        return "approximate" if self.ignored else "exact"


def card_keys(card: CreatureCard) -> dict[str, Any]:
    """The creature-table keys a card gives (a scenario's own keys override them)."""
    return {
        "name": card.name,
        "power": card.power,
        "toughness": card.toughness,
        "colors": list(card.colors),
        "keywords": list(card.keywords),
        "types": list(card.types),
    }


def plugin_of_card(name: str, registry: Registry) -> str | None:
    """The name of the loaded plugin that registers the card (or split card, or a split
    card's half) named so."""
    split = registry.split_card_of(name)
    folded = (split.name if split is not None else name).casefold()
    for info in registry.plugins:
        if any(n.casefold() == folded for n in info.cards):
            return info.name
    return None


def plugin_creature(card: Card, registry: Registry) -> CreatureCard:
    """A plugin's creature card: its printed keywords, those whose plugin is missing ignored."""
    assert card.power is not None and card.toughness is not None
    keywords: list[str] = []
    ignored: list[str] = []
    for printed in card.printed:
        try:
            keywords.append(str(parse_instance(printed, registry)))
        except ValueError:
            ignored.append(printed[:1].upper() + printed[1:])
    return CreatureCard(
        card.name,
        card.power,
        card.toughness,
        card.colors,
        tuple(keywords),
        tuple(ignored),
        plugin_of_card(card.name, registry) or "plugin",
    )


def database_creature(facts: CardFacts, modeling: Modeling) -> CreatureCard:
    """A database card as a creature: the keywords its text gives, the rest ignored."""
    return CreatureCard(
        facts.name,
        facts.power,
        facts.toughness,
        facts.colors,
        modeling.keywords,
        modeling.ignored,
        DATABASE,
        card_types(facts.type_line),
    )


def card_types(type_line: str) -> tuple[str, ...]:
    """The card types besides creature a type line names (``Artifact Creature — Golem``)."""
    words = type_line.split("\u2014")[0].lower().split()
    return tuple(t for t in CARD_TYPES if t in words)


def creature_card(name: str, registry: Registry) -> CreatureCard | None:
    """The creature card with exactly this name, ignoring case: a plugin's, else the
    database's; None if there is none (a spell's name gives None too)."""
    card = registry.card(name)
    if card is not None:
        return plugin_creature(card, registry) if card.is_creature else None
    facts = database().find(name)
    if facts is None:
        return None
    return database_creature(facts, model_card(facts, registry))


def no_creature_card(name: str, registry: Registry) -> str:
    """Why no creature card has this name, for an error message: it names a spell, or it is
    unknown (with the closest names)."""
    card = registry.card(name) or registry.split_card_of(name)
    if card is not None:
        return (
            f"{card.name} is not a creature card: spells are cast with a `cast` event, "
            "creatures name creature cards"
        )
    close = closest_card_names(name, registry)
    hint = ""
    if close:
        names = ", ".join(map(repr, close[:-1]))
        hint = f"; did you mean {names + ' or ' if names else ''}{close[-1]!r}?"
    return f"no creature card {name!r} in the plugins' cards or the card database{hint}"


def closest_card_names(name: str, registry: Registry, n: int = 3) -> list[str]:
    """Up to `n` creature card names most like `name` (case ignored), best first."""
    if len(name) > 200:
        return []
    plugin = {c.name.casefold(): c.name for c in registry.library() if _is_creature(c)}
    folded = _fold(name)
    names, by_prefix = _suggestion_index()
    near: set[int] = set()
    for word in folded.split():
        near |= by_prefix.get(word[:_PREFIX], set())
    candidates = {names[i].casefold(): names[i] for i in near}
    if not candidates:  # no word in common: every name
        candidates = {c.name.casefold(): c.name for c in database().cards}
    candidates.update(plugin)
    keys = {_fold(k): v for k, v in candidates.items()}
    return [keys[k] for k in difflib.get_close_matches(folded, list(keys), n=n, cutoff=0.6)]


def _is_creature(card: object) -> bool:
    return isinstance(card, Card) and card.is_creature


def _fold(name: str) -> str:
    return " ".join(name.casefold().replace("-", " ").split())


@cache
def _suggestion_index() -> tuple[tuple[str, ...], dict[str, set[int]]]:
    """The database's names, and for each word's first letters the names with such a word."""
    names = tuple(c.name for c in database().cards)
    by_prefix: dict[str, set[int]] = {}
    for i, card_name in enumerate(names):
        for word in _fold(card_name).split():
            by_prefix.setdefault(word[:_PREFIX], set()).add(i)
    return names, by_prefix


_modelings: OrderedDict[int, tuple[Registry, tuple[Modeling, ...]]] = OrderedDict()


def modelings(registry: Registry) -> tuple[Modeling, ...]:
    """How the registry's plugins model each database card, in the order of
    ``database().cards``; computed once per registry (the last few are kept)."""
    kept = _modelings.get(id(registry))
    if kept is not None and kept[0] is registry:
        _modelings.move_to_end(id(registry))
        return kept[1]
    found = _model_all(database().cards, registry)
    _modelings[id(registry)] = (registry, found)
    while len(_modelings) > _KEPT:
        _modelings.popitem(last=False)
    return found


def _model_all(cards: tuple[CardFacts, ...], registry: Registry) -> tuple[Modeling, ...]:
    """:func:`model_card` of every card, each distinct line of text read once."""
    reader = LineReader(registry)
    return tuple(model_card(card, registry, reader) for card in cards)
