"""The best blocks of many scenarios, searched together: the boards' declarations are the
boards of one search (its levels one engine batch each), each board's answer the
:class:`Decision` that :func:`~.decide.best_blocks` gives it alone."""

from __future__ import annotations

import dataclasses
import time

import numpy as np

from ecs_combat.batched import IntArray, Segments, scenarios_to_batch
from ecs_combat.decisions.answers import Decision
from ecs_combat.decisions.bounds import Clock
from ecs_combat.decisions.decide import (
    best_blocks,
    choice_of,
    engine_for,
    players_of,
    tied_count,
    values_of,
    with_outcomes,
)
from ecs_combat.decisions.declarations import (
    BlockDeclarations,
    block_declarations,
    block_options,
    check_board_size,
)
from ecs_combat.decisions.nodes import Level, Resolved
from ecs_combat.decisions.objective import Objective, Sides
from ecs_combat.decisions.search import blocks_of, ranked_declarations, search
from ecs_combat.decisions.tree import RECORDED_ROWS, Tree
from ecs_combat.errors import InputError, RefusedError
from ecs_combat.plugin.registry import Registry
from ecs_combat.scenario.model import Scenario

I64 = np.int64


@dataclasses.dataclass(frozen=True)
class _Board:
    """A scenario ready to be searched with others."""

    scenario: Scenario
    attacker: str
    defender: str
    declarations: BlockDeclarations

    @property
    def rows(self) -> int:
        """Creature rows of its first level (a battle per declaration)."""
        return self.declarations.count * len(self.scenario.creatures)


class _CountedTree(Tree):
    """A tree that counts the battles it resolves board by board (each board's
    ``combats_resolved``)."""

    evaluated_each: IntArray

    def resolve(self, level: Level, keep: bool = True) -> Resolved:
        n = len(self.evaluated_each)
        self.evaluated_each += np.bincount(self.blocks.board[level.decl], minlength=n)
        return super().resolve(level, keep)


def best_blocks_many(
    scenarios: list[Scenario],
    registry: Registry,
    *,
    top: int = 3,
    objective: Objective | None = None,
) -> list[Decision]:
    """:func:`~.decide.best_blocks` of each scenario, the same decisions (but for
    ``seconds``: the time of the search that decided its board, with others). Boards whose
    first level fits in :data:`~.tree.RECORDED_ROWS` creature rows are searched together, as
    many as fit; a larger board, or a group the search refuses, is decided a board at a
    time (so an error names the board that has it)."""
    objective = objective or Objective.default(registry)
    out: list[Decision | None] = [None] * len(scenarios)
    group: list[int] = []
    boards: list[_Board] = []
    rows = 0
    for i, scenario in enumerate(scenarios):
        board = _board(scenario, registry)
        if board.rows > RECORDED_ROWS:
            out[i] = best_blocks(scenario, registry, top=top, objective=objective)
            continue
        if rows + board.rows > RECORDED_ROWS:
            _decide(group, boards, registry, objective, top, out)
            group, boards, rows = [], [], 0
        group.append(i)
        boards.append(board)
        rows += board.rows
    if group:
        _decide(group, boards, registry, objective, top, out)
    return [d for d in out if d is not None]


def _board(scenario: Scenario, registry: Registry) -> _Board:
    check_board_size(len(scenario.creatures), scenario.file)
    attacker, defender = players_of(scenario)
    options = block_options(scenario, registry, defender)
    return _Board(scenario, attacker, defender, block_declarations(options, scenario.file))


def _decide(
    places: list[int],
    boards: list[_Board],
    registry: Registry,
    objective: Objective,
    top: int,
    out: list[Decision | None],
) -> None:
    """Decide `boards` together into their `places` of `out`."""
    try:
        decided = _together(boards, registry, objective, top)
    except (InputError, RefusedError):  # decided alone, the error naming its board
        decided = [best_blocks(b.scenario, registry, top=top, objective=objective) for b in boards]
    for place, decision in zip(places, decided, strict=True):
        out[place] = decision


def _together(
    boards: list[_Board], registry: Registry, objective: Objective, top: int
) -> list[Decision]:
    began = time.perf_counter()
    clock = Clock(None)
    engine = engine_for(registry)
    bare = [dataclasses.replace(b.scenario, blockers={}, divisions=[]) for b in boards]
    template = scenarios_to_batch(bare, registry)
    n = len(boards)
    creature_start = Segments.of(np.asarray(template.battle, I64), n).start.tolist()
    creature_start.append(template.n_creatures)
    player_start = Segments.of(np.asarray(template.player_battle, I64), n).start
    ids = list(template.creature_ids or [])
    value: list[np.ndarray] = []
    keyed: list[np.ndarray] = []
    power, toughness = np.asarray(template.power, I64), np.asarray(template.toughness, I64)
    for i, b in enumerate(boards):
        lo, hi = creature_start[i], creature_start[i + 1]
        v, k = values_of(b.scenario, ids[lo:hi], power[lo:hi], toughness[lo:hi])
        value.append(v)
        keyed.append(k)
    attacking = [list(b.scenario.players).index(b.attacker) for b in boards]
    defending = [list(b.scenario.players).index(b.defender) for b in boards]
    sides = Sides(
        player_start + np.array(attacking, I64),
        player_start + np.array(defending, I64),
        np.concatenate(value),
        np.concatenate(keyed),
    )
    decls = [b.declarations for b in boards]
    offset = np.concatenate([[0], np.cumsum([d.count for d in decls])]).astype(I64)
    tree = _CountedTree(engine, objective, template, sides, blocks_of(decls), record=True)
    tree.evaluated_each = np.zeros(n, I64)
    results = search(tree, offset, top, clock, guard="")
    evaluated = tree.evaluated_each.tolist()
    choices = []
    ranked_each = []
    for i, b in enumerate(boards):
        ranked = ranked_declarations(results, i, b.declarations.tie_order)
        ranked_each.append(ranked)
        lo, hi = creature_start[i], creature_start[i + 1]
        choices.append(
            [
                choice_of(b.scenario, ids[lo:hi], objective, results, int(d), None)
                for d in ranked[:top]
            ]
        )
    flat = with_outcomes([c for cs in choices for c in cs], results)
    seconds = time.perf_counter() - began
    out = []
    at = 0
    for i, b in enumerate(boards):
        ranked = ranked_each[i]
        best = results.values[ranked[0]] if len(ranked) else None
        mine = flat[at : at + len(choices[i])]
        at += len(mine)
        assert results.complete(i)  # no budget: every board searched to the end
        out.append(
            Decision(
                "blocks",
                b.attacker,
                b.defender,
                objective.terms,
                True,
                b.declarations.count,
                tied_count(results, ranked, best),
                mine,
                None,
                seconds,
                int(evaluated[i]),
            )
        )
    return out
