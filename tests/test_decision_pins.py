"""Decision-search answers the wave-4 audit found unpinned (a one-line change of the search
passed every test): each derived by hand from RULES section 9 (the score) and the combat
rules it cites, every entry shown replayed on both engines (tests/repro/wave4/, the audit's
files)."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from scenario_text import DOUBLE_STRIKE
from test_decisions import replays

from ecs_combat import Registry, parse_scenario
from ecs_combat.batched.convert import batch_to_scenarios
from ecs_combat.decisions import Decision, Objective, best_blocks, search
from ecs_combat.decisions.decided import Decider
from ecs_combat.decisions.layout import Layout
from ecs_combat.simulation.generate import draw_battles
from ecs_combat.simulation.generators import make_generator
from ecs_combat.simulation.simulate import make_engine, simulate, summary
from ecs_combat.simulation.spec_reader import parse_spec

REPRO = Path(__file__).parent / "repro" / "wave4"


def decide(name: str, registry: Registry, objective: str | None = None) -> Decision:
    path = REPRO / name
    sc = parse_scenario(tomllib.loads(path.read_text()), registry, str(path), blocks_to_decide=True)
    terms = Objective.parse(objective, registry) if objective else None
    d = best_blocks(sc, registry, top=4, objective=terms)
    assert d.optimal
    replays(d, registry)  # each entry resolves to its outcome on both engines
    return d


def shown(d: Decision) -> list[tuple[Any, list[dict[str, Any]], tuple[int, ...]]]:
    return [(c.blockers, c.divide, tuple(c.score.values())) for c in d.best]


def test_d4_702_19b_trample_sends_the_rest_past_exactly_lethal(registry: Registry) -> None:
    """A 5/5 trampler and a 2/2 (value 4). Unblocked: 5 life, (0, 0, 5, 0). Blocked: lethal
    damage is 2 (702.19b: exactly lethal is enough), 3 tramples over: the bear dies,
    (0, 4, 3, 0) (all 5 to the bear would give 0 life). B takes 5 rather than lose the bear."""
    d = decide("D4-trample.toml", registry)
    assert shown(d) == [({}, [], (0, 0, 5, 0)), ({"bear": "wurm"}, [], (0, 4, 3, 0))]
    assert d.best[1].outcome["players"]["B"]["life"] == 17


def test_d5_a_fellow_deathtouchers_damage_is_lethal_for_the_trampler(
    registry: Registry,
) -> None:
    """A 4/4 trampler and a 1/1 deathtouch attack a 1/5 wall that may block both.
    - wall blocks the wurm: it must take 5 before any tramples over; 4 can't: the asp's 1
      gets through, (0, 0, 1, 0);
    - no block: (0, 0, 5, 0);
    - wall blocks both: the asp assigns its 1 deathtouch damage to the wall, which counts as
      lethal (702.2c, 702.19b: damage other creatures assign it counts), so the wurm tramples
      all 4 over; the wall (value 6) dies, its 1 damage kills the asp (B's reply, 510.1d;
      value 2): (0, 4, 4, 0);
    - wall blocks the asp: both die, the wurm's 4 get through: (0, 4, 4, 0), shown after the
      double block (its pair list starts with (wall, wurm), before (wall, asp))."""
    d = decide("D5-trample-with-deathtouch-partner.toml", registry)
    both = [
        {"step": "regular", "source": "wurm", "amounts": {"B": 4}},
        {"step": "regular", "source": "wall", "amounts": {"asp": 1}},
    ]
    assert shown(d) == [
        ({"wall": "wurm"}, [], (0, 0, 1, 0)),
        ({}, [], (0, 0, 5, 0)),
        ({"wall": ["wurm", "asp"]}, both, (0, 4, 4, 0)),
        ({"wall": "asp"}, [], (0, 4, 4, 0)),
    ]


def test_d6_other_attackers_fixed_damage_counts_toward_lethal(registry: Registry) -> None:
    """A 3/3 trampler and a 2/2 attack a 0/4 wall that may block both (value 4).
    - wall blocks the wurm: 3 can't be lethal to it, nothing tramples; the bear's 2 get
      through: (0, 0, 2, 0); wall blocks the bear: the wurm's 3, (0, 0, 3, 0); none: 5;
    - wall blocks both: the bear assigns it 2, so 2 more are lethal (702.19b) and 1 tramples
      over; the wall dies: (0, 4, 1, 0) (the default, 3 to the wall, would give life 0)."""
    d = decide("D6-trample-shared-blocker.toml", registry)
    assert shown(d) == [
        ({"wall": "wurm"}, [], (0, 0, 2, 0)),
        ({"wall": "bear"}, [], (0, 0, 3, 0)),
        ({}, [], (0, 0, 5, 0)),
        (
            {"wall": ["wurm", "bear"]},
            [{"step": "regular", "source": "wurm", "amounts": {"wall": 2, "B": 1}}],
            (0, 4, 1, 0),
        ),
    ]


def test_o2_a_persist_creature_that_returns_as_minus_1_1_is_worth_0(registry: Registry) -> None:
    """A 2/2 attacks; B's 0/2 persist spirit (value 2) blocks, takes 2, dies and returns with
    a -1/-1 counter as a -1/1 (702.79a): what returned is worth -1 + 1 = 0 (RULES 9: power
    plus toughness as it returned, counter included), so the spirit counts 2 - 0 = 2:
    (0, 2, 0, 0). Not blocking: (0, 0, 2, 0), better for B."""
    d = decide("O2-persist-returns-worth-0.toml", registry)
    assert shown(d) == [({}, [], (0, 0, 2, 0)), ({"spirit": "bear"}, [], (0, 2, 0, 0))]
    spirit = d.best[1].outcome["creatures"]["spirit"]
    assert (spirit["power"], spirit["toughness"], spirit["alive"]) == (-1, 1, True)


@pytest.mark.parametrize(
    ("objective", "expected"),
    [
        (None, [({"bear": "rat"}, [], (0, -2, 0, 0)), ({}, [], (0, 0, 0, 1))]),
        ("poison,material", [({"bear": "rat"}, [], (0, -2)), ({}, [], (1, 0))]),
    ],
    ids=["default", "poison-first"],
)
def test_o6_poison_counts_what_each_player_got(
    registry: Registry, objective: str | None, expected: list[Any]
) -> None:
    """A (3 poison) attacks with a 1/1 infect rat; B (2 poison) has a 2/2. Unblocked, B gets
    1 poison counter and A none: poison 1 - 0 = 1 (RULES 9: counters each player got, not
    had). Blocked: the rat's 1 infect damage puts a -1/-1 counter on the bear (702.90b), which
    lives as a 1/1 and kills the rat (value 2): (0, -2, 0, 0). Nobody reaches 10: game 0."""
    d = decide("O6-attacker-starts-poisoned.toml", registry, objective)
    assert shown(d) == expected
    assert d.best[-1].outcome["players"]["B"]["poison"] == 3


# -- the tiled first level of the bulk search ---------------------------------------------------

L1 = REPRO / "L1-L2-simulate-fixed-shape-optimal.toml"


def decided_summary(registry: Registry) -> dict[str, Any]:
    spec = parse_spec(tomllib.loads(L1.read_text()), registry)
    generator = make_generator(spec, registry)
    run = simulate(generator, "batched", make_engine("batched", registry), 1, 3000, 3000)
    doc = summary(generator, spec, 1, run)
    del doc["run"]
    return doc


def test_l1_the_tiled_first_level_answers_as_node_order(
    registry: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`simulate L1 -n 3000 --seed 1`: every board has the same 9 declarations (two 1-blocker
    attackers, two creatures that may block), so the first level is laid out a declaration
    at a time (decisions/layout.py); laid out node by node instead, every number is the
    same, and the numbers are these."""
    tiled = decided_summary(registry)
    monkeypatch.setattr(Layout, "tiled", staticmethod(lambda each, board, decl: None))
    assert decided_summary(registry) == tiled
    (m,) = tiled["matchups"]
    got = {k: m[k] for k in ("attacker_wins", "blocker_wins", "trades", "neither_dies")}
    # attacks are decided too (CONTRACT 9, version 1.3): nobody attacks into blocks that
    # trade or lose, so nearly every battle ends with nobody dead; the blocks alone, against
    # the drawn attacks, are pinned board by board in the next test
    assert got == {"attacker_wins": 6, "blocker_wins": 0, "trades": 61, "neither_dies": 2933}
    assert (m["damage_to_players"], m["attackers_died"], m["blockers_died"]) == (3700, 61, 77)


def test_l1_tiled_boards_get_best_blocks_answer(registry: Registry) -> None:
    """The first 3,000 boards of seed 1, searched together (tiled): the blocks chosen for
    every 60th are those `best_blocks` gives its scenario alone (RULES 9 ties included)."""
    spec = parse_spec(tomllib.loads(L1.read_text()), registry)
    drawn = draw_battles(make_generator(spec, registry), 1, 0, 3000)
    chosen, _ = Decider(registry).decide_blocks(drawn)  # the drawn attacks, blocks decided
    every = np.arange(0, 3000, 60)
    bare = batch_to_scenarios(drawn.batch, registry)
    mine = batch_to_scenarios(chosen.batch, registry)
    for i in every.tolist():
        best = best_blocks(bare[i], registry, top=1).best[0]
        found = {b: a[0] if len(a) == 1 else list(a) for b, a in mine[i].blockers.items()}
        assert found == best.blockers, i


# -- what the mutation pass found unpinned (tools/mutants_wave4.py) ----------------------------


def board(text: str, registry: Registry) -> Any:
    return parse_scenario(tomllib.loads(text), registry, "board.toml", blocks_to_decide=True)


def test_ties_with_a_division_are_counted_not_cut(registry: Registry) -> None:
    """A 1/1 attacks two 0/4 walls. No block: (0, 0, 1, 0). Either wall alone: (0, 0, 0, 0).
    Both: the 1/1 divides its 1 damage (510.1c), nobody dies whatever it chooses:
    (0, 0, 0, 0). Three declarations share the best score (RULES 9), also with --top 1: the
    double block's default line ties the best found, so it is searched, not ruled out."""
    sc = board(
        """
[players.A]
[players.B]
[creatures.elf]
controller = "A"
power = 1
toughness = 1
[creatures.wall1]
controller = "B"
power = 0
toughness = 4
[creatures.wall2]
controller = "B"
power = 0
toughness = 4
[combat]
attackers = { elf = "B" }
""",
        registry,
    )
    for top in (1, 4):
        d = best_blocks(sc, registry, top=top)
        assert d.optimal and d.optimal_count == 3
        assert d.best[0].blockers == {"wall1": "elf"} and shown(d)[0][2] == (0, 0, 0, 0)


def test_equal_replies_show_the_default_division(registry: Registry) -> None:
    """Two indestructible 2/2s attack a 3/9 wall that may block both. Blocking both, the
    wall's 3 damage kill nobody however B divides them: every reply ties, so the line shown
    keeps the default division (lethal 2 to the first, the last 1 to the second, RULES 3)
    and lists no division (docs/decisions.md: only choices that matter). Score (0, 0, 0, 0);
    one attacker blocked: the other's 2 get through, (0, 0, 2, 0)."""
    sc = board(
        """
[players.A]
[players.B]
[creatures.a1]
controller = "A"
power = 2
toughness = 2
keywords = ["indestructible"]
[creatures.a2]
controller = "A"
power = 2
toughness = 2
keywords = ["indestructible"]
[creatures.wall]
controller = "B"
power = 3
toughness = 9
keywords = ["can block an additional creature"]
[combat]
attackers = { a1 = "B", a2 = "B" }
""",
        registry,
    )
    d = best_blocks(sc, registry, top=2)
    assert shown(d) == [
        ({"wall": ["a1", "a2"]}, [], (0, 0, 0, 0)),
        ({"wall": "a1"}, [], (0, 0, 2, 0)),
    ]
    replays(d, registry)


def test_510_1d_a_defending_division_is_no_lower_bound(registry: Registry) -> None:
    """The 2/6 wall that may block a 2/3 and a 2/2 (docs/decisions.md): blocking both, the
    default line (the wall's 2 to the 2/3) kills nothing, (0, 0, 0, 0), worse for B than
    blocking the 2/2 alone, (0, -4, 2, 0). But B chooses that division (510.1d): all 2 to the
    2/2 kills it, (0, -4, 0, 0), the best. The default line is no lower bound of a
    declaration where the defending player divides: with --top 1 it is still searched."""
    path = Path(__file__).resolve().parent.parent / "examples" / "decisions" / "wall-divides.toml"
    sc = board(path.read_text(), registry)
    d = best_blocks(sc, registry, top=1)
    assert shown(d) == [
        (
            {"wall": ["bear1", "bear2"]},
            [{"step": "regular", "source": "wall", "amounts": {"bear2": 2}}],
            (0, -4, 0, 0),
        )
    ]


@pytest.mark.parametrize(("rows", "resolved"), [(3, 40), (15, 34)])
def test_nodes_left_over_from_a_piece_are_expanded(
    registry: Registry, monkeypatch: pytest.MonkeyPatch, rows: int, resolved: int
) -> None:
    """A 4/4 double striker blocked by two 0/9 walls (3 creature rows a board) divides 4
    damage in the first-strike step (5 ways) and again in the regular step (5 under each):
    4 + 5 + 25 = 34 combats; nobody dies, every block (0, 0, 0, 0).
    - Pieces of 3 rows: every level is resolved a node at a time, and the double block and
      its 5 children are resolved again to be expanded: 40.
    - Pieces of 15 rows: the first-strike level (5 nodes) is resolved whole, but only one
      node's 5 children fit in a piece: the other 4 nodes wait and are expanded after: 34."""
    monkeypatch.setattr(search, "LEVEL_ROWS", rows)
    sc = board(DOUBLE_STRIKE, registry)
    d = best_blocks(sc, registry, top=4, budget=60)  # a dropped node would never be solved
    assert d.optimal and d.combats_resolved == resolved and d.optimal_count == 3
    assert [c.blockers for c in d.best] == [
        {"wall1": "knight"},
        {"wall2": "knight"},
        {"wall1": "knight", "wall2": "knight"},
        {},
    ]
