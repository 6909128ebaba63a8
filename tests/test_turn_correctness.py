"""Issue 20: what the engines got wrong in turns and triggers, and the rules decisions RULES.md
sections 2, 4, 7 and 8 now make. Each expected value is worked out by hand from the rules in
the test's docstring; every rule test runs on both engines.
"""

from __future__ import annotations

from typing import Any

import pytest

from ecs_combat import Registry
from tests.test_turns import ResolveTurn, players, turn_resolver


@pytest.fixture(params=["reference", "batched"])
def resolve_turn(request: pytest.FixtureRequest, registry: Registry) -> ResolveTurn:
    return turn_resolver(request.param, registry)


def combat_players(out: dict[str, Any]) -> list[tuple[str, str]]:
    """(attacking player, created_by) of each combat phase of the turn's phases."""
    return [(p["player"], p["created_by"]) for p in out["phases"] if p["phase"] == "combat"]


def wolf(cid: str, controller: str) -> str:
    return f'[creatures.{cid}]\ncard = "Throat Wolf"\ncontroller = "{controller}"\n\n'


# -- defect 4: Throat Wolf phases in turn order, not the file's order (RULES 8) ---------------


def test_8_wolves_add_their_phases_in_turn_order_from_the_active_player(
    resolve_turn: ResolveTurn,
) -> None:
    """8 (schedule rule): players [A, B, C], B's turn, Wolves for A and C listed A's first.
    After B's combat both Wolves add one; turn order from B is C then A, so C's comes first.
    C's is C's first combat -> A's Wolf adds A right after it; that is A's first -> C's Wolf
    adds C; then the A phase added after B's. Combats: B, C, A, C, A (listing order would
    give B, A, C, A, C)."""
    text = players("A", "B", "C") + wolf("wa", "A") + wolf("wc", "C") + '[turn]\nactive = "B"\n'
    out = resolve_turn(text)
    assert combat_players(out) == [
        ("B", "turn"),
        ("C", "Throat Wolf (wc)"),
        ("A", "Throat Wolf (wa)"),
        ("C", "Throat Wolf (wc)"),
        ("A", "Throat Wolf (wa)"),
    ]
    assert [c["player"] for c in out["combats"]] == ["B", "C", "A", "C", "A"]


def test_8_wolves_listed_against_turn_order_on_the_first_players_turn(
    resolve_turn: ResolveTurn,
) -> None:
    """8: [A, B, C], A's turn, Wolves for B and C listed C's first. After A's: B then C (turn
    order). B's first -> C's Wolf adds C; C's first -> B's Wolf adds B; then the pending C:
    A, B, C, B, C."""
    text = players("A", "B", "C") + wolf("wc", "C") + wolf("wb", "B")
    out = resolve_turn(text)
    assert [p for p, _ in combat_players(out)] == list("ABCBC")


# -- defect 5: successive spells' phases, most recent first (500.8) ----------------------------


def test_500_8_the_second_resurgence_of_a_main_phase_comes_first(
    resolve_turn: ResolveTurn,
) -> None:
    """500.8, RULES 8: A casts Resurgence, then B casts Resurgence, both in A's precombat main
    phase. Each adds a combat phase (A attacks: it is A's turn) and a main phase after it; the
    most recently created come first: B's combat and main, then A's, then the turn's combat
    and main."""
    text = (
        players("A", "B")
        + '[turn]\ncasts = [{ card = "Resurgence", caster = "A", main = 1 }, '
        '{ card = "Resurgence", caster = "B", main = 1 }]\n'
    )
    out = resolve_turn(text)
    assert [(p["phase"], p["player"], p["created_by"]) for p in out["phases"]] == [
        ("main", "A", "turn"),
        ("combat", "A", "Resurgence (B)"),
        ("main", "A", "Resurgence (B)"),
        ("combat", "A", "Resurgence (A)"),
        ("main", "A", "Resurgence (A)"),
        ("combat", "A", "turn"),
        ("main", "A", "turn"),
    ]
