"""Protection from creatures, from everything and from multicolored (702.16, 702.16j; RULES.md
section 10) on both engines (the `resolve` fixture): blocks, damage, targets of spells and
abilities, event damage, the scenario words, and the decision search."""

from __future__ import annotations

import subprocess
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from conftest import Resolve, bundled_registry, dealt, text_resolver
from scenario_text import combat, creature, event

from ecs_combat import Card, InputError, TargetRule, hookimpl, parse_scenario
from ecs_combat.decisions import best_blocks
from ecs_combat.plugin.registry import Registry
from ecs_combat.scenario.writer import scenario_document

if TYPE_CHECKING:
    from ecs_combat.plugin.views import EffectTarget

PLAYERS = "[players.A]\n[players.B]\n"


def invalid(registry: Registry, text: str) -> InputError:
    with pytest.raises(InputError) as info:
        parse_scenario(tomllib.loads(text), registry, "test.toml")
    return info.value


# -- blocks (702.16e) ----------------------------------------------------------------------------


@pytest.mark.parametrize("quality", ["creatures", "everything"])
def test_702_16e_from_creatures_or_everything_no_creature_can_block_it(
    registry: Registry, quality: str
) -> None:
    """Any creature, even a colorless one, has the quality "creature" (and everything)."""
    err = invalid(
        registry,
        PLAYERS
        + creature("ghost", "A", 2, 2, f"protection from {quality}")
        + creature("golem", "B", 2, 2)
        + combat({"ghost": "B"}, {"golem": "ghost"}),
    )
    assert err.path == "combat.blockers.golem"
    assert "protection" in str(err) and "702.16e" in str(err)


def test_702_16e_from_multicolored_a_creature_of_two_colors_cant_block_it(
    registry: Registry,
) -> None:
    err = invalid(
        registry,
        PLAYERS
        + creature("ghost", "A", 2, 2, "protection from multicolored")
        + creature("gold", "B", 2, 2, colors=["black", "green"])
        + combat({"ghost": "B"}, {"gold": "ghost"}),
    )
    assert err.path == "combat.blockers.gold"


def test_702_16e_from_multicolored_a_one_color_or_colorless_creature_may_block(
    resolve: Resolve,
) -> None:
    """A green 1/1 and a colorless 1/1 block the 2/2: it assigns 1 to each (lethal, in order),
    both die; it takes 1 + 1 = 2 and dies too."""
    out = resolve(
        PLAYERS
        + creature("ghost", "A", 2, 2, "protection from multicolored")
        + creature("elf", "B", 1, 1, colors=["green"])
        + creature("golem", "B", 1, 1)
        + combat({"ghost": "B"}, {"elf": "ghost", "golem": "ghost"})
    )
    assert dealt(out, "regular") == {
        ("ghost", "elf", 1),
        ("ghost", "golem", 1),
        ("elf", "ghost", 1),
        ("golem", "ghost", 1),
    }
    assert not out["creatures"]["ghost"]["alive"]


# -- combat damage (702.16f) ----------------------------------------------------------------------


@pytest.mark.parametrize("quality", ["creatures", "everything"])
def test_702_16f_damage_from_any_creature_is_prevented(resolve: Resolve, quality: str) -> None:
    """A colorless 3/3 blocked by a 2/2 with protection from creatures (everything): its 3 is
    prevented (not listed), the 2/2 has 0 damage and deals 2 back."""
    out = resolve(
        PLAYERS
        + creature("brute", "A", 3, 3)
        + creature("monk", "B", 2, 2, f"protection from {quality}")
        + combat({"brute": "B"}, {"monk": "brute"})
    )
    assert dealt(out, "regular") == {("monk", "brute", 2)}
    assert out["creatures"]["monk"]["alive"] and out["creatures"]["monk"]["damage"] == 0


def test_702_16f_prevented_damage_gives_no_life_and_destroys_nothing(resolve: Resolve) -> None:
    """A 1/1 with deathtouch and lifelink blocked by a 2/2 with protection from creatures: its
    1 is prevented, so A gains nothing (20) and the 2/2 lives; the 2/2's 2 kills it."""
    out = resolve(
        PLAYERS
        + creature("asp", "A", 1, 1, "deathtouch", "lifelink")
        + creature("monk", "B", 2, 2, "protection from creatures")
        + combat({"asp": "B"}, {"monk": "asp"})
    )
    assert out["players"]["A"]["life"] == 20
    assert out["creatures"]["monk"]["alive"]
    assert not out["creatures"]["asp"]["alive"]


def test_702_16f_from_multicolored_only_sources_of_two_or_more_colors(resolve: Resolve) -> None:
    """A red-green 3/3 blocked by a 2/2 with protection from multicolored deals nothing to it;
    a red 3/3 blocked by another deals 3: that one dies."""
    out = resolve(
        PLAYERS
        + creature("gold", "A", 3, 3, colors=["red", "green"])
        + creature("red", "A", 3, 3, colors=["red"])
        + creature("monk", "B", 2, 2, "protection from multicolored")
        + creature("nun", "B", 2, 2, "protection from multicolored")
        + combat({"gold": "B", "red": "B"}, {"monk": "gold", "nun": "red"})
    )
    assert dealt(out, "regular") == {("monk", "gold", 2), ("red", "nun", 3), ("nun", "red", 2)}
    assert out["creatures"]["monk"]["alive"] and not out["creatures"]["nun"]["alive"]


def test_702_16f_protection_from_creatures_doesnt_stop_damage_to_players(
    resolve: Resolve,
) -> None:
    """The attacker itself has protection from creatures: unblocked, its 3 reach B (17)."""
    out = resolve(
        PLAYERS + creature("ghost", "A", 3, 3, "protection from creatures") + combat({"ghost": "B"})
    )
    assert out["players"]["B"]["life"] == 17


# -- event damage (702.16j) -----------------------------------------------------------------------


def test_702_16j_from_everything_event_damage_is_prevented(resolve: Resolve) -> None:
    """A `damage` event of 5 to the attacking 2/2 with protection from everything is
    prevented: 0 damage, it lives and deals its 2 to B (20 - 2 = 18)."""
    out = resolve(
        PLAYERS
        + creature("ghost", "A", 2, 2, "protection from everything")
        + combat({"ghost": "B"})
        + event("declare-blockers", "damage", target="ghost", amount=5)
    )
    assert out["creatures"]["ghost"]["alive"] and out["creatures"]["ghost"]["damage"] == 0
    assert out["players"]["B"]["life"] == 18


def test_event_damage_to_others_is_dealt_beside_a_prevented_one(resolve: Resolve) -> None:
    """Both 2/2s attack. Only the one with protection from everything is spared: a second
    `damage` event of 2 kills the plain 2/2 before damage, one of 3 goes to B, then the ghost's
    2: B at 20 - 3 - 2 = 15."""
    out = resolve(
        PLAYERS
        + creature("ghost", "A", 2, 2, "protection from everything")
        + creature("bear", "A", 2, 2)
        + combat({"ghost": "B", "bear": "B"})
        + event("declare-blockers", "damage", target="ghost", amount=2)
        + event("declare-blockers", "damage", target="bear", amount=2)
        + event("declare-blockers", "damage", target="B", amount=3)
    )
    assert out["creatures"]["ghost"]["alive"] and out["creatures"]["ghost"]["damage"] == 0
    assert not out["creatures"]["bear"]["alive"]
    assert out["players"]["B"]["life"] == 15


@pytest.mark.parametrize("quality", ["creatures", "multicolored", "red"])
def test_other_qualities_leave_event_damage_alone(resolve: Resolve, quality: str) -> None:
    """A `damage` event has no source with a quality: 2 to a 2/2 with protection from
    creatures (multicolored, red) is dealt, and it dies (704.5g)."""
    out = resolve(
        PLAYERS
        + creature("bear", "A", 2, 2)
        + creature("monk", "B", 2, 2, f"protection from {quality}")
        + combat({"bear": "B"})
        + event("declare-blockers", "damage", target="monk", amount=2)
    )
    assert not out["creatures"]["monk"]["alive"]


# -- targets: spells (702.16c) and abilities (702.16b) ---------------------------------------------


def _pump(target: EffectTarget) -> None:
    target.pump(3, 3)


class _Cards:
    """A red and a red-green card giving +3/+3 to an attacking or blocking creature."""

    __name__ = "quality_cards"

    @hookimpl
    def register_cards(self) -> list[Card]:
        text = "Target attacking or blocking creature gets +3/+3 until end of turn."
        return [
            Card("Test Red Growth", "{R}", text, TargetRule(in_combat=True), _pump),
            Card("Test Gold Growth", "{R}{G}", text, TargetRule(in_combat=True), _pump),
        ]


@pytest.fixture(scope="module")
def cards(engine: str) -> Resolve:
    return text_resolver(engine, bundled_registry(extra=(_Cards(),)))


@pytest.mark.parametrize(
    ("quality", "card", "power"),
    [
        ("everything", "Test Red Growth", 2),  # nothing can target it
        ("creatures", "Test Red Growth", 5),  # a spell is not a creature
        ("multicolored", "Test Gold Growth", 2),  # two colors
        ("multicolored", "Test Red Growth", 5),  # one color
    ],
)
def test_702_16c_spells_with_the_quality_cant_target_it(
    cards: Resolve, quality: str, card: str, power: int
) -> None:
    """Its controller casts the card on the attacking 2/2: an illegal target does nothing
    (power 2, B at 18), a legal one gives +3/+3 (power 5, B at 15)."""
    out = cards(
        PLAYERS
        + creature("ghost", "A", 2, 2, f"protection from {quality}")
        + combat({"ghost": "B"})
        + event("declare-blockers", "cast", card=card, caster="A", target="ghost")
    )
    assert out["creatures"]["ghost"]["power"] == power
    assert out["players"]["B"]["life"] == 20 - power


@pytest.mark.parametrize(
    ("quality", "colors", "refused"),
    [
        ("creatures", ["red"], True),
        ("everything", [], True),
        ("multicolored", ["red", "green"], True),
        ("multicolored", ["red"], False),
    ],
)
def test_702_16b_abilities_of_creatures_with_the_quality_cant_target_it(
    registry: Registry, quality: str, colors: list[str], refused: bool
) -> None:
    """Provoke's source is a creature: its target may not have protection from creatures or
    everything, nor from multicolored when the provoker has two colors (RULES 10: an input
    error at creatures.<id>.targets.provoke)."""
    text = (
        PLAYERS
        + creature("goblin", "A", 2, 2, "provoke", targets={"provoke": "wall"}, colors=colors)
        + creature("wall", "B", 0, 2, f"protection from {quality}")
        + combat({"goblin": "B"}, None if refused else {"wall": "goblin"})
    )
    if refused:
        err = invalid(registry, text)
        assert err.path == "creatures.goblin.targets.provoke"
        assert "protection" in str(err)
    else:
        parse_scenario(tomllib.loads(text), registry, "test.toml")


def test_702_16b_mentor_cant_target_a_creature_with_protection_from_creatures(
    registry: Registry,
) -> None:
    text = (
        PLAYERS
        + creature("sage", "A", 3, 3, "mentor", targets={"mentor": "cub"})
        + creature("cub", "A", 1, 1, "protection from creatures")
        + combat({"sage": "B", "cub": "B"})
    )
    assert invalid(registry, text).path == "creatures.sage.targets.mentor"


@pytest.mark.parametrize(("quality", "aimed"), [("creatures", "cub"), ("multicolored", "ghost")])
def test_702_16b_mentor_without_a_target_skips_what_it_cant_target(
    resolve: Resolve, quality: str, aimed: str
) -> None:
    """RULES 10: mentor's default target is the attacker of greatest power below its own (3)
    that it may target. The 2/2 ghost with protection from creatures can't be targeted by the
    mentor (a creature), so the 1/1 cub gets the +1/+1 counter (2/2); with protection from
    multicolored (the mentor is colorless) the ghost can, and gets it (3/3)."""
    out = resolve(
        PLAYERS
        + creature("sage", "A", 3, 3, "mentor")
        + creature("ghost", "A", 2, 2, f"protection from {quality}")
        + creature("cub", "A", 1, 1)
        + combat({"sage": "B", "ghost": "B", "cub": "B"})
    )
    counters = {cid: out["creatures"][cid]["counters"] for cid in ("ghost", "cub")}
    assert counters == {
        "ghost": {"+1/+1": 1} if aimed == "ghost" else {},
        "cub": {"+1/+1": 1} if aimed == "cub" else {},
    }
    # 3 + (2 or 3) + (1 or 2): one more than 6 either way
    assert out["players"]["B"]["life"] == 20 - 7


# -- the scenario words -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("entry", "says"),
    [
        ("protection from creaturs", "did you mean 'creatures'?"),
        ("protection from evrything", "did you mean 'everything'?"),
        ("protection from multicolor", "did you mean 'multicolored'?"),
        ("protection from artifacts", "a quality (creatures, everything, multicolored)"),
    ],
)
def test_a_misspelt_quality_is_refused_with_the_closest(
    registry: Registry, entry: str, says: str
) -> None:
    err = invalid(registry, PLAYERS + creature("monk", "B", 2, 2, "flying", entry) + combat({}))
    assert err.path == "creatures.monk.keywords[1]"
    assert says in str(err)


def test_a_misspelt_quality_exits_2_with_one_line(tmp_path: Path) -> None:
    path = tmp_path / "monk.toml"
    path.write_text(PLAYERS + creature("monk", "B", 2, 2, "Protection from Creaturs"))
    p = subprocess.run(["ecs-combat", "resolve", str(path)], capture_output=True, text=True)
    assert p.returncode == 2 and p.stdout == "" and "Traceback" not in p.stderr
    assert p.stderr.strip() == (
        f"ecs-combat: {path}: creatures.monk.keywords[0]: 'protection' takes 'from' and a "
        "color (white, blue, black, red, green) or a quality (creatures, everything, "
        "multicolored), not 'from creaturs'; did you mean 'creatures'?"
    )


def test_qualities_are_read_case_folded_and_written_back(registry: Registry) -> None:
    """Each entry is one instance with its quality; the scenario writer gives the words back."""
    text = (
        PLAYERS
        + creature("monk", "B", 2, 2, "Protection from Everything", "protection from red")
        + combat({})
    )
    sc = parse_scenario(tomllib.loads(text), registry, "t.toml")
    assert sc.creatures["monk"].parameters == ("everything", "red")
    doc = scenario_document(sc, registry)
    assert doc["creatures"]["monk"]["keywords"] == [
        "protection from everything",
        "protection from red",
    ]


# -- the decision search ----------------------------------------------------------------------------


def test_best_blocks_never_block_a_creature_with_protection_from_creatures(
    registry: Registry,
) -> None:
    """The wall may block the bear or nothing, never the ghost: 2 declarations. Blocking the
    bear keeps B's life at 20 - 2 = 18 instead of 16: that is the best."""
    text = (
        PLAYERS
        + creature("ghost", "A", 2, 2, "protection from creatures")
        + creature("bear", "A", 2, 2)
        + creature("wall", "B", 0, 4)
        + combat({"ghost": "B", "bear": "B"})
    )
    sc = parse_scenario(tomllib.loads(text), registry, "t.toml", blocks_to_decide=True)
    d = best_blocks(sc, registry, top=5)
    assert d.declarations == 2
    assert all(c.blockers.get("wall") != "ghost" for c in d.best)
    assert d.best[0].blockers == {"wall": "bear"}
    assert d.best[0].outcome["players"]["B"]["life"] == 18


def test_best_blocks_follow_protection_from_multicolored(registry: Registry) -> None:
    """The black-green wall can't block the ghost, the green one can: 2 declarations (the
    green wall blocks or not), the best blocks (B keeps 20)."""
    text = (
        PLAYERS
        + creature("ghost", "A", 2, 2, "protection from multicolored")
        + creature("gold", "B", 0, 4, colors=["black", "green"])
        + creature("elf", "B", 0, 4, colors=["green"])
        + combat({"ghost": "B"})
    )
    sc = parse_scenario(tomllib.loads(text), registry, "t.toml", blocks_to_decide=True)
    d = best_blocks(sc, registry, top=5)
    assert d.declarations == 2
    assert all("gold" not in c.blockers for c in d.best)
    assert d.best[0].blockers == {"elf": "ghost"}
