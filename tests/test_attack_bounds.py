"""Attacks that can no longer be chosen, pruned before the full attack search
(`decisions/attack_bounds.py`, RULES section 9 step 1): the decision is the one the full
search gives, ties in section 9's order, for fewer candidate combats."""

from __future__ import annotations

from typing import Any

import pytest
from decisions_brute import ADDITIONAL
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_decisions import KEYWORDS

from ecs_combat import Registry, parse_scenario
from ecs_combat.decisions import attack_bounds
from ecs_combat.decisions.attack_bounds import Kept
from ecs_combat.decisions.attacks import best_attacks
from ecs_combat.decisions.declarations import AttackDeclarations, BlockDeclarations


def answer(d: Any) -> dict[str, Any]:
    """The decision's JSON without what depends on the run."""
    out: dict[str, Any] = d.to_json()
    del out["run"]
    return out


def every_attack(
    _engine: Any,
    _objective: Any,
    _boards_of: Any,
    attacks: AttackDeclarations,
    _decls: list[BlockDeclarations],
    _top: int,
    _guard: str,
) -> Kept:
    """No pruning: every attack searched in full (the search before the bounds)."""
    return Kept(list(range(attacks.count)), 0)


@st.composite
def boards(draw: st.DrawFn) -> dict[str, Any]:
    """Up to 3 creatures a side with keywords, some blockers able to block two attackers."""
    creatures: dict[str, Any] = {}
    for side, player in (("a", "A"), ("b", "B")):
        for i in range(draw(st.integers(1, 3))):
            keywords = draw(st.lists(st.sampled_from(KEYWORDS), max_size=2, unique=True))
            if side == "b" and draw(st.booleans()):
                keywords.append(ADDITIONAL)
            creatures[f"{side}{i}"] = {
                "controller": player,
                "power": draw(st.integers(1, 4)),
                "toughness": draw(st.integers(1, 4)),
                "keywords": keywords,
            }
    return {
        "players": {"A": {"life": draw(st.integers(1, 8))}, "B": {"life": draw(st.integers(1, 8))}},
        "creatures": creatures,
    }


@settings(
    max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
@given(boards(), st.sampled_from([1, 3]))
def test_pruning_changes_no_decision(registry: Registry, doc: dict[str, Any], top: int) -> None:
    """The best attacks, their blocks, divisions, values and ties are the full search's
    (pruning on every board, however few its declarations)."""
    sc = parse_scenario(doc, registry, "random.json")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(attack_bounds, "FEWEST_DECLARATIONS", 0)
        pruned = best_attacks(sc, registry, top=top)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(attack_bounds, "attacks_to_search", every_attack)
        full = best_attacks(sc, registry, top=top)
    assert answer(pruned) == answer(full)


def test_attacks_into_larger_blockers_are_not_searched_again(registry: Registry) -> None:
    """Three 1/1s against three 5/5s: any attack is answered by blocks that kill the attackers
    for no damage (510.1), worse for A than not attacking, so only the attack of no creature
    can still be chosen: the first round's search (each attack of at most one creature)
    answers, and the decision resolves fewer candidate combats."""
    creatures = {
        **{f"a{i}": {"controller": "A", "power": 1, "toughness": 1} for i in range(3)},
        **{f"b{i}": {"controller": "B", "power": 5, "toughness": 5} for i in range(3)},
    }
    doc = {"players": {"A": {"life": 20}, "B": {"life": 20}}, "creatures": creatures}
    sc = parse_scenario(doc, registry, "larger.json")
    kept: list[Kept] = []
    searched = attack_bounds.attacks_to_search

    def recorded(*args: Any) -> Kept:
        kept.append(searched(*args))
        return kept[-1]

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(attack_bounds, "attacks_to_search", recorded)
        pruned = best_attacks(sc, registry, top=1)
    assert kept[0].searched is not None  # no search after the rounds
    assert kept[0].attacks == [0, 1, 2, 4]  # no creature, then each alone (by bit)
    assert pruned.best[0].attackers == {}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(attack_bounds, "attacks_to_search", every_attack)
        full = best_attacks(sc, registry, top=1)
    assert answer(pruned) == answer(full)
    assert pruned.combats_resolved < full.combats_resolved


def test_small_boards_are_searched_once(registry: Registry) -> None:
    """Two 2/2s against two 2/2s: 1 + 2·4 + 9 = 18 (attack, block declaration) pairs, under
    FEWEST_DECLARATIONS, so one search as before: the rounds resolve nothing."""
    creatures = {
        **{f"a{i}": {"controller": "A", "power": 2, "toughness": 2} for i in range(2)},
        **{f"b{i}": {"controller": "B", "power": 2, "toughness": 2} for i in range(2)},
    }
    doc = {"players": {"A": {"life": 20}, "B": {"life": 20}}, "creatures": creatures}
    sc = parse_scenario(doc, registry, "small.json")
    kept: list[Kept] = []
    searched = attack_bounds.attacks_to_search

    def recorded(*args: Any) -> Kept:
        kept.append(searched(*args))
        return kept[-1]

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(attack_bounds, "attacks_to_search", recorded)
        best_attacks(sc, registry, top=1)
    assert kept[0] == Kept([0, 1, 2, 3], 0)
