"""The procedure that plays one combat phase in the current esper world: declarations, the
damage steps with the events between them, the end of combat, and its outcome.

The creatures and players are the :class:`~ecs_combat.reference.board.Board`'s; what belongs to
the combat phase alone is a :class:`~ecs_combat.reference.state.CombatState`, made new for each
phase. The steps are spelled out in :mod:`~ecs_combat.reference.declarations`,
:mod:`~ecs_combat.reference.damage`, :mod:`~ecs_combat.reference.events`,
and :mod:`~ecs_combat.reference.state_based` (triggers resolving there too).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import esper

from ecs_combat.errors import call_plugin
from ecs_combat.plugin.registry import Registry
from ecs_combat.reference import damage, declarations, events, state_based
from ecs_combat.reference.board import Board
from ecs_combat.reference.components import Damage, Player, Stats, SummoningSick, Tapped
from ecs_combat.reference.context import ReferenceContext
from ecs_combat.reference.state import CombatState
from ecs_combat.reference.systems import Systems
from ecs_combat.reference.views import EntitySide
from ecs_combat.rules.legality import why_cannot_attack
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
from ecs_combat.scenario.model import Event, Scenario


class Combat:
    """One combat phase in the current esper world.

    `run()` plays it through; the methods it calls (`declare`, `damage_step`, `apply_event`,
    `state_based_actions`) can also be driven one at a time. A turn plays several combat
    phases with one (:meth:`next_combat`).
    """

    def __init__(self, registry: Registry, plans: list[StepPlan], scenario: Scenario) -> None:
        self.reg = registry
        self.plans = plans
        #: The players and creatures.
        self.board = Board(registry)
        #: This combat phase's own state (its players take their seats as it is set up).
        self.now = CombatState(scenario, {})
        #: What the plugins' systems and triggered abilities see of this combat.
        self.context = ReferenceContext(self)
        #: The plugins' systems that apply to this combat, per point.
        self.systems = Systems(registry, used_keywords([scenario], registry))

    def use_keywords(self, keywords: Iterable[str]) -> None:
        """Let systems of these keywords run too (a turn's later combat phases, its cards):
        a system runs only if the combat uses one of its keywords, or if it names none."""
        self.systems.use(keywords)

    def begin(self, scenario: Scenario, players: Iterable[str] | None = None) -> None:
        """Begin a combat phase with a new state: the scenario's declarations, events and
        divisions, and its players (in the scenario's order, or in `players`' order)."""
        seats = scenario.players if players is None else players
        self.now = CombatState(scenario, {pid: self.board.players[pid] for pid in seats})

    # -- what the steps share -------------------------------------------------------------

    def run_systems(self, point: str, payload: Any) -> None:
        """Run the plugins' systems at a point of the combat, in schedule order. A trigger a
        system puts on the stack is its plugin's, and of its keyword when the system names
        just one."""
        triggers = getattr(payload, "triggers", None)
        for scheduled in self.systems.at[point]:
            before = len(triggers) if triggers is not None else 0
            call_plugin(
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

    def note(self, text: str) -> None:
        """Record a note for the readable account: after the step it follows, if any."""
        result = self.now.result
        (result.steps[-1].after if result.steps else result.notes).append(text)

    def targets(self, entity: int, keyword: str) -> list[int | None]:
        """The targets the scenario gives a creature's instances of a keyword, by entity."""
        board = self.board
        spec = self.now.scenario.creatures.get(board.cid(entity))  # an entering one has none
        count = len(board.instances(entity, keyword))
        ids = [] if spec is None else list(spec.targets.get(keyword, ()))
        found = [board.creatures.get(t) for t in ids[:count]]
        return found + [None] * (count - len(found))

    def why_cannot_attack(self, entity: int) -> str | None:
        """Why a creature could not be declared as an attacker now (508.1a, 302.6), or None."""
        if not self.board.on_battlefield(entity):
            return "it is not on the battlefield"
        if esper.has_component(entity, Tapped):
            return "it is tapped"
        sick = esper.has_component(entity, SummoningSick)
        return why_cannot_attack(EntitySide(self.board, entity), sick, self.reg)

    def refresh_keywords(self) -> None:
        """Recompute every creature's keyword components (own keywords plus static ones)."""
        self.board.refresh_keywords()

    # -- the combat -----------------------------------------------------------------------

    def run(self) -> CombatResult:
        """Play the combat through and return its outcome."""
        self.declare()
        self.play()
        return self.finish()

    def declare(self) -> None:
        """Create the players and creatures; declare attackers and blockers (508, 509)."""
        declarations.set_up(self)
        declarations.declare_attackers(self)
        declarations.declare_blockers(self)

    def set_up(self) -> None:
        """Create the scenario's players and creatures."""
        declarations.set_up(self)

    def declare_attackers(self) -> None:
        """The declare-attackers step (508): attackers, the systems (attack triggers), taps."""
        declarations.declare_attackers(self)

    def declare_blockers(self) -> None:
        """The declare-blockers step (509): blockers, the systems (block triggers), which
        resolve (603.3b)."""
        declarations.declare_blockers(self)

    def next_combat(self, scenario: Scenario) -> None:
        """Begin another combat phase of the same turn in this world (RULES.md section 8) with
        the scenario's declarations, events and divisions, and its players' order (APNAP from
        its attacking player), in a new :class:`CombatState`. Creatures stop attacking and
        blocking (511.3), and none has struck yet; damage, "until end of turn" effects,
        counters and tapped creatures stay."""
        self.begin(scenario)
        for e in self.board.creatures.values():
            self.board.remove_from_combat(e)
        self.use_keywords(used_keywords([scenario], self.reg))

    def between_combats(self) -> None:
        """Begin a stretch of the turn outside combat (a main phase, the turn's outcome) in a
        new :class:`CombatState`: the players in turn order, nothing noted yet."""
        self.begin(self.now.scenario, self.board.players)

    def play(self) -> None:
        """The combat after its declarations: the damage steps with the events between them,
        then the end of combat."""
        board, sc = self.board, self.now.scenario
        if not sc.attackers:
            self.note("no creatures attack: no damage steps (508.8)")
            for ev in sc.events:
                self.skip(ev, "no creatures attacked, so the combat had no such point (508.8)")
            return
        state_based.state_based_actions(self)
        self.events_at(DECLARE_BLOCKERS)
        for plan in self.plans:
            if board.game_over():
                self.skip_events_after(plan.name, "the game ended before it")
                continue
            board.refresh_keywords()
            if not plan.exists(board.keywords(e) for e in board.in_combat()):
                self.skip_events_after(plan.name, f"the {plan.name} step did not take place")
                continue
            damage.damage_step(self, plan)
            self.events_at(f"after {plan.name}")
        if not board.game_over():
            self.end_of_combat()

    def damage_step(self, plan: StepPlan) -> StepResult:
        """One combat damage step (:func:`ecs_combat.reference.damage.damage_step`)."""
        return damage.damage_step(self, plan)

    def apply_event(self, ev: Event) -> None:
        """Apply one scenario event (:func:`ecs_combat.reference.events.apply_event`)."""
        events.apply_event(self, ev)

    def events_at(self, point: str) -> None:
        """Apply the events at a point, checking state-based actions after each."""
        for ev in self.now.scenario.events:
            if ev.at != point:
                continue
            if self.board.game_over():
                self.skip(ev, "the game ended before it")
                continue
            events.apply_event(self, ev)
            self.board.refresh_keywords()
            died = state_based.state_based_actions(self)
            if died:
                self.note(f"after {ev.describe()}: {', '.join(died)} died")

    def skip_events_after(self, step: str, reason: str) -> None:
        """Record the events after a step that did not happen."""
        for ev in self.now.scenario.events:
            if ev.at == f"after {step}":
                self.skip(ev, reason)

    def skip(self, ev: Event, reason: str) -> None:
        """Record an event that did not happen, and why."""
        self.now.result.skipped_events.append(SkippedEvent(ev.index, ev.at, ev.action, reason))

    def state_based_actions(self) -> list[str]:
        """Check state-based actions (:func:`ecs_combat.reference.state_based.state_based_actions`);
        who died, in scenario order."""
        return state_based.state_based_actions(self)

    def end_of_combat(self) -> None:
        """The end of combat step (511): the plugins' delayed triggers, then state-based
        actions (704.3: a player would receive priority)."""
        if self.systems.at["end-of-combat"]:
            self.run_systems("end-of-combat", None)
            died = state_based.state_based_actions(self)
            if died:
                self.note(f"end of combat: {', '.join(died)} died")

    def finish(self) -> CombatResult:
        """Fill in the creatures, and the players in this phase's order, as they are now (at
        the end of combat)."""
        board, res = self.board, self.now.result
        creature_keys = [k for k, f in self.reg.state_fields("creature").items() if f.output]
        for cid, e in board.creatures.items():
            stats = esper.component_for_entity(e, Stats)
            on = board.on_battlefield(e)
            res.creatures[cid] = CreatureOutcome(
                alive=on,
                damage=esper.component_for_entity(e, Damage).marked,
                power=stats.power,
                toughness=stats.toughness,
                tapped=on and esper.has_component(e, Tapped),
                may_attack=self.why_cannot_attack(e) is None,
                counters={k: n for k, n in board.counters(e).items() if n > 0},
                state={k: board.state(e, k) for k in creature_keys},
                returned=board.returned.get(cid),
            )
        shown = [k for k, f in self.reg.state_fields("player").items() if f.output]
        for pid, e in self.now.players.items():
            p = esper.component_for_entity(e, Player)
            state = {k: p.state.get(k) for k in shown}
            res.players[pid] = PlayerOutcome(life=p.life, lost=p.lost, state=state)
        return res
