"""Copies of battles (ecs_combat.batched.boards): the outcome of some battles of a batch, and
outcomes joined, keep every per-creature and per-player column, so a decision's chosen
battles are credited like drawn ones (damage dealt to players, life gained: the card pool's
score)."""

from __future__ import annotations

import dataclasses
import tomllib
from unittest.mock import patch

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from scenario_text import combat, creature

from ecs_combat import Registry, parse_scenario
from ecs_combat.batched import numeric
from ecs_combat.batched.boards import join_outcomes, take_outcomes
from ecs_combat.batched.engine import BatchedEngine
from ecs_combat.batched.from_scenarios import scenarios_to_batch
from ecs_combat.batched.numeric import distinct_rows, repeated, row_ranges, tiled

PLAYERS = "[players.A]\n[players.B]\n"


def test_taken_and_joined_outcomes_keep_every_column(registry: Registry) -> None:
    """Three battles: an unblocked 2/2 lifelinker (2 to B, A gains 2), a blocked 3/3, an
    unblocked 1/1. Taking battles [2, 0] gives their rows in that order; joining the takes
    of [2, 0] and [1] gives all three. Every column of the outcome is carried."""
    texts = [
        PLAYERS + creature("cleric", "A", 2, 2, "lifelink") + combat({"cleric": "B"}),
        PLAYERS
        + creature("ogre", "A", 3, 3)
        + creature("bear", "B", 2, 2)
        + combat({"ogre": "B"}, {"bear": "ogre"}),
        PLAYERS + creature("elf", "A", 1, 1) + combat({"elf": "B"}),
    ]
    scenarios = [parse_scenario(tomllib.loads(t), registry, f"b{i}") for i, t in enumerate(texts)]
    batch = scenarios_to_batch(scenarios, registry)
    outcome = BatchedEngine(registry).resolve_batch(batch)
    assert outcome.dealt_to_players is not None and outcome.life_gained is not None
    taken, ccopy, pcopy = take_outcomes(
        outcome, batch.battle, batch.player_battle, np.array([2, 0])
    )
    assert ccopy.tolist() == [0, 1] and pcopy.tolist() == [0, 0, 1, 1]
    assert taken.dealt_to_players is not None and taken.life_gained is not None
    assert taken.dealt_to_players.tolist() == [1, 2]  # elf, cleric
    assert taken.life_gained.tolist() == [0, 2]
    assert taken.damage_to_players.tolist() == [1, 2]
    rest = take_outcomes(outcome, batch.battle, batch.player_battle, np.array([1]))
    joined, jc, jp = join_outcomes([(taken, ccopy, pcopy), rest])
    assert jc.tolist() == [0, 1, 2, 2] and jp.tolist() == [0, 0, 1, 1, 2, 2]
    order = np.array([3, 0, 1, 2])  # creature rows of battles 2, 0, 1 in the batch
    players = np.array([4, 5, 0, 1, 2, 3])
    for field in dataclasses.fields(outcome):
        mine, theirs = getattr(joined, field.name), getattr(outcome, field.name)
        if theirs is None:
            assert mine is None, field.name
        elif field.name == "damage_to_players":
            assert mine.tolist() == theirs[[2, 0, 1]].tolist()
        elif field.name == "steps_taken":
            assert np.array_equal(mine, theirs[:, [2, 0, 1]])
        elif field.name == "player_state":
            assert mine.keys() == theirs.keys()
            for key in theirs:
                assert np.array_equal(mine[key], theirs[key][players]), key
        else:
            rows = players if len(theirs) == len(players) else order
            assert np.array_equal(mine, theirs[rows]), field.name


@settings(max_examples=200, deadline=None)
@given(
    st.integers(0, 40).flatmap(
        lambda n: st.lists(
            st.lists(st.integers(-3, 5), min_size=n, max_size=n), min_size=0, max_size=30
        )
    ),
    st.booleans(),
)
def test_distinct_rows_as_numpy_unique_gives_them(rows: list[list[int]], huge: bool) -> None:
    """The bulk search's shapes of boards: `distinct_rows` gives what
    ``np.unique(axis=0, return_inverse=True)`` gives, whether the rows fit one number (mixed
    radix) or not (`huge`: a column spanning 2^40 values, more than 40 columns overflow)."""
    width = len(rows[0]) if rows else 3
    a = np.array(rows, np.int64).reshape(len(rows), width)
    if huge and len(a) and width:
        a[0, 0] = 1 << 40
    want_kinds, want_inverse = np.unique(a, axis=0, return_inverse=True)
    for strided_from in (0, numeric.STRIDED_FROM):  # one kind found column by column, or not
        with patch.object(numeric, "STRIDED_FROM", strided_from):
            kinds, inverse = distinct_rows(a)
        assert kinds.tolist() == want_kinds.tolist()
        assert inverse.tolist() == want_inverse.reshape(-1).tolist()


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.integers(0, 50), min_size=0, max_size=20),
    st.integers(0, 12),
    st.booleans(),
)
def test_row_ranges_list_every_range_in_order(lo: list[int], each: int, uneven: bool) -> None:
    """`row_ranges` (a pass per place for a few rows each, repeats otherwise) lists the rows
    ``lo[i]:hi[i]`` of every i in order, each with its i."""
    counts = [each + (i % 3 if uneven else 0) for i in range(len(lo))]
    hi = [a + c for a, c in zip(lo, counts, strict=True)]
    for strided_from in (0, numeric.STRIDED_FROM):  # the strided passes, and the calls
        with patch.object(numeric, "STRIDED_FROM", strided_from):
            rows, owner = row_ranges(np.array(lo, np.int64), np.array(hi, np.int64))
        assert rows.tolist() == [r for a, b in zip(lo, hi, strict=True) for r in range(a, b)]
        assert owner.tolist() == [i for i, c in enumerate(counts) for _ in range(c)]
        assert rows.dtype == owner.dtype == np.int64


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(-5, 5), min_size=0, max_size=12), st.integers(0, 11))
def test_repeated_and_tiled_as_numpy_gives_them(values: list[int], times: int) -> None:
    """`repeated` and `tiled` (strided passes for a few) are numpy's repeat and tile."""
    array = np.array(values, np.int64)
    for strided_from in (0, numeric.STRIDED_FROM):  # the strided passes, and the calls
        with patch.object(numeric, "STRIDED_FROM", strided_from):
            assert repeated(array, times).tolist() == array.repeat(times).tolist()
            assert tiled(array, times).tolist() == np.tile(array, times).tolist()
            assert repeated(array, times).dtype == tiled(array, times).dtype == np.int64
