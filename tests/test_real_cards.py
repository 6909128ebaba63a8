"""Creatures made from cards (``card = "Name"``, CONTRACT.md section 5): the loader, both
engines, and what the output says about approximate cards (docs/cards.md)."""

from __future__ import annotations

import tomllib
from typing import Any

import jsonschema
import pytest
from conftest import bundled_registry, dealt, engine_resolver, step_names
from rich.console import Console

from ecs_combat.cards.database import find_card
from ecs_combat.cards.library import closest_card_names, creature_card, modelings
from ecs_combat.cards.modeling import model_card
from ecs_combat.cards.notes import ignored_text_lines, result_json, scenario_creatures
from ecs_combat.console.account import render
from ecs_combat.errors import InputError
from ecs_combat.plugin.registry import Registry
from ecs_combat.scenario.json_schema import scenario_schema
from ecs_combat.scenario.loader import parse_scenario
from ecs_combat.scenario.model import Scenario

PLAYERS = "[players.A]\n[players.B]\n"
BOAR_TEXT = "Sacrifice Brindle Boar: You gain 4 life."


def load(text: str, registry: Registry) -> Scenario:
    return parse_scenario(tomllib.loads(PLAYERS + text), registry, "test.toml")


def error(text: str, registry: Registry) -> InputError:
    with pytest.raises(InputError) as caught:
        load(text, registry)
    return caught.value


def resolve_json(text: str, registry: Registry, engine: str) -> dict[str, Any]:
    scenario = load(text, registry)
    return result_json(scenario, engine_resolver(engine, registry)(scenario))


# -- the loader ------------------------------------------------------------------------------


def test_card_fills_name_power_toughness_colors_keywords(registry: Registry) -> None:
    spec = load('[creatures.angel]\ncard = "Serra Angel"\ncontroller = "A"\n', registry)
    angel = spec.creatures["angel"]
    assert (angel.name, angel.power, angel.toughness) == ("Serra Angel", 4, 4)
    assert angel.colors == ("white",)
    assert angel.keywords == ("flying", "vigilance")
    assert (angel.card, angel.ignored_text) == ("Serra Angel", ())


def test_card_names_any_letter_case(registry: Registry) -> None:
    spec = load('[creatures.x]\ncard = "sErRa AnGeL"\ncontroller = "A"\n', registry)
    assert spec.creatures["x"].card == "Serra Angel"


def test_keyword_numbers_and_qualities_come_from_the_text(registry: Registry) -> None:
    # Hand of Honor: "Protection from black" and "Bushido 1 (reminder text)".
    spec = load('[creatures.h]\ncard = "Hand of Honor"\ncontroller = "A"\n', registry)
    h = spec.creatures["h"]
    assert h.keywords == ("protection", "bushido")
    assert h.parameters == ("black", 1)


def test_keys_beside_card_override_it(registry: Registry) -> None:
    spec = load(
        '[creatures.a]\ncard = "Serra Angel"\ncontroller = "A"\nname = "Big"\npower = 5\n'
        'keywords = ["flying"]\ncolors = ["black"]\n',
        registry,
    )
    a = spec.creatures["a"]
    assert (a.name, a.power, a.toughness, a.keywords, a.colors) == (
        "Big", 5, 4, ("flying",), ("black",)
    )  # fmt: skip
    assert a.card == "Serra Angel"


def test_approximate_card_keeps_its_ignored_text(registry: Registry) -> None:
    spec = load('[creatures.boar]\ncard = "Brindle Boar"\ncontroller = "B"\n', registry)
    assert spec.creatures["boar"].ignored_text == (BOAR_TEXT,)
    assert spec.creatures["boar"].keywords == ()


def test_plugin_creature_card_comes_first(registry: Registry) -> None:
    # Throat Wolf is also in the database (with text no plugin models there).
    assert find_card("Throat Wolf") is not None
    spec = load('[creatures.w]\ncard = "throat wolf"\ncontroller = "A"\n', registry)
    w = spec.creatures["w"]
    assert (w.power, w.toughness, w.keywords, w.colors) == (3, 1, ("firstest strike",), ("red",))
    assert (w.card, w.ignored_text) == ("Throat Wolf", ())


def test_a_plugin_cards_missing_keyword_is_ignored_text() -> None:
    registry = bundled_registry(leave_out=("firstest_strike",))
    spec = load('[creatures.w]\ncard = "Throat Wolf"\ncontroller = "A"\n', registry)
    assert spec.creatures["w"].keywords == ()
    assert spec.creatures["w"].ignored_text == ("Firstest strike",)


def test_unknown_card_names_the_place_and_the_closest_names(registry: Registry) -> None:
    exc = error('[creatures.angel]\ncard = "Sera Angle"\ncontroller = "A"\n', registry)
    assert exc.path == "creatures.angel.card"
    assert "no creature card 'Sera Angle'" in exc.message
    assert "did you mean 'Serra Angel'" in exc.message


def test_unknown_card_in_an_enter_event(registry: Registry) -> None:
    exc = error(
        '[[events]]\nat = "declare-blockers"\naction = "enter"\nattacking = "B"\n'
        '[events.creature]\nid = "z"\ncard = "Grizly Bears"\ncontroller = "A"\n',
        registry,
    )
    assert exc.path == "events[0].creature.card"
    assert "did you mean 'Grizzly Bears'" in exc.message


def test_a_spell_is_not_a_creature_card(registry: Registry) -> None:
    exc = error('[creatures.x]\ncard = "Hat Trick"\ncontroller = "A"\n', registry)
    assert exc.path == "creatures.x.card"
    assert "Hat Trick is not a creature card" in exc.message


def test_card_must_be_a_string(registry: Registry) -> None:
    exc = error('[creatures.x]\ncard = 3\ncontroller = "A"\n', registry)
    assert exc.path == "creatures.x.card"


def test_controller_is_still_required(registry: Registry) -> None:
    exc = error('[creatures.x]\ncard = "Serra Angel"\n', registry)
    assert exc.path == "creatures.x.controller"


def test_without_card_power_is_required(registry: Registry) -> None:
    exc = error('[creatures.x]\ncontroller = "A"\ntoughness = 1\n', registry)
    assert exc.path == "creatures.x.power"


def test_closest_names_for_a_typo() -> None:
    registry = bundled_registry()
    assert closest_card_names("brindel boar", registry)[0] == "Brindle Boar"
    assert closest_card_names("Two Headed Cerberus", registry)[0] == "Two-Headed Cerberus"
    assert closest_card_names("throat wolff", registry)[0] == "Throat Wolf"
    assert closest_card_names("qqqqqqqqqq", registry) == []


def test_modelings_of_every_card_equal_model_card(registry: Registry) -> None:
    """The cached, line-sharing modeling agrees with model_card on all 12,584 cards."""
    from ecs_combat.cards.database import database

    cards = database().cards
    assert modelings(registry) == tuple(model_card(c, registry) for c in cards)
    assert modelings(registry) is modelings(registry)


def test_creature_card_is_none_for_unknown_names(registry: Registry) -> None:
    assert creature_card("No Such Card At All", registry) is None
    assert creature_card("Hat Trick", registry) is None


# -- both engines ----------------------------------------------------------------------------


CERBERUS_VS_BOAR = """
[creatures.cerberus]
card = "Two-Headed Cerberus"
controller = "A"
[creatures.boar]
card = "Brindle Boar"
controller = "B"
[combat]
attackers = { cerberus = "B" }
blockers = { boar = "cerberus" }
"""


def test_double_strike_card_against_an_approximate_card(registry: Registry, engine: str) -> None:
    """702.4b: Two-Headed Cerberus (1/2 double strike) deals 1 in each step; Brindle Boar (2/2)
    deals 2 in the regular step: both die (704.5g)."""
    out = resolve_json(CERBERUS_VS_BOAR, registry, engine)
    assert step_names(out) == ["first-strike", "regular"]
    assert dealt(out, "first-strike") == {("cerberus", "boar", 1)}
    assert dealt(out, "regular") == {("cerberus", "boar", 1), ("boar", "cerberus", 2)}
    assert out["creatures"]["boar"]["ignored_text"] == [BOAR_TEXT]
    assert "ignored_text" not in out["creatures"]["cerberus"]


def test_reach_card_blocks_a_flying_card(registry: Registry, engine: str) -> None:
    """702.9c / 702.17b: Giant Spider (2/4 reach) may block Serra Angel (4/4 flying); the angel
    deals 4 (lethal), the spider 2."""
    out = resolve_json(
        '[creatures.angel]\ncard = "Serra Angel"\ncontroller = "A"\n'
        '[creatures.spider]\ncard = "Giant Spider"\ncontroller = "B"\n'
        '[combat]\nattackers = { angel = "B" }\nblockers = { spider = "angel" }\n',
        registry,
        engine,
    )
    assert dealt(out, "regular") == {("angel", "spider", 4), ("spider", "angel", 2)}
    assert out["steps"][-1]["died"] == ["spider"]
    assert out["creatures"]["angel"]["damage"] == 2


def test_bushido_from_a_cards_text(registry: Registry, engine: str) -> None:
    """702.45a: Hand of Honor (2/2, bushido 1) blocks Grizzly Bears (2/2): it becomes 3/3, deals
    3 and survives the bears' 2."""
    out = resolve_json(
        '[creatures.bears]\ncard = "Grizzly Bears"\ncontroller = "A"\n'
        '[creatures.hand]\ncard = "Hand of Honor"\ncontroller = "B"\n'
        '[combat]\nattackers = { bears = "B" }\nblockers = { hand = "bears" }\n',
        registry,
        engine,
    )
    assert dealt(out, "regular") == {("hand", "bears", 3), ("bears", "hand", 2)}
    assert out["creatures"]["hand"]["alive"] is True
    assert (out["creatures"]["hand"]["power"], out["creatures"]["hand"]["toughness"]) == (3, 3)


def test_plugin_creature_card_strikes_first(registry: Registry, engine: str) -> None:
    """Throat Wolf (3/1, firstest strike) kills a blocking Grizzly Bears (2/2) before it deals
    damage."""
    out = resolve_json(
        '[creatures.wolf]\ncard = "Throat Wolf"\ncontroller = "A"\n'
        '[creatures.bears]\ncard = "Grizzly Bears"\ncontroller = "B"\n'
        '[combat]\nattackers = { wolf = "B" }\nblockers = { bears = "wolf" }\n',
        registry,
        engine,
    )
    assert step_names(out) == ["firstest-strike", "regular"]
    assert dealt(out, "firstest-strike") == {("wolf", "bears", 3)}
    assert out["creatures"]["wolf"]["alive"] is True


def test_entering_creature_from_an_approximate_card(registry: Registry, engine: str) -> None:
    """An enter event's creature made from Brindle Boar attacks unblocked (508.4) for 2, and
    its ignored text is in the output."""
    out = resolve_json(
        '[creatures.bears]\ncard = "Grizzly Bears"\ncontroller = "A"\n'
        '[combat]\nattackers = { bears = "B" }\n'
        '[[events]]\nat = "declare-blockers"\naction = "enter"\nattacking = "B"\n'
        '[events.creature]\nid = "boar"\ncard = "Brindle Boar"\ncontroller = "A"\n',
        registry,
        engine,
    )
    assert dealt(out, "regular") == {("bears", "B", 2), ("boar", "B", 2)}
    assert out["creatures"]["boar"]["ignored_text"] == [BOAR_TEXT]
    assert "ignored_text" not in out["creatures"]["bears"]


def test_both_engines_print_the_same_document(registry: Registry) -> None:
    ref, bat = (resolve_json(CERBERUS_VS_BOAR, registry, e) for e in ("reference", "batched"))
    assert ref == bat


# -- the readable account --------------------------------------------------------------------


def test_readable_account_says_which_text_was_ignored(registry: Registry) -> None:
    scenario = load(CERBERUS_VS_BOAR, registry)
    assert ignored_text_lines(scenario_creatures(scenario)) == [
        f"boar is Brindle Boar, modeled approximately: ignored {BOAR_TEXT!r}"
    ]
    console = Console(record=True, width=200, force_terminal=False)
    render(scenario, engine_resolver("reference", registry)(scenario), console)
    text = console.export_text()
    assert f"· boar is Brindle Boar, modeled approximately: ignored {BOAR_TEXT!r}" in text
    assert "cerberus is" not in text


# -- the JSON Schema -------------------------------------------------------------------------


def test_schema_takes_card_in_place_of_power_and_toughness(registry: Registry) -> None:
    schema = scenario_schema(registry)
    validator = jsonschema.Draft202012Validator(schema)
    entering = {"id": "z", "card": "Grizzly Bears", "controller": "A"}
    doc: dict[str, Any] = {
        "players": {"A": {}, "B": {}},
        "creatures": {
            "boar": {"card": "Brindle Boar", "controller": "B"},
            "angel": {"card": "Serra Angel", "controller": "A", "power": 5},
        },
        "events": [
            {"at": "declare-blockers", "action": "enter", "attacking": "B", "creature": entering}
        ],
    }
    assert validator.is_valid(doc)
    assert "Throat Wolf" in schema["$defs"]["creature"]["properties"]["card"]["examples"]
    doc["creatures"]["x"] = {"controller": "A", "power": 1}  # no card and no toughness
    assert not validator.is_valid(doc)
    del doc["creatures"]["x"]
    entering.pop("card")
    assert not validator.is_valid(doc)
