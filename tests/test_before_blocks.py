"""The legality of blocks judged from the plugins' ``before_blocks`` parts (RULES.md section 4:
the creatures as blockers are declared, after the attack triggers), with no engine played:
hand-derived cases per keyword whose attack trigger changes who may block (exalted, battle
cry, provoke, and the skeletons' counters), each legal board resolved on both engines; where
a part can't say it (a system without one, parts reading what others change) the batched
engine plays the declaration; and a property: on drawn small boards the parts, the batched
engine and the reference combat give the same creatures as blockers are declared and the
same legality."""

from __future__ import annotations

import dataclasses
import json
import tomllib
from collections.abc import Collection

import pytest
from conftest import ENGINES, engine_resolver
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from scenario_text import combat, creature

import ecs_combat.batched
from ecs_combat import (
    BeforeBlocks,
    Changes,
    CounterTrigger,
    DeclaredAttack,
    InputError,
    Keyword,
    PumpTrigger,
    Registry,
    Scenario,
    System,
    attack_trigger,
    hookimpl,
    parse_scenario,
)
from ecs_combat.batched import play_declarations as batched_declarations
from ecs_combat.decisions import declarations
from ecs_combat.reference.characteristics import play_declarations as reference_declarations
from ecs_combat.rules.before_blocks import from_parts
from ecs_combat.rules.characteristics import check_declarations_now
from ecs_combat.rules.declaring import Declared
from ecs_combat.rules.sides import KeywordSide
from ecs_combat.testing import registry_with

PLAYERS = "[players.A]\n[players.B]\n"


def board(text: str, registry: Registry, players: str = PLAYERS) -> Scenario:
    """A scenario read by the loader, its blocks checked as it reads them."""
    return parse_scenario(tomllib.loads(players + text), registry, "test.toml")


def blocked(scenario: Scenario, blockers: dict[str, str]) -> Scenario:
    return dataclasses.replace(scenario, blockers={b: (a,) for b, a in blockers.items()})


def no_engine(scenario: Scenario, registry: Registry, attackers_tapped: bool) -> Declared:
    raise AssertionError("an engine was asked")


@pytest.fixture
def asked(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The batched engine's player the loader names, counting the boards it is asked for."""
    calls: list[str] = []

    def player(scenario: Scenario, registry: Registry, attackers_tapped: bool) -> Declared:
        calls.append(scenario.file)
        return batched_declarations(scenario, registry, attackers_tapped)

    monkeypatch.setattr(ecs_combat.batched, "play_declarations", player)
    return calls


# -- exalted (702.83) --------------------------------------------------------------------------


def test_702_83a_exalted_makes_a_lone_skulker_blockable(registry: Registry) -> None:
    """702.83a, 702.118b: the 1/1 sneak with skulk attacks alone; the 0/1 lookout with two
    instances of exalted (702.83b: each triggers) makes it a 3/3 as blockers are declared. The
    3/3 ogre may block it then (power not greater), the 4/4 troll may not; as given (power 1)
    the ogre could not. No engine is asked."""
    sc = board(
        creature("sneak", "A", 1, 1, "skulk")
        + creature("lookout", "A", 0, 1, "exalted", "exalted")
        + creature("ogre", "B", 3, 3)
        + creature("troll", "B", 4, 4)
        + combat({"sneak": "B"}),
        registry,
    )
    found = from_parts(sc, registry)
    assert found is not None and found.blocking["sneak"].power == 3
    assert found.attacking["sneak"].power == 1
    check_declarations_now(blocked(sc, {"ogre": "sneak"}), registry, no_engine)
    with pytest.raises(InputError, match=r"'troll' can't block 'sneak'.*\(702\.118\)"):
        check_declarations_now(blocked(sc, {"troll": "sneak"}), registry, no_engine)


def test_702_83a_exalted_needs_the_attacker_alone(registry: Registry) -> None:
    """702.83a: two attackers, so exalted doesn't trigger; the skulker stays a 1/1 and the
    2/2 bear can't block it (702.118b)."""
    sc = board(
        creature("sneak", "A", 1, 1, "skulk", "exalted")
        + creature("ogre", "A", 3, 3)
        + creature("bear", "B", 2, 2)
        + combat({"sneak": "B", "ogre": "B"}),
        registry,
    )
    with pytest.raises(InputError, match=r"'bear' can't block 'sneak'.*\(702\.118\)"):
        check_declarations_now(blocked(sc, {"bear": "sneak"}), registry, no_engine)


@pytest.mark.parametrize("engine", ENGINES)
def test_702_83a_the_block_resolves_on_both_engines(engine: str, registry: Registry) -> None:
    """The ogre blocks the exalted sneak (3/3 then): each deals 3 to the other, both die; the
    lookout stays home."""
    sc = board(
        creature("sneak", "A", 1, 1, "skulk")
        + creature("lookout", "A", 0, 1, "exalted", "exalted")
        + creature("ogre", "B", 3, 3)
        + combat({"sneak": "B"}, {"ogre": "sneak"}),
        registry,
    )
    out = engine_resolver(engine, registry)(sc).to_json()
    assert sorted(out["steps"][0]["died"]) == ["ogre", "sneak"]
    assert out["creatures"]["sneak"]["power"] == 3
    assert out["players"]["B"]["life"] == 20


# -- battle cry (702.91) -----------------------------------------------------------------------


def test_702_91a_battle_cry_pumps_the_other_attackers_only(registry: Registry) -> None:
    """702.91a: the herald's battle cry gives each other attacker +1/+0 as blockers are
    declared: the 1/1 sneak with skulk is a 2/1, so the 2/2 bear may block it (702.118b) and
    the 3/3 ogre may not; the herald itself (a 1/1 with skulk too) gets nothing, so the bear
    can't block it."""
    sc = board(
        creature("herald", "A", 1, 1, "battle cry", "skulk")
        + creature("sneak", "A", 1, 1, "skulk")
        + creature("bear", "B", 2, 2)
        + creature("ogre", "B", 3, 3)
        + combat({"herald": "B", "sneak": "B"}),
        registry,
    )
    found = from_parts(sc, registry)
    assert found is not None
    assert (found.blocking["sneak"].power, found.blocking["herald"].power) == (2, 1)
    check_declarations_now(blocked(sc, {"bear": "sneak"}), registry, no_engine)
    with pytest.raises(InputError, match=r"'ogre' can't block 'sneak'.*\(702\.118\)"):
        check_declarations_now(blocked(sc, {"ogre": "sneak"}), registry, no_engine)
    with pytest.raises(InputError, match=r"'bear' can't block 'herald'.*\(702\.118\)"):
        check_declarations_now(blocked(sc, {"bear": "herald"}), registry, no_engine)


@pytest.mark.parametrize("engine", ENGINES)
def test_702_91a_the_block_resolves_on_both_engines(engine: str, registry: Registry) -> None:
    """The bear blocks the 2/1 sneak: the sneak deals 2 (bear dies), the bear 2 (sneak dies);
    the 1/1 herald is unblocked: B loses 1."""
    sc = board(
        creature("herald", "A", 1, 1, "battle cry", "skulk")
        + creature("sneak", "A", 1, 1, "skulk")
        + creature("bear", "B", 2, 2)
        + combat({"herald": "B", "sneak": "B"}, {"bear": "sneak"}),
        registry,
    )
    out = engine_resolver(engine, registry)(sc).to_json()
    assert sorted(out["steps"][0]["died"]) == ["bear", "sneak"]
    assert out["players"]["B"]["life"] == 19


# -- provoke (702.39) --------------------------------------------------------------------------


def test_702_39a_provoke_untaps_its_target_and_requires_the_block(registry: Registry) -> None:
    """702.39a, 509.1a, 509.1c: the wall is tapped as the combat begins; the goblin's provoke
    untaps it and it must block the goblin if able. With no block that is a broken
    requirement; the wall's block is legal (untapped now); the tapped elf still can't block
    (509.1a). No engine is asked."""
    text = (
        creature("goblin", "A", 2, 2, "provoke", targets={"provoke": "wall"})
        + creature("wall", "B", 0, 2, tapped=True)
        + creature("elf", "B", 1, 1, tapped=True)
    )
    sc = board(text + combat({"goblin": "B"}, {"wall": "goblin"}), registry)
    found = from_parts(sc, registry)
    assert found is not None
    assert found.made == [("wall", "goblin", "provoke")]
    assert found.tapped == {"goblin", "elf"}
    check_declarations_now(sc, registry, no_engine)
    with pytest.raises(InputError, match=r"'wall' is able to block 'goblin' and doesn't"):
        check_declarations_now(blocked(sc, {}), registry, no_engine)
    with pytest.raises(InputError, match=r"'elf'.*tapped"):
        check_declarations_now(blocked(sc, {"elf": "goblin"}), registry, no_engine)


@pytest.mark.parametrize("engine", ENGINES)
def test_702_39a_the_provoked_block_resolves_on_both_engines(
    engine: str, registry: Registry
) -> None:
    """The untapped 0/2 wall blocks the 2/2 goblin: the wall dies, B loses nothing."""
    sc = board(
        creature("goblin", "A", 2, 2, "provoke", targets={"provoke": "wall"})
        + creature("wall", "B", 0, 2, tapped=True)
        + combat({"goblin": "B"}, {"wall": "goblin"}),
        registry,
    )
    out = engine_resolver(engine, registry)(sc).to_json()
    assert out["creatures"]["wall"]["alive"] is False
    assert out["players"]["B"]["life"] == 20


# -- annihilator (702.86) ---------------------------------------------------------------------


def _blockers(sc: Scenario, registry: Registry, monkeypatch: pytest.MonkeyPatch) -> tuple[str, ...]:
    """Who may block, as the decision search judges it, with no engine to ask."""
    monkeypatch.setattr(declarations, "play_declarations", no_engine)
    return declarations.block_options(sc, registry, "B").blocker_ids


def test_702_86a_annihilator_takes_the_least_valuable_last_listed(
    registry: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    """702.86a, RULES 13 and 9: annihilator 1 makes B sacrifice one creature, unnamed, so its
    least valuable (cub and mouse: value 2 each), the last listed on ties: the mouse. It left
    before blocks (RULES 11.3): only the cub and the bear may block."""
    sc = board(
        creature("eldrazi", "A", 5, 5, "annihilator 1")
        + creature("cub", "B", 1, 1)
        + creature("mouse", "B", 1, 1)
        + creature("bear", "B", 3, 3)
        + combat({"eldrazi": "B"}),
        registry,
    )
    found = from_parts(sc, registry)
    assert found is not None and found.gone == {"mouse"}
    assert _blockers(sc, registry, monkeypatch) == ("cub", "bear")


def test_702_86a_each_trigger_takes_the_next_named(
    registry: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    """702.86a, RULES 13: two attackers with annihilator 1 trigger in file order; B names the
    bear then the wurm, one per trigger: both leave, the cub alone may block."""
    sc = board(
        creature("first", "A", 5, 5, "annihilator 1")
        + creature("second", "A", 5, 5, "annihilator 1")
        + creature("cub", "B", 1, 1)
        + creature("bear", "B", 3, 3)
        + creature("wurm", "B", 6, 6)
        + combat({"first": "B", "second": "B"})
        + '[sacrifices]\nB = ["bear", "wurm"]\n',
        registry,
    )
    assert _blockers(sc, registry, monkeypatch) == ("cub",)


@pytest.mark.parametrize("engine", ENGINES)
def test_702_86a_a_sacrificed_blocker_does_not_block_on_both_engines(
    engine: str, registry: Registry
) -> None:
    """RULES 11.3: the mouse is listed as the eldrazi's blocker but was sacrificed (the least
    valuable, last listed): the 5/5 eldrazi is unblocked, B goes to 15."""
    sc = board(
        creature("eldrazi", "A", 5, 5, "annihilator 1")
        + creature("cub", "B", 1, 1)
        + creature("mouse", "B", 1, 1)
        + combat({"eldrazi": "B"}, {"mouse": "eldrazi"}),
        registry,
    )
    out = engine_resolver(engine, registry)(sc).to_json()
    assert out["creatures"]["mouse"]["alive"] is False
    assert out["creatures"]["cub"]["alive"] is True
    assert out["players"]["B"]["life"] == 15


# -- myriad (702.116) ---------------------------------------------------------------------------


def test_702_116a_myriad_makes_nothing_with_two_players(registry: Registry) -> None:
    """702.116a: a token for each opponent other than the defending player: with two players
    none, so the part says nothing changes (no engine); with a third player C a token attacks
    C, which only an engine makes: the part declines."""
    text = creature("horde", "A", 2, 2, "myriad") + creature("bear", "B", 2, 2)
    two = board(text + combat({"horde": "B"}, {"bear": "horde"}), registry)
    found = from_parts(two, registry)
    assert found is not None and found.gone == set()
    three = board(
        text + combat({"horde": "B"}, {"bear": "horde"}), registry, PLAYERS + "[players.C]\n"
    )
    assert from_parts(three, registry) is None


# -- counters: dethrone (702.105), training (702.149) -------------------------------------------


def test_702_105a_dethrone_counter_from_the_skeleton(registry: Registry) -> None:
    """702.105a, 122.1a: the 1/1 sneak with skulk and dethrone attacks B, who has the most
    life (20 to 10): a +1/+1 counter makes it a 2/2, so the 2/2 bear may block it (702.118b).
    The part is CounterTrigger's, chosen by dethrone's condition."""
    sc = board(
        creature("sneak", "A", 1, 1, "skulk", "dethrone")
        + creature("bear", "B", 2, 2)
        + combat({"sneak": "B"}, {"bear": "sneak"}),
        registry,
        "[players.A]\nlife = 10\n[players.B]\nlife = 20\n",
    )
    found = from_parts(sc, registry)
    assert found is not None and found.blocking["sneak"].power == 2
    check_declarations_now(sc, registry, no_engine)


def test_702_149a_training_reads_power_so_the_engine_plays_it(
    registry: Registry, asked: list[str]
) -> None:
    """702.149a: training triggers when an attacker with greater power attacks too; its part
    reads power, which its own +1/+1 counter changes, so the parts don't answer and the
    batched engine is asked once. The 1/1 trainee with skulk gets the counter (a 2/2): the 2/2
    bear may block it (702.118b)."""
    sc = board(
        creature("trainee", "A", 1, 1, "skulk", "training")
        + creature("ogre", "A", 3, 3)
        + creature("bear", "B", 2, 2)
        + combat({"trainee": "B", "ogre": "B"}, {"bear": "trainee"}),
        registry,
    )
    assert from_parts(sc, registry) is None
    assert asked == ["test.toml"]


# -- the skeletons carry their part -------------------------------------------------------------


def test_the_skeletons_attack_triggers_carry_their_part() -> None:
    """An attack trigger resolving with a PumpTrigger or a CounterTrigger gets its part with no
    code: by hand, the attacker with "rally 2" and "rally 1" (+1/+0 for each N) gets +3/+0,
    the one with two instances of "drill" two +1/+1 counters; the creature that doesn't attack
    gets nothing; a trigger resolving its own way has no part (an engine plays it)."""
    board = DeclaredAttack(
        creatures=("a", "b", "home"),
        controller={"a": "A", "b": "A", "home": "A"},
        attacks={"a": "B", "b": "B"},
        power={"a": 1, "b": 1, "home": 1},
        toughness={"a": 1, "b": 1, "home": 1},
        keywords={
            "a": (("rally", 2), ("rally", 1)),
            "b": (("drill", None), ("drill", None)),
            "home": (("rally", 5), ("drill", None)),
        },
        targets={"a": {}, "b": {}, "home": {}},
        life={"A": 20, "B": 20},
    )
    pump = PumpTrigger("rally", 1, 0, "")
    counter = CounterTrigger("drill", "+1/+1", "")
    rally = attack_trigger("rally", pump.resolve, pump.resolve_batched).before_blocks
    drill = attack_trigger("drill", counter.resolve, counter.resolve_batched).before_blocks
    assert rally is not None and drill is not None
    assert rally.changes(board) == Changes(pump={"a": (3, 0)})
    assert drill.changes(board) == Changes(counters={"b": {"+1/+1": 2}})
    own = attack_trigger("rally", lambda combat, trigger: None, pump.resolve_batched)
    assert own.before_blocks is None


# -- the part in a third party's plugin ----------------------------------------------------------

WARCRY = "warcry"


def _warcry_changes(board: DeclaredAttack) -> Changes:
    return Changes(pump={a: (2, 0) for a in board.attackers() if board.instances(a, WARCRY)})


class Warcry:
    """A third party's attack trigger: +2/+0 to its source, written without the skeletons;
    with or without its part."""

    def __init__(self, part: bool) -> None:
        self.part = part

    @hookimpl
    def register_keywords(self) -> list[Keyword]:
        return [Keyword(WARCRY, rule="test")]

    @hookimpl
    def register_systems(self) -> list[System]:
        def resolve(combat, trigger):  # type: ignore[no-untyped-def]
            combat.pump(trigger.source, 2, 0)

        def resolve_batched(batch, triggers):  # type: ignore[no-untyped-def]
            batch.pump(triggers.source, 2, 0)

        part = BeforeBlocks(_warcry_changes) if self.part else None
        return [attack_trigger(WARCRY, resolve, resolve_batched, before_blocks=part)]


@pytest.mark.parametrize("part", [True, False])
def test_a_third_partys_part_or_the_engine(part: bool, asked: list[str]) -> None:
    """RULES 4, 702.118b: the warcry pumps the 1/1 skulker to a 3/1 before blocks, so the 3/3
    ogre may block it. With its part the rules core reads it; without one the batched engine
    plays the declaration: the same judgement, never the creature as given."""
    registry = registry_with(extra=[Warcry(part)])
    sc = board(
        creature("sneak", "A", 1, 1, "skulk", WARCRY)
        + creature("ogre", "B", 3, 3)
        + combat({"sneak": "B"}, {"ogre": "sneak"}),
        registry,
    )
    assert asked == ([] if part else ["test.toml"])
    assert (from_parts(sc, registry) is None) is not part


class Shout:
    """A third party's system with neither a part nor a batched form: +2/+0 to each of its
    attackers, reference engine only."""

    @hookimpl
    def register_keywords(self) -> list[Keyword]:
        return [Keyword("shout", rule="test")]

    @hookimpl
    def register_systems(self) -> list[System]:
        def shout(combat, declaration):  # type: ignore[no-untyped-def]
            for a in declaration.attackers:
                if combat.has(a, "shout"):
                    combat.pump(a, 2, 0)

        return [System("declare-attackers", "shout", shout, None, {"shout"})]


def test_a_board_the_batched_engine_refuses_is_played_by_the_reference_engine() -> None:
    """RULES 4, 702.118b: the shout makes the 1/1 skulker a 3/1 before blocks; the batched
    engine refuses the board (no batched form), so its player plays it in a reference world:
    the 3/3 ogre may block, the 4/4 troll may not."""
    registry = registry_with(extra=[Shout()])
    text = (
        creature("sneak", "A", 1, 1, "skulk", "shout")
        + creature("ogre", "B", 3, 3)
        + creature("troll", "B", 4, 4)
    )
    sc = board(text + combat({"sneak": "B"}, {"ogre": "sneak"}), registry)
    assert batched_declarations(sc, registry, True).blocking["sneak"].power == 3
    with pytest.raises(InputError, match=r"'troll' can't block 'sneak'.*\(702\.118\)"):
        board(text + combat({"sneak": "B"}, {"troll": "sneak"}), registry)


# -- the parts, the batched engine and the reference combat agree -------------------------------

ATTACKING_KEYWORDS = (
    "exalted", "battle cry", "provoke", "vigilance", "dethrone", "training", "battalion +1/+0",
    "melee", "decayed", "skulk", "daunt", "menace", "flying", "annihilator 1", "annihilator 2",
    "mentor", "persist", "myriad",
)  # fmt: skip
BLOCKING_KEYWORDS = ("flying", "reach", "exalted", "skulk", "persist")


@st.composite
def small_boards(draw: st.DrawFn) -> str:
    """A board of 1-3 attackers of A and 1-3 creatures of B, with the keywords above, some
    +1/+1 counters, tapped blockers and life totals; now and then a third player C with one
    creature, whom some attackers attack (melee counts two opponents, dethrone compares three
    life totals); provoke aims at a creature of the player its creature attacks; B names some
    of its creatures for annihilator's sacrifices now and then."""
    n_a, n_b = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    life_a, life_b = draw(st.integers(1, 20)), draw(st.integers(1, 20))
    text = f"[players.A]\nlife = {life_a}\n[players.B]\nlife = {life_b}\n"
    defending = {"B": [f"b{i}" for i in range(n_b)]}
    if draw(st.booleans()):
        text += f"[players.C]\nlife = {draw(st.integers(1, 20))}\n"
        defending["C"] = ["c0"]
    a_ids = [f"a{i}" for i in range(n_a)]
    attackers = draw(st.lists(st.sampled_from(a_ids), min_size=1, unique=True))
    attacks = {a: draw(st.sampled_from(sorted(defending))) for a in attackers}
    taken = 0  # how many creatures annihilator makes B sacrifice
    for cid in a_ids:
        kws = draw(st.lists(st.sampled_from(ATTACKING_KEYWORDS), max_size=3, unique=True))
        if attacks.get(cid) == "B":
            taken += sum(int(k.split()[1]) for k in kws if k.startswith("annihilator"))
        extra: dict[str, object] = {}
        if "provoke" in kws:
            extra["targets"] = {"provoke": draw(st.sampled_from(defending[attacks.get(cid, "B")]))}
        if draw(st.booleans()):
            extra["counters"] = {"+1/+1": draw(st.integers(1, 2))}
        text += creature(cid, "A", draw(st.integers(0, 4)), draw(st.integers(1, 4)), *kws, **extra)
    for player, ids in defending.items():
        for cid in ids:
            kws = draw(st.lists(st.sampled_from(BLOCKING_KEYWORDS), max_size=2, unique=True))
            power, toughness = draw(st.integers(0, 4)), draw(st.integers(1, 4))
            text += creature(cid, player, power, toughness, *kws, tapped=draw(st.booleans()))
    text += combat(attacks)
    if taken and draw(st.booleans()):  # B names some of the creatures it sacrifices
        most = min(taken, len(defending["B"]))
        named = draw(
            st.lists(st.sampled_from(defending["B"]), min_size=1, max_size=most, unique=True)
        )
        text += f"[sacrifices]\nB = {json.dumps(named)}\n"
    return text


def _seen(side: KeywordSide, keywords: Collection[str]) -> tuple[object, ...]:
    """What the restrictions read of a side (its keywords' instances, counter kinds left out:
    the loader's sides list those too)."""
    names = sorted({k for k, _ in side.instances if k in keywords})
    values = tuple(side.values(k) for k in names)
    return (names, values, side.power, side.color_bits, side.type_bits, side.land_bits)


def _same(one: Declared, other: Declared, ids: list[str], keywords: Collection[str]) -> None:
    for cid in ids:
        assert _seen(one.attacking[cid], keywords) == _seen(other.attacking[cid], keywords), cid
        assert _seen(one.blocking[cid], keywords) == _seen(other.blocking[cid], keywords), cid
    # of the scenario's creatures: tokens made before blocks (myriad's) no block names
    assert one.tapped & set(ids) == other.tapped & set(ids)
    assert sorted(one.made) == sorted(other.made)
    assert one.gone & set(ids) == other.gone & set(ids)


def _legality(sc: Scenario, registry: Registry, player: object) -> list[str]:
    """Each single block of a creature of B on an attacker: '' if legal, else the error."""
    out = []
    for b in (c for c, s in sc.creatures.items() if s.controller == "B"):
        for a in sc.attackers:
            try:
                check_declarations_now(blocked(sc, {b: a}), registry, player)  # type: ignore[arg-type]
                out.append("")
            except InputError as exc:
                out.append(str(exc))
    return out


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=small_boards())
def test_the_parts_the_batched_engine_and_the_reference_combat_agree(
    registry: Registry, text: str
) -> None:
    """On drawn small boards: where the parts answer, the creatures as attackers and as
    blockers are declared, which are tapped, the requirements made and who left are the
    reference combat's; the batched engine's (the fallback) are too, on every board; and so
    is the legality of each single block judged from them."""
    sc = parse_scenario(tomllib.loads(text), registry, "drawn.toml", blocks_to_decide=True)
    ids = list(sc.creatures)
    reference = reference_declarations(sc, registry, True)
    parts = from_parts(sc, registry)
    event("the parts answer" if parts is not None else "an engine plays it")
    if parts is not None:
        _same(parts, reference, ids, registry.keywords)
    _same(batched_declarations(sc, registry, True), reference, ids, registry.keywords)
    assert _legality(sc, registry, batched_declarations) == _legality(
        sc, registry, reference_declarations
    )
