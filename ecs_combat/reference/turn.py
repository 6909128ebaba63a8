"""A turn with several combat phases in the reference engine (RULES.md section 8).

The whole turn is one esper world: its players and creatures are created once, and each
combat phase re-declares attackers and blockers in it (:meth:`Combat.next_combat`). So damage
stays marked, "until end of turn" effects last, attacking taps creatures without vigilance,
creatures that died stay dead and tokens stay; the plugins' systems (exalted, block triggers,
decayed) run in each combat phase as they do in one combat. Spells cast in main phases
resolve as their main phase comes.
"""

from __future__ import annotations

from dataclasses import replace

import esper

from ecs_combat.plugin.phases import MAIN, Phase
from ecs_combat.plugin.registry import Registry
from ecs_combat.reference.components import Damage, Player, Tapped
from ecs_combat.reference.engine import Combat
from ecs_combat.reference.events import cast_in_main
from ecs_combat.rules.pipeline import StepPlan
from ecs_combat.rules.result import CombatPhaseResult, CombatResult, SkippedEvent, TurnResult
from ecs_combat.rules.turn_legality import (
    GONE,
    NEVER_ENTERED,
    TAPPED,
    cannot_attack,
    cannot_block,
    left_the_game,
)
from ecs_combat.rules.usage import used_keywords
from ecs_combat.scenario.model import Scenario
from ecs_combat.scenario.turn_loader import seat_order
from ecs_combat.scenario.turns import TurnScenario


def main_phase_prefix(n: int) -> str:
    """How the notes of the n-th main phase begin in :attr:`TurnResult.notes`."""
    return f"main phase {n}: "


class TurnRun:
    """One turn played through in the current esper world."""

    def __init__(self, registry: Registry, plans: list[StepPlan], turn: TurnScenario) -> None:
        self.turn = turn
        base = Scenario(turn.file, turn.players, turn.creatures, {}, {})
        self.combat = Combat(registry, plans, base)
        self.combat.use_keywords(
            used_keywords(
                turn.combats,
                registry,
                creatures=turn.tokens.values(),
                cards=[c.card for c in turn.casts],
            )
        )

    def run(self) -> TurnResult:
        """Play every phase of the turn in order and return what happened. The creatures and
        players are taken as the last combat phase ends (CONTRACT: the turn's outcome); the
        spells of the main phases after it still resolve, for the account's notes."""
        c = self.combat
        c.set_up()
        result = TurnResult(phases=list(self.turn.phases))
        combats = len(self.turn.combats)
        mains = 0
        for phase in self.turn.phases:
            if phase.kind == MAIN:
                mains += 1
                result.notes += self.main_phase(mains)
                continue
            result.combats.append(self.combat_phase(len(result.combats), phase))
            if len(result.combats) == combats:
                c.players = {pid: c.players[pid] for pid in self.turn.players}  # turn order
                c.result = CombatResult()
                end = c.finish()
                result.creatures, result.players = end.creatures, end.players
        return result

    def main_phase(self, n: int) -> list[str]:
        """The spells cast in the n-th main phase resolve, in file order; the notes on them."""
        c = self.combat
        c.result = CombatResult()
        prefix = main_phase_prefix(n)
        for cast in self.turn.casts:
            if cast.main == n:
                cast_in_main(c, cast)
        return [text if text.startswith(prefix) else prefix + text for text in c.result.notes]

    def combat_phase(self, k: int, phase: Phase) -> CombatPhaseResult:
        """The k-th combat phase (0-based) with its entry of ``[[combats]]``. Its attacking
        player is the active player: the players are seated from them (APNAP, 101.4)."""
        c = self.combat
        seats = seat_order(list(self.turn.players), phase.player)
        scenario = replace(
            self.turn.combats[k], players={pid: self.turn.players[pid] for pid in seats}
        )
        c.next_combat(scenario)
        if c.game_over():
            c.note("the game is over: nothing happens in this combat phase")
            for ev in scenario.events:
                c.result.skipped_events.append(
                    SkippedEvent(ev.index, ev.at, ev.action, "the game ended before it")
                )
        else:
            self.check_declarations(k, scenario)
            c.declare_combat()
            for e in c.in_combat():
                marked = esper.component_for_entity(e, Damage).marked
                if marked:
                    c.note(f"{c.cid(e)} has {marked} damage marked from earlier this turn (120.6)")
            c.play()
        return CombatPhaseResult(
            phase.player, c.result.steps, c.result.skipped_events, c.result.notes
        )

    def check_declarations(self, k: int, scenario: Scenario) -> None:
        """Attackers and blockers must still be able to attack and block as this combat phase
        begins: on the battlefield and untapped (508.1a, 509.1a). The file is wrong otherwise."""
        c = self.combat
        for cid, defender in scenario.attackers.items():
            why = self.why_not(cid)
            e = c.creatures.get(cid)
            if why is None and e is not None:
                why = c.why_cannot_attack(e)
            if why is None and esper.component_for_entity(c.players[defender], Player).lost:
                why = left_the_game(defender)
            if why is not None:
                raise cannot_attack(self.turn.file, k, cid, why)
        for cid in scenario.blockers:
            why = self.why_not(cid)
            if why is not None:
                raise cannot_block(self.turn.file, k, cid, why)

    def why_not(self, cid: str) -> str | None:
        """Why a creature can't attack or block now: gone or tapped; None if neither."""
        c = self.combat
        e = c.creatures.get(cid)
        if e is None:
            return NEVER_ENTERED
        if not c.on_battlefield(e):
            return GONE
        if esper.has_component(e, Tapped):
            return TAPPED
        return None
