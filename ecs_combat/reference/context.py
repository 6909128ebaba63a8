"""The reference engine's :class:`~ecs_combat.plugin.context.CombatContext`: a thin facade
over the creatures of one :class:`~ecs_combat.reference.combat.Combat` (its
:class:`~ecs_combat.reference.board.Board`) and the few actions that are the combat's own
(sacrifice, returning, requirements, notes)."""

from __future__ import annotations

from collections.abc import MutableMapping, Sequence
from typing import TYPE_CHECKING

import esper

from ecs_combat.plugin.context import Creature, MarkValue, Player, StateValue
from ecs_combat.plugin.definitions import color_mask, land_mask, parameter_number, type_mask
from ecs_combat.reference.components import (
    Attacking,
    Blocking,
    Card,
    Colors,
    Damage,
    KeywordSources,
    Stats,
    Tapped,
)
from ecs_combat.reference.components import Player as PlayerComponent
from ecs_combat.reference.returns import return_to_battlefield
from ecs_combat.reference.sacrifices import choose_sacrifices
from ecs_combat.reference.state_based import destroy_creatures, sacrifice
from ecs_combat.reference.tokens import create_token
from ecs_combat.reference.views import EntitySide
from ecs_combat.rules.legality import why_not_a_legal_target

if TYPE_CHECKING:
    from ecs_combat.reference.playing import Playing


class ReferenceContext:
    """What the systems and triggered abilities of one combat see (docs/plugins.md)."""

    __slots__ = ("_board", "_combat", "_marks", "counters_put", "stale")

    def __init__(self, combat: Playing) -> None:
        self._combat = combat
        self._board = combat.board
        self._marks: dict[str, dict[int, MarkValue]] = {}
        #: While a trigger resolves: creatures that returned as new objects since it was put on
        #: the stack (400.7). To it they are gone: not on the battlefield, and what it would
        #: do to them does nothing.
        self.stale: frozenset[int] = frozenset()
        #: While the state-based actions' systems run: the counters they put or removed,
        #: (creature, kind, change), so that a creature leaving in that same check leaves with
        #: the counters it had (704.3: the actions happen at once). None otherwise.
        self.counters_put: list[tuple[int, str, int]] | None = None

    def creatures(self) -> list[Creature]:
        return self._board.creature_entities()

    def players(self) -> list[Player]:
        return list(self._combat.now.players.values())

    def creature_id(self, creature: Creature) -> str:
        return self._board.cid(creature)

    def player_id(self, player: Player) -> str:
        return self._board.pid(player)

    def name(self, creature: Creature) -> str:
        return esper.component_for_entity(creature, Card).name

    def on_battlefield(self, creature: Creature) -> bool:
        return creature not in self.stale and self._board.on_battlefield(creature)

    def new_object(self, creature: Creature) -> bool:
        return creature in self.stale

    def attacking(self, creature: Creature) -> bool:
        return self.on_battlefield(creature) and esper.has_component(creature, Attacking)

    def blocking(self, creature: Creature) -> bool:
        return self.on_battlefield(creature) and esper.has_component(creature, Blocking)

    def defending_player(self, creature: Creature) -> Player | None:
        return None if creature in self.stale else self._board.defending_player(creature)

    def blocker_count(self, creature: Creature) -> int:
        return len(self._board.blocked_by(self._board.cid(creature)))

    def band(self, creature: Creature) -> Creature | None:
        board = self._board
        cid = board.cid(creature)
        for band in self._combat.now.scenario.bands:
            if cid in band:
                return board.creatures[band[0]]
        return None

    def controller(self, creature: Creature) -> Player:
        return self._board.controller(creature)

    def has(self, creature: Creature, keyword: str) -> bool:
        return self._board.has(creature, keyword)

    def instances(self, creature: Creature, keyword: str) -> list[int]:
        return [parameter_number(p) for p in self._board.instances(creature, keyword)]

    def power(self, creature: Creature) -> int:
        return esper.component_for_entity(creature, Stats).power

    def toughness(self, creature: Creature) -> int:
        return esper.component_for_entity(creature, Stats).toughness

    def damage(self, creature: Creature) -> int:
        return esper.component_for_entity(creature, Damage).marked

    def colors(self, creature: Creature) -> int:
        return color_mask(self._board.colors(creature))

    def types(self, creature: Creature) -> int:
        return type_mask(esper.component_for_entity(creature, Colors).types)

    def lands(self, player: Player) -> int:
        return land_mask(esper.component_for_entity(player, PlayerComponent).lands)

    def tapped(self, creature: Creature) -> bool:
        return esper.has_component(creature, Tapped)

    def summoning_sick(self, creature: Creature) -> bool:
        return self._board.summoning_sick(creature)

    def counters(self, creature: Creature, kind: str) -> int:
        return esper.component_for_entity(creature, KeywordSources).counters.get(kind, 0)

    def creature_state(self, creature: Creature, key: str) -> StateValue:
        value: StateValue = self._board.state(creature, key)
        return value

    def can_target(self, source: Creature, target: Creature) -> bool:
        board = self._board
        if not self.on_battlefield(target):
            return False
        opponent = board.controller(source) != board.controller(target)
        side = EntitySide(board, target, opponent, board.colors(source), from_creature=True)
        return why_not_a_legal_target(side, board.reg) is None

    def life(self, player: Player) -> int:
        return esper.component_for_entity(player, PlayerComponent).life

    def lost(self, player: Player) -> bool:
        return esper.component_for_entity(player, PlayerComponent).lost

    def player_state(self, player: Player, key: str) -> StateValue:
        value: StateValue = self._board.state(player, key)
        return value

    def game_over(self) -> bool:
        return self._board.game_over()

    def pump(self, creature: Creature, power: int, toughness: int) -> None:
        if creature not in self.stale:
            self._board.pump(creature, power, toughness)

    def add_counters(self, creature: Creature, kind: str, change: int) -> None:
        if creature not in self.stale:
            self._board.add_counters(creature, kind, change)
            if self.counters_put is not None:
                self.counters_put.append((creature, kind, change))

    def tap(self, creature: Creature) -> None:
        if creature not in self.stale and not esper.has_component(creature, Tapped):
            esper.add_component(creature, Tapped())

    def untap(self, creature: Creature) -> None:
        if creature not in self.stale:
            esper.try_remove_component(creature, Tapped)

    def targets(self, creature: Creature, keyword: str) -> list[Creature | None]:
        return self._combat.targets(creature, keyword)

    def require_block(self, blocker: Creature, attacker: Creature, keyword: str) -> None:
        if blocker not in self.stale and attacker not in self.stale:
            self._combat.now.required_blocks.append((blocker, attacker, keyword))

    def leave_battlefield(self, creature: Creature) -> None:
        if creature not in self.stale:
            self._board.leave_battlefield(creature)

    def lose_life(self, player: Player, amount: int) -> None:
        self._board.lose_life(player, amount)

    def sacrifice(self, creatures: Sequence[Creature]) -> None:
        sacrifice(self._combat, [c for c in creatures if c not in self.stale])

    def chosen_sacrifices(self, player: Player, n: int) -> list[Creature]:
        return choose_sacrifices(self._combat, player, n)

    def create_token(
        self,
        controller: Player,
        characteristics: Creature,
        tapped: bool = False,
        attacking: Player | None = None,
    ) -> Creature | None:
        return create_token(self._combat, controller, characteristics, tapped, attacking)

    def destroy(self, creature: Creature) -> bool:
        if creature in self.stale:
            return False
        return bool(destroy_creatures(self._combat, [creature]))

    def remove_from_combat(self, creature: Creature) -> None:
        if creature not in self.stale:
            self._board.remove_from_combat(creature)

    def remove_damage(self, creature: Creature) -> None:
        if creature not in self.stale:
            esper.component_for_entity(creature, Damage).marked = 0

    def return_to_battlefield(self, creature: Creature) -> None:
        if creature not in self.stale:
            return_to_battlefield(self._combat, creature)

    def forget(self, creature: Creature) -> None:
        """Drop the plugins' marks of a creature that became a new object (400.7)."""
        for values in self._marks.values():
            values.pop(creature, None)

    def set_creature_state(self, creature: Creature, key: str, value: StateValue) -> None:
        if creature not in self.stale:
            self._board.set_state(creature, key, value)

    def set_player_state(self, player: Player, key: str, value: StateValue) -> None:
        self._board.set_state(player, key, value)

    def marks(self, name: str) -> MutableMapping[int, MarkValue]:
        return self._marks.setdefault(name, {})

    def note(self, text: str) -> None:
        self._combat.note(text)
