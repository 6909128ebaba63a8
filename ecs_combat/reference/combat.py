"""One combat phase played in the current esper world: declarations, triggers, the damage
steps and events between them, state-based actions, and the outcome."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import esper

from ecs_combat.errors import EcsCombatError, InputError, PluginError
from ecs_combat.plugin.registry import Registry, ScheduledSystem
from ecs_combat.plugin.schedule import (
    POINT_NAMES,
    AttackDeclaration,
    BlockDeclaration,
    Deaths,
    Destruction,
    StateCheck,
    Trigger,
)
from ecs_combat.reference import damage, events, returns
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
from ecs_combat.reference.context import ReferenceContext
from ecs_combat.reference.views import EntitySide
from ecs_combat.rules.legality import lethal_damage_message, why_cannot_attack
from ecs_combat.rules.pipeline import StepPlan
from ecs_combat.rules.result import (
    CombatResult,
    CreatureOutcome,
    PlayerOutcome,
    SkippedEvent,
    StepResult,
)
from ecs_combat.rules.usage import used_keywords
from ecs_combat.scenario.events import DECLARE_BLOCKERS
from ecs_combat.scenario.model import CreatureSpec, Division, Event, Scenario

#: Where instances no keyword list names (counters', static abilities') sort among a creature's.
UNLISTED = 1 << 30


class Combat:
    """One combat phase in the current esper world.

    `run()` plays it through; the methods it calls (`declare`, `damage_step`, `apply_event`,
    `state_based_actions`) can also be driven one at a time.
    """

    def __init__(self, registry: Registry, plans: list[StepPlan], scenario: Scenario) -> None:
        self.reg = registry
        self.plans = plans
        self.sc = scenario
        self.result = CombatResult()
        self.players: dict[str, int] = {}
        self.creatures: dict[str, int] = {}
        self.struck: dict[int, list[str]] = {}
        #: Each creature as it was put onto the battlefield (what a new object starts from).
        self.specs: dict[str, CreatureSpec] = {}
        #: Power plus toughness of creatures as they last returned to the battlefield (400.7).
        self.returned: dict[str, int] = {}
        self.divisions: dict[tuple[str, str], Division] = {
            (d.step, d.source): d for d in scenario.divisions
        }
        self._components = {name: keyword_component(name) for name in registry.keywords}
        #: Why creatures were kept from destruction at the last `destroy`.
        self.kept: dict[int, str] = {}
        #: Requirements triggers made (509.1c) this combat: (blocker, attacker, keyword)
        #: entities.
        self.required_blocks: list[tuple[int, int, str]] = []
        #: While triggers resolve: the creatures that returned as new objects since they were
        #: put on the stack (400.7); what those triggers do to them does nothing.
        self.new_objects: set[int] | None = None
        #: What the plugins' systems and triggered abilities see of this combat.
        self.context = ReferenceContext(self)
        #: The plugins' systems that apply to this combat, per point (:meth:`use_keywords`).
        self.systems: dict[str, list[ScheduledSystem]] = {}
        self.used: frozenset[str] = frozenset()
        self.use_keywords(used_keywords([scenario], registry))

    def use_keywords(self, keywords: Iterable[str]) -> None:
        """Let systems of these keywords run too (a turn's later combat phases, its cards):
        a system runs only if the combat uses one of its keywords, or if it names none."""
        self.used = self.used | frozenset(keywords)
        self.systems = {
            point: [
                s
                for s in self.reg.systems_at(point)
                if not s.system.keywords or s.system.keywords & self.used
            ]
            for point in POINT_NAMES
        }

    # -- queries --------------------------------------------------------------------------

    def cid(self, entity: int) -> str:
        """The scenario id of a creature entity."""
        return esper.component_for_entity(entity, Card).id

    def pid(self, entity: int) -> str:
        """The id of a player entity."""
        return esper.component_for_entity(entity, Player).id

    def keywords(self, entity: int) -> set[str]:
        """The keywords a creature has now."""
        components: tuple[Any, ...] = esper.components_for_entity(entity)
        return {c.keyword for c in components if isinstance(c, KeywordComponent)}

    def has(self, entity: int, keyword: str) -> bool:
        """Whether a creature has a keyword now."""
        component = self._components.get(keyword)
        return component is not None and esper.has_component(entity, component)

    def controller(self, entity: int) -> int:
        """The player entity controlling a creature."""
        return esper.component_for_entity(entity, Controller).player

    def pump(self, entity: int, power: int, toughness: int) -> None:
        """+power/+toughness until end of turn; nothing for a creature that has left the
        battlefield (400.7: the effect can't find it)."""
        if not self.on_battlefield(entity):
            return
        stats = esper.component_for_entity(entity, Stats)
        stats.power_bonus += power
        stats.toughness_bonus += toughness

    def defending_player(self, entity: int) -> int | None:
        """The player entity an attacking creature attacks, or None if it is not attacking."""
        att = esper.try_component(entity, Attacking)
        return None if att is None or not self.on_battlefield(entity) else att.defender

    def lose_life(self, player: int, amount: int) -> None:
        """A player loses life (not damage, 119.3); not one who has left the game (800.4a)."""
        p = esper.component_for_entity(player, Player)
        if not p.lost:
            p.life -= amount

    def instances(self, entity: int, keyword: str) -> list[Any]:
        """The parameters of a creature's instances of a keyword it has now (one None for a
        keyword only a static ability gives)."""
        if not self.has(entity, keyword):
            return []
        found = esper.component_for_entity(entity, KeywordSources).instances(keyword)
        return found or [None]

    def counters(self, entity: int) -> dict[str, int]:
        """A creature's counters of every kind (read-only), kind -> count."""
        return esper.component_for_entity(entity, KeywordSources).counters

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

    def set_state(self, entity: int, key: str, value: Any) -> None:
        """Change a plugin's state of a creature or player entity."""
        player = esper.try_component(entity, Player)
        values = (
            player.state if player is not None else esper.component_for_entity(entity, State).values
        )
        values[key] = value

    def summoning_sick(self, entity: int) -> bool:
        """Whether a creature came under its controller's control this turn (302.6)."""
        return esper.has_component(entity, SummoningSick)

    def creature_entities(self) -> list[int]:
        """Every creature entity (on the battlefield or not), in scenario order."""
        return list(self.creatures.values())

    def on_battlefield(self, entity: int) -> bool:
        """Whether a creature is on the battlefield."""
        return esper.has_component(entity, OnBattlefield)

    def run_systems(self, point: str, payload: Any) -> None:
        """Run the plugins' systems at a point of the combat, in schedule order."""
        triggers = getattr(payload, "triggers", None)
        for scheduled in self.systems[point]:
            before = len(triggers) if triggers is not None else 0
            _call(
                scheduled.plugin,
                f"system {scheduled.system.name!r} at {point}",
                scheduled.system.reference,
                self.context,
                payload,
            )
            named = scheduled.system.keywords
            for t in triggers[before:] if triggers is not None else ():
                t.plugin = scheduled.plugin
                if not t.keyword and len(named) == 1:
                    t.keyword = next(iter(named))

    def resolve_triggers(self, triggers: list[Trigger]) -> None:
        """Resolve triggered abilities in APNAP order (603.3b): the active player's go on the
        stack first, so the other players' resolve first, the last in turn order first; one
        player's in the order of their sources, one source's in the order its keyword
        instances are listed (RULES 7), whichever plugins they come from. State-based actions
        are checked after each (704.3); none resolves once the game is over. A trigger whose
        source has left still resolves (113.7a)."""
        rank = {e: i for i, e in enumerate(self.players.values())}
        ordered = sorted(
            enumerate(triggers),
            key=lambda it: (
                -rank[self.controller(it[1].source)],
                self.order(it[1].source),
                self.listed_at(it[1].source, it[1].keyword, it[1].instance),
                it[0],
            ),
        )
        self.new_objects = set()
        try:
            for _, t in ordered:
                if self.game_over():
                    return
                self._resolve_trigger(t)
        finally:
            self.new_objects = None

    def _resolve_trigger(self, t: Trigger) -> None:
        """One trigger resolves, then state-based actions are checked. Creatures that returned
        as new objects since it was put on the stack are not what it knew (400.7)."""
        assert self.new_objects is not None
        if not self.on_battlefield(t.source) or t.source in self.new_objects:
            self.note(
                f"a trigger of {self.cid(t.source)} resolves though its source left the "
                "battlefield (113.7a): what it does to its source does nothing"
            )
        self.context.stale = frozenset(self.new_objects)
        try:
            _call(t.plugin, "a triggered ability", t.resolve, self.context, t)
        finally:
            self.context.stale = frozenset()
        self.refresh_keywords()
        died = self.state_based_actions()
        if died:
            self.note(f"after the trigger: {', '.join(died)} died")

    def listed_at(self, entity: int, keyword: str, instance: int) -> int:
        """Where a creature's `instance`-th instance of `keyword` is in its list of keyword
        instances (printed in file order, then granted in the order granted); instances only
        counters or static abilities give come after every listed one."""
        src = esper.component_for_entity(entity, KeywordSources)
        listed = [n for n, _ in src.printed] + [n for n, _ in src.granted]
        places = [i for i, n in enumerate(listed) if n == keyword]
        return places[instance] if instance < len(places) else UNLISTED + instance

    def in_combat(self) -> list[int]:
        """Attacking and blocking creatures on the battlefield, in scenario order."""
        found = [
            e
            for e, (card, _) in esper.get_components(Card, OnBattlefield)
            if esper.has_component(e, Attacking) or esper.has_component(e, Blocking)
        ]
        return sorted(found, key=lambda e: esper.component_for_entity(e, Card).order)

    def remaining_players(self) -> int:
        """How many players are still in the game."""
        return sum(1 for _, p in esper.get_component(Player) if not p.lost)

    def game_over(self) -> bool:
        """Fewer than two players remain (RULES.md: end of game)."""
        return self.remaining_players() < 2

    def note(self, text: str) -> None:
        """Record a note for the readable account: after the step it follows, if any."""
        (self.result.steps[-1].after if self.result.steps else self.result.notes).append(text)

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
        return [self.cid(a) for a in blk.attackers if self._attacking(a)]

    def blocked_by(self, creature: str) -> list[str]:
        """The creatures still blocking an attacker, in declaration order."""
        att = esper.try_component(self.creatures[creature], Attacking)
        if att is None:
            return []
        return [self.cid(b) for b in self._blockers_left(self.creatures[creature], att)]

    # -- set-up ---------------------------------------------------------------------------

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
        self.struck[entity] = []
        for kind, count in spec.counters.items():
            self.add_counters(entity, kind, count)
        return entity

    def declare(self) -> None:
        """Create the players and creatures; declare attackers and blockers (508, 509)."""
        self.set_up()
        self.declare_combat()

    def set_up(self) -> None:
        """Create the scenario's players and creatures."""
        for p in self.sc.players.values():
            self.players[p.id] = esper.create_entity(
                Player(p.id, p.life, state=dict(p.state), lands=p.lands)
            )
        for spec in self.sc.creatures.values():
            self.add_creature(spec)
        refs = [k for k, f in self.reg.state_fields("creature").items() if f.kind == "creature"]
        for e in self.creatures.values():  # creature references as entities
            values = esper.component_for_entity(e, State).values
            for key in refs:
                if values.get(key) is not None:
                    values[key] = self.creatures[values[key]]
        self.refresh_keywords()
        self._check_marked_damage()

    def declare_combat(self) -> None:
        """Declare the scenario's attackers and blockers (508, 509), with their triggers (the
        scenario loader checked them; a turn checks each combat phase's as it declares them,
        :mod:`ecs_combat.reference.turn`)."""
        self.declare_attackers()
        self.declare_blockers()

    def declare_attackers(self) -> None:
        """The declare-attackers step (508): attackers, the systems (attack triggers), taps."""
        for cid, defender in self.sc.attackers.items():
            e = self.creatures[cid]
            esper.add_component(e, Attacking(self.players[defender]))
        self.refresh_keywords()
        attackers = [self.creatures[cid] for cid in self.sc.attackers]
        declaration = AttackDeclaration(attackers, set(attackers))
        self.run_systems("declare-attackers", declaration)
        for e in attackers:  # 508.1f
            if e in declaration.taps:
                esper.add_component(e, Tapped())
        self.resolve_triggers(declaration.triggers)  # 508.2
        self.refresh_keywords()

    def declare_blockers(self) -> None:
        """The declare-blockers step (509): blockers, the systems (block triggers), which
        resolve (603.3b)."""
        self.result.notes_before_blocks = len(self.result.notes)
        blocks: list[tuple[int, int]] = []
        for bid, attacked in self.sc.blockers.items():
            b = self.creatures[bid]
            # An attacker or blocker that left the battlefield or combat before blocks (toughness
            # 0 after the attack triggers, 704.5f; its player left the game, 800.4a) can't be
            # blocked or block: that block is not declared (509.1a).
            still = [
                self.creatures[a]
                for a in attacked
                if esper.has_component(self.creatures[a], Attacking)
            ]
            if not still or not self.on_battlefield(b):
                continue
            esper.add_component(b, Blocking(still))
            for a in still:
                att = esper.component_for_entity(a, Attacking)
                att.blocked = True
                att.blockers.append(b)
                blocks.append((b, a))
        self.refresh_keywords()
        if self.sc.attackers:
            blocking = BlockDeclaration(blocks)
            self.run_systems("declare-blockers", blocking)
            self.resolve_triggers(blocking.triggers)

    def _check_marked_damage(self) -> None:
        """A creature can't start the combat with lethal damage marked unless nothing
        destroys it (704.5g): that is an input error."""
        toughness = {
            spec.id: esper.component_for_entity(self.creatures[spec.id], Stats).toughness
            for spec in self.sc.creatures.values()
        }
        lethal = {
            self.creatures[spec.id]: spec
            for spec in self.sc.creatures.values()
            if 0 < toughness[spec.id] <= spec.damage  # 704.5g (0 or less: 704.5f, it dies)
        }
        for e in sorted(self.destroy(set(lethal)), key=self.order):
            spec = lethal[e]
            raise InputError(
                self.sc.file,
                f"{spec.path}.damage",
                lethal_damage_message(spec.damage, toughness[spec.id], spec.toughness),
            )

    def targets(self, entity: int, keyword: str) -> list[int | None]:
        """The targets the scenario gives a creature's instances of a keyword, by entity."""
        spec = self.sc.creatures.get(self.cid(entity))  # an entering creature has none
        count = len(self.instances(entity, keyword))
        ids = [] if spec is None else list(spec.targets.get(keyword, ()))
        found = [self.creatures.get(t) for t in ids[:count]]
        return found + [None] * (count - len(found))

    def why_cannot_attack(self, entity: int) -> str | None:
        """Why a creature could not be declared as an attacker now (508.1a, 302.6), or None."""
        if not self.on_battlefield(entity):
            return "it is not on the battlefield"
        if esper.has_component(entity, Tapped):
            return "it is tapped"
        sick = esper.has_component(entity, SummoningSick)
        return why_cannot_attack(EntitySide(self, entity), sick, self.reg)

    # -- keywords -------------------------------------------------------------------------

    def refresh_keywords(self) -> None:
        """Recompute every creature's keyword components (own keywords plus static ones)."""
        static: dict[str, set[str]] = {}
        if self.reg.wants("static_keywords"):
            for given in self.reg.manager.hook.static_keywords(combat=self):
                for cid, kws in given.items():
                    static.setdefault(cid, set()).update(kws)
        for e, (card, src) in esper.get_components(Card, KeywordSources):
            want = src.own() | {
                k for k in static.get(card.id, ()) if k in self._components and k not in src.removed
            }
            have = self.keywords(e)
            for k in have - want:
                esper.remove_component(e, self._components[k])
            for k in want - have:
                esper.add_component(e, self._components[k]())

    # -- the combat -----------------------------------------------------------------------

    def run(self) -> CombatResult:
        """Play the combat through and return its outcome."""
        self.declare()
        self.play()
        return self.finish()

    def next_combat(self, scenario: Scenario) -> None:
        """Begin another combat phase of the same turn in this world (RULES.md section 8) with
        the scenario's declarations, events and divisions, and its players' order (APNAP from
        its attacking player). Creatures stop attacking and blocking (511.3) and the strikers
        are cleared; damage, "until end of turn" effects, counters and tapped creatures stay."""
        self.sc = scenario
        self.result = CombatResult()
        self.divisions = {(d.step, d.source): d for d in scenario.divisions}
        self.players = {pid: self.players[pid] for pid in scenario.players}
        self.required_blocks = []  # a trigger's requirement is for its own combat (509.1c)
        for e in self.creatures.values():
            self.struck[e] = []
            self.remove_from_combat(e)
        self.use_keywords(used_keywords([scenario], self.reg))

    def play(self) -> None:
        """The combat after its declarations: the damage steps with the events between them,
        then the end of combat."""
        if not self.sc.attackers:
            self.note("no creatures attack: no damage steps (508.8)")
            for ev in self.sc.events:
                self._skip(ev, "no creatures attacked, so the combat had no such point (508.8)")
            return
        self.state_based_actions()
        self.events_at(DECLARE_BLOCKERS)
        for plan in self.plans:
            if self.game_over():
                self.skip_events_after(plan.name, "the game ended before it")
                continue
            self.refresh_keywords()
            if not plan.exists(self.keywords(e) for e in self.in_combat()):
                self.skip_events_after(plan.name, f"the {plan.name} step did not take place")
                continue
            damage.damage_step(self, plan)
            self.events_at(f"after {plan.name}")
        if not self.game_over():
            self.end_of_combat()

    def damage_step(self, plan: StepPlan) -> StepResult:
        """One combat damage step (:func:`ecs_combat.reference.damage.damage_step`)."""
        return damage.damage_step(self, plan)

    def apply_event(self, ev: Event) -> None:
        """Apply one scenario event (:func:`ecs_combat.reference.events.apply_event`)."""
        events.apply_event(self, ev)

    def events_at(self, point: str) -> None:
        """Apply the events at a point, checking state-based actions after each."""
        for ev in self.sc.events:
            if ev.at != point:
                continue
            if self.game_over():
                self._skip(ev, "the game ended before it")
                continue
            events.apply_event(self, ev)
            self.refresh_keywords()
            died = self.state_based_actions()
            if died:
                self.note(f"after {ev.describe()}: {', '.join(died)} died")

    def skip_events_after(self, step: str, reason: str) -> None:
        """Record the events after a step that did not happen."""
        for ev in self.sc.events:
            if ev.at == f"after {step}":
                self._skip(ev, reason)

    def _skip(self, ev: Event, reason: str) -> None:
        self.result.skipped_events.append(SkippedEvent(ev.index, ev.at, ev.action, reason))

    def _attacking(self, entity: int) -> bool:
        return self.on_battlefield(entity) and esper.has_component(entity, Attacking)

    def _blockers_left(self, attacker: int, att: Attacking) -> list[int]:
        return [
            b
            for b in att.blockers
            if self.on_battlefield(b)
            and (blk := esper.try_component(b, Blocking)) is not None
            and attacker in blk.attackers
        ]

    def state_based_actions(self) -> list[str]:
        """704.5a, f, g and the plugins' conditions: players lose, creatures die; the `dies`
        systems follow, and the state-based actions are checked again after them (704.3: a
        dies trigger's counters annihilate, 704.5q; what it returns can die) until a check
        finds nothing that dies. Returns who died, in scenario order."""
        died: list[str] = []
        while True:
            now = self._check_state()
            died += [cid for cid in now if cid not in died]
            if not now or not self.systems["dies"]:
                return sorted(died, key=lambda cid: self.order(self.creatures[cid]))

    def _check_state(self) -> list[str]:
        """One check of the state-based actions (704.3), then the `dies` systems."""
        check = StateCheck(set(), set(), set())
        for e, (_, stats, dmg, _) in esper.get_components(Card, Stats, Damage, OnBattlefield):
            if stats.toughness <= 0:
                check.dies.add(e)
            elif dmg.marked >= stats.toughness:
                check.destroy.add(e)
        for e, p in esper.get_component(Player):
            if not p.lost and p.life <= 0:
                check.loses.add(e)
        self.run_systems("state-based-actions", check)
        destroyed = self.destroy(check.destroy - check.dies)
        died = [
            self.cid(e)
            for e in sorted(destroyed | check.dies, key=lambda e: self.order(e))
            if self.on_battlefield(e)
        ]
        for cid in died:
            self.leave_battlefield(self.creatures[cid])
        losers = [e for e, p in esper.get_component(Player) if e in check.loses and not p.lost]
        for e in losers:
            esper.component_for_entity(e, Player).lost = True
            self.note(
                f"player {self.pid(e)} {check.why.get(e, 'is at 0 or less life and loses (704.5a)')}"
            )
        if losers and not self.game_over():
            self._players_leave(losers)
        self.creatures_died([self.creatures[cid] for cid in died])
        return died

    def creatures_died(self, entities: list[int]) -> None:
        """The `dies` systems for creatures that just died (700.4), unless the game is over."""
        if entities and self.systems["dies"] and not self.game_over():
            self.run_systems("dies", Deaths(sorted(entities, key=self.order)))
            self.refresh_keywords()
            for e in entities:  # what returned, as it returned (RULES 9: value)
                if self.on_battlefield(e):
                    stats = esper.component_for_entity(e, Stats)
                    self.returned[self.cid(e)] = stats.power + stats.toughness

    def sacrifice(self, entity: int) -> None:
        """Its controller sacrifices a creature (701.17): it dies (700.4); state-based actions
        are checked after the `dies` systems (704.3)."""
        if not self.on_battlefield(entity):
            return
        self.leave_battlefield(entity)
        self.creatures_died([entity])
        if self.systems["dies"]:
            self.state_based_actions()

    def return_to_battlefield(self, entity: int) -> None:
        """A creature that died returns to the battlefield as a new object (400.7):
        :func:`ecs_combat.reference.returns.return_to_battlefield`."""
        returns.return_to_battlefield(self, entity)

    def order(self, entity: int) -> int:
        """A creature's place in the scenario (creatures that entered come last)."""
        return esper.component_for_entity(entity, Card).order

    def destroy(self, creatures: set[int]) -> set[int]:
        """Creatures about to be destroyed, less those a system exempts (701.8)."""
        if not creatures:
            return creatures
        destruction = Destruction(set(creatures))
        self.run_systems("destroy", destruction)
        self.kept = destruction.kept
        return destruction.creatures

    def _players_leave(self, losers: list[int]) -> None:
        """A player who loses leaves the game, with their creatures (800.4a); the account says
        so, and which attackers it leaves attacking nobody."""
        gone: dict[int, list[str]] = {e: [] for e in losers}
        for e, (ctrl, _) in list(esper.get_components(Controller, OnBattlefield)):
            if ctrl.player in losers:
                gone[ctrl.player].append(self.cid(e))
                self.leave_battlefield(e)
        stopped: dict[int, list[str]] = {e: [] for e in losers}
        for e, att in list(esper.get_component(Attacking)):
            if att.defender in losers:
                stopped[att.defender].append(self.cid(e))
                esper.remove_component(e, Attacking)
        for e in losers:
            creatures = ", ".join(gone[e])
            text = f"player {self.pid(e)} leaves the game (800.4a)"
            text += f" with its creatures: {creatures}" if creatures else ""
            if stopped[e]:
                verb = "attacks" if len(stopped[e]) == 1 else "attack"
                text += f"; {', '.join(stopped[e])} no longer {verb} (506.4)"
            self.note(text)

    def leave_battlefield(self, entity: int) -> None:
        """The creature leaves the battlefield and so leaves combat (506.4)."""
        esper.try_remove_component(entity, OnBattlefield)
        self.remove_from_combat(entity)

    def remove_from_combat(self, entity: int) -> None:
        """Removed from combat: no longer attacking or blocking (506.4). A blocked attacker
        stays blocked (509.1h)."""
        esper.try_remove_component(entity, Attacking)
        esper.try_remove_component(entity, Blocking)

    def end_of_combat(self) -> None:
        """The end of combat step (511): the plugins' delayed triggers."""
        self.run_systems("end-of-combat", None)

    def finish(self) -> CombatResult:
        """Fill in the creatures and players as they are at the end of combat."""
        res = self.result
        for cid, e in self.creatures.items():
            stats = esper.component_for_entity(e, Stats)
            res.creatures[cid] = CreatureOutcome(
                alive=self.on_battlefield(e),
                damage=esper.component_for_entity(e, Damage).marked,
                power=stats.power,
                toughness=stats.toughness,
                tapped=self.on_battlefield(e) and esper.has_component(e, Tapped),
                may_attack=self.why_cannot_attack(e) is None,
                counters={k: n for k, n in self.counters(e).items() if n > 0},
                state={
                    k: self.state(e, k)
                    for k, f in self.reg.state_fields("creature").items()
                    if f.output
                },
                returned=self.returned.get(cid),
            )
        shown = [k for k, f in self.reg.state_fields("player").items() if f.output]
        for pid, e in self.players.items():
            p = esper.component_for_entity(e, Player)
            state = {k: p.state.get(k) for k in shown}
            res.players[pid] = PlayerOutcome(life=p.life, lost=p.lost, state=state)
        return res

    # -- events ---------------------------------------------------------------------------


def _call(plugin: str, what: str, function: Any, *args: Any) -> None:
    """Call a plugin's function; an exception from it is the plugin's, reported by name."""
    try:
        result = function(*args)
    except EcsCombatError:
        raise
    except Exception as exc:
        raise PluginError(f"plugin {plugin!r}: {what} raised {type(exc).__name__}: {exc}") from exc
    if result is not None:
        raise PluginError(
            f"plugin {plugin!r}: {what} returned {result!r}; it should change what it is given "
            "and return nothing"
        )
