"""Issue 20: what the engines got wrong in turns and triggers, and the rules decisions RULES.md
sections 2, 4, 7 and 8 now make. Each expected value is worked out by hand from the rules in
the test's docstring; every rule test runs on both engines.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ecs_combat import (
    BatchBlockDeclaration,
    BatchContext,
    BatchTriggers,
    BlockDeclaration,
    CombatContext,
    Keyword,
    Registry,
    System,
    Trigger,
    hookimpl,
)
from ecs_combat.errors import InputError
from ecs_combat.simulation.generate import draw_battles
from tests.conftest import Resolve, bundled_registry, dealt, text_resolver
from tests.test_simulate_turns import TWO_WOLVES, played, spec_of
from tests.test_turns import ResolveTurn, players, turn_resolver

#: The audit's reproducers (issue 20), copied from its report.
REPRO = Path(__file__).parent / "repro"


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


def _exile_resolve(combat: CombatContext, trigger: Trigger) -> None:
    combat.leave_battlefield(trigger.data["attacker"])


def _exile_resolve_batched(batch: BatchContext, triggers: BatchTriggers) -> None:
    batch.leave_battlefield(triggers.data["attacker"])


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
                found,
                _exile_resolve_batched,
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


# -- phases that don't happen (RULES 2, 8; CONTRACT 8 `skipped_phases`) ------------------------


def skipped(out: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [(p["phase"], p["player"], p["reason"]) for p in out["skipped_phases"]]


def test_rules_2_nothing_happens_once_the_game_is_over(resolve_turn: ResolveTurn) -> None:
    """RULES 2 (104.2a, decision): B at 2 life; the bear (2/2) attacks unblocked in A's combat:
    B 2 - 2 = 0, B loses, one player remains. B's Throat Wolf combat and A's postcombat main
    phase don't happen (skipped_phases); the bear, named as a blocker in the Wolf's combat,
    is not checked (it is tapped) and nothing there is played."""
    out = resolve_turn((REPRO / "turn-after-game-over.toml").read_text())
    assert [(p["phase"], p["player"]) for p in out["phases"]] == [("main", "A"), ("combat", "A")]
    assert len(out["combats"]) == 1
    over = "the game is over: fewer than two players remain (104.2a)"
    assert skipped(out) == [("combat", "B", over), ("main", "A", over)]
    assert out["players"]["B"] == {"life": 0, "lost": True, "poison": 0}
    assert out["creatures"]["wolf"]["alive"]


def test_rules_2_a_spell_that_ends_the_game_ends_the_turn(resolve_turn: ResolveTurn) -> None:
    """RULES 2: A's precombat Assault deals 2 to B at 2 life: B loses in the main phase, so the
    combat phase and the postcombat main phase don't happen; the outcome is the state then:
    B 0 and lost, the bear untouched."""
    text = """
[players.A]
[players.B]
life = 2

[creatures.bear]
controller = "A"
power = 2
toughness = 2

[turn]
casts = [{ card = "Assault", caster = "A", main = 1, target = "B" }]

[[combats]]
attackers = { bear = "B" }
"""
    out = resolve_turn(text)
    assert out["combats"] == []
    over = "the game is over: fewer than two players remain (104.2a)"
    assert skipped(out) == [("combat", "A", over), ("main", "A", over)]
    assert out["players"]["B"]["life"] == 0 and out["players"]["B"]["lost"]
    assert out["creatures"]["bear"] == {
        "alive": True,
        "damage": 0,
        "power": 2,
        "toughness": 2,
        "counters": {},
    }


WOLVES_BLOCK = """
[players.A]
[players.B]

[creatures.giant]
controller = "A"
power = 5
toughness = 5
keywords = ["vigilance"]

[creatures.wa]
card = "Throat Wolf"
controller = "A"

[creatures.wb]
card = "Throat Wolf"
controller = "B"

[[combats]]
attackers = { giant = "B" }
blockers = { wb = "giant" }

[[combats]]
attackers = { wb = "A" }

[[combats]]
attackers = { wa = "B" }
"""


def test_8_a_throat_wolf_that_is_gone_adds_nothing(resolve_turn: ResolveTurn) -> None:
    """RULES 8 (113.6): [A, B], Wolves for both, A's turn: the schedule is A, B (B's Wolf), A
    (A's Wolf, after B's first combat). B's Wolf blocks the giant (5/5) in A's combat:
    firstest strike 3 to the giant, then the giant's 5 kills it. As A's combat ends B's Wolf
    is gone: B's combat doesn't happen; A's Wolf combat would follow it, so it doesn't either.
    Their entries (attackers wb, wa) are not played."""
    out = resolve_turn(WOLVES_BLOCK)
    assert [c["player"] for c in out["combats"]] == ["A"]
    assert skipped(out) == [
        (
            "combat",
            "B",
            "'wb' was not on the battlefield under the control of 'B' as phase 2 ended (113.6)",
        ),
        ("combat", "A", "it would follow phase 3, which did not happen"),
    ]
    assert [p["created_by"] for p in out["phases"]] == ["turn", "turn", "turn"]
    assert not out["creatures"]["wb"]["alive"]
    assert out["creatures"]["giant"]["damage"] == 3
    assert out["players"]["B"]["life"] == 20


def test_8_a_wolf_whose_controller_left_adds_nothing(resolve_turn: ResolveTurn) -> None:
    """RULES 8 (800.4a): [A, B, C], A's turn, a Wolf for C. The bear (2/2) attacks C at 2 life:
    C loses and leaves with the Wolf; A and B remain, so the game goes on. C's Wolf combat,
    added after A's first combat, doesn't happen: C has left the game."""
    text = (
        players("A", "B")
        + '[players.C]\nlife = 2\n\n[creatures.bear]\ncontroller = "A"\npower = 2\ntoughness = 2\n\n'
        + wolf("wc", "C")
        + '[[combats]]\nattackers = { bear = "C" }\n'
    )
    out = resolve_turn(text)
    assert skipped(out) == [("combat", "C", "'C' has left the game (800.4a)")]
    assert [(p["phase"], p["player"]) for p in out["phases"]] == [
        ("main", "A"),
        ("combat", "A"),
        ("main", "A"),
    ]
    assert out["players"]["C"]["lost"] and not out["players"]["B"]["lost"]
    assert not out["creatures"]["wc"]["alive"]


# -- the audit's reproducers, through the installed command on both engines -------------------


def cli(engine: str, path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["ecs-combat", "resolve", str(path), "--json", "--engine", engine],
        capture_output=True,
        text=True,
    )


@pytest.mark.parametrize("engine", ["reference", "batched"])
def test_repro_main_phase_casts_without_creature_rows(engine: str) -> None:
    """Defect 6: two turn files in one JSON Lines file, with different main-phase casts and
    no creature of B. Line 1: Resurgence adds a combat and a main phase (5 phases, 2 combat
    phases, nobody attacks); line 2: Assault deals 2 to B: 20 - 2 = 18."""
    p = cli(engine, REPRO / "turns-batch-crash.jsonl")
    assert p.returncode == 0, p.stderr
    first, second = (json.loads(line) for line in p.stdout.splitlines())
    assert [q["created_by"] for q in first["phases"]] == [
        "turn",
        "Resurgence (A)",
        "Resurgence (A)",
        "turn",
        "turn",
    ]
    assert len(first["combats"]) == 2 and first["players"]["B"]["life"] == 20
    assert second["players"]["B"]["life"] == 18 and second["skipped_phases"] == []


@pytest.mark.parametrize("engine", ["reference", "batched"])
def test_repro_precombat_assault_kills_the_elf(engine: str) -> None:
    """Assault (2 damage) in the precombat main phase kills the 2/1 elf (704.5g) before
    combat; the bear attacks unblocked: B 20 - 2 = 18."""
    p = cli(engine, REPRO / "turn-assault-precombat.toml")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert not out["creatures"]["elf"]["alive"]
    assert out["players"]["B"]["life"] == 18


@pytest.mark.parametrize("engine", ["reference", "batched"])
def test_repro_lethal_damage_as_the_turn_begins(engine: str) -> None:
    """704.5g: the ogre is 6/3 with two -1/-1 counters, a 4/1, with 2 damage: it would
    already have died. The input error of a one-combat scenario, before any main phase."""
    p = cli(engine, REPRO / "turn-dead-before-first-combat.toml")
    assert p.returncode == 2
    assert "creatures.ogre.damage: 2 damage on a creature with toughness 1" in p.stderr
    assert "(704.5g)" in p.stderr


@pytest.mark.parametrize("engine", ["reference", "batched"])
def test_repro_a_turns_division_error_names_its_combat(engine: str) -> None:
    """CONTRACT 6: the giant (4) divides 1: `combats[0].divide[0].amounts`."""
    p = cli(engine, REPRO / "turn-divide-path.toml")
    assert p.returncode == 2
    assert "turn-divide-path.toml: combats[0].divide[0].amounts: amounts total 1" in p.stderr


@pytest.mark.parametrize("engine", ["reference", "batched"])
def test_repro_results_before_an_invalid_turn_are_printed(engine: str) -> None:
    """README's streaming promise: line 1 (the bear deals 2: B 18) is printed, then line 2's
    error (the bear, tapped by attacking, blocks in the Wolf's combat) says so."""
    p = cli(engine, REPRO / "turns-error-line2.jsonl")
    assert p.returncode == 2
    (line,) = p.stdout.splitlines()
    assert json.loads(line)["players"]["B"]["life"] == 18
    assert "turns-error-line2.jsonl:2: combats[1].blockers.bear" in p.stderr
    assert p.stderr.rstrip().endswith("(the 1 result before this one is printed)")


def test_repro_after_game_over_both_engines_print_the_same() -> None:
    """RULES 2: the game-over turn gives one document, identical on both engines."""
    path = REPRO / "turn-after-game-over.toml"
    ref, bat = cli("reference", path), cli("batched", path)
    assert ref.returncode == bat.returncode == 0, ref.stderr + bat.stderr
    assert json.loads(ref.stdout) == json.loads(bat.stdout)
    assert len(json.loads(ref.stdout)["skipped_phases"]) == 2


# -- the audit's surviving mutants -------------------------------------------------------------


def test_8_strikers_are_per_combat_phase(resolve_turn: ResolveTurn) -> None:
    """RULES 2, 8: strikers are kept per combat phase. A's knight (2/4, vigilance, first
    strike) attacks; the bear (2/2) blocks: first-strike step, 2 to the bear, which dies.
    After that step the knight loses first strike until end of turn (702.7c: no regular hit
    now). In B's Throat Wolf combat the knight blocks the Wolf (3/1): firstest strike, 3 to
    the knight (3 < 4); no first-strike step (nobody has it); regular step: the knight was no
    striker of an earlier step of *this* combat, so it deals 2 and the Wolf dies."""
    text = """
[players.A]
[players.B]

[creatures.knight]
controller = "A"
power = 2
toughness = 4
keywords = ["vigilance", "first strike"]

[creatures.bear]
controller = "B"
power = 2
toughness = 2

[creatures.wolf]
card = "Throat Wolf"
controller = "B"

[[combats]]
attackers = { knight = "B" }
blockers = { bear = "knight" }
events = [{ at = "after first-strike", action = "remove", target = "knight", keywords = ["first strike"] }]

[[combats]]
attackers = { wolf = "A" }
blockers = { knight = "wolf" }
"""
    out = resolve_turn(text)
    first, second = out["combats"]
    assert [s["name"] for s in first["steps"]] == ["first-strike", "regular"]
    assert _dealt(first, "regular") == set()
    assert [s["name"] for s in second["steps"]] == ["firstest-strike", "regular"]
    assert _dealt(second, "firstest-strike") == {("wolf", "knight", 3)}
    assert _dealt(second, "regular") == {("knight", "wolf", 2)}
    assert not out["creatures"]["wolf"]["alive"] and out["creatures"]["knight"]["alive"]


def test_8_in_bulk_turns_only_the_wolf_attacks_in_its_combat(registry: Registry) -> None:
    """RULES 8 (Throat Wolf: "Only Throat Wolf can attack during that combat phase"): in a
    SPEC's drawn turns, the attackers of each Wolf combat phase are that phase's Wolf, though
    the other creatures of its player want to attack (attack 0.8)."""
    generator = spec_of(TWO_WOLVES, registry)
    assert generator.turn is not None
    turns = played(registry, draw_battles(generator, 5, 0, 300))
    _, second, third = turns.phase_batches
    battle = turns.state.creatures.battle
    ends = np.searchsorted(battle, np.arange(1, turns.state.frame.nb + 1))
    # the Wolves are each battle's last two rows: A's (turn1), then B's (turn2)
    for batch, wolf_from_end in ((second, 1), (third, 2)):
        rows = np.flatnonzero(batch.attacking >= 0)
        assert rows.size  # some Wolves attack
        assert (rows == ends[battle[rows]] - wolf_from_end).all()


# -- adversarial: what a judge would ask --------------------------------------------------------


def test_judge_exalted_needs_the_creature_to_attack_alone(engine: str) -> None:
    """702.83: with a second attacker nothing attacks alone, so the skulk 1/1 stays 1/1 and a
    2/2 can't block it (702.118): the same input error on both engines."""
    text = (
        SKULK_EXALTED.format(blocker="bear", power=2).replace(
            'attackers = { sneak = "B" }', 'attackers = { sneak = "B", pal = "B" }'
        )
        + '\n[creatures.pal]\ncontroller = "A"\npower = 1\ntoughness = 1\n'
    )
    with pytest.raises(InputError) as caught:
        text_resolver(engine, bundled_registry())(text)
    assert "combat.blockers.bear: 'bear' can't block 'sneak'" in str(caught.value)


def test_judge_two_wolves_of_one_player_add_two_combats(resolve_turn: ResolveTurn) -> None:
    """RULES 8: two Wolves of B each add a combat phase after A's first combat, created
    together: in the file's order, each with only its own Wolf: A, B (w1), B (w2)."""
    out = resolve_turn(players("A", "B") + wolf("w1", "B") + wolf("w2", "B"))
    assert combat_players(out) == [
        ("A", "turn"),
        ("B", "Throat Wolf (w1)"),
        ("B", "Throat Wolf (w2)"),
    ]


def test_judge_a_wolf_killed_in_the_combat_it_answers_adds_nothing(
    resolve_turn: ResolveTurn,
) -> None:
    """RULES 8: [A, B], Wolves for both: A, B, A. In B's Wolf combat A's Wolf blocks B's: both
    3/1 with firstest strike deal 3 at once, both die. A's Wolf would add its combat as B's
    first combat ends; it is gone then, so that phase doesn't happen."""
    text = (
        players("A", "B")
        + wolf("wa", "A")
        + wolf("wb", "B")
        + '[[combats]]\n\n[[combats]]\nattackers = { wb = "A" }\nblockers = { wa = "wb" }\n'
    )
    out = resolve_turn(text)
    assert [c["player"] for c in out["combats"]] == ["A", "B"]
    assert _dealt(out["combats"][1], "firstest-strike") == {("wb", "wa", 3), ("wa", "wb", 3)}
    assert skipped(out) == [
        (
            "combat",
            "A",
            "'wa' was not on the battlefield under the control of 'A' as phase 3 ended (113.6)",
        )
    ]


def test_judge_exalted_pumps_a_skulk_wolf_before_blocks_in_its_combat(
    resolve_turn: ResolveTurn,
) -> None:
    """RULES 4, 8: in B's Throat Wolf combat the Wolf (3/1, here with skulk) attacks alone and
    B's exalted elf gives it +1/+1: 4/2 as blockers are declared, so A's 4/4 may block it
    (4 is not greater than 4). Firstest strike: 4 to the giant (4/4), which dies first."""
    text = (
        players("A", "B")
        + '[creatures.giant]\ncontroller = "A"\npower = 4\ntoughness = 4\n'
        + 'keywords = ["vigilance"]\n\n'
        + '[creatures.elf]\ncontroller = "B"\npower = 1\ntoughness = 1\nkeywords = ["exalted"]\n\n'
        + wolf("wb", "B").rstrip()
        + '\nkeywords = ["firstest strike", "skulk"]\n\n'
        + '[[combats]]\n\n[[combats]]\nattackers = { wb = "A" }\nblockers = { giant = "wb" }\n'
    )
    out = resolve_turn(text)
    assert _dealt(out["combats"][1], "firstest-strike") == {("wb", "giant", 4)}
    assert not out["creatures"]["giant"]["alive"]
    assert (out["creatures"]["wb"]["power"], out["creatures"]["wb"]["toughness"]) == (4, 2)


def test_judge_a_token_that_gains_haste_attacks_in_a_later_combat(
    resolve_turn: ResolveTurn,
) -> None:
    """RULES 4, 302.6, 702.10: A casts Battery (a 3/3 Elephant, summoning sick) then
    Resurgence (A's creatures gain first strike and vigilance) in the precombat main phase.
    In Resurgence's combat the bear attacks and the Elephant gains haste; in the turn's own
    combat the Elephant may attack. B: 20 - 2 (bear) - 2 (bear, untapped by vigilance) - 3
    (Elephant) = 13."""
    text = """
[players.A]
[players.B]

[creatures.bear]
controller = "A"
power = 2
toughness = 2

[turn]
casts = [
  { card = "Battery", caster = "A", main = 1, token = "elephant" },
  { card = "Resurgence", caster = "A", main = 1 },
]

[[combats]]
attackers = { bear = "B" }
events = [{ at = "declare-blockers", action = "grant", target = "elephant", keywords = ["haste"] }]

[[combats]]
attackers = { bear = "B", elephant = "B" }
"""
    out = resolve_turn(text)
    assert [p["created_by"] for p in out["phases"] if p["phase"] == "combat"] == [
        "Resurgence (A)",
        "turn",
    ]
    assert _dealt(out["combats"][1], "first-strike") == {("bear", "B", 2), ("elephant", "B", 3)}
    assert out["players"]["B"]["life"] == 13
