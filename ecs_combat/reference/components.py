"""esper components of the reference engine: players, creatures and their combat relations.

Keywords are components too: :func:`keyword_component` makes one class per keyword name, so a
system can ask esper for, say, every attacking creature with a given keyword.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Any

Parameter = int | str | None


@dataclass(slots=True)
class Player:
    """A player in the game."""

    id: str
    life: int
    lost: bool = False
    #: The state plugins add to players (``poison``, ``hat``, ...), by key.
    state: dict[str, Any] = field(default_factory=dict)
    #: The land types of the lands they control (``swamp``, ``nonbasic``).
    lands: tuple[str, ...] = ()


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
    """Power and toughness: printed values, counters' changes and until-end-of-turn ones."""

    base_power: int
    base_toughness: int
    power_bonus: int = 0
    toughness_bonus: int = 0
    counter_power: int = 0
    counter_toughness: int = 0

    @property
    def power(self) -> int:
        """Current power."""
        return self.base_power + self.counter_power + self.power_bonus

    @property
    def toughness(self) -> int:
        """Current toughness."""
        return self.base_toughness + self.counter_toughness + self.toughness_bonus


@dataclass(slots=True)
class Damage:
    """Damage marked on a creature (120.3e)."""

    marked: int = 0


@dataclass(slots=True)
class KeywordSources:
    """Where a creature's keyword instances come from (layer 6, in timestamp order), and its
    counters of every kind.

    An effect that removes a keyword removes every instance of it from earlier sources; a
    later grant or keyword counter gives it back; static abilities' keywords don't come back
    (613.7).
    """

    printed: list[tuple[str, Parameter]] = field(default_factory=list)
    granted: list[tuple[str, Parameter]] = field(default_factory=list)
    counters: dict[str, int] = field(default_factory=dict)
    counter_active: set[str] = field(default_factory=set)
    removed: set[str] = field(default_factory=set)

    def own(self) -> set[str]:
        """Keywords from printed text, effects and counters (no static abilities)."""
        return {n for n, _ in self.printed} | {n for n, _ in self.granted} | self.counter_active

    def instances(self, keyword: str) -> list[Parameter]:
        """The parameters of its own instances of a keyword: printed, granted, then one for
        keyword counters (113.2c)."""
        out = [p for n, p in self.printed if n == keyword]
        out += [p for n, p in self.granted if n == keyword]
        if keyword in self.counter_active:
            out.append(None)
        return out

    def grant(self, keyword: str, parameter: Parameter = None) -> None:
        """Gain an instance of a keyword until end of turn."""
        self.granted.append((keyword, parameter))

    def remove(self, keyword: str) -> None:
        """Lose every instance of a keyword until end of turn."""
        self.printed = [i for i in self.printed if i[0] != keyword]
        self.granted = [i for i in self.granted if i[0] != keyword]
        self.counter_active.discard(keyword)
        self.removed.add(keyword)

    def add_counters(self, kind: str, change: int, keyword: bool) -> int:
        """Put (positive) or remove (negative) counters of a kind; a keyword counter gives
        its keyword while any is on it (122.1b). Returns the change in the count."""
        before = self.counters.get(kind, 0)
        count = max(before + change, 0)
        self.counters[kind] = count
        if keyword:
            if change > 0:
                self.counter_active.add(kind)
            elif count == 0:
                self.counter_active.discard(kind)
        return count - before


@dataclass(slots=True)
class Colors:
    """A creature's colors (105.1), empty for a colorless one, and its card types besides
    creature."""

    colors: tuple[str, ...]
    types: tuple[str, ...] = ()


@dataclass(slots=True)
class State:
    """The state plugins add to a creature, by key (a creature reference is an entity)."""

    values: dict[str, Any]


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
