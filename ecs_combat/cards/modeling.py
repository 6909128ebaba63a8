"""How exactly the loaded plugins model a real card: its rules text read as keyword instances.

A card is *exact* when every line of its rules text, reminder text removed, is a list of
keywords the registry knows (``Flying, vigilance``; ``Bushido 1``; ``Protection from black``).
Any other text (``Sacrifice Brindle Boar: You gain 4 life.``) is *ignored*: the card is then
*approximate*, and the ignored text is reported wherever the card is used.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ecs_combat.cards.database import CardFacts
from ecs_combat.plugin.registry import Registry
from ecs_combat.scenario.instances import Instance, parse_instance

_REMINDER = re.compile(r"\s*\([^()]*\)")
_SEPARATORS = re.compile(r"\s*[,;]\s*")


@dataclass(frozen=True)
class Modeling:
    """What of a card's rules text the plugins model."""

    #: The keyword instances its text gives, as scenarios write them (``bushido 1``).
    keywords: tuple[str, ...]
    #: The text that no loaded plugin models, one entry per line (or part of a line).
    ignored: tuple[str, ...]

    @property
    def exact(self) -> bool:
        """Every line of its rules text is modeled."""
        return not self.ignored

    @property
    def status(self) -> str:
        """``exact`` or ``approximate``."""
        return "exact" if self.exact else "approximate"


def keyword_line(line: str, registry: Registry) -> list[Instance] | None:
    """The keyword instances a line of rules text lists, or None if any part isn't one."""
    parts = [p for p in _SEPARATORS.split(line.strip().rstrip(".")) if p]
    found: list[Instance] = []
    for part in parts:
        try:
            found.append(parse_instance(part, registry))
        except ValueError:
            return None
    return found or None


class LineReader:
    """Reads lines of rules text as keyword lists against one registry, each distinct line
    once (12,584 cards share many lines)."""

    def __init__(self, registry: Registry) -> None:
        self.registry = registry
        #: A line lists keywords only if it starts with a keyword's first word.
        self.first_words = {name.split(" ")[0] for name in registry.keywords}
        self.lines: dict[str, tuple[str, ...] | None] = {}

    def read(self, line: str) -> tuple[str, ...] | None:
        """The keyword instances a line lists, as scenarios write them, or None."""
        if line not in self.lines:
            first = line.split(maxsplit=1)[0].lower().rstrip(".,;")
            found = keyword_line(line, self.registry) if first in self.first_words else None
            self.lines[line] = None if found is None else tuple(str(i) for i in found)
        return self.lines[line]


def model_card(card: CardFacts, registry: Registry, reader: LineReader | None = None) -> Modeling:
    """Read a card's rules text against the loaded plugins' keywords (`reader`, made for the
    same registry, may be shared between calls)."""
    reader = reader if reader is not None else LineReader(registry)
    keywords: list[str] = []
    ignored: list[str] = []
    for raw in card.text.splitlines():
        line = _REMINDER.sub("", raw).strip()
        if not line:
            continue
        read = reader.read(line)
        if read is None:
            ignored.append(line)
        else:
            keywords.extend(read)
    return Modeling(tuple(keywords), tuple(ignored))
