"""What restrictions and cards see of a creature of the reference world."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import esper
import numpy as np

from ecs_combat.plugin.definitions import color_mask, land_mask, type_mask
from ecs_combat.reference.components import (
    Colors,
    Damage,
    KeywordSources,
    Player,
    Stats,
)
from ecs_combat.rules.sides import instance_values

if TYPE_CHECKING:
    from ecs_combat.reference.board import Board


class EntitySide:
    """A creature of the reference world as a :class:`ecs_combat.plugin.restrictions.Side`."""

    def __init__(
        self,
        board: Board,
        entity: int,
        opponent: bool = False,
        spell_colors: tuple[str, ...] = (),
        from_creature: bool = False,
    ) -> None:
        self.board = board
        self.entity = entity
        self.opponent = opponent
        self.spell_colors = color_mask(spell_colors)
        self.from_creature = from_creature  # else a spell's target (cast events)

    def has(self, keyword: str) -> np.bool_:
        return np.bool_(self.board.has(self.entity, keyword))

    def values(self, keyword: str) -> int:
        return instance_values(self.board.instances(self.entity, keyword))

    def count(self, keyword: str) -> int:
        return len(self.board.instances(self.entity, keyword))

    @property
    def colors(self) -> int:
        return color_mask(self.board.colors(self.entity))

    @property
    def power(self) -> int:
        return esper.component_for_entity(self.entity, Stats).power

    @property
    def types(self) -> int:
        return type_mask(esper.component_for_entity(self.entity, Colors).types)

    @property
    def lands(self) -> int:
        player = esper.component_for_entity(self.board.controller(self.entity), Player)
        return land_mask(player.lands)


class CardTarget:
    """:class:`ecs_combat.plugin.views.EffectTarget` for the reference engine.

    `entity` is the target: a creature entity, a player entity ("any target"), or None for a
    card that targets nothing.
    """

    def __init__(self, board: Board, entity: int | None, caster: str, card: str) -> None:
        self.board = board
        self.entity = entity
        self.to_player = entity is not None and esper.has_component(entity, Player)
        #: The target creature, or None.
        self.creature = None if self.to_player else entity
        self.caster_entity = board.players[caster]
        self.caster = esper.component_for_entity(self.caster_entity, Player)
        self.card = card
        self.did: list[str] = []
        self.why: list[str] = []

    def state(self, key: str) -> Any:
        return None if self.creature is None else self.board.state(self.creature, key)

    def caster_state(self, key: str) -> Any:
        return self.caster.state.get(key)

    def related(self, key: str) -> Any:
        if self.creature is None:
            return False
        other = self.board.state(self.creature, key)
        return other is not None and self.board.on_battlefield(other)

    def pump(self, power: int, toughness: int, where: Any = True, via: str | None = None) -> None:
        if not where or self.creature is None:
            return
        entity = self.creature
        if via is not None:
            if not self.related(via):
                return
            entity = self.board.state(self.creature, via)
        self.board.pump(entity, power, toughness)
        self.did.append(f"{self.board.cid(entity)} gets {power:+d}/{toughness:+d}")

    def grant(self, keyword: str, where: Any = True) -> None:
        if where and self.creature is not None:
            esper.component_for_entity(self.creature, KeywordSources).grant(keyword)
            self.did.append(f"gains {keyword}")

    def damage(self, amount: int, where: Any = True) -> None:
        if not where or self.entity is None:
            return
        if self.to_player:
            self.board.lose_life(self.entity, amount)
            self.did.append(f"{amount} damage to {self.board.pid(self.entity)}")
        else:
            esper.component_for_entity(self.entity, Damage).marked += amount
            self.did.append(f"{amount} damage to {self.board.cid(self.entity)}")

    def grant_each(self, keyword: str, where: Any = True) -> None:
        if not where:
            return
        mine = [
            e
            for e in self.board.creature_entities()
            if self.board.on_battlefield(e) and self.board.controller(e) == self.caster_entity
        ]
        for e in mine:
            esper.component_for_entity(e, KeywordSources).grant(keyword)
        who = ", ".join(self.board.cid(e) for e in mine) or "no creature"
        self.did.append(f"{who} gain{'s' if len(mine) <= 1 else ''} {keyword}")

    def note(self, text: str, where: Any = True) -> None:
        if where:
            self.why.append(text)
