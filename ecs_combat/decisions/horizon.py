"""The two-combat horizon of a race (RULES section 12): attacks, blocks and divisions chosen by
the exact minimax over this combat **and the next one**.

The search is section 9's (:mod:`.search`, :mod:`.tree`), with one change: a candidate combat
that is a leaf (every division chosen) is valued past its end (:attr:`.tree.Tree.continuation`):
unless the game ended in it, the board it leaves goes through the turn's cleanup and the next
player's untap step (:func:`~ecs_combat.rules.race.after_turn`), and the next combat, the
opponent attacking with what can attack then and this player blocking with what is untapped,
is solved exactly (section 9: :func:`~.decide.best_attacks`). The leaf's value is its score
plus the next combat's, seen from this combat's attacking player (each term summed over both
combats; `game` from the end). Boards left alike by different lines are solved once.

The horizon looks from the turn's last combat phase to the next turn's first; a combat phase
followed by another in the same turn (a Throat Wolf's) is decided for that combat alone.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping

import numpy as np

from ecs_combat.batched.arrays import IntArray
from ecs_combat.decisions.decide import Decision, best_attacks, best_blocks
from ecs_combat.decisions.objective import Objective
from ecs_combat.decisions.tree import Clock, Continuation
from ecs_combat.plugin.registry import Registry
from ecs_combat.rules.race import (
    Decided,
    Declaration,
    RaceState,
    after_turn,
    combat_scenario,
    only_attackers,
    untap,
)
from ecs_combat.rules.result import CombatResult
from ecs_combat.rules.turn_schedule import seat_order
from ecs_combat.scenario.model import Scenario
from ecs_combat.scenario.writer import scenario_document

I64 = np.int64


class TwoCombats:
    """Decides a race's combat phases over this combat and the next one."""

    def __init__(self, registry: Registry, clock: Clock | None = None) -> None:
        self.registry = registry
        #: The search's budget, shared by every decision (None: no budget).
        self.clock = clock or Clock(None)
        self.objective = Objective.default(registry)
        #: The next combat's value by its board (a board's document as JSON text).
        self._known: dict[str, IntArray] = {}
        #: Whether every next combat was solved to the end.
        self._complete = True

    def decide(self, state: RaceState, attackers: Mapping[str, str] | None = None) -> Decided:
        """The current combat phase's best attack (or, given `attackers`, the best blocks
        against them), with both players' best divisions, over two combats."""
        scenario = combat_scenario(state, self.registry)
        phase = state.phase
        assert phase is not None
        last = phase is state.combat_phases[-1]
        clock = self.clock
        self._complete = True
        continuation = self._continuation(state, scenario, clock) if last else None
        if attackers is None:
            decision = best_attacks(
                scenario,
                self.registry,
                top=1,
                budget=clock.left(),
                only=only_attackers(state),
                continuation=continuation,
            )
            return decided_of(decision, None, self._complete)
        elif attackers:
            declared = dataclasses.replace(scenario, attackers=dict(attackers))
            decision = best_blocks(
                declared, self.registry, top=1, budget=clock.left(), continuation=continuation
            )
            return decided_of(decision, attackers, self._complete)
        return Decided(Declaration(), None, True)

    def _continuation(self, state: RaceState, first: Scenario, clock: Clock) -> Continuation:
        """Values of the first combat's leaves: their scores plus the next combat's."""
        me = state.attacking_player
        nxt = next(p for p in state.race.order if p != state.active)
        sign = -1 if nxt != me else 1
        order = list(state.race.order)

        def values(boards: IntArray, results: list[CombatResult], scores: IntArray) -> IntArray:
            out = scores.copy()
            for i, result in enumerate(results):
                if any(p.lost for p in result.players.values()):
                    continue  # the game is over: nothing comes next
                if clock.out():  # valued by this combat alone: not optimal
                    self._complete = False
                    continue
                players, creatures = after_turn(
                    state.players, state.creatures, result.players, result.creatures, state.active
                )
                seated = {pid: players[pid] for pid in seat_order(order, nxt)}
                board = Scenario(first.file, seated, untap(creatures, nxt), {}, {})
                out[i] += sign * self._next_value(board, clock)
            return out

        return values

    def _next_value(self, board: Scenario, clock: Clock) -> IntArray:
        """The next combat's value for its attacking player (section 9), solved once per
        board."""
        key = json.dumps(scenario_document(board, self.registry), sort_keys=True)
        known = self._known.get(key)
        if known is not None:
            return known
        decision = best_attacks(
            board, self.registry, top=1, budget=clock.left(), objective=self.objective
        )
        if not decision.optimal or not decision.best:
            self._complete = False
        if not decision.best:  # nothing solved in time: this combat alone
            return np.zeros(len(self.objective.terms), I64)
        value = np.array([decision.best[0].score[t] for t in self.objective.terms], I64)
        if decision.optimal:
            if len(self._known) > KNOWN_BOARDS:
                self._known.clear()
            self._known[key] = value
        return value


#: Next-combat boards remembered at most (then forgotten, all at once).
KNOWN_BOARDS = 100_000


def decided_of(
    decision: Decision, attackers: Mapping[str, str] | None = None, complete: bool = True
) -> Decided:
    """A search's best declaration as a race's choice (`attackers`: those the blocks
    answer, when the search chose only blocks). A search that solved nothing in its budget
    declares nothing more (no attack, or no blocks); `complete` False: something it relied
    on was cut short (then not optimal)."""
    if not decision.best:
        why = decision.reason or "the budget ran out before any declaration was solved"
        return Decided(Declaration(dict(attackers or {})), None, False, why)
    best = decision.best[0]
    chosen = best.attackers if attackers is None else attackers
    optimal = decision.optimal and complete
    reason = decision.reason
    if not complete and reason is None:
        reason = "the budget ran out while solving the next combat"
    return Decided(
        Declaration(dict(chosen or {}), best.blockers, best.divide), best.score, optimal, reason
    )
