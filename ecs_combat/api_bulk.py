"""Decisions of many boards in one call (docs/python.md, "Many boards in one call"): the best
blocks or the best attacks of every battle built by :func:`~ecs_combat.api.battles`, or of a
list of scenarios, searched as the decided tournament searches them (``simulate`` with
``decisions = "optimal"``): boards of one shape together, array work over all of them.
Exported from :mod:`ecs_combat`."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ecs_combat.api import BattleResults, Battles, battle_tables
from ecs_combat.batched import BatchOutcome, BoolArray, CombatBatch
from ecs_combat.errors import InputError
from ecs_combat.plugin.loading import load_registry
from ecs_combat.plugin.registry import Registry
from ecs_combat.scenario.model import Scenario

if TYPE_CHECKING:
    from ecs_combat.decisions.decided import Values

#: What the bulk decisions take: battles from arrays, or scenarios (each a :class:`Scenario`,
#: a file holding one, or a scenario document as read from TOML or JSON).
Boards = Battles | Sequence[str | Path | Scenario | Mapping[str, Any]]

I64 = np.int64


@dataclass
class DecidedBattles(BattleResults):
    """What :func:`best_blocks_of` and :func:`best_attacks_of` give: the tables of
    :func:`~ecs_combat.api.resolve_battles` for each board's best line (``attacking``: the
    chosen attackers, ``blocking``: the chosen blocks, the outcome columns what comes of them),
    and each board with its best declarations written in (:meth:`scenarios`)."""

    batch: CombatBatch | None = None
    registry: Registry | None = None

    def scenarios(self) -> list[Scenario]:
        """Each board as a scenario with its best attack, blocks and the best line's divisions
        declared (``combat.attackers``, ``blockers``, ``divide``): :func:`~ecs_combat.resolve`
        resolves each to its row of the tables. Creature ids are the scenarios' given, or
        ``c0``, ``c1``, ... for battles from arrays."""
        from ecs_combat.batched import batch_to_scenarios

        assert self.batch is not None and self.registry is not None
        return batch_to_scenarios(self.batch, self.registry)


def best_blocks_of(boards: Boards, registry: Registry | None = None) -> DecidedBattles:
    """The defending player's best blocks on every board, each with the attacking player's
    best divisions, searched exactly in one call as the decided tournament searches (as fast
    per board). `boards`: battles built by :func:`~ecs_combat.api.battles` (their `blocks`
    are ignored), or scenarios as :func:`~ecs_combat.best_blocks` takes them (with
    ``combat.attackers``, without blockers or divisions; the first player listed attacks the
    second). The default score (game, material, life, then the plugins' terms); a creature's
    value its ``value`` key, else its power plus toughness as given. The first of tied
    declarations in RULES section 9's order."""
    return _decide(boards, registry, "blocks")


def best_attacks_of(boards: Boards, registry: Registry | None = None) -> DecidedBattles:
    """The attacking player's best attack on every board, each answered by the defending
    player's best blocks and both players' best divisions, in one call, as the decided
    tournament searches. `boards`: battles built by :func:`~ecs_combat.api.battles` (any of
    player A's creatures may attack; `blocks` ignored), or scenarios as
    :func:`~ecs_combat.best_attacks` takes them (without attackers, blockers or divisions:
    every creature of the first player that can attack may). Score, values and ties as for
    :func:`best_blocks_of`."""
    return _decide(boards, registry, "attacks")


def _decide(boards: Boards, registry: Registry | None, decision: str) -> DecidedBattles:
    from ecs_combat.decisions.decided import Decider
    from ecs_combat.simulation.generate import Drawn

    registry = registry if registry is not None else load_registry()
    values: Values | None = None
    if isinstance(boards, Battles):
        batch, attacking_side = boards.batch, boards.attacking_side
    else:
        batch, attacking_side, values = _scenario_boards(boards, registry, decision)
    batch = dataclasses.replace(
        batch,
        block_blocker=np.zeros(0, I64),
        block_attacker=np.zeros(0, I64),
        block_rank=np.zeros(0, I64),
    )
    zeros = np.zeros(batch.n_battles, I64)
    drawn = Drawn(batch, zeros, zeros, attacking_side)
    decider = Decider(registry)
    outcome: BatchOutcome | None
    if decision == "blocks":
        decided, outcome = decider.decide_blocks(drawn, outcomes=True, values=values)
    else:
        decided, outcome = decider.decide(drawn, values=values)
    if outcome is None:  # the attacks' best lines, resolved on the batched engine
        outcome = decider.engine.resolve_batch(decided.batch)
    tables = battle_tables(decided.batch, attacking_side, outcome)
    return DecidedBattles(tables.creatures, tables.battles, decided.batch, registry)


def _scenario_boards(
    boards: Sequence[str | Path | Scenario | Mapping[str, Any]],
    registry: Registry,
    decision: str,
) -> tuple[CombatBatch, BoolArray, Values]:
    """The scenarios as one batch (with attackers: the given ones for blocks, every creature
    that can attack for attacks), which rows the attacking player's, and the creatures' values."""
    from ecs_combat.api_decisions import decision_scenario
    from ecs_combat.batched import scenarios_to_batch
    from ecs_combat.decisions.decide import players_of
    from ecs_combat.decisions.declarations import attackers_able, check_board_size
    from ecs_combat.scenario.loader import parse_scenario

    if isinstance(boards, str | Path | Mapping):
        raise InputError(None, "boards", "must be a list of scenarios (or battles from arrays)")
    if not boards:
        raise InputError(None, "boards", "no boards: give at least one")
    chosen: list[Scenario] = []
    for i, given in enumerate(boards):
        if isinstance(given, Mapping):
            given = parse_scenario(dict(given), registry, f"boards[{i}]")
        scenario = decision_scenario(given, registry, decision)
        check_board_size(len(scenario.creatures), scenario.file)
        attacker, defender = players_of(scenario)
        if decision == "attacks":
            able = attackers_able(scenario, registry, attacker)
            scenario = dataclasses.replace(scenario, attackers=dict.fromkeys(able, defender))
        chosen.append(scenario)
    batch = scenarios_to_batch(chosen, registry)
    first = np.zeros(batch.n_battles, I64)
    counts = np.bincount(batch.player_battle, minlength=batch.n_battles)
    first[1:] = np.cumsum(counts)[:-1]
    attacking_side = batch.controller == first[batch.battle]
    values = [c.value for s in chosen for c in s.creatures.values()]
    keyed = np.array([v is not None for v in values], np.bool_)
    value = (batch.power + batch.toughness).astype(I64)
    if len(keyed) == len(value) and keyed.any():  # rows are the scenarios' creatures in order
        value = np.where(keyed, np.array([v or 0 for v in values], I64), value)
    return batch, attacking_side, (value, keyed if len(keyed) == len(value) else None)


__all__ = ["Boards", "DecidedBattles", "best_attacks_of", "best_blocks_of"]
