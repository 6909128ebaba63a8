"""Shortcuts of the decisions (docs/performance.md, "Races"): block options judged without a
reference world when the only declare-attackers systems change which attackers tap; each
battle's best board of a decided turn phase whatever the size of its scores."""

from __future__ import annotations

import tomllib

import numpy as np
import pytest
from scenario_text import combat, creature

import ecs_combat.reference.characteristics as characteristics
from ecs_combat import Registry, Scenario, parse_scenario
from ecs_combat.decisions.declarations import block_options
from ecs_combat.rules.characteristics import at_declare_blockers

PLAYERS = "[players.A]\n[players.B]\n"


def scenario(text: str, registry: Registry) -> Scenario:
    return parse_scenario(tomllib.loads(text), registry, "test.toml")


def no_world(*args: object, **kwargs: object) -> None:
    raise AssertionError("a reference world was built")


def test_vigilance_block_options_without_a_world(
    registry: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Vigilance (702.20) only keeps its attacker untapped (508.1f): who may block whom is
    judged from the creatures as the scenario gives them. By hand: the tapped elf can't block
    (509.1a), the bird (flying) can be blocked only by the wall with reach (702.9b), the
    knight by both; each blocks one attacker (509.1a)."""
    board = scenario(
        PLAYERS
        + creature("knight", "A", 3, 3, "vigilance")
        + creature("bird", "A", 2, 2, "flying", "vigilance")
        + creature("wall", "B", 0, 4, "reach")
        + creature("elf", "B", 1, 1, tapped=True)
        + creature("bear", "B", 2, 2)
        + combat({"knight": "B", "bird": "B"}),
        registry,
    )
    monkeypatch.setattr(characteristics, "Combat", no_world)
    options = block_options(board, registry, "B")
    assert options.blocker_ids == ("wall", "bear")
    assert options.legal.tolist() == [[True, True], [True, False]]
    assert options.capacity.tolist() == [1, 1]
    assert options.attackers.tolist() == [0, 1]


def test_a_system_that_changes_creatures_builds_no_reference_world(
    registry: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Exalted (702.83) changes its creature's power as attackers are declared: the block
    options read its system's ``before_blocks`` part; mentor's system has none, so the
    batched engine plays the declaration. Neither builds a reference world. By hand: the
    bear may block the knight (no restriction) in both."""
    monkeypatch.setattr(characteristics, "Combat", no_world)
    for keyword in ("exalted", "mentor"):
        board = scenario(
            PLAYERS
            + creature("knight", "A", 3, 3, keyword, "vigilance")
            + creature("bear", "B", 2, 2)
            + combat({"knight": "B"}),
            registry,
        )
        assert block_options(board, registry, "B").legal.tolist() == [[True]]


def test_the_loader_still_reads_which_attackers_tapped(
    registry: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Declarations as the loader checks them read who tapped (an attacker without vigilance
    taps, 508.1f): from vigilance's ``before_blocks`` part, the sides as without it."""
    board = scenario(
        PLAYERS
        + creature("knight", "A", 3, 3, "vigilance")
        + creature("ogre", "A", 3, 3)
        + creature("bear", "B", 2, 2)
        + combat({"knight": "B", "ogre": "B"}),
        registry,
    )
    declared = at_declare_blockers(board, registry, characteristics.play_declarations)
    assert declared.tapped == {"ogre"}
    monkeypatch.setattr(characteristics, "Combat", no_world)
    fast = at_declare_blockers(board, registry, characteristics.play_declarations, False)
    assert fast.tapped == set()
    assert fast.blocking == declared.blocking
    assert np.array_equal(block_options(board, registry, "B").legal, [[True, True]])


def test_best_boards_of_huge_scores_do_not_overflow() -> None:
    """Each battle's best board by value, ties by their order (RULES section 9), even when
    the values' ranks times the ties would not fit in 64 bits. By hand: battle 0's second
    board has the higher value (its first term is higher); battle 1's boards are equal, the
    lower tie place (1) is shown first."""
    from ecs_combat.decisions.turn_decided import _best_boards

    big = 1 << 29
    value = np.array([[0, 0], [big, (1 << 31) - 1], [5, 5], [5, 5]], np.int64)
    tie = np.array([0, 7, 3, 1], np.int64)
    battle = np.array([0, 0, 1, 1], np.int64)
    assert _best_boards(value, tie, battle, 2).tolist() == [1, 3]
