"""The players and creatures of the reference world, and what can be asked and done to them.

A :class:`Board` holds the game's entities by id; everything else about them is their esper
components (:mod:`ecs_combat.reference.components`). It lasts as long as the world: a turn's
combat phases share one. The plugins' context (:mod:`ecs_combat.reference.context`), the
restrictions' and cards' views (:mod:`ecs_combat.reference.views`) and the combat procedure
(:mod:`ecs_combat.reference.combat`) all read and change the creatures through it. It is also
the :class:`~ecs_combat.plugin.views.CombatView` that ``static_keywords`` hooks are given.
"""

from __future__ import annotations

from typing import Any

import esper

from ecs_combat.plugin.registry import Registry
from ecs_combat.reference.components import (
    Attacking,
    Blocking,
    Card,
    Colors,
    Controller,
    Damage,
    KeywordComponent,
    KeywordSources,
    OnBattlefield,
    Player,
    State,
    Stats,
    SummoningSick,
    Tapped,
    keyword_component,
)
from ecs_combat.scenario.model import CreatureSpec

#: Where instances no keyword list names (counters', static abilities') sort among a creature's.
UNLISTED = 1 << 30


class Board:
    """The players and creatures of one esper world, by id."""

    def __init__(self, registry: Registry) -> None:
        self.reg = registry
        #: Every player's entity, in turn order (a one-combat scenario's: its own order).
        self.players: dict[str, int] = {}
        self.creatures: dict[str, int] = {}
        #: Each creature as it was put onto the battlefield (what a new object starts from).
        self.specs: dict[str, CreatureSpec] = {}
        #: Power plus toughness of creatures as they last returned to the battlefield (400.7).
        self.returned: dict[str, int] = {}
        self.components = {name: keyword_component(name) for name in registry.keywords}

    # -- who is there ---------------------------------------------------------------------

    def cid(self, entity: int) -> str:
        """The scenario id of a creature entity."""
        return esper.component_for_entity(entity, Card).id

    def pid(self, entity: int) -> str:
        """The id of a player entity."""
        return esper.component_for_entity(entity, Player).id

    def order(self, entity: int) -> int:
        """A creature's place in the scenario (creatures that entered come last)."""
        return esper.component_for_entity(entity, Card).order

    def creature_entities(self) -> list[int]:
        """Every creature entity (on the battlefield or not), in scenario order."""
        return list(self.creatures.values())

    def on_battlefield(self, entity: int) -> bool:
        """Whether a creature is on the battlefield."""
        return esper.has_component(entity, OnBattlefield)

    def controller(self, entity: int) -> int:
        """The player entity controlling a creature."""
        return esper.component_for_entity(entity, Controller).player

    def remaining_players(self) -> int:
        """How many players are still in the game."""
        return sum(1 for _, p in esper.get_component(Player) if not p.lost)

    def game_over(self) -> bool:
        """Fewer than two players remain (RULES.md: end of game)."""
        return self.remaining_players() < 2

    # -- characteristics ------------------------------------------------------------------

    def keywords(self, entity: int) -> set[str]:
        """The keywords a creature has now."""
        components: tuple[Any, ...] = esper.components_for_entity(entity)
        return {c.keyword for c in components if isinstance(c, KeywordComponent)}

    def has(self, entity: int, keyword: str) -> bool:
        """Whether a creature has a keyword now."""
        component = self.components.get(keyword)
        return component is not None and esper.has_component(entity, component)

    def instances(self, entity: int, keyword: str) -> list[Any]:
        """The parameters of a creature's instances of a keyword it has now (one None for a
        keyword only a static ability gives)."""
        if not self.has(entity, keyword):
            return []
        found = esper.component_for_entity(entity, KeywordSources).instances(keyword)
        return found or [None]

    def listed_at(self, entity: int, keyword: str, instance: int) -> int:
        """Where a creature's `instance`-th instance of `keyword` is in its list of keyword
        instances (printed in file order, then granted in the order granted); instances only
        counters or static abilities give come after every listed one."""
        src = esper.component_for_entity(entity, KeywordSources)
        listed = [n for n, _ in src.printed] + [n for n, _ in src.granted]
        places = [i for i, n in enumerate(listed) if n == keyword]
        return places[instance] if instance < len(places) else UNLISTED + instance

    def counters(self, entity: int) -> dict[str, int]:
        """A creature's counters of every kind (read-only), kind -> count."""
        return esper.component_for_entity(entity, KeywordSources).counters

    def colors(self, entity: int) -> tuple[str, ...]:
        """A creature's colors (105.1)."""
        return esper.component_for_entity(entity, Colors).colors

    def state(self, entity: int, key: str) -> Any:
        """A plugin's state of a creature or player entity (a creature reference is an
        entity, or None)."""
        player = esper.try_component(entity, Player)
        if player is not None:
            return player.state.get(key)
        return esper.component_for_entity(entity, State).values.get(key)

    def summoning_sick(self, entity: int) -> bool:
        """Whether a creature came under its controller's control this turn (302.6)."""
        return esper.has_component(entity, SummoningSick)

    # -- in combat ------------------------------------------------------------------------

    def in_combat(self) -> list[int]:
        """Attacking and blocking creatures on the battlefield, in scenario order."""
        found = [
            e
            for e, (card, _) in esper.get_components(Card, OnBattlefield)
            if esper.has_component(e, Attacking) or esper.has_component(e, Blocking)
        ]
        return sorted(found, key=lambda e: esper.component_for_entity(e, Card).order)

    def attacking(self, entity: int) -> bool:
        """Whether a creature is on the battlefield and attacking."""
        return self.on_battlefield(entity) and esper.has_component(entity, Attacking)

    def blockers_left(self, attacker: int, att: Attacking) -> list[int]:
        """The creatures declared to block an attacker that still block it."""
        return [
            b
            for b in att.blockers
            if self.on_battlefield(b)
            and (blk := esper.try_component(b, Blocking)) is not None
            and attacker in blk.attackers
        ]

    def defending_player(self, entity: int) -> int | None:
        """The player entity an attacking creature attacks, or None if it is not attacking."""
        att = esper.try_component(entity, Attacking)
        return None if att is None or not self.on_battlefield(entity) else att.defender

    # -- CombatView for plugins -----------------------------------------------------------

    def creatures_with(self, keyword: str) -> list[str]:
        """Creatures on the battlefield whose own keywords include `keyword`."""
        return [
            card.id
            for _, (card, src, _) in esper.get_components(Card, KeywordSources, OnBattlefield)
            if keyword in src.own()
        ]

    def name(self, creature: str) -> str:
        """A creature's name."""
        return esper.component_for_entity(self.creatures[creature], Card).name

    def blocking(self, creature: str) -> list[str]:
        """The attackers a creature blocks that are still in combat."""
        blk = esper.try_component(self.creatures[creature], Blocking)
        if blk is None or not self.on_battlefield(self.creatures[creature]):
            return []
        return [self.cid(a) for a in blk.attackers if self.attacking(a)]

    def blocked_by(self, creature: str) -> list[str]:
        """The creatures still blocking an attacker, in declaration order."""
        att = esper.try_component(self.creatures[creature], Attacking)
        if att is None:
            return []
        return [self.cid(b) for b in self.blockers_left(self.creatures[creature], att)]

    # -- changes --------------------------------------------------------------------------

    def add_player(self, player: Player) -> None:
        """Seat a player (after those already seated, in turn order)."""
        self.players[player.id] = esper.create_entity(player)

    def add_creature(self, spec: CreatureSpec) -> int:
        """Put a creature onto the battlefield."""
        sources = KeywordSources(printed=list(zip(spec.keywords, spec.parameters, strict=True)))
        comps: list[Any] = [
            Card(spec.id, spec.name, len(self.creatures)),
            Controller(self.players[spec.controller]),
            Stats(spec.power, spec.toughness),
            Damage(spec.damage),
            sources,
            Colors(spec.colors, spec.types),
            State(dict(spec.state)),
            OnBattlefield(),
        ]
        if spec.summoning_sick:
            comps.append(SummoningSick())
        if spec.tapped:
            comps.append(Tapped())
        entity = esper.create_entity(*comps)
        self.creatures[spec.id] = entity
        self.specs[spec.id] = spec
        for kind, count in spec.counters.items():
            self.add_counters(entity, kind, count)
        return entity

    def pump(self, entity: int, power: int, toughness: int) -> None:
        """+power/+toughness until end of turn; nothing for a creature that has left the
        battlefield (400.7: the effect can't find it)."""
        if not self.on_battlefield(entity):
            return
        stats = esper.component_for_entity(entity, Stats)
        stats.power_bonus += power
        stats.toughness_bonus += toughness

    def lose_life(self, player: int, amount: int) -> None:
        """A player loses life (not damage, 119.3); not one who has left the game (800.4a)."""
        p = esper.component_for_entity(player, Player)
        if not p.lost:
            p.life -= amount

    def add_counters(self, entity: int, kind: str, change: int) -> None:
        """Put (positive) or remove (negative) counters; their power and toughness changes
        apply while they are on it (122.1a)."""
        sources = esper.component_for_entity(entity, KeywordSources)
        changed = sources.add_counters(kind, change, kind in self.reg.keywords)
        effect = self.reg.counter_kinds.get(kind)
        if effect is not None and changed:
            stats = esper.component_for_entity(entity, Stats)
            stats.counter_power += effect.power * changed
            stats.counter_toughness += effect.toughness * changed

    def set_state(self, entity: int, key: str, value: Any) -> None:
        """Change a plugin's state of a creature or player entity."""
        player = esper.try_component(entity, Player)
        values = (
            player.state if player is not None else esper.component_for_entity(entity, State).values
        )
        values[key] = value

    def leave_battlefield(self, entity: int) -> None:
        """The creature leaves the battlefield and so leaves combat (506.4)."""
        esper.try_remove_component(entity, OnBattlefield)
        self.remove_from_combat(entity)

    def remove_from_combat(self, entity: int) -> None:
        """Removed from combat: no longer attacking or blocking (506.4). A blocked attacker
        stays blocked (509.1h)."""
        esper.try_remove_component(entity, Attacking)
        esper.try_remove_component(entity, Blocking)

    def refresh_keywords(self) -> None:
        """Recompute every creature's keyword components (own keywords plus static ones)."""
        static: dict[str, set[str]] = {}
        if self.reg.wants("static_keywords"):
            for given in self.reg.manager.hook.static_keywords(combat=self):
                for cid, kws in given.items():
                    static.setdefault(cid, set()).update(kws)
        for e, (card, src) in esper.get_components(Card, KeywordSources):
            want = src.own() | {
                k for k in static.get(card.id, ()) if k in self.components and k not in src.removed
            }
            have = self.keywords(e)
            for k in have - want:
                esper.remove_component(e, self.components[k])
            for k in want - have:
                esper.add_component(e, self.components[k]())
