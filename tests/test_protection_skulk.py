"""Protection from a color (702.16) and skulk (702.118), RULES.md section 7, on both engines
(the `resolve` fixture), plus their input errors and the bulk-simulation generator's blocks."""

from __future__ import annotations

import subprocess
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from conftest import Resolve, bundled_registry, dealt, step, text_resolver
from scenario_text import combat, creature, event

from ecs_combat import (
    Card,
    InputError,
    Restriction,
    TargetRule,
    hookimpl,
    parse_scenario,
)
from ecs_combat.batched.convert import batch_to_scenarios
from ecs_combat.plugin.registry import Registry
from ecs_combat.rules.legality import check_declarations
from ecs_combat.simulation.generate import draw_battles
from ecs_combat.simulation.generators import make_generator
from ecs_combat.simulation.spec_reader import parse_spec

if TYPE_CHECKING:  # the card-effect interface, for annotations only
    from ecs_combat.plugin.views import EffectTarget

PLAYERS = "[players.A]\n[players.B]\n"


def invalid(registry: Registry, text: str) -> InputError:
    with pytest.raises(InputError) as info:
        parse_scenario(tomllib.loads(text), registry, "test.toml")
    return info.value


# -- protection: damage -----------------------------------------------------------------------


def test_702_16f_damage_from_a_source_of_that_color_is_prevented(resolve: Resolve) -> None:
    """A red 3/3 blocked by a 2/2 with protection from red: its 3 is prevented (not listed),
    the 2/2 survives with no damage and deals 2 back."""
    out = resolve(
        PLAYERS
        + creature("brute", "A", 3, 3, colors=["red"])
        + creature("monk", "B", 2, 2, "protection from red")
        + combat({"brute": "B"}, {"monk": "brute"})
    )
    assert dealt(out, "regular") == {("monk", "brute", 2)}
    assert out["creatures"]["monk"]["alive"] and out["creatures"]["monk"]["damage"] == 0
    assert out["creatures"]["brute"]["damage"] == 2


def test_702_16f_other_colors_and_colorless_sources_deal_damage(resolve: Resolve) -> None:
    """Protection from red doesn't stop a green 3/3 nor a colorless 3/3: 3 each, the 2/2s die."""
    out = resolve(
        PLAYERS
        + creature("bear", "A", 3, 3, colors=["green"])
        + creature("golem", "A", 3, 3)
        + creature("monk", "B", 2, 2, "protection from red")
        + creature("nun", "B", 2, 2, "protection from red")
        + combat({"bear": "B", "golem": "B"}, {"monk": "bear", "nun": "golem"})
    )
    assert {("bear", "monk", 3), ("golem", "nun", 3)} <= dealt(out, "regular")
    assert set(step(out, "regular")["died"]) == {"monk", "nun"}


def test_702_16f_a_creature_of_several_colors_is_each_of_them(resolve: Resolve) -> None:
    """A red-green 3/3 is red: protection from red prevents its damage."""
    out = resolve(
        PLAYERS
        + creature("brute", "A", 3, 3, colors=["green", "red"])
        + creature("monk", "B", 2, 2, "protection from red")
        + combat({"brute": "B"}, {"monk": "brute"})
    )
    assert dealt(out, "regular") == {("monk", "brute", 2)}


def test_702_16f_several_instances_protect_from_several_colors(resolve: Resolve) -> None:
    """Protection from red and protection from green: a green source's damage is prevented."""
    out = resolve(
        PLAYERS
        + creature("bear", "A", 3, 3, colors=["green"])
        + creature("monk", "B", 2, 2, "protection from red", "protection from green")
        + combat({"bear": "B"}, {"monk": "bear"})
    )
    assert dealt(out, "regular") == {("monk", "bear", 2)}


def test_702_16f_prevented_damage_gives_no_life(resolve: Resolve) -> None:
    """A red 3/3 with lifelink blocked by protection from red: nothing dealt, no life gained."""
    out = resolve(
        "[players.A]\nlife = 10\n[players.B]\n"
        + creature("brute", "A", 3, 3, "lifelink", colors=["red"])
        + creature("monk", "B", 2, 2, "protection from red")
        + combat({"brute": "B"}, {"monk": "brute"})
    )
    assert out["players"]["A"]["life"] == 10
    assert step(out, "regular")["life_gained"] == []


def test_702_16f_prevented_deathtouch_damage_destroys_nothing(resolve: Resolve) -> None:
    """A red 1/1 with deathtouch blocked by a 2/2 with protection from red: the 2/2 lives."""
    out = resolve(
        PLAYERS
        + creature("viper", "A", 1, 1, "deathtouch", colors=["red"])
        + creature("monk", "B", 2, 2, "protection from red")
        + combat({"viper": "B"}, {"monk": "viper"})
    )
    assert out["creatures"]["monk"]["alive"]
    assert step(out, "regular")["died"] == ["viper"]


def test_702_19b_lethal_damage_is_still_assigned_to_it(resolve: Resolve) -> None:
    """A red 5/5 trampler blocked by a 2/2 with protection from red must assign it lethal
    damage (2) first: 3 tramples over (B 20 -> 17), and the 2 is prevented."""
    out = resolve(
        PLAYERS
        + creature("giant", "A", 5, 5, "trample", colors=["red"])
        + creature("monk", "B", 2, 2, "protection from red")
        + combat({"giant": "B"}, {"monk": "giant"})
    )
    assert dealt(out, "regular") == {("giant", "B", 3), ("monk", "giant", 2)}
    assert out["players"]["B"]["life"] == 17
    assert out["creatures"]["monk"]["damage"] == 0


# -- protection: blocking ---------------------------------------------------------------------


def test_702_16e_it_cant_be_blocked_by_creatures_of_that_color(registry: Registry) -> None:
    err = invalid(
        registry,
        PLAYERS
        + creature("knight", "A", 2, 2, "protection from black")
        + creature("zombie", "B", 2, 2, colors=["black", "green"])
        + combat({"knight": "B"}, {"zombie": "knight"}),
    )
    assert err.path == "combat.blockers.zombie"
    assert "protection" in str(err) and "702.16e" in str(err)


def test_702_16e_creatures_of_other_colors_may_block_it(resolve: Resolve) -> None:
    out = resolve(
        PLAYERS
        + creature("knight", "A", 2, 2, "protection from black")
        + creature("elf", "B", 1, 1, colors=["green"])
        + combat({"knight": "B"}, {"elf": "knight"})
    )
    assert dealt(out, "regular") == {("knight", "elf", 2), ("elf", "knight", 1)}


# -- protection: targeting ----------------------------------------------------------------------


def _pump(target: EffectTarget) -> None:
    target.pump(3, 3)


class _ColoredCards:
    """A red and a green card that give +3/+3 to an attacking or blocking creature."""

    __name__ = "colored_cards"

    @hookimpl
    def register_cards(self) -> list[Card]:
        text = "Target attacking or blocking creature gets +3/+3 until end of turn."
        return [
            Card("Test Red Growth", "{R}", text, TargetRule(in_combat=True), _pump),
            Card("Test Green Growth", "{1}{G}", text, TargetRule(in_combat=True), _pump),
        ]


@pytest.fixture(scope="module")
def cards(engine: str) -> Resolve:
    return text_resolver(engine, bundled_registry(extra=(_ColoredCards(),)))


def _cast(card: str) -> str:
    return (
        PLAYERS
        + creature("knight", "A", 2, 2, "protection from red")
        + combat({"knight": "B"})
        + event("declare-blockers", "cast", card=card, caster="A", target="knight")
    )


def test_702_16c_a_spell_of_that_color_cant_target_it(cards: Resolve) -> None:
    """Even its controller's red spell finds an illegal target and does nothing: it deals 2."""
    out = cards(_cast("Test Red Growth"))
    assert out["creatures"]["knight"]["power"] == 2
    assert out["players"]["B"]["life"] == 18


def test_702_16c_a_spell_of_another_color_may_target_it(cards: Resolve) -> None:
    out = cards(_cast("Test Green Growth"))
    assert out["creatures"]["knight"]["power"] == 5
    assert out["players"]["B"]["life"] == 15


# -- protection: input ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("entry", "says"),
    [
        ("protection from artifacts", "takes 'from' and a color"),
        ("protection from purple", "takes 'from' and a color"),
        ("protection", "takes a color: write it like 'protection from red'"),
        ("protection red", "takes 'from' and a color"),
    ],
)
def test_bad_protection_entries_name_the_place(registry: Registry, entry: str, says: str) -> None:
    err = invalid(registry, PLAYERS + creature("monk", "B", 2, 2, "flying", entry) + combat({}))
    assert err.path == "creatures.monk.keywords[1]"
    assert says in str(err)


def test_a_bad_protection_entry_exits_2_with_one_line(tmp_path: Path) -> None:
    path = tmp_path / "monk.toml"
    path.write_text(PLAYERS + creature("monk", "B", 2, 2, "protection from artifacts"))
    p = subprocess.run(["ecs-combat", "resolve", str(path)], capture_output=True, text=True)
    assert p.returncode == 2 and p.stdout == "" and "Traceback" not in p.stderr
    assert p.stderr.strip() == (
        f"ecs-combat: {path}: creatures.monk.keywords[0]: 'protection' takes 'from' and a "
        "color (white, blue, black, red, green) or a quality (creatures, everything, "
        "multicolored), not 'from artifacts'"
    )


# -- skulk ------------------------------------------------------------------------------------------


def test_702_118_it_cant_be_blocked_by_creatures_with_greater_power(registry: Registry) -> None:
    err = invalid(
        registry,
        PLAYERS
        + creature("rat", "A", 2, 1, "skulk")
        + creature("ogre", "B", 3, 3)
        + combat({"rat": "B"}, {"ogre": "rat"}),
    )
    assert err.path == "combat.blockers.ogre"
    assert "skulk" in str(err) and "702.118" in str(err)


def test_702_118_equal_or_lesser_power_may_block(resolve: Resolve) -> None:
    """A 2/1 skulk blocked by a 2/3 and a 1/1: both blocks are legal; the rat dies, its 2
    damage doesn't kill the 2/3."""
    out = resolve(
        PLAYERS
        + creature("rat", "A", 2, 1, "skulk")
        + creature("bear", "B", 2, 3)
        + creature("mouse", "B", 1, 1)
        + combat({"rat": "B"}, {"bear": "rat", "mouse": "rat"})
    )
    assert step(out, "regular")["died"] == ["rat"]


def test_702_118_power_counts_counters(registry: Registry) -> None:
    """A 2/2 with a +1/+1 counter (the bundled pt_counters plugin's) has power 3: it can't
    block a 2/1 skulk."""
    err = invalid(
        registry,
        PLAYERS
        + creature("rat", "A", 2, 1, "skulk")
        + creature("bear", "B", 2, 2, counters={"+1/+1": 1})
        + combat({"rat": "B"}, {"bear": "rat"}),
    )
    assert err.path == "combat.blockers.bear"


def test_bulk_simulations_never_declare_an_illegal_skulk_block(registry: Registry) -> None:
    """509.1b, 702.118: the generator drops blocks by creatures with greater power; it keeps
    some skulk blocks (by creatures with less or equal power)."""
    doc = {
        "attackers": [1, 3],
        "blockers_per_attacker": [1, 3],
        "power": [0, 6],
        "keywords": {"skulk": 0.6},
    }
    gen = make_generator(parse_spec(doc, registry), registry)
    batch = draw_battles(gen, 3, 0, 800).batch
    for scenario in batch_to_scenarios(batch, registry):
        check_declarations(scenario, registry)
    skulk = batch.keywords & gen.bits.bit["skulk"] != 0  # type: ignore[attr-defined]
    kept = skulk[batch.block_attacker]
    assert kept.any()
    drawn_to_block = int((batch.controller % 2 == 1).sum())
    assert batch.block_blocker.shape[0] < drawn_to_block


# -- the restriction sides' power in both engines ---------------------------------------------------


class _Mighty:
    """A test keyword: with it, a creature of power 4 or more can't be targeted."""

    __name__ = "mighty"

    @hookimpl
    def register_keywords(self) -> list[Any]:
        from ecs_combat import Keyword

        return [Keyword("mighty")]

    @hookimpl
    def register_restrictions(self) -> list[Restriction]:
        return [
            Restriction(
                "target",
                "mighty",
                "test",
                lambda c: ~c.has("mighty") | (c.power < 4),
                "{creature} is mighty",
            )
        ]


@pytest.mark.parametrize(("power", "after"), [(3, 6), (4, 4)])
def test_restriction_sides_see_the_current_power(engine: str, power: int, after: int) -> None:
    """Both engines give target restrictions the creature's power as the spell resolves."""
    resolve = text_resolver(engine, bundled_registry(extra=(_ColoredCards(), _Mighty())))
    out = resolve(
        PLAYERS
        + creature("giant", "A", power, 4, "mighty")
        + combat({"giant": "B"})
        + event("declare-blockers", "cast", card="Test Green Growth", caster="A", target="giant")
    )
    assert out["creatures"]["giant"]["power"] == after


def test_702_15b_702_16_prevented_damage_gains_no_life(resolve: Resolve) -> None:
    """702.16 with 702.15b: a red 3/3 with lifelink blocked by a creature with protection from
    red deals it nothing (prevented): no life is gained and no life-gain event is listed, not
    even one of 0; A stays at 20."""
    out = resolve(
        PLAYERS
        + creature("brute", "A", 3, 3, "lifelink", colors=["red"])
        + creature("monk", "B", 0, 3, "protection from red")
        + combat({"brute": "B"}, {"monk": "brute"})
    )
    regular = step(out, "regular")
    assert regular["damage"] == [] and regular["life_gained"] == []
    assert out["players"]["A"]["life"] == 20
    assert out["creatures"]["monk"]["damage"] == 0
