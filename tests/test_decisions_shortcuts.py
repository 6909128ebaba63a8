"""The shortcuts of the decision search (docs/performance.md, "Decisions") give what the long
way gives: the choices' outcomes taken from the search's own recorded runs instead of
resolving their scenarios again, the results of some battles of a recorded batch, boards with
events copied for the candidate combats, and the ranks that order scores."""

from __future__ import annotations

import itertools
import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scenario_text import combat, creature

import ecs_combat.decisions.tree as tree_module
from ecs_combat import Registry, Scenario, parse_scenario
from ecs_combat.batched.engine import BatchedEngine
from ecs_combat.batched.from_scenarios import scenarios_to_batch
from ecs_combat.cards.notes import result_json
from ecs_combat.decisions import Decision, best_attacks, best_blocks
from ecs_combat.decisions.objective import SMALL_SCORES, lexicographic_ranks
from ecs_combat.errors import EcsCombatError, RefusedError
from ecs_combat.reference.engine import ReferenceEngine

SCENARIOS = Path(__file__).resolve().parent / "scenarios"
PLAYERS = "[players.A]\n[players.B]\n"


def scenario(text: str, registry: Registry) -> Scenario:
    return parse_scenario(tomllib.loads(text), registry, "test.toml")


def boards(registry: Registry) -> dict[str, Scenario]:
    """Boards whose best lines divide damage (first-strike and regular steps, trample), with
    events on creatures and on a player (copied into every candidate combat)."""
    events = (
        '[[events]]\nat = "declare-blockers"\naction = "damage"\ntarget = "wall"\namount = 1\n'
        '[[events]]\nat = "after first-strike"\naction = "damage"\ntarget = "B"\namount = 2\n'
    )
    return {
        "double strike": scenario(
            PLAYERS
            + creature("knight", "A", 3, 3, "double strike")
            + creature("elf", "B", 1, 1)
            + creature("wall", "B", 3, 3)
            + combat({"knight": "B"}),
            registry,
        ),
        "events": scenario(
            PLAYERS
            + creature("wurm", "A", 5, 5, "trample", "first strike")
            + creature("ogre", "A", 3, 3)
            + creature("elf", "B", 1, 1)
            + creature("wall", "B", 3, 4)
            + combat({"wurm": "B", "ogre": "B"})
            + events,
            registry,
        ),
    }


def shown(d: Decision) -> list[dict[str, Any]]:
    return [c.to_json() for c in d.best]


def replays(d: Decision, registry: Registry) -> None:
    """CONTRACT 8: each choice written into its scenario resolves to its outcome, on both
    engines."""
    for c in d.best:
        assert result_json(c.scenario, ReferenceEngine(registry).resolve(c.scenario)) == c.outcome
        bat = BatchedEngine(registry).resolve_many([c.scenario])[0]
        assert result_json(c.scenario, bat) == c.outcome


def test_outcomes_come_from_the_search_without_resolving_again(
    registry: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The choices' outcomes are the recorded results of their best lines' leaves: nothing is
    resolved from scenarios (which would fail here), and each outcome is what its scenario
    resolves to on both engines."""
    found = {}
    with monkeypatch.context() as m:

        def refuse(*args: object) -> object:
            raise AssertionError("resolved again")

        m.setattr(BatchedEngine, "resolve_many", refuse)
        for name, sc in boards(registry).items():
            found[name] = best_blocks(sc, registry, top=4)
        found["attacks"] = best_attacks(boards(registry)["events"], registry)
    for d in found.values():
        assert d.optimal and d.best
        replays(d, registry)
    # the first-strike division of the double strike test (test_decisions.py) is on its line
    both = found["double strike"].best[3]
    assert both.divide == [{"step": "first-strike", "source": "knight", "amounts": {"wall": 3}}]


def test_levels_not_recorded_are_resolved_from_the_scenarios(
    registry: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A search too large to record (here: any) resolves its choices' scenarios instead, with
    the same answer to the last character."""
    recorded = {
        name: shown(best_blocks(sc, registry, top=4)) for name, sc in boards(registry).items()
    }
    attacks = shown(best_attacks(boards(registry)["events"], registry))
    monkeypatch.setattr(tree_module, "RECORDED_ROWS", 0)
    for name, sc in boards(registry).items():
        assert shown(best_blocks(sc, registry, top=4)) == recorded[name]
    assert shown(best_attacks(boards(registry)["events"], registry)) == attacks


def test_boards_the_batched_engine_refuses_are_resolved_by_the_reference_engine(
    registry: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Choices not recorded whose scenarios the batched engine refuses are resolved by the
    reference engine (through the batched engine's public face), with the same answer."""
    recorded = shown(best_blocks(boards(registry)["double strike"], registry, top=4))
    monkeypatch.setattr(tree_module, "RECORDED_ROWS", 0)

    def refuse(*args: object) -> object:
        raise RefusedError("refused here")

    monkeypatch.setattr(BatchedEngine, "resolve_many", refuse)
    assert shown(best_blocks(boards(registry)["double strike"], registry, top=4)) == recorded


def rules_scenarios(registry: Registry) -> list[Scenario]:
    """The one-combat rules scenarios of tests/scenarios that the batched engine resolves
    together."""
    out = []
    for path in sorted(SCENARIOS.glob("*.toml")):
        try:
            sc = parse_scenario(tomllib.loads(path.read_text()), registry, path.name)
            BatchedEngine(registry).resolve_many([sc])
        except (EcsCombatError, KeyError, TypeError):
            continue
        out.append(sc)
    return out


def test_results_of_some_battles_are_theirs_among_all(registry: Registry) -> None:
    """A recorded play's results for some battles, in any order, are those that resolving
    the whole batch gives them (the rules scenarios, events and counters included)."""
    scenarios = rules_scenarios(registry)
    assert len(scenarios) > 100
    engine = BatchedEngine(registry)
    every = [r.to_json() for r in engine.resolve_many(scenarios)]
    played = engine.play_batch(scenarios_to_batch(scenarios, registry), record=True)
    some = np.random.default_rng(5).permutation(len(scenarios))[:40].tolist()
    assert [r.to_json() for r in played.results(some)] == [every[i] for i in some]
    assert [r.to_json() for r in played.results([])] == []


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.lists(st.integers(-(2**40), 2**40) | st.integers(-3, 3), min_size=3, max_size=3),
        min_size=1,
        max_size=30,
    )
)
def test_ranks_order_scores_term_by_term(rows: list[list[int]]) -> None:
    """Ranks compare as the scores do, term by term (wide spans included, which take the
    other way)."""
    scores = np.array(rows, np.int64)
    ranks = lexicographic_ranks(scores).tolist()
    for i in range(len(rows)):
        for j in range(len(rows)):
            assert (ranks[i] < ranks[j]) == (rows[i] < rows[j])
            assert (ranks[i] == ranks[j]) == (rows[i] == rows[j])


@pytest.mark.parametrize("rows", [SMALL_SCORES, SMALL_SCORES + 1, 5 * SMALL_SCORES])
def test_ranks_order_many_scores_term_by_term(rows: int) -> None:
    """Both ways of ranking (a few calls over the whole array up to `SMALL_SCORES` rows,
    column by column above) order rows as the scores compare, term by term: sorted by rank,
    the rows are sorted, and equal ranks are equal rows."""
    scores = np.random.default_rng(rows).integers(-4, 4, (rows, 4))
    ranks = lexicographic_ranks(scores)
    order = np.argsort(ranks, kind="stable")
    ordered = [tuple(r) for r in scores[order].tolist()]
    assert ordered == sorted(ordered)
    same = ranks[order][1:] == ranks[order][:-1]
    assert (same == [a == b for a, b in itertools.pairwise(ordered)]).all()


def test_the_default_division_is_shown_among_equal_ones(registry: Registry) -> None:
    """RULES section 9: the line shown changes only what matters. A 4/3 deathtouch
    indestructible attacker blocked by a 1/3 wall and a 1/1 elf: 1 is lethal to each
    (702.2c), so every division giving both at least 1 kills both (material 4 + 2 = 6; the
    attacker survives: (0, 6, 0, 0)); the default division (RULES section 3: 1 and 1, the
    excess 2 to the first, the wall: 3 and 1) is one of them, and is the one shown, so no
    division is listed."""
    sc = scenario(
        PLAYERS
        + creature("fang", "A", 4, 3, "deathtouch", "indestructible")
        + creature("wall", "B", 1, 3)
        + creature("elf", "B", 1, 1)
        + combat({"fang": "B"}),
        registry,
    )
    d = best_blocks(sc, registry, top=4)
    both = next(c for c in d.best if c.blockers == {"wall": "fang", "elf": "fang"})
    assert both.score == {"game": 0, "material": 6, "life": 0, "poison": 0}
    assert both.divide == []
    dealt = {(x["source"], x["target"]): x["amount"] for x in both.outcome["steps"][0]["damage"]}
    assert dealt[("fang", "wall")] == 3 and dealt[("fang", "elf")] == 1
    replays(d, registry)


def test_keyword_targets_follow_their_boards_copies(registry: Registry) -> None:
    """RULES 10: a creature's `targets` are rows of its board; every candidate combat's copy
    keeps them pointing at its own creatures. Mentor (702.134) on the first attacker names
    the bear, which gets its +1/+1 counter as they attack (a 3/3): each choice shown replays
    to its outcome on both engines (a target left at the first copy's rows would put the
    counter on another battle's bear)."""
    sc = scenario(
        PLAYERS
        + creature("sage", "A", 3, 3, "mentor", targets={"mentor": "bear"})
        + creature("bear", "A", 2, 2)
        + creature("wall", "B", 0, 3)
        + creature("elf", "B", 1, 1)
        + combat({"sage": "B", "bear": "B"}),
        registry,
    )
    d = best_blocks(sc, registry, top=4)
    assert d.optimal and len(d.best) == 4
    bear = [c.outcome["creatures"]["bear"] for c in d.best]
    assert all(b["counters"] == {"+1/+1": 1} and b["power"] == 3 for b in bear)
    replays(d, registry)
