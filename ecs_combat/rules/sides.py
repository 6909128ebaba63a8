"""The creatures as the declaration rules see them (:class:`~ecs_combat.plugin.restrictions.Side`):
from their keyword instances (:class:`KeywordSide`), or as a scenario declares them
(:func:`spec_side`)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from ecs_combat.plugin.definitions import color_mask, from_mask, land_mask, type_mask
from ecs_combat.plugin.registry import Registry
from ecs_combat.plugin.restrictions import Restriction, Side

if TYPE_CHECKING:
    from ecs_combat.scenario.model import CreatureSpec

Parameter = int | str | None


@dataclass(frozen=True)
class KeywordSide:
    """One creature as a :class:`restrictions.Side`, from its keyword instances."""

    instances: Sequence[tuple[str, Parameter]]
    color_bits: int = 0
    opponent: bool = False
    spell_color_bits: int = 0
    source_is_creature: bool = False
    power: int = 0
    type_bits: int = 0
    land_bits: int = 0

    @cached_property
    def _names(self) -> frozenset[str]:
        return frozenset(name for name, _ in self.instances)

    def has(self, keyword: str) -> np.bool_:
        """Whether it has the keyword."""
        return np.bool_(keyword in self._names)

    def values(self, keyword: str) -> int:
        """Its instances' parameters: colors as a bit mask, numbers added up."""
        return instance_values(p for name, p in self.instances if name == keyword)

    def count(self, keyword: str) -> int:
        """How many instances of the keyword it has."""
        return sum(name == keyword for name, _ in self.instances)

    @property
    def colors(self) -> int:
        """Its colors as a bit mask."""
        return self.color_bits

    @property
    def spell_colors(self) -> int:
        """For ``target``: the spell's colors as a bit mask."""
        return self.spell_color_bits

    @property
    def from_creature(self) -> bool:
        """For ``target``: whether the source is a creature."""
        return self.source_is_creature

    @property
    def types(self) -> int:
        """Its card types besides creature as a bit mask."""
        return self.type_bits

    @property
    def lands(self) -> int:
        """Its controller's land types as a bit mask."""
        return self.land_bits


def instance_values(parameters: Iterable[Parameter]) -> int:
    """Parameters of a keyword's instances as one number: a bit mask of colors and qualities
    (:func:`~ecs_combat.plugin.definitions.from_mask`), or their sum."""
    out = 0
    for p in parameters:
        if isinstance(p, str):
            out |= from_mask([p])
        elif p is not None:
            out += p
    return out


def spec_side(
    spec: CreatureSpec, registry: Registry | None = None, lands: Iterable[str] = ()
) -> KeywordSide:
    """A creature as the scenario declares it: printed keywords and keyword counters; its
    power with the registry's counter kinds' changes (``+1/+1``); `lands`, its controller's."""
    instances = list(zip(spec.keywords, spec.parameters, strict=True))
    instances += [(k, None) for k, n in spec.counters.items() if n > 0]
    kinds = {} if registry is None else registry.counter_kinds
    power = spec.power + sum(kinds[k].power * n for k, n in spec.counters.items() if k in kinds)
    return KeywordSide(
        instances,
        color_mask(spec.colors),
        power=power,
        type_bits=type_mask(spec.types),
        land_bits=land_mask(lands),
    )


def block_capacity(side: Side, registry: Registry) -> int:
    """How many attackers at most a creature may block (509.1a): one, or the most any
    ``blocks`` restriction allows it."""
    return max([1, *(int(r.test(side)) for r in registry.restrictions_of("blocks"))])


def least_blockers(side: Side, registry: Registry) -> tuple[int, Restriction | None]:
    """How many creatures at least must block an attacker (509.1b: menace's two), and the
    rule that says so."""
    need, why = 1, None
    for r in registry.restrictions_of("blockers"):
        n = int(r.test(side))
        if n > need:
            need, why = n, r
    return need, why
