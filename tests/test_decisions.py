"""Decisions (RULES section 9): the best blocks and attacks, with hand-derived answers; every
declaration shown replays to its outcome on both engines; the search against brute force."""

from __future__ import annotations

import tomllib
from typing import Any, cast

import numpy as np
import pytest
from decisions_brute import ADDITIONAL, ANY_NUMBER, brute_attacks, brute_blocks
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scenario_text import combat, creature

from ecs_combat import InputError, Registry, Scenario, parse_scenario
from ecs_combat.batched.engine import BatchedEngine
from ecs_combat.cards.notes import result_json
from ecs_combat.decisions import Decision, Objective, best_attacks, best_blocks
from ecs_combat.decisions.search import BoardResults, best_declarations, ranked_declarations
from ecs_combat.reference.engine import ReferenceEngine

PLAYERS = "[players.A]\n[players.B]\n"


def board(*creatures: str, attackers: dict[str, str] | None = None, players: str = PLAYERS) -> str:
    return players + "".join(creatures) + (combat(attackers) if attackers else "")


def scenario(text: str, registry: Registry) -> Scenario:
    return parse_scenario(tomllib.loads(text), registry, "test.toml", blocks_to_decide=True)


def replays(decision: Decision, registry: Registry) -> None:
    """CONTRACT 8: every entry of `best`, written into the scenario, resolves to its outcome
    on both engines."""
    for choice in decision.best:
        ref = ReferenceEngine(registry).resolve(choice.scenario)
        bat = BatchedEngine(registry).resolve_many([choice.scenario])[0]
        assert result_json(choice.scenario, ref) == choice.outcome
        assert result_json(choice.scenario, bat) == choice.outcome


def score(decision: Decision, i: int = 0) -> tuple[int, ...]:
    return tuple(decision.best[i].score[t] for t in decision.objective)


# -- blocks: hand-derived ------------------------------------------------------------------------


def test_509_double_block_kills_the_attacker(registry: Registry) -> None:
    """A 3/3 attacks; B has two 2/2s. No block: B loses 3 life (0, 0, 3, 0). One blocker: it
    dies, value 4 (0, 4, 0, 0). Both: the 3/3 dies (6) and kills one (4): material 4 - 6 = -2.
    B minimises (game, material, life, poison) lexicographically: both block."""
    sc = scenario(
        board(
            creature("giant", "A", 3, 3),
            creature("b1", "B", 2, 2),
            creature("b2", "B", 2, 2),
            attackers={"giant": "B"},
        ),
        registry,
    )
    d = best_blocks(sc, registry)
    assert d.optimal and d.declarations == 4 and d.optimal_count == 1
    assert d.best[0].blockers == {"b1": "giant", "b2": "giant"}
    assert score(d) == (0, -2, 0, 0)
    assert [score(d, i) for i in (1, 2)] == [(0, 0, 3, 0), (0, 4, 0, 0)]
    replays(d, registry)


def test_chump_block_when_the_attack_is_lethal(registry: Registry) -> None:
    """B at 3 life, a 5/5 attacks, B has a 1/1: no block loses the game (game +1, and 3 to -2
    is 5 life lost: below 0 counts); the chump costs 2 of material (0, 2, 0, 0), which is
    better for B."""
    sc = scenario(
        "[players.A]\n[players.B]\nlife = 3\n"
        + creature("ogre", "A", 5, 5)
        + creature("elf", "B", 1, 1)
        + combat({"ogre": "B"}),
        registry,
    )
    d = best_blocks(sc, registry)
    assert d.best[0].blockers == {"elf": "ogre"} and score(d) == (0, 2, 0, 0)
    assert score(d, 1) == (1, 0, 5, 0)
    replays(d, registry)


def test_ties_fewest_creatures_then_file_order(registry: Registry) -> None:
    """A 2/2 attacks into two 3/3s. Either one blocking kills it for nothing (material -4);
    both blocking too. Three tie; the one shown first declares fewest creatures, then the
    first in the file: b1 alone, then b2 alone, then both."""
    sc = scenario(
        board(
            creature("bear", "A", 2, 2),
            creature("b1", "B", 3, 3),
            creature("b2", "B", 3, 3),
            attackers={"bear": "B"},
        ),
        registry,
    )
    d = best_blocks(sc, registry)
    assert d.optimal_count == 3
    assert [c.blockers for c in d.best] == [
        {"b1": "bear"},
        {"b2": "bear"},
        {"b1": "bear", "b2": "bear"},
    ]
    assert all(score(d, i) == (0, -4, 0, 0) for i in range(3))


def test_702_19b_trample_deathtouch_division_is_chosen(registry: Registry) -> None:
    """A 4/4 trample deathtouch attacks two 2/2s. Double block: with deathtouch 1 is lethal
    to each (702.2c), so the attacking player's best is 1, 1 and 2 to B (the default division
    already, so nothing is listed): both blockers die (8), the 4/4 takes 4 and dies (8):
    (0, 0, 2, 0). No block: (0, 0, 4, 0); one blocker: it dies, 3 tramples over (0, 4, 3, 0).
    B's best: the double block."""
    sc = scenario(
        board(
            creature("wurm", "A", 4, 4, "trample", "deathtouch"),
            creature("b1", "B", 2, 2),
            creature("b2", "B", 2, 2),
            attackers={"wurm": "B"},
        ),
        registry,
    )
    d = best_blocks(sc, registry)
    best = d.best[0]
    assert best.blockers == {"b1": "wurm", "b2": "wurm"} and score(d) == (0, 0, 2, 0)
    assert best.divide == []
    dealt = {(x["source"], x["target"]): x["amount"] for x in best.outcome["steps"][0]["damage"]}
    assert dealt == {
        ("wurm", "b1"): 1,
        ("wurm", "b2"): 1,
        ("wurm", "B"): 2,
        ("b1", "wurm"): 2,
        ("b2", "wurm"): 2,
    }
    replays(d, registry)


def test_702_4_divisions_in_the_first_strike_step(registry: Registry) -> None:
    """A 3/3 double striker attacks; B has a 1/1 (first in the file) and a 3/3. Double block:
    the default first-strike division (1 to the elf, 2 to the wall) lets the wall live to
    trade in the regular step (4 + 6 - 6 = 4); 3 to the wall instead kills it first, then
    the regular step's 3 kill the elf, which deals only 1: (0, 8, 0, 0), shown as a division.
    No block: 6 damage (0, 0, 6, 0); the elf alone: (0, 2, 0, 0); the wall alone (first
    strike kills it, then nothing is left to hit): (0, 6, 0, 0). B's best: no block."""
    sc = scenario(
        board(
            creature("knight", "A", 3, 3, "double strike"),
            creature("elf", "B", 1, 1),
            creature("wall", "B", 3, 3),
            attackers={"knight": "B"},
        ),
        registry,
    )
    d = best_blocks(sc, registry, top=4)
    scores = {tuple(c.blockers): score(d, i) for i, c in enumerate(d.best)}
    assert scores == {
        (): (0, 0, 6, 0),
        ("elf",): (0, 2, 0, 0),
        ("wall",): (0, 6, 0, 0),
        ("elf", "wall"): (0, 8, 0, 0),
    }
    both = d.best[3]
    assert both.divide == [{"step": "first-strike", "source": "knight", "amounts": {"wall": 3}}]
    replays(d, registry)


def test_objective_life_first(registry: Registry) -> None:
    """With --objective life the 3/3 of the first test is simply blocked by one 2/2: no life
    is lost (0); that it dies no longer counts. Fewest creatures first: b1 alone."""
    sc = scenario(
        board(
            creature("giant", "A", 3, 3),
            creature("b1", "B", 2, 2),
            creature("b2", "B", 2, 2),
            attackers={"giant": "B"},
        ),
        registry,
    )
    d = best_blocks(sc, registry, objective=Objective.parse("life", registry))
    assert d.objective == ("life",) and d.best[0].blockers == {"b1": "giant"}
    assert d.best[0].score == {"life": 0} and d.optimal_count == 3


def test_value_key_changes_the_trade(registry: Registry) -> None:
    """RULES 9: `value` replaces power plus toughness. The 3/3 worth 1 only: trading both
    blockers' one 2/2 (4) for it (1) is worse for B than taking 3: (0, 0, 3, 0)."""
    sc = scenario(
        board(
            creature("giant", "A", 3, 3, value=1),
            creature("b1", "B", 2, 2),
            creature("b2", "B", 2, 2),
            attackers={"giant": "B"},
        ),
        registry,
    )
    d = best_blocks(sc, registry)
    assert d.best[0].blockers == {} and score(d) == (0, 0, 3, 0)
    assert score(d, 1) == (0, 3, 0, 0)  # both block: 4 - 1


def test_poison_term_is_the_poison_plugins(registry: Registry) -> None:
    """A 2/2 infect attacks; B's 1/1 may chump. No block: 2 poison counters (0, 0, 0, 2);
    the chump: (0, 2, 0, 0). Ordered poison first, B takes the chump."""
    sc = scenario(
        board(
            creature("rat", "A", 2, 2, "infect"), creature("elf", "B", 1, 1), attackers={"rat": "B"}
        ),
        registry,
    )
    d = best_blocks(sc, registry)
    assert d.best[0].blockers == {} and score(d) == (0, 0, 0, 2)
    d = best_blocks(sc, registry, objective=Objective.parse("poison,material", registry))
    assert d.best[0].blockers == {"elf": "rat"} and d.best[0].score == {"poison": 0, "material": 2}


def test_budget_cut_short_is_not_optimal(registry: Registry) -> None:
    """A search stopped by its budget says so and why."""
    creatures = [creature(f"a{i}", "A", 4, 4, "trample") for i in range(3)]
    creatures += [creature(f"b{i}", "B", 2, 2) for i in range(4)]
    sc = scenario(board(*creatures, attackers={f"a{i}": "B" for i in range(3)}), registry)
    d = best_blocks(sc, registry, budget=1e-9)
    assert not d.optimal and d.reason is not None and "budget" in d.reason
    assert best_blocks(sc, registry).optimal


def test_two_players_only(registry: Registry) -> None:
    sc = scenario(
        "[players.A]\n[players.B]\n[players.C]\n" + creature("x", "A", 1, 1) + combat({"x": "B"}),
        registry,
    )
    with pytest.raises(InputError, match="two players"):
        best_blocks(sc, registry)


def test_unknown_objective_term_suggests(registry: Registry) -> None:
    with pytest.raises(InputError, match="did you mean 'material'"):
        Objective.parse("game,materail", registry)


# -- attacks ----------------------------------------------------------------------------------


def test_508_attacks_answered_by_the_best_blocks(registry: Registry) -> None:
    """A has a 3/3 and a 2/2, B a 2/2. The 3/3 alone: B takes 3 (blocking loses the bear):
    (0, 0, 3, 0). Both: B trades with the 2/2 and takes 3: (0, 0, 3, 0). The 2/2 alone: B
    trades (0, 0, 0, 0). None: 0. Two tie; fewest creatures first: the 3/3 alone."""
    sc = scenario(
        board(creature("a1", "A", 3, 3), creature("a2", "A", 2, 2), creature("bear", "B", 2, 2)),
        registry,
    )
    d = best_attacks(sc, registry)
    assert d.declarations == 4 and d.optimal_count == 2 and d.optimal
    assert d.best[0].attackers == {"a1": "B"} and d.best[0].blockers == {}
    assert d.best[1].attackers == {"a1": "B", "a2": "B"} and d.best[1].blockers == {"bear": "a2"}
    assert score(d) == score(d, 1) == (0, 0, 3, 0)
    replays(d, registry)


def test_defender_and_summoning_sick_creatures_do_not_attack(registry: Registry) -> None:
    """302.6, 702.3: only the 1/1 can attack: two attack declarations."""
    sc = scenario(
        board(
            creature("wall", "A", 0, 4, "defender"),
            creature("kid", "A", 3, 3, summoning_sick=True),
            creature("elf", "A", 1, 1),
            creature("bear", "B", 2, 2),
        ),
        registry,
    )
    d = best_attacks(sc, registry)
    assert d.declarations == 2
    assert all(set(c.attackers or {}) <= {"elf"} for c in d.best)


# -- against brute force ----------------------------------------------------------------------

KEYWORDS = [
    "first strike",
    "double strike",
    "deathtouch",
    "trample",
    "lifelink",
    "flying",
    "reach",
    "menace",
    "indestructible",
]


@st.composite
def small_boards(draw: st.DrawFn) -> dict[str, Any]:
    n_attackers = draw(st.integers(1, 2))
    n_blockers = draw(st.integers(1, 3))
    creatures: dict[str, Any] = {}
    for side, n, player in (("a", n_attackers, "A"), ("b", n_blockers, "B")):
        for i in range(n):
            creatures[f"{side}{i}"] = {
                "controller": player,
                "power": draw(st.integers(1, 3)),
                "toughness": draw(st.integers(1, 3)),
                "keywords": draw(st.lists(st.sampled_from(KEYWORDS), max_size=2, unique=True)),
            }
    life = draw(st.integers(1, 6))
    return {
        "players": {"A": {"life": 20}, "B": {"life": life}},
        "creatures": creatures,
        "combat": {"attackers": {f"a{i}": "B" for i in range(n_attackers)}},
    }


def agrees_with_brute_force(doc: dict[str, Any], registry: Registry) -> tuple[Scenario, int]:
    """The search's best score, declaration count, ties and first best are brute force's,
    and its best entries replay; the scenario and how many share the best."""
    sc = parse_scenario(doc, registry, "random.json")
    d = best_blocks(sc, registry)
    best, count, tied, first = brute_blocks(sc, registry, d.objective)
    assert d.optimal
    assert score(d) == best
    assert (d.declarations, d.optimal_count) == (count, tied)
    blocks = {k: (v,) if isinstance(v, str) else tuple(v) for k, v in d.best[0].blockers.items()}
    assert blocks == first
    replays(d, registry)
    return sc, tied


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_boards())
def test_blocks_agree_with_brute_force(registry: Registry, doc: dict[str, Any]) -> None:
    """The search's best score, declaration count, ties and first best are brute force's."""
    sc, tied = agrees_with_brute_force(doc, registry)
    d = best_blocks(sc, registry)
    every = best_blocks(sc, registry, exhaustive=True)  # the bounds change nothing shown
    assert [c.to_json() for c in every.best] == [c.to_json() for c in d.best]
    assert every.optimal_count == tied


#: Keywords of multi-block boards: one damage step and no trample, so the brute force's lines
#: (both players' divisions, step by step) stay in the hundreds.
ONE_STEP = [k for k in KEYWORDS if k not in ("first strike", "double strike", "trample")]


@st.composite
def multi_block_boards(draw: st.DrawFn) -> dict[str, Any]:
    """Two attackers against one or two blockers that may block both (509.1a), so the
    defending player divides too (510.1d)."""
    creatures: dict[str, Any] = {}
    for i in range(2):
        creatures[f"a{i}"] = {
            "controller": "A",
            "power": draw(st.integers(1, 3)),
            "toughness": draw(st.integers(1, 3)),
            "keywords": draw(st.lists(st.sampled_from(ONE_STEP), max_size=1)),
        }
    for i in range(draw(st.integers(1, 2))):
        extra = draw(st.sampled_from([ADDITIONAL, ANY_NUMBER, None]))
        creatures[f"b{i}"] = {
            "controller": "B",
            "power": draw(st.integers(1, 3)),
            "toughness": draw(st.integers(1, 4)),
            "keywords": [k for k in (extra, draw(st.sampled_from([None, *ONE_STEP]))) if k],
        }
    return {
        "players": {"A": {"life": 20}, "B": {"life": draw(st.integers(1, 6))}},
        "creatures": creatures,
        "combat": {"attackers": {"a0": "B", "a1": "B"}},
    }


@settings(
    max_examples=15, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
@given(multi_block_boards())
def test_multi_blocks_agree_with_brute_force(registry: Registry, doc: dict[str, Any]) -> None:
    """509.1a, 510.1d: with blockers that may block both attackers, the search (the defending
    player's divisions included) gives brute force's best score, count, ties and first best."""
    agrees_with_brute_force(doc, registry)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_boards())
def test_attacks_agree_with_brute_force(registry: Registry, doc: dict[str, Any]) -> None:
    """The attacks search against every attack declaration answered by brute-force blocks."""
    del doc["combat"]
    sc = parse_scenario(doc, registry, "random.json")
    d = best_attacks(sc, registry)
    best, count, tied, first = brute_attacks(sc, registry, d.objective)
    assert d.optimal and score(d) == best
    assert (d.declarations, d.optimal_count) == (count, tied)
    assert d.best[0].attackers == first


def test_702_118_skulk_legality_after_exalted(registry: Registry) -> None:
    """RULES 4: blocks are legal or not with the creatures as blockers are declared. A 1/1
    with skulk and exalted attacking alone is a 2/2 then, so a 2/2 may block it (702.118: not
    a creature with greater power): two declarations. The block trades, but values are
    power plus toughness as given, before combat effects: the bear's 4 against the sneak's 2,
    (0, 2, 0, 0); no block loses 2 life, (0, 0, 2, 0), which is B's best."""
    sc = scenario(
        board(
            creature("sneak", "A", 1, 1, "skulk", "exalted"),
            creature("bear", "B", 2, 2),
            attackers={"sneak": "B"},
        ),
        registry,
    )
    d = best_blocks(sc, registry)
    assert d.declarations == 2
    assert d.best[0].blockers == {} and score(d) == (0, 0, 2, 0)
    assert d.best[1].blockers == {"bear": "sneak"} and score(d, 1) == (0, 2, 0, 0)
    replays(d, registry)


def test_509_1c_lure_requirement_leaves_one_declaration(registry: Registry) -> None:
    """Lure: all creatures able to block it do so. A 1/1 lure and a 5/5 attack; B's 2/2 must
    block the lure if able, and only declarations obeying as many requirements as possible
    are legal: the bear blocking the lure is the one declaration (it kills it, takes 5 from
    the giant: (0, -2, 5, 0))."""
    sc = scenario(
        board(
            creature("bait", "A", 1, 1, "lure"),
            creature("giant", "A", 5, 5),
            creature("bear", "B", 2, 2),
            attackers={"bait": "B", "giant": "B"},
        ),
        registry,
    )
    d = best_blocks(sc, registry)
    assert d.declarations == 1 and d.best[0].blockers == {"bear": "bait"}
    assert score(d) == (0, -2, 5, 0)
    replays(d, registry)


def test_510_1d_the_defending_player_divides_a_multi_blocker(registry: Registry) -> None:
    """509.1a, 510.1d: the 2/6 wall may block both bears (2/3 and 2/2). Blocking both, B
    divides the wall's 2: all of it to the 2/2 kills it, while the default (all to the first,
    the 2/3) kills nothing. Best: block both, 2 to bear2: material -4 (bear2's 2+2), life 0.
    Blocking bear2 alone kills it too but lets bear1's 2 through: life 2. Four declarations:
    none, either bear, both."""
    sc = scenario(
        board(
            creature("bear1", "A", 2, 3),
            creature("bear2", "A", 2, 2),
            creature("wall", "B", 2, 6, ADDITIONAL),
            attackers={"bear1": "B", "bear2": "B"},
        ),
        registry,
    )
    d = best_blocks(sc, registry, top=2)
    assert d.declarations == 4 and d.optimal
    first = d.best[0]
    assert first.blockers == {"wall": ["bear1", "bear2"]}
    assert first.divide == [{"step": "regular", "source": "wall", "amounts": {"bear2": 2}}]
    assert score(d) == (0, -4, 0, 0)
    assert d.best[1].blockers == {"wall": "bear2"} and score(d, 1) == (0, -4, 2, 0)
    replays(d, registry)


@pytest.mark.parametrize(
    ("keywords", "declarations"),
    [
        ((), 4),  # 509.1a: one attacker each: none or one of the three
        ((ADDITIONAL,), 7),  # up to two: 1 + 3 + 3
        ((ADDITIONAL, ADDITIONAL), 8),  # instances add up: up to three, every subset
        ((ANY_NUMBER,), 8),
    ],
)
def test_509_1a_how_many_attackers_a_blocker_may_block(
    registry: Registry, keywords: tuple[str, ...], declarations: int
) -> None:
    """Three 1/1 attackers, one 0/9 wall: the number of block declarations searched."""
    sc = scenario(
        board(
            *(creature(f"elf{i}", "A", 1, 1) for i in range(3)),
            creature("wall", "B", 0, 9, *keywords),
            attackers={f"elf{i}": "B" for i in range(3)},
        ),
        registry,
    )
    d = best_blocks(sc, registry)
    assert d.declarations == declarations


@pytest.mark.parametrize("first", ["menace", "flying", "plain"])
def test_declarations_remembered_per_shape_of_the_options(registry: Registry, first: str) -> None:
    """A board's declarations are worked out once per shape of its block options; boards with
    the creatures in the same places but other options get their own. Two 2/2 blockers and one
    attacker: plain, 4 declarations (none, b1, b2, both); menace, 2 (none, both: 702.110b);
    flying, 1 (none: 702.9b). Solved in each order, after a board of another shape."""
    kinds = {"plain": (), "menace": ("menace",), "flying": ("flying",)}
    counts = {"plain": 4, "menace": 2, "flying": 1}
    for kind in [first, *(k for k in kinds if k != first)]:
        sc = scenario(
            board(
                creature("x", "A", 2, 2, *kinds[kind]),
                creature("b1", "B", 2, 2),
                creature("b2", "B", 2, 2),
                attackers={"x": "B"},
            ),
            registry,
        )
        d = best_blocks(sc, registry)
        assert d.declarations == counts[kind], kind
        shown = [c.blockers for c in d.best]
        expected = {
            "plain": [{"b1": "x"}, {"b2": "x"}, {"b1": "x", "b2": "x"}],
            "menace": [{"b1": "x", "b2": "x"}, {}],
            "flying": [{}],
        }[kind]
        assert shown == expected, kind


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.integers(0, 4), min_size=1, max_size=12),
    st.booleans(),
    st.integers(0, 2**32 - 1),
)
def test_each_boards_best_is_the_first_of_its_ranking(
    counts: list[int], alike: bool, seed: int
) -> None:
    """RULES section 9, ties: the bulk search's choice per board (`best_declarations`, one
    pass per place when every board has as many declarations, a reduction per board
    otherwise) is the first of the board's ranking (`ranked_declarations`, a sort): the
    lowest score term by term, equal scores in tie order; -1 when nothing is solved."""
    rng = np.random.default_rng(seed)
    if alike:
        counts = [max(counts[0], 1)] * len(counts)
    offset = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    d = int(offset[-1])
    board = np.repeat(np.arange(len(counts)), counts).astype(np.int64)
    values = rng.integers(-2, 3, size=(d, 3)).astype(np.int64)
    solved = rng.random(d) < 0.8
    tie = np.concatenate([rng.permutation(c) for c in counts]).astype(np.int64)
    results = BoardResults(cast(Any, None), board, offset, values, solved, ~solved)
    best = best_declarations(results, tie)
    for b in range(len(counts)):
        ranked = ranked_declarations(results, b, tie[offset[b] : offset[b + 1]])
        assert best[b] == (ranked[0] if len(ranked) else -1)
