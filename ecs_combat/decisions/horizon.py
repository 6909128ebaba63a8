"""The two-combat horizon of a race (RULES section 12): attacks, blocks and divisions chosen by
the exact minimax over this combat **and the next one**.

The search is section 9's (:mod:`.search`, :mod:`.tree`), with one change: a candidate combat
that is a leaf (every division chosen) is valued past its end (:attr:`.tree.Tree.continuation`):
unless the game ended in it, the board it leaves goes through the turn's cleanup and the next
player's untap step (:func:`~ecs_combat.rules.race.after_turn`), and the next combat, the
opponent attacking with what can attack then and this player blocking with what is untapped,
is solved exactly as section 9 solves it: every attack of every such board is one battle of
one bulk block search (:class:`~ecs_combat.decisions.block_search.BlockSearch`, the search
of the decided SPECs, with the legality of blocks judged over arrays as blockers are
declared), and each board's value is its best attack's. The leaf's value is its score plus
the next combat's, seen from this combat's attacking player (each term summed over both
combats; `game` from the end). Boards left alike by different lines are solved once.

The horizon looks from the turn's last combat phase to the next turn's first; a combat phase
followed by another in the same turn (a Throat Wolf's) is decided for that combat alone.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Hashable, Mapping

import numpy as np

from ecs_combat.batched import IntArray, Rows, copy_boards, declaring_blockers, scenarios_to_batch
from ecs_combat.decisions.answers import Decision
from ecs_combat.decisions.attacks import best_attacks
from ecs_combat.decisions.block_search import BlockSearch, Legality
from ecs_combat.decisions.bounds import Clock
from ecs_combat.decisions.decide import best_blocks, engine_for
from ecs_combat.decisions.declarations import attack_declarations, attackers_able
from ecs_combat.decisions.objective import Objective, Sides, lexicographic_ranks
from ecs_combat.decisions.tree import Continuation
from ecs_combat.plugin.registry import Registry
from ecs_combat.rules.race import (
    Decided,
    Declaration,
    RaceState,
    after_turn,
    combat_scenario,
    only_attackers,
)
from ecs_combat.rules.result import CombatResult
from ecs_combat.rules.turn_schedule import seat_order
from ecs_combat.scenario.model import CreatureSpec, Scenario
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
        self.engine = engine_for(registry)
        self.search = BlockSearch(self.engine, self.objective)
        fields = registry.state_fields("creature")
        self._refs = tuple(k for k, f in fields.items() if f.kind == "creature")
        #: Candidate combats the first combats' searches resolved (for measurements; the
        #: next combats' are ``search.combats_resolved``).
        self.first_combats_resolved = 0

    @property
    def combats_resolved(self) -> int:
        """Candidate combats resolved by every search so far, both combats' (measurements)."""
        return self.first_combats_resolved + self.search.combats_resolved

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
            self.first_combats_resolved += decision.combats_resolved
            return decided_of(decision, None, self._complete)
        elif attackers:
            declared = dataclasses.replace(scenario, attackers=dict(attackers))
            decision = best_blocks(
                declared, self.registry, top=1, budget=clock.left(), continuation=continuation
            )
            self.first_combats_resolved += decision.combats_resolved
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
            nexts: dict[str, tuple[Scenario, list[int]]] = {}
            #: each leaf's board key by what the board after the turn is made of: leaves
            #: left alike (most are) make their board and its document once
            keys: dict[Hashable, str] = {}
            for i, result in enumerate(results):
                if any(p.lost for p in result.players.values()):
                    continue  # the game is over: nothing comes next
                if clock.out():  # valued by this combat alone: not optimal
                    self._complete = False
                    continue
                left = leaf_key(result, state.creatures)
                key = keys.get(left)
                if key is not None:
                    nexts[key][1].append(i)
                    continue
                players, creatures = after_turn(
                    state.players,
                    state.creatures,
                    result.players,
                    result.creatures,
                    state.active,
                    untapping=nxt,
                )
                seated = {pid: players[pid] for pid in seat_order(order, nxt)}
                board = Scenario(first.file, seated, creatures, {}, {})
                key = keys[left] = json.dumps(
                    scenario_document(board, self.registry), sort_keys=True
                )
                nexts.setdefault(key, (board, []))[1].append(i)
            unknown = [k for k in nexts if k not in self._known]
            if unknown:
                solved = self.next_values([nexts[k][0] for k in unknown])
                for k, v in zip(unknown, solved, strict=True):
                    self._remember(k, v)
            for k, (_, leaves) in nexts.items():
                out[leaves] += sign * self._known[k]
            return out

        return values

    def _remember(self, key: str, value: IntArray) -> None:
        if len(self._known) >= KNOWN_BOARDS:
            self._known.clear()
        self._known[key] = value

    def next_values(self, boards: list[Scenario]) -> IntArray:
        """[n, terms] each board's value for its attacking player (its first player): the
        best attack against the best blocks and divisions (RULES section 9), every board's
        every attack searched together, each as one battle (the bulk block search's
        legality, judged as blockers are declared after the attack triggers)."""
        registry = self.registry
        bare = [dataclasses.replace(b, attackers={}, blockers={}, divisions=[]) for b in boards]
        template = scenarios_to_batch(bare, registry)
        rows = Rows.of(template)
        board_of: list[int] = []
        masks: list[int] = []
        ties: list[int] = []
        able_rows: list[list[int]] = []
        for k, board in enumerate(boards):
            ids = list(board.creatures)
            able = np.array(
                [ids.index(c) for c in attackers_able(board, registry, next(iter(board.players)))],
                I64,
            )
            decls = attack_declarations(able, len(ids) + 1, board.file)
            board_of += [k] * decls.count
            masks += decls.masks.astype(I64).tolist()
            ties += decls.tie_order.tolist()
            able_rows.append(able.tolist())
        battle = np.array(board_of, I64)
        copies = copy_boards(template, battle, self._refs, rows)
        attacking = np.full(copies.batch.n_creatures, -1, I64)
        for j, (k, mask) in enumerate(zip(board_of, masks, strict=True)):
            for bit, place in enumerate(able_rows[k]):
                if mask >> bit & 1:
                    attacking[copies.creature_start[j] + place] = copies.player_start[j] + 1
        batch = dataclasses.replace(copies.batch, attacking=attacking)
        defends = batch.controller == copies.player_start[batch.battle] + 1
        at = declaring_blockers(self.engine, batch, defends)
        value = np.array(
            [
                spec.value if spec.value is not None else spec.power + spec.toughness
                for board in bare
                for spec in board.creatures.values()
            ],
            I64,
        )
        keyed = np.array(
            [spec.value is not None for board in bare for spec in board.creatures.values()],
            np.bool_,
        )
        sides = Sides(
            copies.player_start,
            copies.player_start + 1,
            copies.of_creatures(value),
            copies.of_creatures(keyed),
        )
        legality = Legality(at.legal_blocks, at.blockers_needed, at.required, at.capacity)
        best = self.search.best(batch, sides, at.may_block, legality)
        out = np.zeros((len(boards), len(self.objective.terms)), I64)
        ranks = lexicographic_ranks(best.value)
        for k in range(len(boards)):
            mine = (battle == k).nonzero()[0]
            out[k] = best.value[mine[int(ranks[mine].argmax())]]
        return out


def leaf_key(result: CombatResult, creatures: Mapping[str, CreatureSpec]) -> Hashable:
    """What :func:`~ecs_combat.rules.race.after_turn` reads of a combat's result (the board
    as the turn began being fixed): the players' life and state, and each of `creatures`
    still on the battlefield with its counters, tapped, state and returned value; equal
    keys, equal boards after the turn."""
    key = (
        tuple((pid, p.life, tuple(p.state.items())) for pid, p in result.players.items()),
        tuple(
            (cid, tuple(o.counters.items()), o.tapped, tuple(o.state.items()), o.returned)
            for cid in creatures
            if (o := result.creatures.get(cid)) is not None and o.alive
        ),
    )
    try:
        hash(key)
    except TypeError:  # a plugin's state holds something unhashable: compare its text
        return repr(key)
    return key


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
