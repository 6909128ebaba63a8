"""Block requirements (509.1c): lure, enforced by the loader on both engines, and the scoring
function a decision search calls (``score_block_requirements``). Expected values by hand."""

from __future__ import annotations

import tomllib

import numpy as np
import pytest
from conftest import Resolve, dealt
from scenario_text import combat, creature

from ecs_combat import InputError, Registry, parse_scenario
from ecs_combat.decisions import best_blocks
from ecs_combat.rules.legality import score_block_requirements
from ecs_combat.simulation.spec_reader import parse_spec

TWO = "[players.A]\n[players.B]\n"
LURE_VS_TWO = (
    TWO
    + creature("goblin", "A", 2, 2, "lure")
    + creature("bear", "A", 2, 2)
    + creature("wall", "B", 0, 4)
    + creature("bird", "B", 1, 1, "flying")
)


def test_every_creature_able_to_block_the_lure_does(resolve: Resolve) -> None:
    """509.1c: wall and bird both block the goblin (lure): legal; the goblin's 2 goes to the
    wall first (lethal 4 is more than 2): wall 2, and the bird deals 1 to the goblin."""
    out = resolve(
        LURE_VS_TWO + combat({"goblin": "B", "bear": "B"}, {"wall": "goblin", "bird": "goblin"})
    )
    assert dealt(out, "regular") == {
        ("goblin", "wall", 2),
        ("bird", "goblin", 1),
        ("bear", "B", 2),
    }


@pytest.mark.parametrize(
    "blockers",
    [
        {"wall": "goblin"},  # the bird could block the goblin and doesn't
        {"wall": "goblin", "bird": "bear"},  # the bird blocks the other attacker instead
        {},
    ],
)
def test_blocks_obeying_fewer_requirements_are_an_input_error(
    resolve: Resolve, blockers: dict[str, str]
) -> None:
    """Two requirements (wall and bird must block the goblin); each declaration above obeys
    fewer than 2: an input error naming combat.blockers and the requirement with its source."""
    with pytest.raises(InputError) as info:
        resolve(LURE_VS_TWO + combat({"goblin": "B", "bear": "B"}, blockers))
    message = str(info.value)
    assert "combat.blockers" in message
    assert "lure (goblin)" in message
    assert "509.1c" in message


def test_a_creature_unable_to_block_the_lure_is_not_required_to(resolve: Resolve) -> None:
    """The lure has flying: only the bird (flying) is able to block it; the wall blocking the
    bear is legal. Bear 2 to wall (4), goblin 2 to the bird (1/1): it dies, after 1 back."""
    out = resolve(
        TWO
        + creature("goblin", "A", 2, 2, "lure", "flying")
        + creature("bear", "A", 2, 2)
        + creature("wall", "B", 0, 4)
        + creature("bird", "B", 1, 1, "flying")
        + combat({"goblin": "B", "bear": "B"}, {"wall": "bear", "bird": "goblin"})
    )
    assert dealt(out, "regular") == {
        ("goblin", "bird", 2),
        ("bird", "goblin", 1),
        ("bear", "wall", 2),
    }


def test_two_lures_a_blocker_obeys_one(resolve: Resolve) -> None:
    """Two lures, one blocker that can block one attacker: the most it can obey is 1; blocking
    either lure is legal, blocking nothing is not."""
    text = (
        TWO
        + creature("one", "A", 1, 1, "lure")
        + creature("two", "A", 1, 1, "lure")
        + creature("wall", "B", 0, 4)
    )
    for target in ("one", "two"):
        out = resolve(text + combat({"one": "B", "two": "B"}, {"wall": target}))
        assert (target, "wall", 1) in dealt(out, "regular")
    with pytest.raises(InputError, match=r"lure \(one\)"):
        resolve(text + combat({"one": "B", "two": "B"}))


TWO_LURES = (
    TWO
    + creature("one", "A", 1, 1, "lure")
    + creature("two", "A", 1, 1, "lure")
    + creature("wall", "B", 0, 4, "can block an additional creature")
)


def test_a_blocker_of_two_attackers_obeys_two_lures(resolve: Resolve) -> None:
    """509.1a, 509.1c: the wall can block an additional creature, so it is able to block both
    lures and obeys both requirements by blocking both: legal. Each 1/1 deals its 1 to the
    wall (1 + 1 = 2 < 4); the wall's 0 kills nothing."""
    out = resolve(TWO_LURES + combat({"one": "B", "two": "B"}, {"wall": ["one", "two"]}))
    assert dealt(out, "regular") == {("one", "wall", 1), ("two", "wall", 1)}
    assert out["creatures"]["wall"]["damage"] == 2


@pytest.mark.parametrize(("blocks", "unobeyed"), [("one", "two"), ("two", "one")])
def test_a_blocker_of_two_attackers_blocking_one_lure_is_an_input_error(
    resolve: Resolve, blocks: str, unobeyed: str
) -> None:
    """The most it can obey is min(2 requirements, 2 attackers it may block) = 2: blocking one
    lure obeys 1 of 2, an input error naming the lure it leaves unobeyed (before the fix the
    capacity was taken as 1 and this was accepted)."""
    with pytest.raises(InputError) as info:
        resolve(TWO_LURES + combat({"one": "B", "two": "B"}, {"wall": blocks}))
    message = str(info.value)
    assert "combat.blockers" in message
    assert f"lure ({unobeyed})" in message
    assert "obey 1 of the 2 requirements" in message


def test_score_block_requirements_counts_a_blocker_of_several(registry: Registry) -> None:
    """Candidates [K, B, M] for the wall of two: both lures 2, one of them 1, none 0; the
    most is 2."""
    scenario = parse_scenario(
        tomllib.loads(TWO_LURES + combat({"one": "B", "two": "B"}, {"wall": ["one", "two"]})),
        registry,
        "t.toml",
    )
    counts, most = score_block_requirements(
        scenario, registry, np.array([[[0, 1]], [[1, -1]], [[-1, -1]]])
    )
    assert most == 2
    assert counts.tolist() == [2, 1, 0]


def test_best_blocks_has_the_blocker_of_two_block_both_lures(registry: Registry) -> None:
    """Of the wall's 4 declarations (nothing, one, two, both) only blocking both obeys the 2
    requirements it can: 1 declaration."""
    scenario = parse_scenario(
        tomllib.loads(TWO_LURES + combat({"one": "B", "two": "B"})),
        registry,
        "t.toml",
        blocks_to_decide=True,
    )
    decision = best_blocks(scenario, registry, top=4)
    assert decision.declarations == 1
    assert decision.best[0].blockers == {"wall": ["one", "two"]}


def test_score_block_requirements_scores_many_candidates(registry: Registry) -> None:
    """Blockers (B's creatures in order) wall, bird; attackers goblin (0), bear (1). The
    requirements are (wall, goblin) and (bird, goblin): the most is 2. Candidates: both on the
    goblin 2; wall goblin, bird bear 1; nobody 0; both on the bear 0; and as lists [K, B, M]
    the same first two: 2, 1."""
    scenario = parse_scenario(
        tomllib.loads(
            LURE_VS_TWO + combat({"goblin": "B", "bear": "B"}, {"wall": "goblin", "bird": "goblin"})
        ),
        registry,
        "t.toml",
    )
    counts, most = score_block_requirements(
        scenario, registry, np.array([[0, 0], [0, 1], [-1, -1], [1, 1]])
    )
    assert most == 2
    assert counts.tolist() == [2, 1, 0, 0]
    lists = np.array([[[0, -1], [0, -1]], [[0, -1], [1, -1]]])
    counts, _ = score_block_requirements(scenario, registry, lists)
    assert counts.tolist() == [2, 1]


def test_a_spec_refuses_a_keyword_with_a_requirement(registry: Registry) -> None:
    with pytest.raises(InputError, match=r"keywords\.lure.*block requirement"):
        parse_spec({"keywords": {"lure": 0.5}}, registry, "s.toml")


# -- requirements maximised over whole declarations (509.1c, 702.111b; RULES 11.4) -----------

BAIT = creature("bait", "A", 2, 2, "menace", "lure")


def test_menace_lure_that_one_creature_alone_could_block_imposes_nothing(
    resolve: Resolve,
) -> None:
    """RULES 11.4, 509.1c, 702.111b: the 2/2 bait has menace and lure; B's 1/1 is the only
    creature able to block it (the 3/3 can't block), and alone it can't (menace): no legal
    declaration obeys the requirement, so none is imposed. Not blocking is legal; the bait
    deals 2 to B (18). Before: an input error."""
    out = resolve(
        TWO
        + BAIT
        + creature("b1", "B", 1, 1)
        + creature("pac", "B", 3, 3, "can't block")
        + combat({"bait": "B"})
    )
    assert dealt(out, "regular") == {("bait", "B", 2)}
    assert out["players"]["B"]["life"] == 18


def test_menace_lure_with_two_able_both_must_block(resolve: Resolve, registry: Registry) -> None:
    """RULES 11.4: with two 1/1s able, the declaration with both blocking the bait obeys two
    requirements: not blocking is an input error naming lure; both blocking is legal. The
    bait's 2 go 1 to each (lethal 1, in declared order), both die; each deals 1 to it: it
    dies."""
    board = TWO + BAIT + creature("b1", "B", 1, 1) + creature("b2", "B", 1, 1)
    with pytest.raises(InputError) as info:
        parse_scenario(tomllib.loads(board + combat({"bait": "B"})), registry, "t.toml")
    assert info.value.path == "combat.blockers"
    assert "lure (bait)" in str(info.value)
    assert "obey 0 of the 2" in str(info.value)
    out = resolve(board + combat({"bait": "B"}, {"b1": "bait", "b2": "bait"}))
    assert dealt(out, "regular") == {
        ("bait", "b1", 1),
        ("bait", "b2", 1),
        ("b1", "bait", 1),
        ("b2", "bait", 1),
    }
    assert sorted(out["steps"][0]["died"]) == ["b1", "b2", "bait"]


def test_provoke_with_menace_needs_a_second_able_creature(registry: Registry) -> None:
    """RULES 11.4, 702.39, 509.1c: the taunter (menace, provoke) targets B's 1/1 b1. With
    B's 1/1 b2 also able to block, b1 must block it together with another creature: not
    blocking is an input error naming provoke, b1 and b2 blocking is legal. With b2 unable
    (can't block), b1 alone could not: nothing is imposed."""
    taunter = creature("taunter", "A", 2, 2, "menace", "provoke", targets={"provoke": "b1"})

    def parse(b2: str, blockers: dict[str, str]) -> None:
        text = TWO + taunter + creature("b1", "B", 1, 1) + b2 + combat({"taunter": "B"}, blockers)
        parse_scenario(tomllib.loads(text), registry, "t.toml")

    able = creature("b2", "B", 1, 1)
    with pytest.raises(InputError) as info:
        parse(able, {})
    assert "provoke (taunter)" in str(info.value)
    parse(able, {"b1": "taunter", "b2": "taunter"})
    parse(creature("b2", "B", 1, 1, "can't block"), {})


def test_menace_lure_among_others_keeps_the_other_requirements(registry: Registry) -> None:
    """RULES 11.4: a plain 2/2 lure goblin and the menace-lure bait attack; B has one 1/1
    able. Blocking the bait alone breaks menace, so the most a declaration obeys is 1 (the
    1/1 blocks the goblin): not blocking is an input error naming the goblin's lure, and the
    score of a decision search agrees (most 1)."""
    board = TWO + creature("goblin", "A", 2, 2, "lure") + BAIT + creature("b1", "B", 1, 1)
    with pytest.raises(InputError) as info:
        parse_scenario(
            tomllib.loads(board + combat({"goblin": "B", "bait": "B"})), registry, "t.toml"
        )
    assert "lure (goblin)" in str(info.value)
    assert "obey 0 of the 1" in str(info.value)
    scenario = parse_scenario(
        tomllib.loads(board + combat({"goblin": "B", "bait": "B"}, {"b1": "goblin"})),
        registry,
        "t.toml",
    )
    counts, most = score_block_requirements(scenario, registry, [[0], [1], [-1]])
    assert most == 1
    assert counts.tolist() == [1, 1, 0]
