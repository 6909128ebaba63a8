"""Many boards' attacks searched together (`decisions/attacks.py`, `best_attacks_many`), the
attacks that can no longer be chosen pruned first (`decisions/attack_bounds.py`), and each
board's block options worked out once for all its attacks (`AttackBlockOptions`): RULES
section 9 step 1. Each board's decision is the one it gets alone, ties in section 9's order."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest
from decisions_brute import ADDITIONAL
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_decisions import KEYWORDS

from ecs_combat import Registry, Scenario, parse_scenario
from ecs_combat.decisions import attack_bounds, bounds, declarations
from ecs_combat.decisions.answers import Decision
from ecs_combat.decisions.attack_bounds import Searched
from ecs_combat.decisions.attacks import best_attacks, best_attacks_many
from ecs_combat.decisions.bounds import SearchTooLarge
from ecs_combat.decisions.declarations import AttackBlockOptions, block_options
from ecs_combat.decisions.race import OptimalPolicy
from ecs_combat.rules.race import RaceState, start
from ecs_combat.scenario.race import parse_race

#: Keywords that change who may block whom with the attack (exalted: a declare-attackers
#: system; lure: a block requirement) or nothing of it (vigilance: which attackers tap).
ATTACK_KEYWORDS = ["exalted", "lure", "vigilance"]


def answer(d: Decision) -> dict[str, Any]:
    """The decision's JSON without what depends on the run."""
    out: dict[str, Any] = d.to_json()
    del out["run"]
    return out


@st.composite
def boards(draw: st.DrawFn) -> dict[str, Any]:
    """Up to 3 creatures a side with keywords, some blockers able to block two attackers,
    some tapped."""
    creatures: dict[str, Any] = {}
    for side, player in (("a", "A"), ("b", "B")):
        for i in range(draw(st.integers(1, 3))):
            keywords = draw(
                st.lists(st.sampled_from(KEYWORDS + ATTACK_KEYWORDS), max_size=2, unique=True)
            )
            if side == "b" and draw(st.booleans()):
                keywords.append(ADDITIONAL)
            creatures[f"{side}{i}"] = {
                "controller": player,
                "power": draw(st.integers(1, 4)),
                "toughness": draw(st.integers(1, 4)),
                "keywords": keywords,
                "tapped": side == "b" and draw(st.integers(0, 4)) == 0,
            }
    return {
        "players": {"A": {"life": draw(st.integers(1, 8))}, "B": {"life": draw(st.integers(1, 8))}},
        "creatures": creatures,
    }


def parsed(doc: dict[str, Any], registry: Registry, k: int = 0) -> Scenario:
    return parse_scenario(doc, registry, f"random{k}.json")


@settings(
    max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
@given(st.lists(boards(), min_size=2, max_size=4), st.sampled_from([1, 3]))
def test_boards_together_and_pruned_decide_as_alone(
    registry: Registry, docs: list[dict[str, Any]], top: int
) -> None:
    """The best attacks, their blocks, divisions, values and ties of boards searched
    together, each pruned however few its declarations, are each board's alone (searched
    once, nothing pruned); the first board's attackers limited to its first creature
    (`only`, a Throat Wolf's combat phase)."""
    scenarios = [parsed(doc, registry, k) for k, doc in enumerate(docs)]
    only = [["a0"], *([None] * (len(docs) - 1))]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(attack_bounds, "FEWEST_DECLARATIONS", 0)
        together = best_attacks_many(scenarios, registry, top=top, only=only)
    alone = [
        best_attacks(s, registry, top=top, only=o) for s, o in zip(scenarios, only, strict=True)
    ]
    assert [answer(d) for d in together] == [answer(d) for d in alone]


def three_and_three(
    registry: Registry, power: int, toughness: int, keyword: str | None = None
) -> Scenario:
    """Three 1/1s attacking into three creatures of `power`/`toughness`, 20 life each; the
    first 1/1 with `keyword`, if any."""
    creatures: dict[str, Any] = {
        **{f"a{i}": {"controller": "A", "power": 1, "toughness": 1} for i in range(3)},
        **{f"b{i}": {"controller": "B", "power": power, "toughness": toughness} for i in range(3)},
    }
    if keyword is not None:
        creatures["a0"]["keywords"] = [keyword]
    doc = {"players": {"A": {"life": 20}, "B": {"life": 20}}, "creatures": creatures}
    return parse_scenario(doc, registry, f"{power}-{toughness}.json")


def recorded(monkeypatch: pytest.MonkeyPatch) -> list[list[Searched]]:
    """What each call of `search_attacks` returns, from now on."""
    calls: list[list[Searched]] = []
    searched = attack_bounds.search_attacks

    def record(*args: Any, **kwargs: Any) -> list[Searched]:
        calls.append(searched(*args, **kwargs))
        return calls[-1]

    monkeypatch.setattr("ecs_combat.decisions.attacks.search_attacks", record)
    return calls


def test_attacks_into_larger_blockers_are_not_searched_again(
    registry: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three 1/1s against three 5/5s: any attack is answered by blocks that kill the attackers
    for no damage (510.1), worse for A than not attacking, so only the attack of no creature
    can still be chosen: the first round's search (each attack of at most one creature)
    answers for both boards, and each resolves fewer candidate combats than alone (where
    its 1 + 3 * 8 + 3 * 27 + 64 = 170 (attack, block declaration) pairs are all resolved)."""
    board = three_and_three(registry, 5, 5)
    calls = recorded(monkeypatch)
    together = best_attacks_many([board, board], registry, top=1)
    first, second = calls[0]
    assert first.results is second.results  # one search, no search after the rounds
    assert first.attacks.masks.tolist() == [0, 1, 2, 4]  # no creature, then each alone
    assert second.first == 4
    alone = best_attacks(board, registry, top=1)
    assert [answer(d) for d in together] == [answer(alone)] * 2
    assert together[0].best[0].attackers == {}
    assert alone.combats_resolved >= 170
    assert all(d.combats_resolved < alone.combats_resolved for d in together)


def test_a_board_alone_is_searched_once(
    registry: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One board: the rounds would add searches for one board's sake (docs/performance.md,
    "Bulk races"), so every attack is searched once, as before the pruning."""
    calls = recorded(monkeypatch)
    best_attacks(three_and_three(registry, 5, 5), registry, top=1)
    assert calls[0][0].attacks.count == 8


def test_small_boards_are_not_pruned(registry: Registry, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two 2/2s against two 2/2s: 1 + 2 * 4 + 9 = 18 (attack, block declaration) pairs,
    under FEWEST_DECLARATIONS: every attack searched, beside the 3x3 board's first round."""
    small = {
        **{f"a{i}": {"controller": "A", "power": 2, "toughness": 2} for i in range(2)},
        **{f"b{i}": {"controller": "B", "power": 2, "toughness": 2} for i in range(2)},
    }
    doc = {"players": {"A": {"life": 20}, "B": {"life": 20}}, "creatures": small}
    calls = recorded(monkeypatch)
    best_attacks_many(
        [parse_scenario(doc, registry, "small.json"), three_and_three(registry, 5, 5)],
        registry,
        top=1,
    )
    small_searched, large = calls[0]
    assert small_searched.attacks.count == 4
    assert small_searched.results is not large.results


@settings(
    max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
@given(boards())
def test_each_attacks_block_options_are_its_own(registry: Registry, doc: dict[str, Any]) -> None:
    """For every attack of a board, the options `AttackBlockOptions` gives are those
    `block_options` works out with that attack declared (509.1a-c: who may block whom, how
    many each may block, how many each attacker needs, the requirements)."""
    sc = parsed(doc, registry)
    able = [c for c, spec in sc.creatures.items() if spec.controller == "A"]
    options = AttackBlockOptions(sc, registry, "B", able)
    for mask in range(1 << len(able)):
        attackers = {c: "B" for i, c in enumerate(able) if mask >> i & 1}
        own = block_options(dataclasses.replace(sc, attackers=attackers), registry, "B")
        got = options.of(mask)
        for f in dataclasses.fields(own):
            mine, theirs = getattr(got, f.name), getattr(own, f.name)
            if isinstance(theirs, np.ndarray):
                assert mine.shape == theirs.shape and (mine == theirs).all(), f.name
            elif f.name == "requirements":  # arrays inside: compared as written
                assert repr(mine) == repr(theirs)
            else:
                assert mine == theirs, f.name


def counted_block_options(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    own = declarations.block_options

    def counted(*args: Any) -> Any:
        calls.append(1)
        return own(*args)

    monkeypatch.setattr(declarations, "block_options", counted)
    return calls


@pytest.mark.parametrize(
    ("keyword", "worked_out"),
    [
        ("flying", 1),  # nothing changes with the attack: once, for all 8 attacks
        ("vigilance", 1),  # which attackers tap only (508.1f): once
        ("exalted", 8),  # a declare-attackers system (702.83a): once per attack
        ("lure", 8),  # a block requirement (509.1c): once per attack
    ],
)
def test_block_options_are_worked_out_once_a_board_when_nothing_changes(
    registry: Registry, monkeypatch: pytest.MonkeyPatch, keyword: str, worked_out: int
) -> None:
    """Three attackers, one with `keyword`: the 8 attacks' block options come from one
    `block_options` of the attack of all three, unless the keyword may change the board
    with the attack."""
    sc = three_and_three(registry, 2, 2, keyword)
    calls = counted_block_options(monkeypatch)
    options = AttackBlockOptions(sc, registry, "B", ["a0", "a1", "a2"])
    for mask in range(8):
        options.of(mask)
    assert len(calls) == worked_out


def race_state(registry: Registry, name: str) -> RaceState:
    """Three 2/2s against three 3/3s, 20 life each, as the race's first turn begins."""
    creatures: dict[str, Any] = {
        **{f"a{i}": {"controller": "A", "power": 2, "toughness": 2} for i in range(3)},
        **{f"b{i}": {"controller": "B", "power": 3, "toughness": 3} for i in range(3)},
    }
    doc = {"players": {"A": {}, "B": {}}, "creatures": creatures, "race": {}}
    return start(parse_race(doc, registry, name), registry)


def test_a_race_board_too_large_is_refused_in_its_own_name(
    registry: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Races' boards searched together past the memory guard (the search of several boards
    names none) are searched again alone: the first too large is refused in its own name."""
    states = [race_state(registry, "one.json"), race_state(registry, "two.json")]
    monkeypatch.setattr(bounds, "MOST_COMBATS", 10)
    with pytest.raises(SearchTooLarge) as refused:
        OptimalPolicy(registry).attacks(states)
    assert refused.value.file == "one.json"
