"""A turn with several combat phases (RULES.md section 8, CONTRACT.md section 6): the phase
schedule, and what lasts from one combat phase to the next. Expected values are worked out by
hand in each test's docstring.

Rule tests run on both engines (`ReferenceEngine.resolve_turn`, `BatchedEngine.resolve_turns`).
"""

from __future__ import annotations

import json
import subprocess
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ecs_combat import (
    COMBAT,
    MAIN,
    Card,
    CreatureToken,
    Phase,
    PhaseRule,
    Registry,
    TargetRule,
    TurnView,
    hookimpl,
)
from ecs_combat.batched.engine import BatchedEngine
from ecs_combat.errors import InputError
from ecs_combat.reference.engine import ReferenceEngine
from ecs_combat.scenario.turn_loader import parse_turn
from ecs_combat.scenario.turns import TurnScenario
from tests.conftest import ENGINES, bundled_registry

ResolveTurn = Callable[[str], dict[str, Any]]


def turn_of(text: str, registry: Registry) -> TurnScenario:
    return parse_turn(tomllib.loads(text), registry, "turn.toml")


def turn_resolver(engine: str, registry: Registry) -> ResolveTurn:
    """Resolve a turn written as TOML text with `engine`; the JSON document of `resolve`."""
    if engine == "reference":
        one = ReferenceEngine(registry).resolve_turn
        return lambda text: one(turn_of(text, registry)).to_json()
    many = BatchedEngine(registry).resolve_turns
    return lambda text: many([turn_of(text, registry)])[0].to_json()


@pytest.fixture(params=ENGINES)
def resolve_turn(request: pytest.FixtureRequest, registry: Registry) -> ResolveTurn:
    return turn_resolver(request.param, registry)


def error_of(text: str, registry: Registry) -> str:
    """The message of the input error a turn gives, as it is loaded or as it is resolved."""
    with pytest.raises(InputError) as caught:
        ReferenceEngine(registry).resolve_turn(turn_of(text, registry))
    return str(caught.value)


def dealt(combat: dict[str, Any], step: str) -> set[tuple[str, str, int]]:
    (found,) = [s for s in combat["steps"] if s["name"] == step]
    return {(d["source"], d["target"], d["amount"]) for d in found["damage"]}


def phases_json(tmp_path: Path, text: str) -> list[dict[str, str]]:
    path = tmp_path / "turn.toml"
    path.write_text(text)
    proc = subprocess.run(
        ["ecs-combat", "phases", str(path), "--json"], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    doc: list[dict[str, str]] = json.loads(proc.stdout)
    return doc


def wolves(*controllers: str) -> str:
    return "".join(
        f'[creatures.w{c.lower()}]\ncard = "Throat Wolf"\ncontroller = "{c}"\n\n'
        for c in controllers
    )


def players(*ids: str) -> str:
    return "".join(f"[players.{p}]\n" for p in ids)


# -- the schedule (RULES.md 8: the five test vectors) ------------------------------------------


def test_two_wolves_on_a_turn_official_ruling(tmp_path: Path) -> None:
    """8, Throat Wolf ruling: [A, B], Wolves for A and B, A's turn -> A, B, A: B's Wolf adds
    B's combat after A's first; A's Wolf adds A's after B's first."""
    got = phases_json(tmp_path, players("A", "B") + wolves("A", "B") + '[turn]\nactive = "A"\n')
    assert got == [
        {"phase": "main", "player": "A", "created_by": "turn"},
        {"phase": "combat", "player": "A", "created_by": "turn"},
        {"phase": "combat", "player": "B", "created_by": "Throat Wolf (wb)"},
        {"phase": "combat", "player": "A", "created_by": "Throat Wolf (wa)"},
        {"phase": "main", "player": "A", "created_by": "turn"},
    ]


def test_third_players_turn_official_ruling(tmp_path: Path) -> None:
    """8, Throat Wolf ruling: [C, A, B], C active, Wolves for A and B -> C, A, B, A, B. After
    C's combat both Wolves add one (A first in turn order from C); A's combat is A's first, so
    B's Wolf adds B's right after it; that one is B's first, so A's Wolf adds A's; the combat
    B's Wolf added after C's comes last."""
    text = players("C", "A", "B") + wolves("A", "B") + '[turn]\nactive = "C"\n'
    got = phases_json(tmp_path, text)
    combats = [(p["player"], p["created_by"]) for p in got if p["phase"] == "combat"]
    assert combats == [
        ("C", "turn"),
        ("A", "Throat Wolf (wa)"),
        ("B", "Throat Wolf (wb)"),
        ("A", "Throat Wolf (wa)"),
        ("B", "Throat Wolf (wb)"),
    ]
    assert [p["phase"] for p in got] == ["main", *["combat"] * 5, "main"]


def test_one_wolf_for_the_defending_player(tmp_path: Path) -> None:
    """8: [A, B], a Wolf for B only, A's turn -> A, B (A has no Wolf to answer B's combat)."""
    got = phases_json(tmp_path, players("A", "B") + wolves("B"))
    assert [p["player"] for p in got if p["phase"] == "combat"] == ["A", "B"]


def test_three_players_three_wolves(tmp_path: Path) -> None:
    """8: [A, B, C], Wolves for all three, A's turn -> A, B, A, C, A, B, C. After A's: B's and
    C's Wolves (B first). B's first combat -> A's and C's Wolves add A, C before the pending
    C; A's combat is not A's first; C's (first) -> A, B; then the pending C."""
    got = phases_json(tmp_path, players("A", "B", "C") + wolves("A", "B", "C"))
    assert [p["player"] for p in got if p["phase"] == "combat"] == list("ABACABC")


def test_resurgence_and_a_wolf(tmp_path: Path, registry: Registry) -> None:
    """8: [A, B], a Wolf for B, A casts Resurgence in the precombat main phase -> main A,
    combat A (Resurgence), combat B (Throat Wolf), main A (Resurgence), combat A (the turn's),
    main A."""
    text = (
        players("A", "B")
        + wolves("B")
        + '[turn]\nactive = "A"\n[[turn.casts]]\ncard = "Resurgence"\ncaster = "A"\nmain = 1\n'
    )
    got = phases_json(tmp_path, text)
    assert [(p["phase"], p["player"], p["created_by"]) for p in got] == [
        ("main", "A", "turn"),
        ("combat", "A", "Resurgence (A)"),
        ("combat", "B", "Throat Wolf (wb)"),
        ("main", "A", "Resurgence (A)"),
        ("combat", "A", "turn"),
        ("main", "A", "turn"),
    ]


# -- across combat phases ----------------------------------------------------------------------

KNIGHT_AND_WOLF = """
[players.A]
[players.B]

[creatures.knight]
controller = "A"
power = 2
toughness = 4
keywords = [{knight}]

[creatures.bear]
controller = "B"
power = 2
toughness = 2

[creatures.wolf]
card = "Throat Wolf"
controller = "B"

[[combats]]
attackers = {{ knight = "B" }}
blockers = {{ bear = "knight" }}

[[combats]]
attackers = {{ wolf = "A" }}
blockers = {{ knight = "wolf" }}
"""


def test_damage_stays_marked_into_the_wolf_combat(resolve_turn: ResolveTurn) -> None:
    """8 (120.6): the bear deals 2 to the knight (2/4) in A's combat and dies; in B's Throat
    Wolf combat the Wolf deals 3 more in the firstest-strike step: 5 >= 4, the knight dies
    before it can strike. The Wolf is untouched."""
    out = resolve_turn(KNIGHT_AND_WOLF.format(knight='"vigilance"'))
    first, second = out["combats"]
    assert (first["player"], second["player"]) == ("A", "B")
    assert dealt(first, "regular") == {("knight", "bear", 2), ("bear", "knight", 2)}
    assert dealt(second, "firstest-strike") == {("wolf", "knight", 3)}
    assert second["steps"][0]["died"] == ["knight"]
    assert out["creatures"]["knight"] | {"alive": False, "damage": 5} == out["creatures"]["knight"]
    assert out["creatures"]["wolf"]["alive"] is True
    assert out["creatures"]["wolf"]["damage"] == 0


def test_until_end_of_turn_effects_and_block_triggers_per_combat(
    resolve_turn: ResolveTurn,
) -> None:
    """8: bushido triggers in each combat phase and its +1/+1 lasts the turn. Combat 1: the
    knight (2/4, bushido 1) is blocked: 3/5, deals 3 to the bear (dies), takes 2. Combat 2: it
    blocks the Wolf: 4/6; the Wolf's 3 make 5 damage < 6, so it survives and deals 4 to the
    Wolf (toughness 1) in the regular step."""
    out = resolve_turn(KNIGHT_AND_WOLF.format(knight='"vigilance", "bushido 1"'))
    first, second = out["combats"]
    assert dealt(first, "regular") == {("knight", "bear", 3), ("bear", "knight", 2)}
    assert dealt(second, "firstest-strike") == {("wolf", "knight", 3)}
    assert dealt(second, "regular") == {("knight", "wolf", 4)}
    knight = out["creatures"]["knight"]
    assert (knight["alive"], knight["damage"], knight["power"], knight["toughness"]) == (
        True,
        5,
        4,
        6,
    )
    assert out["creatures"]["wolf"]["alive"] is False


def test_attacking_without_vigilance_taps_so_it_cannot_block_later(registry: Registry) -> None:
    """8 (508.1f, 509.1a): without vigilance the knight is tapped by attacking in combat 1 and
    can't block the Wolf in combat 2: the file is wrong, and the message names the blocker."""
    message = error_of(KNIGHT_AND_WOLF.format(knight=""), registry)
    assert message.startswith("turn.toml: combats[1].blockers.knight: 'knight' can't block")
    assert "tapped" in message


TWO_WOLVES = """
[players.A]
[players.B]

[creatures.wa]
card = "Throat Wolf"
controller = "A"
keywords = [{wa}]

[creatures.sage]
controller = "A"
power = 1
toughness = 1
keywords = [{sage}]

[creatures.wb]
card = "Throat Wolf"
controller = "B"

[[combats]]
attackers = {{ wa = "B" }}

[[combats]]

[[combats]]
attackers = {{ wa = "B" }}
"""


def test_tapped_creature_cannot_attack_in_a_later_combat(registry: Registry) -> None:
    """8 (508.1a): A's Wolf attacks in A's combat (the turn's) and is tapped, so it can't
    attack in its own Throat Wolf combat (combat 3)."""
    message = error_of(TWO_WOLVES.format(wa='"firstest strike"', sage=""), registry)
    assert message.startswith("turn.toml: combats[2].attackers.wa: 'wa' can't attack")
    assert "tapped" in message


def test_vigilance_attacks_again_strikers_cleared_exalted_per_combat(
    resolve_turn: ResolveTurn,
) -> None:
    """8: with vigilance A's Wolf attacks in combats 1 and 3. It attacks alone each time, so
    the sage's exalted triggers each time (+1/+1 until end of turn, kept): 4/2 in combat 1,
    5/3 in combat 3. Strikers are cleared between combats: it deals its damage in the
    firstest-strike step of both. B: 20 - 4 - 5 = 11."""
    out = resolve_turn(TWO_WOLVES.format(wa='"firstest strike", "vigilance"', sage='"exalted"'))
    first, second, third = out["combats"]
    assert [c["player"] for c in out["combats"]] == ["A", "B", "A"]
    assert dealt(first, "firstest-strike") == {("wa", "B", 4)}
    assert second["steps"] == []
    assert dealt(third, "firstest-strike") == {("wa", "B", 5)}
    assert out["players"]["B"]["life"] == 11
    assert (out["creatures"]["wa"]["power"], out["creatures"]["wa"]["toughness"]) == (5, 3)


def test_a_dead_creature_stays_dead(registry: Registry, resolve_turn: ResolveTurn) -> None:
    """8: A's pup (1/1) attacks and the bear (2/2) blocks it: the pup dies. It can't block the
    Wolf in combat 2 (an input error naming it), and it is still dead at the end of the turn;
    the unblocked Wolf deals 3 to A."""
    text = (
        players("A", "B")
        + wolves("B")
        + "[creatures.pup]\ncontroller = 'A'\npower = 1\ntoughness = 1\n\n"
        + "[creatures.bear]\ncontroller = 'B'\npower = 2\ntoughness = 2\n\n"
        + "[[combats]]\nattackers = { pup = 'B' }\nblockers = { bear = 'pup' }\n\n"
        + "[[combats]]\nattackers = { wb = 'A' }\nblockers = { pup = 'wb' }\n"
    )
    message = error_of(text, registry)
    assert message.startswith("turn.toml: combats[1].blockers.pup: 'pup' can't block")
    assert "not on the battlefield: it left earlier this turn" in message
    out = resolve_turn(text.replace("blockers = { pup = 'wb' }", ""))
    assert out["combats"][0]["steps"][0]["died"] == ["pup"]
    assert out["creatures"]["pup"]["alive"] is False
    assert out["players"]["A"]["life"] == 17


def test_decayed_is_sacrificed_at_the_end_of_its_combat(resolve_turn: ResolveTurn) -> None:
    """8: decayed works per combat phase: the zombie attacks in combat 1 and is sacrificed at
    its end, so combat 2 (B's Wolf) finds it gone; the Wolf's 3 damage reach A unblocked."""
    text = (
        players("A", "B")
        + wolves("B")
        + "[creatures.zombie]\ncontroller = 'A'\npower = 2\ntoughness = 2\n"
        + "keywords = ['decayed']\n\n"
        + "[[combats]]\nattackers = { zombie = 'B' }\n\n[[combats]]\nattackers = { wb = 'A' }\n"
    )
    out = resolve_turn(text)
    assert dealt(out["combats"][0], "regular") == {("zombie", "B", 2)}
    assert dealt(out["combats"][1], "firstest-strike") == {("wb", "A", 3)}
    assert out["creatures"]["zombie"]["alive"] is False
    assert (out["players"]["A"]["life"], out["players"]["B"]["life"]) == (17, 18)


def test_events_per_combat_and_skipped_events(resolve_turn: ResolveTurn) -> None:
    """8: each combat phase has its own events. Combat 1 has no first-strike step, so its
    event after it is skipped there; combat 2's event (a pump of the knight at declare-blockers,
    +0/+2: 2/6) happens in combat 2 only, and the knight survives the Wolf's 3 (2 + 3 < 6)."""
    text = KNIGHT_AND_WOLF.format(knight='"vigilance"') + (
        "\n[[combats.events]]\nat = 'declare-blockers'\naction = 'pump'\ntarget = 'knight'\n"
        "toughness = 2\n"
    )
    text = text.replace(
        'blockers = { bear = "knight" }\n',
        'blockers = { bear = "knight" }\nevents = [{ at = "after first-strike", '
        'action = "pump", target = "knight", power = 5 }]\n',
    )
    out = resolve_turn(text)
    first, second = out["combats"]
    assert [(e["event"], e["at"], e["action"]) for e in first["skipped_events"]] == [
        (0, "after first-strike", "pump")
    ]
    assert second["skipped_events"] == []
    knight = out["creatures"]["knight"]
    assert (knight["alive"], knight["damage"], knight["power"], knight["toughness"]) == (
        True,
        5,
        2,
        6,
    )


def test_a_combat_phase_without_attackers_skips_its_events(resolve_turn: ResolveTurn) -> None:
    """508.8 per combat phase: a combat with no attackers has no damage steps; its events are
    skipped with that reason."""
    text = (
        players("A", "B")
        + "[creatures.bear]\ncontroller = 'A'\npower = 2\ntoughness = 2\n\n"
        + "[[combats]]\nevents = [{ at = 'after regular', action = 'pump', target = 'bear', "
        + "power = 1 }]\n"
    )
    out = resolve_turn(text)
    (combat,) = out["combats"]
    assert combat["steps"] == []
    assert combat["skipped_events"][0]["reason"].startswith("no creatures attacked")


def test_a_creature_that_entered_stays(resolve_turn: ResolveTurn) -> None:
    """8: a creature that enters attacking in combat 1 (untapped: it was never declared) is on
    the battlefield in combat 2 and blocks the Wolf: 3 damage kill the 2/2 first."""
    text = (
        players("A", "B")
        + wolves("B")
        + "[creatures.bear]\ncontroller = 'A'\npower = 2\ntoughness = 2\n\n"
        + "[[combats]]\nattackers = { bear = 'B' }\n"
        + "events = [{ at = 'declare-blockers', action = 'enter', attacking = 'B', "
        + "creature = { id = 'cub', controller = 'A', power = 2, toughness = 2 } }]\n\n"
        + "[[combats]]\nattackers = { wb = 'A' }\nblockers = { cub = 'wb' }\n"
    )
    out = resolve_turn(text)
    assert dealt(out["combats"][0], "regular") == {("bear", "B", 2), ("cub", "B", 2)}
    assert dealt(out["combats"][1], "firstest-strike") == {("wb", "cub", 3)}
    assert out["creatures"]["cub"]["alive"] is False
    assert out["players"]["B"]["life"] == 16


# -- main-phase spells -------------------------------------------------------------------------


class _TokenPlugin:
    """A sorcery that creates a 3/3 green token, for the main-phase tests."""

    @hookimpl
    def register_cards(self) -> list[Card]:
        return [
            Card(
                name="Herd Call",
                cost="{3}{G}",
                text="Create a 3/3 green Elephant creature token.",
                types=("sorcery",),
                target=TargetRule(kind="none"),
                creates=CreatureToken("Elephant", 3, 3, ("green",)),
            )
        ]


@pytest.fixture(scope="module")
def token_registry() -> Registry:
    return bundled_registry(extra=(_TokenPlugin(),))


TOKEN_TURN = """
[players.A]
[players.B]

[creatures.knight]
controller = "A"
power = 2
toughness = 4

[[turn.casts]]
card = "Herd Call"
caster = "B"
main = 1
token = "el"

[[turn.casts]]
card = "Herd Call"
caster = "A"
main = 2
token = "calf"

[[combats]]
attackers = { knight = "B" }
blockers = { el = "knight" }
"""


def test_a_token_from_a_main_phase_blocks_and_stays(token_registry: Registry) -> None:
    """8: B's spell in the precombat main phase makes a 3/3 token (B casts it in A's main
    phase); it blocks the knight (2/4): 3 to the knight, 2 to the token, both live. A's spell
    in the postcombat main phase resolves, but after the last combat phase, as which the
    outcome is taken (CONTRACT 6): its token is not in it."""
    turn = turn_of(TOKEN_TURN, token_registry)
    result = ReferenceEngine(token_registry).resolve_turn(turn)
    out = result.to_json()
    assert dealt(out["combats"][0], "regular") == {("knight", "el", 2), ("el", "knight", 3)}
    el = out["creatures"]["el"]
    assert (el["alive"], el["damage"], el["power"], el["toughness"]) == (True, 2, 3, 3)
    assert "calf" not in out["creatures"]
    assert "main phase 2: Herd Call: calf enters, a 3/3 Elephant token of A, not in combat" in (
        result.notes
    )
    assert "main phase 1: Herd Call: el enters, a 3/3 Elephant token of B, not in combat" in (
        result.notes
    )


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (('token = "el"', 'token = "knight"'), "turn.casts[0].token: duplicate id 'knight'"),
        (('token = "el"\n', ""), "turn.casts[0].token: missing (Herd Call creates a token"),
        (("main = 2", "main = 3"), "turn.casts[1].main: main phase 3 never happens"),
        (('card = "Herd Call"', 'card = "Herd Cal"'), "did you mean 'Herd Call'?"),
        (('caster = "B"', 'caster = "C"'), "turn.casts[0].caster: unknown player 'C'"),
        (('token = "el"', 'token = "el"\ntarget = "knight"'), "Herd Call has no target"),
    ],
)
def test_main_phase_cast_errors(
    token_registry: Registry, change: tuple[str, str], message: str
) -> None:
    with pytest.raises(InputError) as caught:
        turn_of(TOKEN_TURN.replace(*change, 1), token_registry)
    assert message in str(caught.value)


def test_a_spell_for_combat_cast_in_a_main_phase_does_nothing(registry: Registry) -> None:
    """608.2b: Hat Trick targets a blocking or blocked creature; in the precombat main phase
    its target is neither, so it does nothing, and the note says why."""
    text = (
        players("A", "B")
        + "[creatures.bear]\ncontroller = 'A'\npower = 2\ntoughness = 2\n\n"
        + "[[turn.casts]]\ncard = 'Hat Trick'\ncaster = 'A'\nmain = 1\ntarget = 'bear'\n"
    )
    result = ReferenceEngine(registry).resolve_turn(turn_of(text, registry))
    assert result.notes == [
        "main phase 1: Hat Trick does nothing: bear is neither blocking nor blocked"
    ]
    assert result.to_json()["creatures"]["bear"]["power"] == 2


# -- validation --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            ("[[combats]]\nattackers = { wb = 'A' }", "[[combats]]\n[[combats]]"),
            "combats[2]: 3 combats listed, but the turn has 2 combat phases",
        ),
        (
            ("attackers = { zombie = 'B' }", "attackers = { wb = 'A' }"),
            "combats[0].attackers.wb: 'wb' is controlled by 'B', but 'A' is the attacking "
            "player of this combat phase",
        ),
        (
            ("attackers = { wb = 'A' }", "attackers = { wb = 'A', cat = 'A' }"),
            "combats[1].attackers.cat: only 'wb' can attack in this combat phase",
        ),
        (
            ("toughness = 2\nkeywords", "toughness = 2\nsummoning_sick = true\nkeywords"),
            "combats[0].attackers.zombie: 'zombie' came under its controller's control",
        ),
        (
            ("attackers = { zombie = 'B' }", "attackers = { zombi = 'B' }"),
            "combats[0].attackers.zombi: unknown creature 'zombi'; did you mean 'zombie'?",
        ),
        (
            ("[[combats]]\nattackers = { zombie", "[[combats]]\nattakers = { zombie"),
            "combats[0].attakers: unknown key",
        ),
        (  # the zombie stays home in A's combat (attacking would sacrifice it, 702.147)
            (
                "[[combats]]\nattackers = { zombie = 'B' }\n\n[[combats]]\nattackers = { wb = 'A' }",
                "[[combats]]\n\n[[combats]]\nattackers = { wb = 'A' }\nblockers = { zombie = 'wb' }",
            ),
            "combats[1].blockers.zombie: 'zombie' has decayed and can't block",
        ),
        (("[players.A]", "[turn]\nactive = 'D'\n[players.A]"), "turn.active: unknown player 'D'"),
        (('card = "Throat Wolf"', 'card = "Throat Wolff"'), "did you mean 'Throat Wolf'"),
        (("[players.A]", "[turm]\n[players.A]"), "turm: unknown key 'turm'"),
    ],
)
def test_turn_file_errors(registry: Registry, change: tuple[str, str], message: str) -> None:
    """CONTRACT 6: each problem names its place; typos get a suggestion. Whether a creature
    may attack or block is found as its combat phase declares it (RULES 4), the same on both
    engines; the rest as the file is loaded."""
    text = (
        players("A", "B")
        + wolves("B")
        + "[creatures.zombie]\ncontroller = 'A'\npower = 2\ntoughness = 2\nkeywords = ['decayed']\n\n"
        + "[creatures.cat]\ncontroller = 'B'\npower = 1\ntoughness = 1\n\n"
        + "[[combats]]\nattackers = { zombie = 'B' }\n\n[[combats]]\nattackers = { wb = 'A' }\n"
    )
    changed = text.replace(*change, 1)
    assert changed != text
    for engine in ENGINES:
        with pytest.raises(InputError) as caught:
            turn_resolver(engine, registry)(changed)
        assert message in str(caught.value)
        assert str(caught.value).startswith("turn.toml: ")


def test_an_event_error_names_its_combat(registry: Registry) -> None:
    text = (
        players("A", "B")
        + "[creatures.bear]\ncontroller = 'A'\npower = 2\ntoughness = 2\n\n"
        + "[[combats]]\nattackers = { bear = 'B' }\n"
        + "events = [{ at = 'after regular', action = 'pump', target = 'beer', power = 1 }]\n"
    )
    with pytest.raises(InputError) as caught:
        turn_of(text, registry)
    assert str(caught.value) == (
        "turn.toml: combats[0].events[0].target: unknown creature 'beer'; did you mean 'bear'?"
    )


def test_each_combat_attacks_from_its_attacking_players_seat(registry: Registry) -> None:
    """In B's Throat Wolf combat B is the active player: its scenario lists B first (APNAP
    order for triggers); the players are the turn's own."""
    turn = turn_of(players("A", "B") + wolves("B"), registry)
    assert [list(c.players) for c in turn.combats] == [["A", "B"], ["B", "A"]]
    assert turn.combats[1].players["A"] is turn.players["A"]


def test_combat_beside_turn_says_where_it_goes(registry: Registry) -> None:
    text = players("A", "B") + "[turn]\n[combat]\n"
    with pytest.raises(InputError) as caught:
        turn_of(text, registry)
    assert str(caught.value) == (
        "turn.toml: combat: a turn gives each combat phase's attackers and blockers in its "
        "entry of `combats`, not in `combat` (docs/turns.md)"
    )


# -- a main-phase spell that adds phases (500.8) ------------------------------------------------


def _rally(target: Any) -> None:
    target.grant("vigilance")


def _rally_phases(turn: TurnView) -> list[Phase]:
    """After a main phase in which Rally Cry was cast: a combat phase of the active player,
    then a main phase (the shape RULES.md 8 gives Resurgence)."""
    if turn.ended.kind != MAIN:
        return []
    added: list[Phase] = []
    for cast in turn.casts:
        if cast.card == "Rally Cry":
            made = f"Rally Cry ({cast.caster})"
            added += [Phase(COMBAT, turn.active, made), Phase(MAIN, turn.active, made)]
    return added


class _RallyPlugin:
    """A sorcery for the tests: target creature gains vigilance until end of turn; after
    this main phase there is an additional combat phase and an additional main phase."""

    @hookimpl
    def register_cards(self) -> list[Card]:
        return [
            Card(
                name="Rally Cry",
                cost="{1}{W}",
                text="Target creature gains vigilance until end of turn. After this main "
                "phase, there is an additional combat phase followed by an additional main phase.",
                types=("sorcery",),
                target=TargetRule(in_combat=False),
                resolve=_rally,
                keywords=frozenset({"vigilance"}),
            )
        ]

    @hookimpl
    def register_phase_rules(self) -> list[PhaseRule]:
        return [PhaseRule("Rally Cry", _rally_phases)]


@pytest.fixture(scope="module")
def rally_registry() -> Registry:
    return bundled_registry(extra=(_RallyPlugin(),))


RALLY = """
[players.A]
[players.B]

[creatures.knight]
controller = "A"
power = 2
toughness = 2

[creatures.squire]
controller = "A"
power = 1
toughness = 1

[[turn.casts]]
card = "Rally Cry"
caster = "A"
main = 1
target = "knight"

[[combats]]
attackers = { knight = "B" }

[[combats]]
attackers = { knight = "B" }
"""


def test_a_spell_adds_a_combat_and_a_main_phase(rally_registry: Registry) -> None:
    """500.8: the spell's combat and main phase come directly after the main phase it was
    cast in, before the turn's own combat. Vigilance from it lasts the turn: the knight
    attacks untapped in both combat phases, 2 + 2 damage: B at 16."""
    turn = turn_of(RALLY, rally_registry)
    assert [(p.kind, p.created_by) for p in turn.phases] == [
        ("main", "turn"),
        ("combat", "Rally Cry (A)"),
        ("main", "Rally Cry (A)"),
        ("combat", "turn"),
        ("main", "turn"),
    ]
    out = ReferenceEngine(rally_registry).resolve_turn(turn).to_json()
    assert [dealt(c, "regular") for c in out["combats"]] == [{("knight", "B", 2)}] * 2
    assert out["players"]["B"]["life"] == 16


def test_without_the_spell_on_it_the_attacker_is_tapped(rally_registry: Registry) -> None:
    """508.1f: Rally Cry on the squire: the knight taps attacking in combat 1 and can't attack
    in combat 2."""
    message = error_of(RALLY.replace('target = "knight"', 'target = "squire"'), rally_registry)
    assert message.startswith("turn.toml: combats[1].attackers.knight: 'knight' can't attack")
    assert "tapped" in message


def test_main_phases_count_those_spells_add(rally_registry: Registry) -> None:
    """`main` counts the main phases as they happen, the added ones included: main 2 is the
    one Rally Cry adds (so a second Rally Cry there adds two more phases); main 5 never comes."""
    second = (
        RALLY + '\n[[turn.casts]]\ncard = "Rally Cry"\ncaster = "A"\nmain = 2\ntarget = "squire"\n'
    )
    turn = turn_of(second, rally_registry)
    kinds = ["main", "combat", "main", "combat", "main", "combat", "main"]
    assert [p.kind for p in turn.phases] == kinds
    with pytest.raises(InputError) as caught:
        turn_of(second.replace("main = 2", "main = 5"), rally_registry)
    assert str(caught.value) == (
        "turn.toml: turn.casts[1].main: main phase 5 never happens: the turn has 3 main phases "
        "(`ecs-combat phases FILE` lists them)"
    )


# -- the seed cards in a turn (RULES.md 6 and 8) ---------------------------------------------------

SEED_TURN = """
[players.A]
[players.B]

[creatures.knight]
controller = "A"
power = 2
toughness = 2

[creatures.wb]
card = "Throat Wolf"
controller = "B"

[[turn.casts]]
card = "Resurgence"
caster = "A"
main = 1

[[turn.casts]]
card = "Battery"
caster = "A"
main = 2
token = "el"

[[turn.casts]]
card = "Assault"
caster = "B"
main = 3
target = "A"

[[combats]]
attackers = { knight = "B" }

[[combats]]
attackers = { wb = "A" }

[[combats]]
attackers = { knight = "B" }
blockers = { }
"""


def test_resurgence_battery_and_assault_in_main_phases(
    registry: Registry, resolve_turn: ResolveTurn
) -> None:
    """8: Resurgence in main 1 gives the knight first strike and vigilance until end of turn
    and adds a combat (A's) and a main phase; B's Wolf answers A's first combat. The knight
    deals 2 to B in the first-strike step of combat 1 and, untapped, again in combat 3 (the
    turn's own). The Wolf deals 3 to A. Battery in main 2 (Resurgence's) makes A's Elephant.
    B's Assault in main 3 comes after the last combat phase, as which the outcome is taken
    (CONTRACT 6): A: 20 - 3 = 17; B: 20 - 2 - 2 = 16."""
    out = resolve_turn(SEED_TURN)
    assert [(p["phase"], p["created_by"]) for p in out["phases"]] == [
        ("main", "turn"),
        ("combat", "Resurgence (A)"),
        ("combat", "Throat Wolf (wb)"),
        ("main", "Resurgence (A)"),
        ("combat", "turn"),
        ("main", "turn"),
    ]
    first, wolf, last = out["combats"]
    assert dealt(first, "first-strike") == {("knight", "B", 2)}
    assert dealt(wolf, "firstest-strike") == {("wb", "A", 3)}
    assert dealt(last, "first-strike") == {("knight", "B", 2)}
    assert (out["players"]["A"]["life"], out["players"]["B"]["life"]) == (17, 16)
    el = out["creatures"]["el"]
    assert (el["alive"], el["power"], el["toughness"]) == (True, 3, 3)


def test_resurgence_cast_by_another_player(tmp_path: Path, registry: Registry) -> None:
    """8: cast in A's main phase by B, Resurgence's combat phase is A's (the active player's)."""
    text = players("A", "B") + '[[turn.casts]]\ncard = "Resurgence"\ncaster = "B"\nmain = 1\n'
    got = phases_json(tmp_path, text)
    assert [(p["phase"], p["player"], p["created_by"]) for p in got] == [
        ("main", "A", "turn"),
        ("combat", "A", "Resurgence (B)"),
        ("main", "A", "Resurgence (B)"),
        ("combat", "A", "turn"),
        ("main", "A", "turn"),
    ]


def test_a_token_from_a_cast_event_stays_for_later_combats(
    registry: Registry, resolve_turn: ResolveTurn
) -> None:
    """8: Battery cast during A's combat phase makes B's Elephant (not in combat); it stays,
    and blocks A's Wolf in A's Wolf combat (combat 3). The Wolf (3/1, firstest strike, and
    vigilance here) deals 3 first: the 3/3 Elephant dies without dealing damage. B took 3 in
    combat 1: 17."""
    text = (
        players("A", "B")
        + wolves("A", "B")
        + "[[combats]]\nevents = [{ at = 'declare-blockers', action = 'cast', card = 'Battery', "
        + "caster = 'B', token = 'el' }]\nattackers = { wa = 'B' }\n\n"
        + "[[combats]]\n\n[[combats]]\nattackers = { wa = 'B' }\nblockers = { el = 'wa' }\n"
    )
    text = text.replace(
        'controller = "A"\n', 'controller = "A"\nkeywords = ["firstest strike", "vigilance"]\n', 1
    )
    out = resolve_turn(text)
    assert dealt(out["combats"][0], "firstest-strike") == {("wa", "B", 3)}
    assert dealt(out["combats"][2], "firstest-strike") == {("wa", "el", 3)}
    assert out["creatures"]["el"]["alive"] is False
    assert out["players"]["B"]["life"] == 17


def test_joint_assault_in_the_precombat_main_phase_lasts_into_combat(
    registry: Registry, resolve_turn: ResolveTurn
) -> None:
    """8: Joint Assault needs no creature in combat: cast in main phase 1 it gives the knight
    +2/+2 until end of turn (4/4). Blocked by the 3/3 bear in the turn's combat, the knight
    takes 3 and lives, and deals 4: the bear dies."""
    text = (
        players("A", "B")
        + "[creatures.knight]\ncontroller = 'A'\npower = 2\ntoughness = 2\n\n"
        + "[creatures.bear]\ncontroller = 'B'\npower = 3\ntoughness = 3\n\n"
        + "[[turn.casts]]\ncard = 'Joint Assault'\ncaster = 'A'\nmain = 1\ntarget = 'knight'\n\n"
        + "[[combats]]\nattackers = { knight = 'B' }\nblockers = { bear = 'knight' }\n"
    )
    out = resolve_turn(text)
    (combat,) = out["combats"]
    assert dealt(combat, "regular") == {("knight", "bear", 4), ("bear", "knight", 3)}
    assert combat["steps"][0]["died"] == ["bear"]
    knight = out["creatures"]["knight"]
    assert (knight["alive"], knight["damage"], knight["power"], knight["toughness"]) == (
        True,
        3,
        4,
        4,
    )


LOSER_ATTACKED_AGAIN = """
[players.A]
[players.B]
life = 3
[players.C]

[creatures.ogre]
controller = "A"
power = 3
toughness = 3

[creatures.wc]
card = "Throat Wolf"
controller = "C"

[[combats]]
attackers = { ogre = "B" }

[[combats]]
attackers = { wc = "B" }
"""


@pytest.mark.parametrize("engine", ENGINES)
def test_a_player_who_lost_cannot_be_attacked_later(engine: str, registry: Registry) -> None:
    """800.4a: B (3 life) takes 3 from the unblocked ogre in A's combat and loses, leaving the
    game; C's Throat Wolf combat follows A's first combat, and its Wolf can't attack B."""
    with pytest.raises(InputError) as caught:
        turn_resolver(engine, registry)(LOSER_ATTACKED_AGAIN)
    assert str(caught.value) == (
        "turn.toml: combats[1].attackers.wc: 'wc' can't attack in combat phase 2: "
        "'B' has left the game"
    )
