"""A turn with several combat phases in the reference engine (RULES.md section 8).

The whole turn is one esper world: its players and creatures are created once, and each
combat phase re-declares attackers and blockers in it (:meth:`Combat.next_combat`, which
begins a new :class:`~ecs_combat.reference.state.CombatState`). So damage
stays marked, "until end of turn" effects last, attacking taps creatures without vigilance,
creatures that died stay dead and tokens stay; the plugins' systems (exalted, block triggers,
decayed) run in each combat phase as they do in one combat. Spells cast in main phases
resolve as their main phase comes.
"""

from __future__ import annotations

from dataclasses import replace

import esper

from ecs_combat.plugin.phases import COMBAT, MAIN, Phase
from ecs_combat.plugin.registry import Registry
from ecs_combat.reference.combat import Combat
from ecs_combat.reference.components import Attacking, Damage, Player, Tapped
from ecs_combat.reference.events import cast_in_main
from ecs_combat.reference.views import EntitySide
from ecs_combat.rules.legality import check_blocks
from ecs_combat.rules.pipeline import StepPlan
from ecs_combat.rules.result import CombatPhaseResult, SkippedPhase, TurnResult
from ecs_combat.rules.turn_legality import (
    GAME_OVER,
    GONE,
    NEVER_ENTERED,
    TAPPED,
    TAPPED_AT_START,
    cannot_attack,
    cannot_block,
    follows_skipped,
    left_the_game,
    not_allowed_to_attack,
    player_left,
    source_gone,
)
from ecs_combat.rules.turn_schedule import seat_order
from ecs_combat.rules.usage import used_keywords
from ecs_combat.scenario.model import Scenario
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
        """Play every phase of the turn's schedule in order and return what happened. A phase
        doesn't happen once the game is over, when the phase it would follow did not happen,
        when the creature whose ability adds it was gone as that phase ended, or when its
        player has left the game (RULES 2, 8). The creatures and players are taken as the last
        combat phase that happened ends (CONTRACT: the turn's outcome); the spells of the main
        phases after it still resolve, for the account's notes."""
        c = self.combat
        c.set_up()
        schedule = self.turn.phases
        result = TurnResult()
        happened = [False] * len(schedule)
        gone: dict[int, str] = {}  # phase index -> why its source's ability adds nothing
        mains = combats = 0
        for i, phase in enumerate(schedule):
            k = combats
            if phase.kind == MAIN:
                mains += 1
            else:
                combats += 1
            why = self.why_skipped(phase, happened, gone.get(i))
            if why is not None:
                result.skipped_phases.append(SkippedPhase(i, phase, why))
                continue
            happened[i] = True
            result.phases.append(phase)
            if phase.kind == MAIN:
                result.notes += self.main_phase(mains)
            else:
                result.combats.append(self.combat_phase(k, phase))
                c.between_combats()  # the players in turn order
                end = c.finish()
                result.creatures, result.players = end.creatures, end.players
            gone.update(self.sources_gone(i))
        if not result.combats:  # the game ended before any combat phase
            c.between_combats()
            end = c.finish()
            result.creatures, result.players = end.creatures, end.players
        return result

    def why_skipped(self, phase: Phase, happened: list[bool], gone: str | None) -> str | None:
        """Why a phase of the schedule doesn't happen, or None."""
        c = self.combat
        if c.board.game_over():
            return GAME_OVER
        if phase.follows >= 0 and not happened[phase.follows]:
            return follows_skipped(phase.follows + 1)
        if gone is not None:
            return gone
        if phase.kind == COMBAT and self.lost(phase.player):
            return player_left(phase.player)
        return None

    def sources_gone(self, i: int) -> dict[int, str]:
        """As phase `i` ends: the phases added after it by a creature's ability whose creature
        is not on the battlefield under that phase's player's control, or whose player has
        left the game (113.6, 800.4a), with why."""
        board = self.combat.board
        out: dict[int, str] = {}
        for j, phase in enumerate(self.turn.phases):
            if phase.follows != i or phase.source is None:
                continue
            e = board.creatures.get(phase.source)
            if self.lost(phase.player):
                out[j] = player_left(phase.player)
            elif (
                e is None
                or not board.on_battlefield(e)
                or board.controller(e) != board.players[phase.player]
            ):
                out[j] = source_gone(phase.source, phase.player, i + 1)
        return out

    def lost(self, player: str) -> bool:
        """Whether a player has left the game."""
        return esper.component_for_entity(self.combat.board.players[player], Player).lost

    def main_phase(self, n: int) -> list[str]:
        """The spells cast in the n-th main phase resolve, in file order; the notes on them."""
        c = self.combat
        c.between_combats()
        prefix = main_phase_prefix(n)
        for cast in self.turn.casts:
            if cast.main == n:
                cast_in_main(c, cast)
        return [text if text.startswith(prefix) else prefix + text for text in c.now.result.notes]

    def combat_phase(self, k: int, phase: Phase) -> CombatPhaseResult:
        """The k-th combat phase (0-based) with its entry of ``[[combats]]``. Its attacking
        player is the active player: the players are seated from them (APNAP, 101.4)."""
        c = self.combat
        seats = seat_order(list(self.turn.players), phase.player)
        scenario = replace(
            self.turn.combats[k], players={pid: self.turn.players[pid] for pid in seats}
        )
        c.next_combat(scenario)
        self.check_declarations(k, scenario)
        c.declare_attackers()  # its triggers may untap a creature and make it block (provoke)
        self.check_blocks(k, scenario)
        c.declare_blockers()
        for e in c.board.in_combat():
            marked = esper.component_for_entity(e, Damage).marked
            if marked:
                c.note(
                    f"{c.board.cid(e)} has {marked} damage marked from earlier this turn (120.6)"
                )
        c.play()
        done = c.now.result
        return CombatPhaseResult(phase.player, done.steps, done.skipped_events, done.notes)

    def check_declarations(self, k: int, scenario: Scenario) -> None:
        """Attackers must still be able to attack as this combat phase begins (on the
        battlefield and untapped, 508.1a), and blockers still be on the battlefield. The file
        is wrong otherwise. Whether blockers are untapped is checked as blockers are declared
        (:meth:`check_blocks`): an attack trigger may untap one (provoke)."""
        c = self.combat
        for cid, defender in scenario.attackers.items():
            why = self.why_not(cid)
            if why is None and self.lost(defender):
                why = left_the_game(defender)
            if why is not None:
                raise cannot_attack(self.turn.file, k, cid, why)
            rule = c.why_cannot_attack(c.board.creatures[cid])  # as the creature is now (RULES 4)
            if rule is not None:
                raise not_allowed_to_attack(self.turn.file, k, cid, rule)
        for cid in scenario.blockers:
            why = self.why_not(cid)
            if why is not None and why not in (TAPPED, TAPPED_AT_START):
                raise cannot_block(self.turn.file, k, cid, why)

    def check_blocks(self, k: int, scenario: Scenario) -> None:
        """The blocks must be legal as blockers are declared, after the declare-attackers
        step, with the creatures as they are then (509.1a-c, RULES 4): the blockers untapped,
        the plugins' restrictions, and the requirements (lure, and those the attack triggers
        made: provoke) obeyed as far as possible by the creatures able to block."""
        c, board = self.combat, self.combat.board
        for cid in scenario.blockers:
            e = board.creatures[cid]
            if board.on_battlefield(e) and esper.has_component(e, Tapped):  # 509.1a
                why = self.why_not(cid)
                assert why is not None
                raise cannot_block(self.turn.file, k, cid, why)
        unable = {  # tapped or gone: it can't block, so it has no requirement
            cid
            for cid in scenario.creatures
            if cid not in scenario.blockers and self.why_not(cid) is not None
        }
        # left during this phase's attack triggers: neither blocks nor is blocked (RULES 11.3)
        gone = {
            cid
            for cid in [*scenario.blockers, *scenario.attackers]
            if not board.on_battlefield(e := board.creatures[cid])
            or e in c.now.returned
            or (cid in scenario.attackers and not esper.has_component(e, Attacking))
        }
        check_blocks(
            scenario,
            c.reg,
            lambda cid: EntitySide(board, board.creatures[cid]),
            f"combats[{k}]",
            made=[(board.cid(b), board.cid(a), keyword) for b, a, keyword in c.now.required_blocks],
            tapped=unable,
            gone=gone,
        )

    def why_not(self, cid: str) -> str | None:
        """Why a creature can't attack or block now: gone or tapped; None if neither."""
        board = self.combat.board
        e = board.creatures.get(cid)
        if e is None:
            return NEVER_ENTERED
        if not board.on_battlefield(e):
            return GONE
        if esper.has_component(e, Tapped):
            spec = self.turn.creatures.get(cid)
            return TAPPED_AT_START if spec is not None and spec.tapped else TAPPED
        return None
