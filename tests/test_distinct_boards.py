"""Each distinct board of a batch decided once (decisions/distinct.py): the same declarations
as deciding every battle (RULES section 9: a decision is a function of the board), boards that
differ in life or a keyword's parameter never merged, the key's size bounded."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ecs_combat.batched import CombatBatch, Rows, replaced
from ecs_combat.decisions import decided, distinct
from ecs_combat.decisions.decided import Decider
from ecs_combat.decisions.distinct import distinct_boards
from ecs_combat.plugin.registry import Registry
from ecs_combat.simulation.generate import Drawn, draw_battles
from ecs_combat.simulation.generators import make_generator
from ecs_combat.simulation.spec import TournamentSpec
from ecs_combat.simulation.spec_reader import load_spec, parse_spec

ROOT = Path(__file__).resolve().parents[1]
TWO_DROPS = ROOT / "docs" / "examples" / "specs" / "two-drops.toml"
FIELDS = (
    "attacking", "block_blocker", "block_attacker", "block_rank", "division_step",
    "division_source", "division_recipient", "division_amount",
)  # fmt: skip


def declared(decider: Decider, drawn: Drawn, once: bool) -> CombatBatch:
    decider.distinct = once
    batch = decider.decide(drawn)[0].batch
    decider.distinct = True
    return batch


def assert_same(a: CombatBatch, b: CombatBatch) -> None:
    for name in FIELDS:
        assert getattr(a, name).tolist() == getattr(b, name).tolist(), name


def spec_drawn(registry: Registry, path: Path, seed: int, n: int) -> Drawn:
    spec = dataclasses.replace(load_spec(str(path), registry), decisions="optimal")
    return draw_battles(make_generator(spec, registry), seed, 0, n)


@settings(max_examples=8, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    attackers=st.sampled_from([(1, 1), (1, 2)]),
    blockers=st.sampled_from([(0, 1), (1, 2)]),
    power=st.sampled_from([(1, 2), (2, 3)]),
)
def test_each_board_once_decides_as_every_battle(
    registry: Registry,
    seed: int,
    attackers: tuple[int, int],
    blockers: tuple[int, int],
    power: tuple[int, int],
) -> None:
    """Drawn SPEC boards (several attackers, double blocks, tramplers dividing damage, few
    values so that boards repeat): the attacks, blocks and divisions of each battle are those
    of deciding every battle."""
    doc = {
        "decisions": "optimal",
        "attackers": list(attackers),
        "blockers_per_attacker": list(blockers),
        "power": list(power),
        "toughness": [1, 2],
        "life": 3,
        "keywords": {"trample": 0.3, "first strike": 0.2, "deathtouch": 0.2},
    }
    spec = parse_spec(doc, registry)
    drawn = draw_battles(make_generator(spec, registry), seed, 0, 300)
    decider = Decider(registry)
    found = distinct_boards(
        drawn.batch, drawn.attacking_side, Rows.by_battle(drawn.batch), registry
    )
    assert found is not None and len(found.first) < 300
    assert_same(declared(decider, drawn, True), declared(decider, drawn, False))


def test_a_card_pool_with_keyword_parameters(registry: Registry) -> None:
    """The 2-drop pool (cards with numbered keywords: instances) decides as every battle."""
    drawn = spec_drawn(registry, TWO_DROPS, 3, 2000)
    assert len(drawn.batch.instance_row)
    found = distinct_boards(
        drawn.batch, drawn.attacking_side, Rows.by_battle(drawn.batch), registry
    )
    assert found is not None and len(found.first) < 2000
    decider = Decider(registry)
    assert_same(declared(decider, drawn, True), declared(decider, drawn, False))


def test_other_life_is_another_board(registry: Registry) -> None:
    """Every battle a 3/3 first striker against a 3/3: at 20 life the attack goes unblocked;
    battle 0's players at 3 life make another board, where the defender chump-blocks (RULES
    9: losing the game is worse than losing material)."""
    spec = TournamentSpec(("first strike",), (3, 3), (3, 3), 20, decisions="optimal")
    generator = make_generator(spec, registry)
    draws = generator.draw(np.random.default_rng(0), 8)
    draws.battle_cols["keyword"][:] = np.array([1, 0], np.uint8)
    drawn = generator.build(draws)
    life = drawn.batch.life.copy()
    life[:2] = 3
    drawn = dataclasses.replace(drawn, batch=replaced(drawn.batch, life=life))
    rows = Rows.by_battle(drawn.batch)
    found = distinct_boards(drawn.batch, drawn.attacking_side, rows, registry)
    assert found is not None
    assert found.first.tolist() == [0, 1] and found.board.tolist() == [0] + [1] * 7
    batch = declared(Decider(registry), drawn, True)
    assert batch.block_blocker.tolist() == [1]  # battle 0's blocker blocks, no other
    assert_same(batch, declared(Decider(registry), drawn, False))


def test_another_parameter_is_another_board(registry: Registry) -> None:
    """Two battles of one board but for a keyword instance's number are two boards."""
    drawn = spec_drawn(registry, TWO_DROPS, 3, 2000)
    batch, rows = drawn.batch, Rows.by_battle(drawn.batch)
    found = distinct_boards(batch, drawn.attacking_side, rows, registry)
    assert found is not None
    owner = batch.battle[batch.instance_row]
    # a board with an instance drawn at least twice: change the number of its second battle's
    counts = np.bincount(found.board)
    with_instance = np.unique(found.board[owner])
    board = int(next(b for b in with_instance.tolist() if counts[b] > 1))
    second = int(np.flatnonzero(found.board == board)[1])
    parameter = batch.instance_parameter.copy()
    parameter[np.flatnonzero(owner == second)[0]] += 1
    changed = replaced(batch, instance_parameter=parameter)
    again = distinct_boards(changed, drawn.attacking_side, rows, registry)
    assert again is not None
    assert again.board[second] != again.board[found.first[board]]
    assert len(again.first) == len(found.first) + 1


def test_refused_when_the_key_is_too_large_or_does_not_cover(
    registry: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Memory stays bounded: a key over KEY_CELLS cells is not made (every battle decided,
    the same declarations); a batch holding what the key does not cover (a `value` key) is
    refused."""
    drawn = spec_drawn(registry, TWO_DROPS, 5, 500)
    rows = Rows.by_battle(drawn.batch)
    assert distinct_boards(drawn.batch, drawn.attacking_side, rows, registry) is not None
    once = declared(Decider(registry), drawn, True)
    monkeypatch.setattr(distinct, "KEY_CELLS", 500 * 10)
    assert distinct_boards(drawn.batch, drawn.attacking_side, rows, registry) is None
    assert_same(declared(Decider(registry), drawn, True), once)
    valued = replaced(drawn.batch, value_row=np.array([0]), value=np.array([7]))
    assert distinct_boards(valued, drawn.attacking_side, rows, registry) is None


def test_boards_said_distinct_are_not_keyed(
    registry: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`distinct=True` (the tournament's store hands over each board once): no key is made."""
    drawn = spec_drawn(registry, TWO_DROPS, 5, 200)
    every = declared(Decider(registry), drawn, False)

    def refused(*args: object) -> None:
        raise AssertionError("keyed")

    monkeypatch.setattr(decided, "distinct_boards", refused)
    assert_same(Decider(registry).decide(drawn, distinct=True)[0].batch, every)
    with pytest.raises(AssertionError, match="keyed"):
        Decider(registry).decide(drawn)
