"""Copies of boards (ecs_combat.batched.board_copies): a run of battles copied several times
over from whole slices (`tile_boards`, the decision search's first level) is the same batch as
the same battles gathered one by one (`copy_boards`), every reference moved to its copy."""

from __future__ import annotations

import dataclasses
import tomllib
from typing import Any

import numpy as np
import pytest
from scenario_text import combat, creature
from test_decisions_shortcuts import rules_scenarios

from ecs_combat import Registry, parse_scenario
from ecs_combat.batched.arrays import CombatBatch
from ecs_combat.batched.board_copies import copy_boards, tile_boards
from ecs_combat.batched.boards import Rows, without_blocks
from ecs_combat.batched.engine import BatchedEngine
from ecs_combat.batched.from_scenarios import scenarios_to_batch

PLAYERS = "[players.A]\n[players.B]\n"


def same_batches(mine: CombatBatch, theirs: CombatBatch) -> None:
    for field in dataclasses.fields(CombatBatch):
        a: Any = getattr(mine, field.name)
        b: Any = getattr(theirs, field.name)
        if isinstance(b, dict):
            assert a.keys() == b.keys(), field.name
            for key in b:
                assert np.array_equal(a[key], b[key]), (field.name, key)
        elif isinstance(b, np.ndarray):
            assert a.dtype == b.dtype and np.array_equal(a, b), field.name
        else:
            assert a == b, field.name


def test_two_battles_tiled_three_times_by_hand(registry: Registry) -> None:
    """Battle 0: A's 2/2 bear attacks B (two creature rows with B's 1/1); battle 1: A's 3/3
    attacks alone. Three copies of both: battles 0..5 are 0, 1, 0, 1, 0, 1; each copy's
    creatures and players follow the ones before it, and its attacker attacks its own B."""
    texts = [
        PLAYERS + creature("bear", "A", 2, 2) + creature("elf", "B", 1, 1) + combat({"bear": "B"}),
        PLAYERS + creature("ogre", "A", 3, 3) + combat({"ogre": "B"}),
    ]
    scenarios = [parse_scenario(tomllib.loads(t), registry, f"b{i}") for i, t in enumerate(texts)]
    batch = scenarios_to_batch(scenarios, registry)
    copies = tile_boards(batch, 0, 2, 3, ())
    got = copies.batch
    assert got.n_battles == 6
    assert got.battle.tolist() == [0, 0, 1, 2, 2, 3, 4, 4, 5]
    assert got.player_battle.tolist() == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]
    assert got.power.tolist() == [2, 1, 3] * 3
    assert got.controller.tolist() == [0, 1, 2, 4, 5, 6, 8, 9, 10]
    assert got.attacking.tolist() == [1, -1, 3, 5, -1, 7, 9, -1, 11]
    assert copies.creature_start.tolist() == [0, 2, 3, 5, 6, 8]
    assert copies.player_start.tolist() == [0, 2, 4, 6, 8, 10]
    assert copies.creature_row.tolist() == [0, 1, 2] * 3
    assert len(got.block_blocker) == 0 and len(got.division_step) == 0


@pytest.mark.parametrize(("lo", "hi", "times"), [(0, 1, 1), (0, 5, 2), (3, 40, 3), (7, 8, 64)])
def test_tiled_runs_are_the_gathered_copies(
    registry: Registry, lo: int, hi: int, times: int
) -> None:
    """On the rules scenarios (events, `grant` instances, counters, targets, plugins' state
    holding creature references), a run tiled is the run gathered battle by battle, and each
    copy resolves as its source battle does without its blocks (which both ways share: a
    reference moved wrongly in both shows here)."""
    batch = scenarios_to_batch(rules_scenarios(registry), registry)
    assert len(batch.event_battle) and len(batch.instance_row) and batch.counters is not None
    refs = tuple(k for k, f in registry.state_fields("creature").items() if f.kind == "creature")
    hi = min(hi, batch.n_battles)
    tiled = tile_boards(batch, lo, hi, times, refs, Rows.by_battle(batch))
    gathered = copy_boards(batch, np.tile(np.arange(lo, hi), times), refs)
    same_batches(tiled.batch, gathered.batch)
    for name in ("creature_start", "player_start", "creature_row", "player_row"):
        assert np.array_equal(getattr(tiled, name), getattr(gathered, name)), name
    power = np.arange(batch.n_creatures) * 7
    assert np.array_equal(tiled.of_creatures(power), gathered.of_creatures(power))
    # each copy resolves as its source battle does without its blocks
    engine = BatchedEngine(registry)
    source = engine.resolve_batch(without_blocks(batch))
    mine = engine.resolve_batch(tiled.batch)
    c, p = tiled.creature_row, tiled.player_row
    assert np.array_equal(mine.alive, source.alive[c])
    assert np.array_equal(mine.damage, source.damage[c])
    assert np.array_equal(mine.life, source.life[p])
    assert np.array_equal(mine.damage_to_players, np.tile(source.damage_to_players[lo:hi], times))
