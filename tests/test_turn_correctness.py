"""Issue 20: what the engines got wrong in turns and triggers, and the rules decisions RULES.md
sections 2, 4, 7 and 8 now make. Each expected value is worked out by hand from the rules in
the test's docstring; every rule test runs on both engines.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from ecs_combat import (
    BatchBlockDeclaration,
    BatchTriggers,
    BlockDeclaration,
    Keyword,
    Registry,
    System,
    Trigger,
    hookimpl,
)
from ecs_combat.errors import InputError
from tests.conftest import Resolve, bundled_registry, dealt, text_resolver
from tests.test_turns import ResolveTurn, players, turn_resolver


@pytest.fixture(params=["reference", "batched"])
def resolve_turn(request: pytest.FixtureRequest, registry: Registry) -> ResolveTurn:
    return turn_resolver(request.param, registry)


def combat_players(out: dict[str, Any]) -> list[tuple[str, str]]:
    """(attacking player, created_by) of each combat phase of the turn's phases."""
    return [(p["player"], p["created_by"]) for p in out["phases"] if p["phase"] == "combat"]


def wolf(cid: str, controller: str) -> str:
    return f'[creatures.{cid}]\ncard = "Throat Wolf"\ncontroller = "{controller}"\n\n'


# -- defect 4: Throat Wolf phases in turn order, not the file's order (RULES 8) ---------------


def test_8_wolves_add_their_phases_in_turn_order_from_the_active_player(
    resolve_turn: ResolveTurn,
) -> None:
    """8 (schedule rule): players [A, B, C], B's turn, Wolves for A and C listed A's first.
    After B's combat both Wolves add one; turn order from B is C then A, so C's comes first.
    C's is C's first combat -> A's Wolf adds A right after it; that is A's first -> C's Wolf
    adds C; then the A phase added after B's. Combats: B, C, A, C, A (listing order would
    give B, A, C, A, C)."""
    text = players("A", "B", "C") + wolf("wa", "A") + wolf("wc", "C") + '[turn]\nactive = "B"\n'
    out = resolve_turn(text)
    assert combat_players(out) == [
        ("B", "turn"),
        ("C", "Throat Wolf (wc)"),
        ("A", "Throat Wolf (wa)"),
        ("C", "Throat Wolf (wc)"),
        ("A", "Throat Wolf (wa)"),
    ]
    assert [c["player"] for c in out["combats"]] == ["B", "C", "A", "C", "A"]


def test_8_wolves_listed_against_turn_order_on_the_first_players_turn(
    resolve_turn: ResolveTurn,
) -> None:
    """8: [A, B, C], A's turn, Wolves for B and C listed C's first. After A's: B then C (turn
    order). B's first -> C's Wolf adds C; C's first -> B's Wolf adds B; then the pending C:
    A, B, C, B, C."""
    text = players("A", "B", "C") + wolf("wc", "C") + wolf("wb", "B")
    out = resolve_turn(text)
    assert [p for p, _ in combat_players(out)] == list("ABCBC")


# -- defect 5: successive spells' phases, most recent first (500.8) ----------------------------


def test_500_8_the_second_resurgence_of_a_main_phase_comes_first(
    resolve_turn: ResolveTurn,
) -> None:
    """500.8, RULES 8: A casts Resurgence, then B casts Resurgence, both in A's precombat main
    phase. Each adds a combat phase (A attacks: it is A's turn) and a main phase after it; the
    most recently created come first: B's combat and main, then A's, then the turn's combat
    and main."""
    text = (
        players("A", "B") + '[turn]\ncasts = [{ card = "Resurgence", caster = "A", main = 1 }, '
        '{ card = "Resurgence", caster = "B", main = 1 }]\n'
    )
    out = resolve_turn(text)
    assert [(p["phase"], p["player"], p["created_by"]) for p in out["phases"]] == [
        ("main", "A", "turn"),
        ("combat", "A", "Resurgence (B)"),
        ("main", "A", "Resurgence (B)"),
        ("combat", "A", "Resurgence (A)"),
        ("main", "A", "Resurgence (A)"),
        ("combat", "A", "turn"),
        ("main", "A", "turn"),
    ]


# -- defect 1: one creature's triggers in the order its keywords are listed (RULES 7) ---------

RAMPAGE_FLANKING = """
[players.A]
[players.B]

[creatures.knight]
controller = "A"
power = 2
toughness = 2
keywords = [{keywords}]

[creatures.elf1]
controller = "B"
power = 1
toughness = 1

[creatures.elf2]
controller = "B"
power = 1
toughness = 1

[combat]
attackers = {{ knight = "B" }}
blockers = {{ elf1 = "knight", elf2 = "knight" }}
"""


def test_7_rampage_listed_first_counts_both_blockers(resolve: Resolve) -> None:
    """RULES 7 (603.3b, decision): `keywords = ["rampage 2", "flanking"]` resolves rampage
    first: 2 blockers, 1 beyond the first -> +2/+2, a 4/4. Then flanking once per blocker:
    each elf 1/1 -> 0/0 and dies (704.5f). The knight, blocked by no one left, deals nothing
    (509.1h, 510.1c) and takes nothing: 4/4, alive."""
    out = resolve(RAMPAGE_FLANKING.format(keywords='"rampage 2", "flanking"'))
    knight = out["creatures"]["knight"]
    assert (knight["power"], knight["toughness"], knight["alive"]) == (4, 4, True)
    assert not out["creatures"]["elf1"]["alive"] and not out["creatures"]["elf2"]["alive"]


def test_7_flanking_listed_first_leaves_rampage_no_blocker_to_count(resolve: Resolve) -> None:
    """RULES 7: the same creature with `["flanking", "rampage 2"]`: both flanking triggers
    first, the elves die, then rampage counts 0 blockers beyond the first: +0/+0, a 2/2."""
    out = resolve(RAMPAGE_FLANKING.format(keywords='"flanking", "rampage 2"'))
    knight = out["creatures"]["knight"]
    assert (knight["power"], knight["toughness"]) == (2, 2)
    assert not out["creatures"]["elf1"]["alive"] and not out["creatures"]["elf2"]["alive"]


# -- a trigger resolves even if its source has left (RULES 7, 113.7a) --------------------------

EXILE = "exiling blocker"


def _exile_resolve(combat: Any, trigger: Trigger) -> None:
    combat.leave_battlefield(trigger.data["attacker"])


def _exile_resolve_batched(batch: Any, triggers: BatchTriggers) -> None:
    batch.leave(triggers.data["attacker"])


def _exile_triggers(combat: Any, declaration: BlockDeclaration) -> None:
    for blocker, attacker in declaration.blocks:
        if combat.has(blocker, EXILE):
            declaration.triggers.append(Trigger(blocker, _exile_resolve, 0, {"attacker": attacker}))


def _exile_triggers_batched(batch: Any, declaration: BatchBlockDeclaration) -> None:
    has = batch.has(EXILE)[declaration.blockers]
    if has.any():
        found = declaration.blockers[has]
        declaration.triggers.append(
            BatchTriggers(
                _exile_resolve_batched,
                found,
                np.zeros(len(found), np.int64),
                {"attacker": declaration.attackers[has]},
            )
        )


class ExilingBlocker:
    """A test keyword: whenever this creature blocks, the attacker it blocks leaves the
    battlefield (a block trigger of the defending player, so it resolves first)."""

    @hookimpl
    def register_keywords(self) -> list[Keyword]:
        return [Keyword(EXILE, rule="test")]

    @hookimpl
    def register_systems(self) -> list[System]:
        return [
            System(
                "declare-blockers",
                "block trigger",
                _exile_triggers,
                _exile_triggers_batched,
                {EXILE},
            )
        ]


@pytest.fixture(scope="module")
def exile_registry() -> Registry:
    return bundled_registry(extra=(ExilingBlocker(),))


def test_113_7a_triggers_of_a_source_that_left_still_resolve(
    engine: str, exile_registry: Registry
) -> None:
    """RULES 7 (113.7a): the knight (2/2: afflict 3, flanking, bushido 1) attacks B and the
    ogre (2/2, exiling blocker) blocks it. B's trigger resolves first (APNAP): the knight
    leaves. Then the knight's, in list order: afflict still happens, B 20 - 3 = 17; flanking
    still happens, the ogre 2/2 - 1/1 = 1/1; bushido's +1/+1 to the knight, gone, does
    nothing: it stays 2/2. No damage: the knight is gone and the ogre blocks no one left."""
    text = """
[players.A]
[players.B]

[creatures.knight]
controller = "A"
power = 2
toughness = 2
keywords = ["afflict 3", "flanking", "bushido 1"]

[creatures.ogre]
controller = "B"
power = 2
toughness = 2
keywords = ["exiling blocker"]

[combat]
attackers = { knight = "B" }
blockers = { ogre = "knight" }
"""
    out = text_resolver(engine, exile_registry)(text)
    knight, ogre = out["creatures"]["knight"], out["creatures"]["ogre"]
    assert (knight["alive"], knight["power"], knight["toughness"]) == (False, 2, 2)
    assert (ogre["alive"], ogre["power"], ogre["toughness"], ogre["damage"]) == (True, 1, 1, 0)
    assert out["players"]["B"]["life"] == 17
    assert out["players"]["A"]["life"] == 20


# -- defects 2 and 3: legality with the characteristics as attackers and blockers are declared
# (RULES 4) --------------------------------------------------------------------------------

SKULK_EXALTED = """
[players.A]
[players.B]

[creatures.sneak]
controller = "A"
power = 1
toughness = 1
keywords = ["skulk", "exalted"]

[creatures.{blocker}]
controller = "B"
power = {power}
toughness = {power}

[combat]
attackers = {{ sneak = "B" }}
blockers = {{ {blocker} = "sneak" }}
"""


def test_702_118_skulk_with_exalted_is_a_2_2_as_blockers_are_declared(resolve: Resolve) -> None:
    """RULES 4, 702.83, 702.118: the 1/1 with skulk and exalted attacks alone: exalted's
    trigger makes it 2/2 in the declare-attackers step, so as blockers are declared a 2/2 may
    block it (2 is not greater than 2). Regular step: 2 each way, both die."""
    out = resolve(SKULK_EXALTED.format(blocker="bear", power=2))
    assert dealt(out, "regular") == {("sneak", "bear", 2), ("bear", "sneak", 2)}
    assert not out["creatures"]["sneak"]["alive"] and not out["creatures"]["bear"]["alive"]


def test_702_118_skulk_with_exalted_still_refuses_a_greater_power(engine: str) -> None:
    """RULES 4, 702.118: a 3/3 can't block the 2/2 (3 > 2): an input error naming the block."""
    registry = bundled_registry()
    text = SKULK_EXALTED.format(blocker="ogre", power=3)
    with pytest.raises(InputError) as caught:
        text_resolver(engine, registry)(text)
    assert str(caught.value).startswith("test.toml: combat.blockers.ogre: 'ogre' can't block")
    assert "(702.118)" in str(caught.value)


WOLF_TURN = """
[players.A]
[players.B]

[creatures.knight]
controller = "A"
power = 2
toughness = 4
keywords = ["vigilance"]

[creatures.wolf]
card = "Throat Wolf"
controller = "B"
{wolf}

[[combats]]
attackers = {{ knight = "B" }}
events = [{{ at = "declare-blockers", action = "grant", target = "{target}", keywords = ["{keyword}"] }}]

[[combats]]
attackers = {{ wolf = "A" }}
blockers = {{ knight = "wolf" }}
"""


def test_rules_4_reach_gained_earlier_in_the_turn_lets_it_block_later(
    resolve_turn: ResolveTurn,
) -> None:
    """RULES 4, 8: the knight gains reach until end of turn in A's combat; in B's Throat Wolf
    combat the Wolf (3/1, firstest strike, here also flying) attacks and the knight blocks it:
    legal (702.17). Firstest-strike step: the Wolf deals 3 to the knight (2/4), which lives;
    regular step: the knight deals 2 to the Wolf (toughness 1), which dies."""
    text = WOLF_TURN.format(
        wolf='keywords = ["firstest strike", "flying"]', target="knight", keyword="reach"
    )
    out = resolve_turn(text)
    second = out["combats"][1]
    assert _dealt(second, "firstest-strike") == {("wolf", "knight", 3)}
    assert _dealt(second, "regular") == {("knight", "wolf", 2)}
    assert not out["creatures"]["wolf"]["alive"]
    assert out["creatures"]["knight"]["damage"] == 3


def test_rules_4_flying_gained_earlier_in_the_turn_makes_a_later_block_illegal(
    engine: str, registry: Registry
) -> None:
    """RULES 4, 702.9: the Wolf gains flying in A's combat; in its own combat phase the
    knight (no flying, no reach) can't block it: an input error naming combats[1]."""
    text = WOLF_TURN.format(wolf="", target="wolf", keyword="flying")
    with pytest.raises(InputError) as caught:
        turn_resolver(engine, registry)(text)
    assert str(caught.value).startswith(
        "turn.toml: combats[1].blockers.knight: 'knight' can't block 'wolf'"
    )
    assert "(702.9)" in str(caught.value)


def test_rules_4_a_precombat_pump_lets_a_bigger_creature_block_skulk(
    resolve_turn: ResolveTurn,
) -> None:
    """RULES 4, 702.118: Joint Assault in the precombat main phase makes the 1/1 skulk a 3/3
    until end of turn; as blockers are declared the 3/3 ogre may block it (3 is not greater
    than 3). Regular step: 3 each way, both die."""
    text = """
[players.A]
[players.B]

[creatures.sneak]
controller = "A"
power = 1
toughness = 1
keywords = ["skulk"]

[creatures.ogre]
controller = "B"
power = 3
toughness = 3

[turn]
casts = [{ card = "Joint Assault", caster = "A", main = 1, target = "sneak" }]

[[combats]]
attackers = { sneak = "B" }
blockers = { ogre = "sneak" }
"""
    out = resolve_turn(text)
    assert _dealt(out["combats"][0], "regular") == {("sneak", "ogre", 3), ("ogre", "sneak", 3)}
    assert not out["creatures"]["sneak"]["alive"] and not out["creatures"]["ogre"]["alive"]


def _dealt(combat: dict[str, Any], step: str) -> set[tuple[str, str, int]]:
    (found,) = [s for s in combat["steps"] if s["name"] == step]
    return {(d["source"], d["target"], d["amount"]) for d in found["damage"]}
