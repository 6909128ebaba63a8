"""The declarative language keyword plugins speak: keywords, damage steps and cards.

Both engines read these definitions; neither knows any keyword by name. A plugin returns
them from its `register_*` hooks (see :mod:`ecs_combat.plugin.hookspecs`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from ecs_combat.plugin.views import EffectTarget
    from ecs_combat.scenario.model import Scenario

#: The core's only damage step (510.1-510.2); plugins add the others around it.
REGULAR_STEP = "regular"


def normalize_keyword(name: str) -> str:
    """Return a keyword name in canonical form: lower case, words separated by one space, a
    typographic apostrophe (U+2019) as a plain one (``can't block``)."""
    return " ".join(name.lower().replace("\u2019", "'").split())


def plugin_name_for(name: str) -> str:
    """Return the plugin name a keyword or plugin spelling refers to (`double strike` -> `double_strike`)."""
    return re.sub(r"[\s\-]+", "_", re.sub("['\u2019]", "", name.strip().lower()))


@dataclass(frozen=True)
class DamageStep:
    """A combat damage step.

    `order` places it among the others (lower first; the regular step is 30). A step with
    `default=True` is where creatures that struck in no earlier step deal their damage; any
    other step exists only when, as it would begin, some attacking or blocking creature has a
    keyword that strikes in it (RULES.md section 2).
    """

    name: str
    order: int
    default: bool = False
    rule: str = ""


@dataclass(frozen=True)
class Keyword:
    """What a keyword means, described by the mechanisms it switches on.

    Every field is optional; a keyword with none set is recorded but changes nothing.
    """

    name: str
    #: Rule number(s) to cite, e.g. "702.4".
    rule: str = ""
    #: May be a keyword counter (122.1b).
    counter: bool = False
    #: Damage steps in which a creature with this keyword deals combat damage.
    strikes_in: frozenset[str] = frozenset()
    #: Default steps (the regular one) a creature with this keyword sits out unless another of
    #: its keywords strikes there (last strike: "deals damage only after regular damage").
    withholds_from: frozenset[str] = frozenset()
    #: Keywords it needs loaded, such as the ones its static ability gives. Without them the
    #: registry makes it unavailable: a scenario naming it is an input error saying why.
    requires: frozenset[str] = frozenset()
    #: Plain words for the readable account ("1 is lethal").
    summary: str = ""
    #: What follows the name in a scenario: ``""`` nothing, ``"number"`` a whole number
    #: (``bushido 2``), ``"color"`` the word "from" and a color or a quality
    #: (:data:`FROM_WORDS`: ``protection from red``, ``protection from creatures``), ``"pt"``
    #: a bonus ``+X/+Y`` (``battalion +1/+1``: :class:`PowerToughness`).
    parameter: str = ""
    #: What its trigger targets, given by the creature's ``targets`` key (one of
    #: :data:`TRIGGER_TARGETS`; ``""``: it targets nothing). The loader refuses a target
    #: that could never be legal; the plugin checks it again as the trigger resolves (608.2b).
    target: str = ""
    #: Each instance's attack trigger makes the player it attacks sacrifice N creatures (its
    #: number): the scenario's ``sacrifices`` may name that many of that player's.
    defender_sacrifices: bool = False
    #: The tokens a creature with it may create (:data:`TOKENS`): ``""`` none, ``"copy per
    #: opponent"`` a token copy of itself for each opponent of its controller (myriad), with
    #: the id ``<creature>~<player>``. The batched engine reserves their rows as it builds
    #: a batch; the contexts' ``create_token`` puts one onto the battlefield.
    tokens: str = ""

    def __post_init__(self) -> None:
        if self.target not in TRIGGER_TARGETS:
            raise TypeError(f"Keyword.target must be one of {TRIGGER_TARGETS}, not {self.target!r}")
        if self.tokens not in TOKENS:
            raise TypeError(f"Keyword.tokens must be one of {TOKENS}, not {self.tokens!r}")
        for attr, kind in (("name", str), ("rule", str), ("summary", str), ("parameter", str)):
            if not isinstance(getattr(self, attr), kind):
                raise TypeError(
                    f"Keyword.{attr} must be a {kind.__name__}, not {getattr(self, attr)!r}"
                )
        if not isinstance(self.counter, bool):
            raise TypeError(f"Keyword.counter must be True or False, not {self.counter!r}")
        object.__setattr__(self, "name", normalize_keyword(self.name))
        for attr in ("strikes_in", "withholds_from", "requires"):
            value = getattr(self, attr)
            if isinstance(value, str) or not all(isinstance(v, str) for v in value):
                raise TypeError(
                    f"Keyword.{attr} of {self.name!r} must be a set of names, not {value!r}"
                )
            object.__setattr__(self, attr, frozenset(normalize_keyword(v) for v in value))


#: The five colors (105.1), as scenarios spell them.
COLORS = ("white", "blue", "black", "red", "green")
#: What a ``color`` parameter may name besides a color (702.16j): ``protection from creatures``
#: (any creature), ``from everything``, ``from multicolored`` (two or more colors, 105.2b).
QUALITIES = ("creatures", "everything", "multicolored")
#: What follows "from" in a ``color`` parameter, in bit order (:func:`from_mask`): the colors,
#: then the qualities, so a color's bit is the same in both masks.
FROM_WORDS = COLORS + QUALITIES
PARAMETERS = ("", "number", "color", "pt")
#: The base a ``pt`` parameter packs power and toughness with (:class:`PowerToughness`).
PT_BASE = 1000


class PowerToughness(int):
    """A ``pt`` parameter, as scenarios write it after the keyword: ``battalion +1/+0``. Both
    engines carry it as one number, power * :data:`PT_BASE` + toughness (each 0 to 999): the
    reference context's ``instances`` gives this value, the batched one the same integers;
    :func:`pt_parameter` reads either."""

    @classmethod
    def of(cls, power: int, toughness: int) -> PowerToughness:
        """The parameter +power/+toughness."""
        return cls(power * PT_BASE + toughness)

    def __str__(self) -> str:
        power, toughness = pt_parameter(self)
        return f"+{power}/+{toughness}"


def pt_parameter(value: int) -> tuple[int, int]:
    """The (power, toughness) a ``pt`` parameter gives (``+2/+1`` -> (2, 1))."""
    power, toughness = divmod(int(value), PT_BASE)
    return power, toughness


#: What a keyword's trigger may target (``Keyword.target``): a creature the defending player
#: (the player the source attacks) controls; an attacking creature other than the source.
TRIGGER_TARGETS = ("", "creature the defending player controls", "attacking creature")
#: What tokens a keyword lets a creature create (``Keyword.tokens``).
TOKENS = ("", "copy per opponent")


def token_id(source: str, player: str) -> str:
    """The id of the token copy of creature `source` made for `player` (myriad's tokens)."""
    return f"{source}~{player}"


#: Mana symbols of the colors (105.1a), for a card's colors from its mana cost (202.2).
COLOR_SYMBOLS = {"W": "white", "U": "blue", "B": "black", "R": "red", "G": "green"}


#: Card types a creature may have besides creature (205.2a), for ``types``.
CARD_TYPES = ("artifact", "enchantment", "land")
#: What a player's ``lands`` may list: the basic land types (205.3i), and ``nonbasic``.
LAND_TYPES = ("plains", "island", "swamp", "mountain", "forest", "nonbasic")


def type_mask(types: Iterable[str]) -> int:
    """Card types as a bit mask: bit i for ``CARD_TYPES[i]``."""
    return sum(1 << CARD_TYPES.index(t) for t in set(types))


def land_mask(lands: Iterable[str]) -> int:
    """Land types as a bit mask: bit i for ``LAND_TYPES[i]``."""
    return sum(1 << LAND_TYPES.index(t) for t in set(lands))


def color_mask(colors: Iterable[str]) -> int:
    """Colors as a bit mask: bit i for ``COLORS[i]``."""
    return sum(1 << COLORS.index(c) for c in set(colors))


def from_mask(words: Iterable[str]) -> int:
    """Colors and qualities as a bit mask: bit i for ``FROM_WORDS[i]``."""
    return sum(1 << FROM_WORDS.index(w) for w in set(words))


def parameter_number(parameter: int | str | None) -> int:
    """A keyword instance's parameter as both contexts give it (``instances``): a number as
    it is, a color or quality as its index in :data:`FROM_WORDS`, none as -1."""
    if parameter is None:
        return -1
    return FROM_WORDS.index(parameter) if isinstance(parameter, str) else int(parameter)


def colors_of_cost(cost: str) -> tuple[str, ...]:
    """The colors of a mana cost (202.2): those of its colored mana symbols, hybrid included."""
    found = {COLOR_SYMBOLS[ch] for ch in cost if ch in COLOR_SYMBOLS}
    return tuple(c for c in COLORS if c in found)


@dataclass(frozen=True)
class CounterKind:
    """A kind of counter that is not a keyword counter, and what it does to power and
    toughness while it is on a creature (122.1a): ``+1/+1`` is ``CounterKind("+1/+1", 1, 1)``."""

    name: str
    power: int = 0
    toughness: int = 0
    rule: str = ""


@dataclass(frozen=True)
class StateField:
    """State a plugin adds to every creature or player: a scenario key and its value.

    `owner` is ``"creature"`` or ``"player"``; `kind` ``"bool"``, ``"int"`` (0 or more) or
    ``"creature"`` (the id of a creature on the battlefield as combat begins). Both engines
    store it (a component value; an array) and plugins read and change it. With `output`, it
    is part of each creature's or player's ``resolve --json`` object. `check` validates a
    whole scenario: it returns ``(key path, message)`` for the first problem, or None. With
    `check_defaults` False, the plugin promises that `check` finds nothing wrong in a scenario
    that gives no plugin's state key (every creature and player with the defaults): the quick
    readers of JSON Lines, whose lines give none, then skip it.

    A creature's state belongs to the object: a creature that returns to the battlefield is a
    new object (400.7) and has the default again, and a ``creature`` reference naming the old
    object, anywhere, is cleared. With `printed`, it is a characteristic of the card (what its
    art shows) and the new object keeps it.
    """

    owner: str
    key: str
    kind: str
    default: bool | int | None = None
    #: Another key of the same owner whose value is the default when this key is not given.
    default_from: str | None = None
    output: bool = False
    summary: str = ""
    #: A characteristic of the card, kept by a creature that returns as a new object (400.7).
    printed: bool = False
    check: Callable[[Scenario], tuple[str, str] | None] | None = field(default=None, compare=False)
    #: Whether `check` may find a problem when every creature and player has the defaults.
    check_defaults: bool = field(default=True, compare=False)


@dataclass(frozen=True)
class ScoreTerm:
    """A term a plugin adds to the score of decisions (``ecs-combat blocks`` / ``attacks``).

    Its value, from the attacking player's point of view, is how much the defending player's
    `player_key` (an ``int`` state of players, such as ``poison``) grew over the combat minus
    how much the attacking player's did. The default objective has the core's terms (game,
    material, life), then the plugins' terms in plugin order.
    """

    name: str
    player_key: str
    summary: str = ""


class CardEffect(Protocol):
    """How a card resolves; called by both engines with an :class:`EffectTarget`."""

    def __call__(self, target: EffectTarget) -> None: ...


def mana_value_of_cost(cost: str) -> int:
    """The mana value of a mana cost (202.3): generic numbers plus one per other symbol."""
    total = 0
    for symbol in re.findall(r"\{([^}]*)\}", cost):
        total += int(symbol) if symbol.isdigit() else 0 if symbol == "X" else 1
    return total


#: What a card may target (115.1): a creature, "any target" (a creature or a player, 115.4),
#: or nothing.
TARGET_KINDS = ("creature", "any", "none")


@dataclass(frozen=True)
class TargetRule:
    """What a card targets, checked as it resolves (608.2b).

    The creature conditions apply to a creature target; a player is a legal "any target"
    while they are in the game.
    """

    #: The target must be attacking or blocking.
    in_combat: bool = True
    #: "blocking or blocked": an attacker must be blocked.
    blocking_or_blocked: bool = False
    #: The target must be controlled by the caster.
    caster_controls: bool = False
    #: One of :data:`TARGET_KINDS`.
    kind: str = "creature"

    def __post_init__(self) -> None:
        if self.kind not in TARGET_KINDS:
            raise TypeError(f"TargetRule.kind must be one of {TARGET_KINDS}, not {self.kind!r}")


@dataclass(frozen=True)
class CreatureToken:
    """A creature token a card creates (111.1); scenarios give its id with ``token``.

    It enters the battlefield under the caster's control as the card resolves, not in combat.
    """

    name: str
    power: int
    toughness: int
    colors: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()


@dataclass(frozen=True)
class Card:
    """A card of the card library: a spell that ``cast`` events name, or a creature card
    that creatures name with ``card``.

    `target` says which targets are legal as it resolves; `resolve` applies the spell through
    the engine-neutral :class:`ecs_combat.plugin.views.EffectTarget` API, so one definition
    serves both engines. A target that is illegal as the card resolves makes it do nothing.
    A creature card has `power`, `toughness` and its `printed` keywords instead.
    """

    name: str
    cost: str
    text: str
    target: TargetRule = TargetRule()
    #: How the spell resolves; None for a creature card or a spell whose only effect is `creates`.
    resolve: CardEffect | None = field(default=None, compare=False)
    #: Keywords it may grant; a scenario casting it needs all of them loaded.
    keywords: frozenset[str] = frozenset()
    #: Its card types (205.2a), lower case: ``("instant",)``, ``("creature",)``.
    types: tuple[str, ...] = ("instant",)
    #: The type line as printed ("Summon Wolf"); empty: the types, capitalized.
    type_line: str = ""
    #: A creature card's power and toughness.
    power: int | None = None
    toughness: int | None = None
    #: A creature card's keyword instances, as scenarios write them (``"firstest strike"``).
    printed: tuple[str, ...] = ()
    #: The creature token it creates as it resolves, if any.
    creates: CreatureToken | None = None

    def __post_init__(self) -> None:
        if "creature" in self.types and (self.power is None or self.toughness is None):
            raise TypeError(f"creature card {self.name!r} needs a power and a toughness")
        if "creature" not in self.types and self.resolve is None and self.creates is None:
            raise TypeError(f"card {self.name!r} has no effect: give it `resolve` or `creates`")

    @property
    def colors(self) -> tuple[str, ...]:
        """Its colors, from its mana cost (202.2)."""
        return colors_of_cost(self.cost)

    @property
    def mana_value(self) -> int:
        """Its mana value (202.3)."""
        return mana_value_of_cost(self.cost)

    @property
    def is_creature(self) -> bool:
        """A creature card (a creature names it with ``card``; it can't be cast by an event)."""
        return "creature" in self.types

    @property
    def printed_type_line(self) -> str:
        """The type line as printed."""
        return self.type_line or " ".join(t.capitalize() for t in self.types)


@dataclass(frozen=True)
class SplitCard:
    """A split card (709): two halves on one card, each cast by its own name.

    On the stack only the cast half's characteristics exist; elsewhere the card has both
    halves' combined (709.4): the mana values added up, the colors of both.
    """

    faces: tuple[Card, ...]

    def __post_init__(self) -> None:
        if len(self.faces) < 2:
            raise TypeError("a split card has at least two halves")

    @property
    def name(self) -> str:
        """Its name: the halves' names joined by `` // ``."""
        return " // ".join(face.name for face in self.faces)

    @property
    def mana_value(self) -> int:
        """The halves' mana values added up (709.4)."""
        return sum(face.mana_value for face in self.faces)

    @property
    def colors(self) -> tuple[str, ...]:
        """The colors of both halves (709.4)."""
        found = {c for face in self.faces for c in face.colors}
        return tuple(c for c in COLORS if c in found)

    @property
    def types(self) -> tuple[str, ...]:
        """The card types of both halves."""
        return tuple(dict.fromkeys(t for face in self.faces for t in face.types))
