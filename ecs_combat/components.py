"""esper components of the reference engine: players, creatures and their combat relations.

Keywords are components too: :func:`keyword_component` makes one class per keyword name, so a
system can ask esper for, say, every attacking creature with a given keyword.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache


@dataclass(slots=True)
class Player:
    """A player in the game."""

    id: str
    life: int
    hat: bool = False
    wearing_hat: bool = False
    lost: bool = False


@dataclass(slots=True)
class Card:
    """A creature's identity: scenario id and display name."""

    id: str
    name: str
    order: int


@dataclass(slots=True)
class Controller:
    """The player (entity) who controls a creature."""

    player: int


@dataclass(slots=True)
class Stats:
    """Power and toughness: printed values plus until-end-of-turn changes."""

    base_power: int
    base_toughness: int
    power_bonus: int = 0
    toughness_bonus: int = 0

    @property
    def power(self) -> int:
        """Current power."""
        return self.base_power + self.power_bonus

    @property
    def toughness(self) -> int:
        """Current toughness."""
        return self.base_toughness + self.toughness_bonus


@dataclass(slots=True)
class Damage:
    """Damage marked on a creature (120.3e)."""

    marked: int = 0


@dataclass(slots=True)
class KeywordSources:
    """Where a creature's keywords come from (layer 6, in timestamp order).

    An effect that removes a keyword removes it from every earlier source; a later grant or
    keyword counter gives it back; static abilities' keywords don't come back (613.7).
    """

    printed: set[str] = field(default_factory=set)
    granted: set[str] = field(default_factory=set)
    counters: dict[str, int] = field(default_factory=dict)
    counter_active: set[str] = field(default_factory=set)
    removed: set[str] = field(default_factory=set)

    def own(self) -> set[str]:
        """Keywords from printed text, effects and counters (no static abilities)."""
        return self.printed | self.granted | self.counter_active

    def grant(self, keyword: str) -> None:
        """Gain a keyword until end of turn."""
        self.granted.add(keyword)

    def remove(self, keyword: str) -> None:
        """Lose a keyword until end of turn."""
        self.printed.discard(keyword)
        self.granted.discard(keyword)
        self.counter_active.discard(keyword)
        self.removed.add(keyword)

    def add_counters(self, keyword: str, change: int) -> None:
        """Put (positive) or remove (negative) keyword counters (122.1b)."""
        count = max(self.counters.get(keyword, 0) + change, 0)
        self.counters[keyword] = count
        if change > 0:
            self.counter_active.add(keyword)
        elif count == 0:
            self.counter_active.discard(keyword)


@dataclass(slots=True)
class HasHat:
    """The creature depicted in the art has a hat."""


@dataclass(slots=True)
class Paired:
    """Soulbond: paired with another creature (entity)."""

    partner: int


@dataclass(slots=True)
class OnBattlefield:
    """The creature is on the battlefield."""


@dataclass(slots=True)
class Tapped:
    """The creature is tapped."""


@dataclass(slots=True)
class Attacking:
    """An attacking creature: whom it attacks and the creatures declared to block it."""

    defender: int
    blocked: bool = False
    blockers: list[int] = field(default_factory=list)


@dataclass(slots=True)
class Blocking:
    """A blocking creature and the attackers it blocks, in the order it declared them."""

    attackers: list[int]


@dataclass(slots=True)
class SummoningSick:
    """The creature came under its controller's control this turn (302.6)."""


class KeywordComponent:
    """Base of the per-keyword components: the creature currently has `keyword`."""

    __slots__ = ()
    keyword: str = ""


@cache
def keyword_component(name: str) -> type[KeywordComponent]:
    """Return the component class for a keyword, made once per name."""
    cls_name = "".join(w.capitalize() for w in name.replace("-", " ").split()) or "Keyword"
    return type(cls_name, (KeywordComponent,), {"__slots__": (), "keyword": name})
