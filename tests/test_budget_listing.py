"""The budget governs listing too (CONTRACT section 9, docs/decisions.md "Budget and
memory"): block declarations are listed and searched a spread-out piece at a time under a
budget, the clock read before each piece, so a board too large to list whole is searched in
part (never called optimal); `attacks` lists each attack's block declarations with the clock
read before each; the bulk searches refuse a group that would not fit in memory."""

from __future__ import annotations

import json
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from test_decisions import small_boards

from ecs_combat import Registry, parse_scenario
from ecs_combat.batched.boards import Segments
from ecs_combat.batched.from_scenarios import scenarios_to_batch
from ecs_combat.decisions import attacks, bounds, decide, partial, search
from ecs_combat.decisions.attacks import best_attacks
from ecs_combat.decisions.bounds import Clock, SearchTooLarge
from ecs_combat.decisions.decide import best_blocks
from ecs_combat.decisions.decided import Decider
from ecs_combat.decisions.declarations import block_options
from ecs_combat.scenario.model import Scenario

REPRO = Path(__file__).parent / "repro" / "wave4"
MANY_DECLARATIONS = REPRO / "blocks-7x7-many-declarations.toml"
ATTACKS_7X7 = REPRO / "attacks-7x7-keywords.toml"
GIANT = Path("examples/decisions/giant-vs-two-bears.toml")
RACE = Path("examples/decisions/race.toml")


def load(path: Path, registry: Registry, blocks: bool = True) -> Scenario:
    doc = tomllib.loads(path.read_text())
    return parse_scenario(doc, registry, str(path), blocks_to_decide=blocks)


def answer(d: Any) -> dict[str, Any]:
    out: dict[str, Any] = d.to_json()
    del out["run"]
    return out


class Reads:
    """A clock that runs out after some reads, counting them."""

    def __init__(self, allowed: int) -> None:
        self.allowed, self.reads, self.seconds = allowed, 0, 1.0

    def out(self) -> bool:
        self.reads += 1
        return self.reads > self.allowed

    def left(self, least: float = 1e-3) -> float:
        return 1.0

    @property
    def elapsed(self) -> float:
        return 0.0


def test_pieces_are_listed_while_the_clock_allows(registry: Registry) -> None:
    """giant-vs-two-bears in pieces of one place each (4 places: each bear blocks the giant
    or not, 2 x 2): the clock is read before each piece; it allows two, so two are listed and
    searched (each piece searched whole, with no budget of its own) and the answer is not
    optimal. Pieces of one place are places 0 and 1 (the last blocker's choice varies
    fastest): no blocks (B loses 3 life: 0, 0, 3, 0), and bear2 alone blocks and dies (0, 4,
    0, 0). No blocks is best for B (lower material)."""
    sc = load(GIANT, registry)
    options = block_options(sc, registry, "B")
    clock = Reads(2)
    searched: list[int] = []

    def piece(decls: Any, left: float | None) -> Any:
        searched.append(decls.count)
        return best_blocks(sc, registry, declarations=decls)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(partial, "PIECE", 1)
        d = partial.best_in_pieces(sc, options, clock, 3, piece)  # type: ignore[arg-type]
    assert clock.reads == 3 and searched == [1, 1]
    assert not d.optimal and d.declarations == 2
    assert [c.blockers for c in d.best] == [{}, {"bear2": "giant"}]
    assert d.reason is not None and "2 of the 2 block declarations listed" in d.reason
    assert "of 4 possible" in d.reason


def test_a_clock_out_from_the_start_lists_nothing(registry: Registry) -> None:
    """The clock is read before the first piece: out at once, nothing is listed."""
    sc = load(GIANT, registry)
    d = partial.best_in_pieces(
        sc,
        block_options(sc, registry, "B"),
        Reads(0),  # type: ignore[arg-type]
        3,
        lambda decls, left: best_blocks(sc, registry, declarations=decls),
    )
    assert not d.optimal and d.best == [] and d.declarations == 0
    assert d.reason is not None and "before any of the 4 possible" in d.reason


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_boards())
def test_pieces_searched_to_the_end_give_the_exact_answer(
    registry: Registry, doc: dict[str, Any]
) -> None:
    """Every piece searched (an ample budget, pieces of two places): the answer is the one
    of the search of every declaration at once, optimal, ties in section 9's order."""
    sc = parse_scenario(doc, registry, "random.json")
    whole = answer(best_blocks(sc, registry))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(partial, "PIECE", 2)
        mp.setattr(decide, "PIECEWISE_ABOVE", 0)
        assert answer(best_blocks(sc, registry, budget=1e6)) == whole


def test_a_board_too_large_to_list_is_searched_in_part_under_a_budget(
    registry: Registry,
) -> None:
    """2,958,032 possible declarations (refused without a budget: test_search_bounds): with
    a budget it is searched a piece at a time and never called optimal."""
    d = best_blocks(load(MANY_DECLARATIONS, registry), registry, budget=0.2)
    assert not d.optimal and 0 < d.declarations < 2_958_032
    assert d.reason is not None and "of 2,958,032 possible" in d.reason


def test_attacks_read_the_clock_before_listing_each_attack(
    registry: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    """race.toml: 8 attacks. The first attack (nobody attacks: one declaration) is always
    listed; the clock is read before each next one (has half the budget passed?): not before
    the second, yes before the third, so two attacks are listed; the answer counts the 8
    attacks and is not optimal."""
    sc = load(RACE, registry, blocks=False)
    reads = iter([False])
    monkeypatch.setattr(Clock, "past", lambda self, share: next(reads, True))
    monkeypatch.setattr(Clock, "out", lambda self: True)
    d = best_attacks(sc, registry, budget=5)
    assert not d.optimal and d.declarations == 8
    assert d.reason is not None and "of 2 of the 8 attacks were listed" in d.reason
    assert 1 <= len(d.best) <= 2


def test_attacks_past_the_memory_guard_are_searched_in_part_under_a_budget(
    registry: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With a budget, the attacks whose block declarations would pass the memory guard are
    left unsearched instead of refusing the board (without one: refused, test_search_bounds)."""
    sc = load(RACE, registry, blocks=False)
    monkeypatch.setattr(attacks, "MOST_DECLARATION_CELLS", 20)
    d = best_attacks(sc, registry, budget=60)
    assert not d.optimal and d.declarations == 8
    assert d.reason is not None and "the next would not fit in memory" in d.reason


def test_bulk_search_refuses_a_group_too_large_for_memory(
    registry: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bulk search (SPEC decisions = "optimal") has the memory guard: giant-vs-two-bears
    is 4 declarations and a few division choices; with room for 3 candidate combats it is
    refused at once, naming its size, instead of growing."""
    sc = load(GIANT, registry)
    batch = scenarios_to_batch([sc], registry)
    first = Segments.of(batch.player_battle, batch.n_battles).start
    defends = np.asarray(batch.controller != first[batch.battle])
    monkeypatch.setattr(bounds, "MOST_COMBATS", 3)
    with pytest.raises(SearchTooLarge, match=r"candidate combats \(4 block declarations"):
        Decider(registry).best(batch, defends)


def installed(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["ecs-combat", *args], capture_output=True, text=True)


def test_blocks_command_searches_a_board_too_large_to_list_under_a_budget() -> None:
    """CONTRACT 9 with the installed command: `blocks FILE --budget 1` on the 7x7 board of
    2,958,032 possible declarations answers (exit 0), best found, `optimal: false`."""
    p = installed("blocks", str(MANY_DECLARATIONS), "--json", "--budget", "1")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["optimal"] is False and "of 2,958,032 possible" in out["reason"]
    assert out["decision"] == "blocks" and 0 < out["declarations"] < 2_958_032


def test_attacks_command_on_a_7x7_board_with_keywords_under_a_budget() -> None:
    """`attacks FILE --budget 1` on seven attackers with keywords against seven creatures:
    128 attacks, answered within the budget, `optimal: false`."""
    p = installed("attacks", str(ATTACKS_7X7), "--json", "--budget", "1")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert out["optimal"] is False and out["declarations"] == 128
    assert out["reason"].startswith("the budget of 1 s ran out")


def test_under_a_budget_the_declarations_with_most_divisions_are_left_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The memory guard under a budget: 3 declarations with 100, 10 and 1 division choices
    and room for 14 candidate combats (3 + 10 + 1): the one with 100 is left out."""
    monkeypatch.setattr(bounds, "MOST_COMBATS", 14)
    pending = np.ones(3, np.bool_)
    choices = np.log(np.array([100.0, 10.0, 1.0]))
    assert search._too_many_choices(pending, choices, 3).tolist() == [True, False, False]
    monkeypatch.setattr(bounds, "MOST_COMBATS", 13)  # 3 + 10 + 1 is one too many
    assert search._too_many_choices(pending, choices, 3).tolist() == [True, True, False]
    monkeypatch.setattr(bounds, "MOST_COMBATS", 200)  # all fit
    assert not search._too_many_choices(pending, choices, 3).any()


def test_the_3x4_board_is_searched_in_part_under_a_budget(registry: Registry) -> None:
    """The audit's board (refused without a budget: 3,155,224 candidate combats): with a
    budget the declarations with the most division choices are left out until the rest fit,
    and the answer is never optimal."""
    d = best_blocks(load(REPRO / "blocks-3x4-two-any-number-blockers.toml", registry), registry,
                    budget=0.3)  # fmt: skip
    assert not d.optimal and d.declarations == 1024
    assert d.reason is not None and "were not searched to the end" in d.reason
