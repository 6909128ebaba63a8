"""What restrictions and cards see of a creature of the reference world."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import esper
import numpy as np

from ecs_combat.plugin.definitions import color_mask
from ecs_combat.reference.components import (
    KeywordSources,
    Player,
    Stats,
)
from ecs_combat.rules.legality import instance_values

if TYPE_CHECKING:
    from ecs_combat.reference.engine import Combat


class EntitySide:
    """A creature of the reference world as a :class:`ecs_combat.plugin.restrictions.Side`."""

    def __init__(
        self,
        combat: Combat,
        entity: int,
        opponent: bool = False,
        spell_colors: tuple[str, ...] = (),
    ) -> None:
        self.combat = combat
        self.entity = entity
        self.opponent = opponent
        self.spell_colors = color_mask(spell_colors)

    def has(self, keyword: str) -> np.bool_:
        return np.bool_(self.combat.has(self.entity, keyword))

    def values(self, keyword: str) -> int:
        return instance_values(self.combat.instances(self.entity, keyword))

    @property
    def colors(self) -> int:
        return color_mask(self.combat.colors(self.entity))

    @property
    def power(self) -> int:
        return esper.component_for_entity(self.entity, Stats).power


class _CardTarget:
    """:class:`ecs_combat.plugin.views.EffectTarget` for the reference engine."""

    def __init__(self, combat: Combat, entity: int, caster: str, card: str) -> None:
        self.combat = combat
        self.entity = entity
        self.caster = esper.component_for_entity(combat.players[caster], Player)
        self.card = card
        self.did: list[str] = []
        self.why: list[str] = []

    def state(self, key: str) -> Any:
        return self.combat.state(self.entity, key)

    def caster_state(self, key: str) -> Any:
        return self.caster.state.get(key)

    def related(self, key: str) -> Any:
        other = self.combat.state(self.entity, key)
        return other is not None and self.combat.on_battlefield(other)

    def pump(self, power: int, toughness: int, where: Any = True, via: str | None = None) -> None:
        if not where:
            return
        entity = self.entity
        if via is not None:
            if not self.related(via):
                return
            entity = self.combat.state(self.entity, via)
        self.combat.pump(entity, power, toughness)
        self.did.append(f"{self.combat.cid(entity)} gets {power:+d}/{toughness:+d}")

    def grant(self, keyword: str, where: Any = True) -> None:
        if where:
            esper.component_for_entity(self.entity, KeywordSources).grant(keyword)
            self.did.append(f"gains {keyword}")

    def note(self, text: str, where: Any = True) -> None:
        if where:
            self.why.append(text)
