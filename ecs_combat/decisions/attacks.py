"""The best attacks of a scenario (RULES section 9, step 1), or of many scenarios at once:
each attack answered by the defending player's best blocks and both players' best divisions.

Every attack of every scenario asked together is one battle of the same searches
(:func:`~ecs_combat.decisions.attack_bounds.search_attacks`: the pruning rounds, then the full
search), each scenario's attacks ranked apart from the others'; a scenario's decision is the
one it gets alone.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Sequence
from dataclasses import dataclass

import numpy as np

from ecs_combat.batched import (
    BoolArray,
    CombatBatch,
    IntArray,
    Rows,
    copy_boards,
    scenarios_to_batch,
)
from ecs_combat.decisions.answers import Choice, Decision
from ecs_combat.decisions.attack_bounds import Attacks, Picks, Searched, search_attacks
from ecs_combat.decisions.bounds import MOST_DECLARATION_CELLS, Clock, refuse_if_too_large
from ecs_combat.decisions.decide import (
    attackers_of,
    choice_of,
    engine_for,
    players_of,
    reason_of,
    values_of,
    with_attackers,
    with_outcomes,
)
from ecs_combat.decisions.declarations import (
    AttackBlockOptions,
    AttackDeclarations,
    BlockDeclarations,
    attack_declarations,
    attackers_able,
    block_declarations,
    check_board_size,
)
from ecs_combat.decisions.objective import Objective, Sides
from ecs_combat.decisions.search import BoardResults, ranked_declarations
from ecs_combat.decisions.tree import Continuation
from ecs_combat.plugin.registry import Registry
from ecs_combat.scenario.model import Scenario

I64 = np.int64

#: Boards decided together prune their attacks (:mod:`.attack_bounds`) only when at least
#: this many are searched at once: a search's fixed cost (its batches, its tree) is then
#: shared, and the rounds cost less than the candidate combats they save; a board alone is
#: searched once (docs/performance.md, "Bulk races").
PRUNE_FROM = 2


def best_attacks(
    scenario: Scenario,
    registry: Registry,
    *,
    top: int = 3,
    objective: Objective | None = None,
    budget: float | None = None,
    exhaustive: bool = False,
    only: Collection[str] | None = None,
    continuation: Continuation | None = None,
) -> Decision:
    """The attacking player's best attack declarations, each answered by the defending
    player's best blocks and both players' best divisions (RULES section 9). `only`: the
    only creatures that may attack (a Throat Wolf's combat phase), or None; `continuation`
    as for :func:`~ecs_combat.decisions.decide.best_blocks`."""
    return best_attacks_many(
        [scenario], registry, top=top, objective=objective, budget=budget, only=[only],
        continuation=continuation,
    )[0]  # fmt: skip


def best_attacks_many(
    scenarios: Sequence[Scenario],
    registry: Registry,
    *,
    top: int = 3,
    objective: Objective | None = None,
    budget: float | None = None,
    only: Sequence[Collection[str] | None] | None = None,
    continuation: Continuation | None = None,
) -> list[Decision]:
    """:func:`best_attacks` of each scenario (`only`: each one's, or None), searched
    together; the same decisions as one by one. A `budget` or a `continuation` is for one
    scenario only. Each decision's ``combats_resolved`` is its own boards' candidate
    combats (alone: every battle its searches resolved)."""
    assert len(scenarios) == 1 or (budget is None and continuation is None)
    clock = Clock(budget)
    objective = objective or Objective.default(registry)
    engine = engine_for(registry)
    only = only or [None] * len(scenarios)
    problems = [
        _problem(s, registry, o, clock, budget) for s, o in zip(scenarios, only, strict=True)
    ]
    bare = [dataclasses.replace(s, blockers={}, divisions=[]) for s in scenarios]
    template = scenarios_to_batch(bare, registry)
    rows = Rows.of(template)
    sides = _SideValues.of(scenarios, template, rows, [(p.attacker, p.defender) for p in problems])

    def boards_of(picks: Picks) -> tuple[CombatBatch, Sides]:
        return _attack_boards(template, rows, picks, problems, sides)

    searched = search_attacks(
        engine, objective, boards_of, [Attacks(p.attacks, p.blocks) for p in problems], top,
        clock, continuation, scenarios[0].file or "" if len(scenarios) == 1 else "",
        prune=budget is None and continuation is None and len(scenarios) >= PRUNE_FROM,
    )  # fmt: skip
    return _decisions(problems, searched, template, rows, objective, top, clock)


@dataclass(frozen=True)
class _Problem:
    """One scenario's attacks and their block declarations, before the search."""

    scenario: Scenario
    attacker: str
    defender: str
    able: IntArray  #: places in the file of the creatures that may attack
    every: AttackDeclarations
    attacks: AttackDeclarations  #: those whose block declarations were listed
    blocks: list[BlockDeclarations]
    listed_all: bool


def _problem(
    scenario: Scenario,
    registry: Registry,
    only: Collection[str] | None,
    clock: Clock,
    budget: float | None,
) -> _Problem:
    check_board_size(len(scenario.creatures), scenario.file)
    attacker, defender = players_of(scenario)
    ids = list(scenario.creatures)
    able_ids = attackers_able(scenario, registry, attacker)
    if only is not None:
        able_ids = [c for c in able_ids if c in only]
    able = np.array([ids.index(c) for c in able_ids], I64)
    every = attack_declarations(able, len(ids) + 1, scenario.file)
    blocks, listed_all = _blocks_of_attacks(scenario, registry, every, clock, budget)
    attacks = dataclasses.replace(
        every, masks=every.masks[: len(blocks)], tie_order=every.tie_order[: len(blocks)]
    )
    return _Problem(scenario, attacker, defender, able, every, attacks, blocks, listed_all)


def _decisions(
    problems: list[_Problem],
    searched: list[Searched],
    template: CombatBatch,
    rows: Rows,
    objective: Objective,
    top: int,
    clock: Clock,
) -> list[Decision]:
    """Each scenario's decision from its attacks' search (`template`, `rows`: the
    scenarios' boards as one batch, a battle each)."""
    ids_all = list(template.creature_ids or [])
    cs = rows.creatures
    chosen: list[list[Choice]] = []
    tied: list[int] = []
    for k, (p, s) in enumerate(zip(problems, searched, strict=True)):
        answer, ranked, ties = _rank_attacks(s, objective)
        lo = int(cs.start[k])
        board_ids = ids_all[lo : lo + int(cs.count[k])]
        ids = list(p.scenario.creatures)
        choices = []
        for b in ranked[:top]:
            attackers = attackers_of(ids, p.able, int(s.attacks.masks[b]), p.defender)
            scenario = with_attackers(p.scenario, attackers)
            choices.append(
                choice_of(scenario, board_ids, objective, s.results, answer[b], attackers)
            )
        chosen.append(choices)
        tied.append(ties)
    by_search: dict[int, list[int]] = {}  # each search's choices' outcomes resolved together
    for k, s in enumerate(searched):
        by_search.setdefault(id(s.results), []).append(k)
    for ks in by_search.values():
        done = iter(with_outcomes([c for k in ks for c in chosen[k]], searched[ks[0]].results))
        for k in ks:
            chosen[k] = [next(done) for _ in chosen[k]]
    out = []
    for p, s, choices, ties in zip(problems, searched, chosen, tied, strict=True):
        results = s.results
        complete = all(results.complete(s.first + b) for b in range(s.attacks.count))
        optimal = p.listed_all and complete
        reason = (
            None if optimal else _attacks_reason(results, clock, s.attacks.count, p.every.count)
        )
        out.append(
            Decision(
                "attacks",
                p.attacker,
                p.defender,
                objective.terms,
                optimal,
                p.every.count,
                ties,
                choices,
                reason,
                clock.elapsed,
                s.resolved,
            )
        )
    return out


def _rank_attacks(s: Searched, objective: Objective) -> tuple[list[int], list[int], int]:
    """Each attack valued by the defending player's best blocks against it: the best blocks
    of each attack (a declaration of the search, or -1), the attacks solved in order, best
    first (ties in the attacks' tie order), and how many tie for the best."""
    results, attacks = s.results, s.attacks
    answer = []
    for b in range(attacks.count):
        ranked = ranked_declarations(results, s.first + b, s.blocks[b].tie_order)
        answer.append(int(ranked[0]) if len(ranked) else -1)
    known = [b for b in range(attacks.count) if answer[b] >= 0 and results.solved[answer[b]]]
    values = np.array([results.values[answer[b]] for b in known], I64).reshape(
        len(known), len(objective.terms)
    )
    order = sorted(
        range(len(known)),
        key=lambda i: (tuple(-values[i]), int(attacks.tie_order[known[i]])),
    )
    best_value = values[order[0]] if order else None
    tied = (
        int(sum(1 for i in order if (values[i] == best_value).all()))
        if best_value is not None
        else 0
    )
    return answer, [known[i] for i in order], tied


#: The share of a budget that listing the attacks' block declarations may take.
LISTING_SHARE = 0.5


def _blocks_of_attacks(
    scenario: Scenario,
    registry: Registry,
    attacks: AttackDeclarations,
    clock: Clock,
    budget: float | None,
) -> tuple[list[BlockDeclarations], bool]:
    """Every attack's block declarations, attack by attack in the order listed, and whether
    every attack's were listed: under a budget, listing stops when :data:`LISTING_SHARE` of
    it has passed (the clock read before each attack after the first), leaving the rest to
    the search, or when the next attack's would not fit in memory; without one, the
    memory guard refuses the board (it counts every attack's declarations together)."""
    _, defender = players_of(scenario)
    ids = list(scenario.creatures)
    options = AttackBlockOptions(scenario, registry, defender, [ids[i] for i in attacks.able])
    out: list[BlockDeclarations] = []
    cells = 0
    for mask in attacks.masks.tolist():
        if out and clock.past(LISTING_SHARE):  # the first (no attackers) is always listed
            return out, False
        found = block_declarations(options.of(int(mask)), scenario.file)
        cells += found.count * max(found.masks.shape[1], 1) * max(len(found.options.attackers), 1)
        if budget is not None and cells > MOST_DECLARATION_CELLS and out:
            return out, False  # searched in part: the attacks listed so far
        refuse_if_too_large(
            cells,
            MOST_DECLARATION_CELLS,
            scenario.file,
            "creatures",
            "cells of block declarations (each attack's declarations times its attackers "
            "times the creatures that may block), over the attacks listed so far",
        )
        out.append(found)
    return out, True


def _attacks_reason(results: BoardResults, clock: Clock, listed: int, attacks: int) -> str:
    searched = reason_of(results, clock, "block declarations")
    if listed == attacks:
        return searched
    return (
        f"{searched}; the block declarations of {listed:,} of the {attacks:,} attacks were "
        "listed (the budget ran out or the next would not fit in memory), the others not searched"
    )


# -- boards ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _SideValues:
    """Each scenario's attacking and defending player places, and each creature row's value
    (:func:`~ecs_combat.decisions.decide.values_of`), in the template's rows."""

    attacking: IntArray  #: [scenarios] the attacking player's place among its players
    defending: IntArray
    value: IntArray  #: [N] per template creature row
    keyed: BoolArray

    @staticmethod
    def of(
        scenarios: Sequence[Scenario],
        template: CombatBatch,
        rows: Rows,
        players: list[tuple[str, str]],
    ) -> _SideValues:
        ids = list(template.creature_ids or [])
        cs = rows.creatures
        values, keyed = [], []
        for k, s in enumerate(scenarios):
            lo = int(cs.start[k])
            hi = lo + int(cs.count[k])
            v, kd = values_of(s, ids[lo:hi], template.power[lo:hi], template.toughness[lo:hi])
            values.append(v)
            keyed.append(kd)
        order = [list(s.players) for s in scenarios]
        return _SideValues(
            np.array([o.index(a) for o, (a, _) in zip(order, players, strict=True)], I64),
            np.array([o.index(d) for o, (_, d) in zip(order, players, strict=True)], I64),
            np.concatenate([np.zeros(0, I64), *values]),
            np.concatenate([np.zeros(0, np.bool_), *keyed]),
        )


def _attack_boards(
    template: CombatBatch,
    rows: Rows,
    picks: Picks,
    problems: list[_Problem],
    sides: _SideValues,
) -> tuple[CombatBatch, Sides]:
    """One board per attack picked (scenario, attack): its scenario's template battle with
    those creatures attacking the defending player, and the boards' sides."""
    battles = np.array([k for k, _ in picks], I64)
    copies = copy_boards(template, battles, (), rows)
    cs, ps = copies.creature_start, copies.player_start
    attacking = np.full(copies.batch.n_creatures, -1, I64)
    for j, (k, i) in enumerate(picks):
        p = problems[k]
        mask = int(p.attacks.masks[i])
        defender = int(ps[j] + sides.defending[k])
        for bit, place in enumerate(p.able.tolist()):
            if mask >> bit & 1:
                attacking[cs[j] + place] = defender
    creature_ids = np.asarray(template.creature_ids or [], dtype=object)
    player_ids = np.asarray(template.player_ids or [], dtype=object)
    boards = dataclasses.replace(
        copies.batch,
        attacking=attacking,
        creature_ids=creature_ids[copies.creature_row].tolist(),
        player_ids=player_ids[copies.player_row].tolist(),
    )
    return boards, Sides(
        ps + sides.attacking[battles],
        ps + sides.defending[battles],
        copies.of_creatures(sides.value),
        copies.of_creatures(sides.keyed),
    )
