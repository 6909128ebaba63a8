"""Decisions of many boards in one call (ecs_combat.best_blocks_of, best_attacks_of;
docs/python.md, "Many boards in one call"): by hand (RULES section 9's score), and board by
board against the one-board searches (best_blocks, best_attacks), from arrays and from lists of
scenarios, files and documents."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import ecs_combat
from ecs_combat import OUTCOMES, InputError, Registry

ROOT = Path(__file__).resolve().parent.parent
DECISIONS = ROOT / "examples" / "decisions"


def one_on_one(registry: Registry) -> ecs_combat.Battles:
    """Three boards, A's creatures the attacking player's:

    0. a 3/3 against two 2/2s; 1. a 1/1 against a 2/2; 2. a 2/2 flyer against a 3/3 without
       flying or reach; 3. a 4/4 against a 2/2."""
    return ecs_combat.battles(
        battle=np.array([0, 0, 0, 1, 1, 2, 2, 3, 3]),
        side=np.array([0, 1, 1, 0, 1, 0, 1, 0, 1]),
        power=np.array([3, 2, 2, 1, 2, 2, 3, 4, 2]),
        toughness=np.array([3, 2, 2, 1, 2, 2, 3, 4, 2]),
        keywords={"flying": np.array([False] * 5 + [True] + [False] * 3)},
        registry=registry,
    )


def test_best_attacks_of_many_boards_by_hand(registry: Registry) -> None:
    """RULES section 9, the attacking player's score (game, material, life):

    0. attacking with the 3/3 into two 2/2s: their best blocks (both) kill it for one 2/2,
       material 4 - 6 = -2 for A; not attacking scores 0: it stays home.
    1. the 1/1 into a 2/2: blocked, it dies for nothing (-2): it stays home.
    2. the 2/2 flyer can't be blocked: 2 damage (life +2 for A): it attacks.
    3. the 4/4 into a 2/2: a block would lose the 2/2 (material +4 for A), so B takes 4: it
       attacks and is not blocked."""
    r = ecs_combat.best_attacks_of(one_on_one(registry), registry)
    assert r.creatures["attacking"].tolist() == [
        False, False, False, False, False, True, False, True, False,
    ]  # fmt: skip
    assert r.creatures["blocking"].tolist() == [-1] * 9
    assert r.battles["life_b"].tolist() == [20, 20, 18, 16]
    assert [OUTCOMES[c] for c in r.battles["outcome"]] == ["neither dies"] * 4
    written = r.scenarios()
    assert [s.attackers for s in written] == [{}, {}, {"c0": "B"}, {"c0": "B"}]
    for scenario, life in zip(written, [20, 20, 18, 16], strict=True):
        [result] = ecs_combat.resolve(scenario, registry=registry)
        assert result.players["B"].life == life


def test_best_blocks_of_gives_its_boards_as_scenarios(registry: Registry) -> None:
    r = ecs_combat.best_blocks_of(one_on_one(registry), registry)
    assert r.creatures["blocking"].tolist() == [-1, 0, 0, -1, 3, -1, -1, -1, -1]
    written = r.scenarios()
    assert written[0].blockers == {"c1": ("c0",), "c2": ("c0",)}
    for k, scenario in enumerate(written):
        [result] = ecs_combat.resolve(scenario, registry=registry)
        assert result.players["B"].life == r.battles["life_b"][k]
        dead = sum(not c.alive for c in result.creatures.values())
        assert dead == r.battles["attackers_died"][k] + r.battles["blockers_died"][k]


def random_battles(registry: Registry, boards: int, seed: int) -> ecs_combat.Battles:
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 4, (boards, 2))
    side = np.concatenate([np.repeat([0, 1], s) for s in sizes])
    battle = np.repeat(np.arange(len(sizes)), sizes.sum(axis=1))
    n = len(side)
    keywords = {
        k: rng.random(n) < 0.15
        for k in ("first strike", "deathtouch", "trample", "flying", "reach", "lifelink")
    }
    return ecs_combat.battles(
        battle=battle, side=side, power=rng.integers(0, 6, n), toughness=rng.integers(1, 6, n),
        keywords=keywords, registry=registry,
    )  # fmt: skip


def test_best_attacks_of_agrees_with_best_attacks_board_by_board(registry: Registry) -> None:
    """Random boards of one to three creatures a side with keywords: the bulk search's attack
    scores as the one-board search's best, and is its first-ranked attack."""
    from ecs_combat.batched.convert import batch_to_scenarios

    b = random_battles(registry, 30, 11)
    bulk = ecs_combat.best_attacks_of(b, registry)
    assert bulk.creatures["attacking"].sum() > 10  # boards where attacking pays
    for k, (board, decided) in enumerate(
        zip(batch_to_scenarios(b.batch, registry), bulk.scenarios(), strict=True)
    ):
        board.attackers, board.blockers = {}, {}
        one = ecs_combat.best_attacks(board, registry, top=1)
        assert decided.attackers == one.best[0].attackers, k
        assert bulk.battles["life_b"][k] == one.best[0].outcome["players"]["B"]["life"], k
        assert bulk.battles["life_a"][k] == one.best[0].outcome["players"]["A"]["life"], k


def test_a_list_of_scenarios_files_and_documents(registry: Registry) -> None:
    """The same boards as files, as Scenario objects and as documents give the one-board
    searches' best declarations; a creature's `value` key counts (RULES section 9)."""
    files = [DECISIONS / "giant-vs-two-bears.toml", DECISIONS / "wall-divides.toml"]
    bulk = ecs_combat.best_blocks_of(files, registry)
    loaded = [s for f in files for s in ecs_combat.load(f, registry)]
    again = ecs_combat.best_blocks_of(loaded, registry)  # type: ignore[arg-type]
    for k, file in enumerate(files):
        one = ecs_combat.best_blocks(file, registry, top=1).best[0]
        for decided in (bulk.scenarios()[k], again.scenarios()[k]):
            want = {b: (a,) if isinstance(a, str) else tuple(a) for b, a in one.blockers.items()}
            assert decided.blockers == want, file.name
    race = ecs_combat.best_attacks_of([DECISIONS / "race.toml"], registry)
    assert race.scenarios()[0].attackers == {"serra": "B"}
    # a 2/2 worth nothing to its controller chump-blocks a 4/4 (material 0, life 4 kept);
    # at its default value (4) it does not (material comes before life)
    doc = {
        "players": {"A": {}, "B": {}},
        "creatures": {
            "ogre": {"controller": "A", "power": 4, "toughness": 4},
            "bear": {"controller": "B", "power": 2, "toughness": 2},
        },
        "combat": {"attackers": {"ogre": "B"}},
    }
    valued = {**doc, "creatures": {**doc["creatures"], "bear": {**doc["creatures"]["bear"]}}}
    valued["creatures"]["bear"]["value"] = 0  # type: ignore[index]
    r = ecs_combat.best_blocks_of([doc, valued], registry)
    assert r.creatures["blocking"].tolist() == [-1, -1, -1, 2]  # rows of the whole batch
    assert r.battles["life_b"].tolist() == [16, 20]
    for k, board in enumerate((doc, valued)):
        scenario = ecs_combat.parse_scenario(board, registry, "board.toml")
        one = ecs_combat.best_blocks(scenario, registry, top=1).best[0]
        assert one.outcome["players"]["B"]["life"] == r.battles["life_b"][k]


@pytest.mark.parametrize(
    ("boards", "words"),
    [
        ([], "no boards"),
        ("examples/decisions/race.toml", "must be a list"),
        ([DECISIONS / "race.toml"], "missing: best_blocks answers declared attackers"),
    ],
)
def test_bad_boards_are_input_errors(registry: Registry, boards: object, words: str) -> None:
    with pytest.raises(InputError, match=words):
        ecs_combat.best_blocks_of(boards, registry)  # type: ignore[arg-type]
