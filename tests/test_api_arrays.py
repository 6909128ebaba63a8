"""Battles from arrays with keyword numbers and qualities, colors and counters
(ecs_combat.battles, docs/python.md): outcomes derived by hand, on both engines."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import ecs_combat
from ecs_combat import OUTCOMES, InputError, Registry, color_mask

RED = int(color_mask(["red"]))


def board(registry: Registry) -> ecs_combat.Battles:
    """Four battles, A's creature (row 2k) attacking, B's (row 2k + 1) blocking it:

    0. A 2/2 bushido 2 blocked by a 3/3: it becomes 4/4 as it becomes blocked (702.45a), kills
       the 3/3 and survives its 3 damage: the attacker wins.
    1. A 2/2 with protection from red; B's 3/3 is red: it can't block (702.16b), stays back,
       and B takes 2 (its block would be refused: test below).
    2. A 1/1 with two +1/+1 counters (a 3/3, 122.1a) blocked by a 3/2: both die: a trade.
    3. A 2/2 with a flying counter (122.1b: it has flying) and B's 2/2 without flying or
       reach: it can't block (702.9b), stays back, and B takes 2.
    """
    rows = np.arange(8)
    blocks = np.array([-1, 0, -1, -1, -1, 4, -1, -1])
    return ecs_combat.battles(**board_columns(rows, blocks, registry))


def board_columns(rows: Any, blocks: Any, registry: Registry) -> dict[str, Any]:
    """The columns of :func:`board`, with `blocks`."""
    return dict(
        battle=rows // 2,
        side=rows % 2,
        power=np.array([2, 3, 2, 3, 1, 3, 2, 2]),
        toughness=np.array([2, 3, 2, 3, 1, 2, 2, 2]),
        blocks=blocks,
        keywords={
            "bushido": np.array([2, 0, 0, 0, 0, 0, 0, 0]),
            "protection": np.array(["", "", "red", "", "", "", "", ""]),
        },
        colors=np.array([0, 0, 0, RED, 0, 0, 0, 0]),
        counters={
            "+1/+1": np.array([0, 0, 0, 0, 2, 0, 0, 0]),
            "flying": np.array([0, 0, 0, 0, 0, 0, 1, 0]),
        },
        registry=registry,
    )


@pytest.mark.parametrize("engine", ["batched", "reference"])
def test_numbers_qualities_colors_and_counters_count(registry: Registry, engine: str) -> None:
    r = ecs_combat.resolve_battles(board(registry), engine=engine, registry=registry)  # type: ignore[arg-type]
    assert [OUTCOMES[c] for c in r.battles["outcome"]] == [
        "attacker wins", "neither dies", "trade", "neither dies",
    ]  # fmt: skip
    assert r.battles["life_b"].tolist() == [20, 18, 20, 18]
    assert r.creatures["blocking"].tolist() == [-1, 0, -1, -1, -1, 4, -1, -1]
    assert r.creatures["power"].tolist()[:2] == [4, 3]  # bushido 2 until end of turn
    assert r.creatures["damage"].tolist()[:2] == [3, 4]
    assert r.creatures["power"][4] == 3 and r.creatures["died"][4]  # 1/1 + two counters


@pytest.mark.parametrize(
    ("blocker", "says"),
    [
        (3, "'row3' can't block 'row2': 'row2' has protection from a quality 'row3' has"),
        (7, "'row7' can't block 'row6': 'row6' has flying"),
    ],
)
def test_the_forbidden_blocks_are_refused(registry: Registry, blocker: int, says: str) -> None:
    """RULES 11.2, issue 30 item 3: the blocks of battles 1 and 3 are refused with the
    scenario file's message (before: left out silently)."""
    rows = np.arange(8)
    blocks = np.array([-1, 0, -1, -1, -1, 4, -1, -1])
    blocks[blocker] = blocker - 1
    with pytest.raises(InputError) as error:
        ecs_combat.battles(**board_columns(rows, blocks, registry))
    assert error.value.path == f"blocks[{blocker}]"
    assert error.value.message.startswith(says)


def test_the_batch_reads_back_as_the_scenario_it_stands_for(registry: Registry) -> None:
    """The reference engine resolves the batch as scenarios: their creatures say the same."""
    from ecs_combat.batched.convert import batch_to_scenarios

    battles = board(registry)
    scenarios = batch_to_scenarios(battles.batch, registry)
    a0 = scenarios[0].creatures["c0"]
    assert list(zip(a0.keywords, a0.parameters, strict=True)) == [("bushido", 2)]
    a1, b1 = scenarios[1].creatures.values()
    assert list(zip(a1.keywords, a1.parameters, strict=True)) == [("protection", "red")]
    assert b1.colors == ("red",)
    assert scenarios[2].creatures["c0"].counters == {"+1/+1": 2}
    assert scenarios[3].creatures["c0"].counters == {"flying": 1}


@pytest.mark.parametrize(
    ("change", "place", "words"),
    [
        ({"keywords": {"bushido": np.array([2, 0, -1, 0, 0, 0, 0, 0])}}, "keywords.bushido[2]",
         "must be 0 (none)"),
        ({"keywords": {"protection": np.array(["", "purple", "", "", "", "", "", ""])}},
         "keywords.protection[1]", "must be one of white, blue"),
        ({"keywords": {"protection": np.ones(8, bool)}}, "keywords.protection",
         "must be 8 strings"),
        ({"counters": {"+2/+2": np.zeros(8, np.int64)}}, "counters.+2/+2",
         "unknown counter kind"),
        ({"counters": {"+1/+1": np.array([0, -1, 0, 0, 0, 0, 0, 0])}}, "counters.+1/+1[1]",
         "must be 0 or more"),
        ({"colors": np.array([0, 64, 0, 0, 0, 0, 0, 0])}, "colors[1]", "must be a color mask"),
    ],
)  # fmt: skip
def test_bad_arrays_name_the_array_and_row(
    registry: Registry, change: dict[str, object], place: str, words: str
) -> None:
    rows = np.arange(8)
    args: dict[str, object] = {
        "battle": rows // 2, "side": rows % 2, "power": np.full(8, 2), "toughness": np.full(8, 2),
        "registry": registry, **change,
    }  # fmt: skip
    with pytest.raises(InputError) as caught:
        ecs_combat.battles(**args)  # type: ignore[arg-type]
    assert caught.value.path == place
    assert words in caught.value.message


# -- the best blocks of many boards in one call ------------------------------------------------


def test_best_blocks_of_many_boards_by_hand(registry: Registry) -> None:
    """Three boards, A's creatures attacking (RULES section 9's score):

    0. A 3/3 against two 2/2s: blocking with both kills it and loses one 2/2 (material 4 - 6
       = -2, the lowest): a trade.
    1. A 1/1 against a 2/2: the block kills it for nothing: the blocker wins.
    2. A 2/2 flyer against a 3/3 without flying or reach: no block is legal; B takes 2.
    """
    b = ecs_combat.battles(
        battle=np.array([0, 0, 0, 1, 1, 2, 2]),
        side=np.array([0, 1, 1, 0, 1, 0, 1]),
        power=np.array([3, 2, 2, 1, 2, 2, 3]),
        toughness=np.array([3, 2, 2, 1, 2, 2, 3]),
        keywords={"flying": np.array([False] * 5 + [True, False])},
        registry=registry,
    )
    r = ecs_combat.best_blocks_of(b, registry)
    assert r.creatures["blocking"].tolist() == [-1, 0, 0, -1, 3, -1, -1]
    assert [OUTCOMES[c] for c in r.battles["outcome"]] == [
        "trade", "blocker wins", "neither dies",
    ]  # fmt: skip
    assert r.battles["attackers_died"].tolist() == [1, 1, 0]
    assert r.battles["blockers_died"].tolist() == [1, 0, 0]
    assert r.battles["life_b"].tolist() == [20, 20, 18]


def test_best_blocks_of_agrees_with_best_blocks_board_by_board(registry: Registry) -> None:
    """Random boards of one to three attackers and blockers with keywords: the bulk search's
    choice scores as the one-board search's best (the same declaration, ties aside)."""
    from ecs_combat.batched.convert import batch_to_scenarios

    rng = np.random.default_rng(5)
    sizes = rng.integers(1, 4, (40, 2))
    side = np.concatenate([np.repeat([0, 1], s) for s in sizes])
    battle = np.repeat(np.arange(len(sizes)), sizes.sum(axis=1))
    n = len(side)
    keywords = {
        k: rng.random(n) < 0.15
        for k in ("first strike", "deathtouch", "trample", "flying", "reach", "lifelink")
    }
    keywords["trample"] &= side == 0
    b = ecs_combat.battles(
        battle=battle, side=side, power=rng.integers(1, 6, n), toughness=rng.integers(1, 6, n),
        keywords=keywords, registry=registry,
    )  # fmt: skip
    bulk = ecs_combat.best_blocks_of(b, registry)
    assert (bulk.creatures["blocking"] >= 0).sum() > 20  # boards where blocking pays
    for k, scenario in enumerate(batch_to_scenarios(b.batch, registry)):
        one = ecs_combat.best_blocks(scenario, registry, top=1)
        rows = np.flatnonzero(battle == k)
        ids = list(scenario.creatures)
        chosen = {
            ids[i]: ids[int(bulk.creatures["blocking"][rows[0] + i]) - rows[0]]
            for i in range(len(rows))
            if bulk.creatures["blocking"][rows[0] + i] >= 0
        }
        best = {blocker: attackers for blocker, attackers in one.best[0].blockers.items()}
        assert chosen == {k2: v if isinstance(v, str) else v[0] for k2, v in best.items()}, k
        assert bulk.battles["life_b"][k] == one.best[0].outcome["players"]["B"]["life"], k
