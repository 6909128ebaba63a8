"""Rules on declaring attackers and blockers and on targeting, as plugins declare them.

A plugin returns :class:`Restriction` objects from its ``register_restrictions`` hook. Each
is one function over *sides*, written with numpy logic (``&``, ``|``, ``~`` on the values
``has`` returns) so that one definition serves a single declaration (the scenario loader, the
reference engine: ``has`` returns a numpy bool) and arrays of them (the bulk-simulation
generator: ``has`` returns a row mask).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, Protocol, get_args

import numpy as np

from ecs_combat.plugin.context import BoolArray, IntArray
from ecs_combat.plugin.definitions import normalize_keyword

#: What a restriction decides:
#: ``attack`` — whether a creature may attack (508.1a); ``block`` — whether it may block at
#: all (509.1a); ``block-pair`` — whether a blocker may block an attacker (509.1b);
#: ``blockers`` — how many creatures at least must block an attacker, if any do (509.1b);
#: ``summoning-sickness`` — whether a creature may attack although it came under its
#: controller's control this turn (302.6); ``target`` — whether a spell may target a creature
#: (115.4, 608.2b); ``block-requirement`` — a requirement, not a restriction: ``(attacker,
#: blocker)``, whether the blocker must block the attacker if it is able to (509.1c,
#: :mod:`ecs_combat.rules.requirements`); ``blocks`` — how many attackers at most a creature
#: may block (509.1a: one, unless an effect says more); the most any restriction allows counts.
#: The decision search reads ``blocks``; a scenario's declared blocks may give any blocker a
#: list, as before.
Kind = Literal[
    "attack",
    "block",
    "block-pair",
    "blockers",
    "summoning-sickness",
    "target",
    "block-requirement",
    "blocks",
]
KINDS: tuple[str, ...] = get_args(Kind)


#: A yes or no of a side: a (numpy) bool for one declaration, a row mask for many.
Truth = bool | np.bool_ | BoolArray
#: A number of a side: an integer for one declaration, an integer row array for many.
Number = int | np.integer | IntArray
#: What a restriction's test returns: whether the declaration is allowed (a :data:`Truth`),
#: or for ``blockers`` and ``blocks`` a :data:`Number`.
Verdict = Truth | Number


class Side(Protocol):
    """A creature (or a row mask of them) as a restriction sees it."""

    def has(self, keyword: str) -> Truth:
        """Whether it has a keyword: a numpy bool, or a row mask."""
        ...

    def values(self, keyword: str) -> Number:
        """Its instances' parameters as one integer (or integer row array): colors as a bit
        mask (bit i for ``definitions.FROM_WORDS[i]``: the colors, then the qualities
        ``creatures``, ``everything``, ``multicolored``), numbers added up."""
        ...

    def count(self, keyword: str) -> Number:
        """How many instances of a keyword it has (an integer, or integer row array): a
        keyword listed twice counts twice (instances that add up, 509.1a)."""
        ...

    @property
    def colors(self) -> Number:
        """Its colors as a bit mask."""
        ...

    @property
    def power(self) -> Number:
        """Its power as the declaration is checked (printed, counters and pumps)."""
        ...

    @property
    def types(self) -> Number:
        """Its card types besides creature as a bit mask (bit i for ``CARD_TYPES[i]``)."""
        ...

    @property
    def lands(self) -> Number:
        """The land types its controller's lands have, as a bit mask (bit i for
        ``LAND_TYPES[i]``): for ``block-pair``, the defending player's."""
        ...

    @property
    def opponent(self) -> Truth:
        """For ``target``: whether the spell's caster is an opponent of its controller."""
        ...

    @property
    def spell_colors(self) -> Number:
        """For ``target``: the colors of the spell or ability's source as a bit mask."""
        ...

    @property
    def from_creature(self) -> Truth:
        """For ``target``: whether the source is a creature (a creature's triggered ability,
        such as provoke's) rather than a spell."""
        ...


@dataclass(frozen=True)
class Restriction:
    """One rule of a keyword on attacking, blocking or targeting.

    `test` takes one side (``attack``, ``block``, ``blockers``, ``summoning-sickness``,
    ``target``) or two (``block-pair``: attacker, blocker) and returns whether the
    declaration is allowed (``blockers``: the least number of blockers; ``summoning-sickness``:
    whether it may attack anyway). `says` explains a refusal for messages, with ``{attacker}``,
    ``{blocker}``, ``{creature}`` and ``{caster}`` standing for ids; the rule is added after
    it. `keyword` is the keyword whose rule it is: where no creature can have it, the rule is
    not checked.
    """

    kind: Kind
    keyword: str
    rule: str
    #: ``test(side)`` or, for ``block-pair`` and ``block-requirement``, ``test(attacker,
    #: blocker)``.
    test: Callable[..., Verdict]
    says: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "keyword", normalize_keyword(self.keyword))
