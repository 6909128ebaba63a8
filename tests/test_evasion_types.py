"""Evasion that reads card types, colors and the defending player's lands (RULES section 10):
intimidate, fear, landwalk; the scenario keys `types` and player `lands` (CONTRACT 8), on both
engines. Expected values by hand."""

from __future__ import annotations

import pytest
from conftest import Resolve, dealt
from scenario_text import combat, creature

from ecs_combat import InputError

TWO = "[players.A]\n[players.B]\n"


def fight(
    resolve: Resolve, attacker: dict[str, object], blocker: dict[str, object], players: str = TWO
) -> dict[str, object]:
    attacker, blocker = dict(attacker), dict(blocker)  # the parameters are shared
    kws = attacker.pop("keywords", [])
    bkws = blocker.pop("keywords", [])
    assert isinstance(kws, list) and isinstance(bkws, list)
    return resolve(
        players
        + creature("sneak", "A", 2, 2, *kws, **attacker)
        + creature("guard", "B", 1, 3, *bkws, **blocker)
        + combat({"sneak": "B"}, {"guard": "sneak"})
    )


@pytest.mark.parametrize(
    ("attacker", "blocker"),
    [
        ({"keywords": ["intimidate"], "colors": ["red"]}, {"types": ["artifact"]}),
        ({"keywords": ["intimidate"], "colors": ["red", "green"]}, {"colors": ["green"]}),
        ({"keywords": ["fear"]}, {"types": ["Artifact"]}),  # any case
        ({"keywords": ["fear"]}, {"colors": ["black"]}),
        ({"keywords": ["swampwalk"]}, {}),  # B controls no swamp
    ],
)
def test_blocks_the_evasion_allows(
    resolve: Resolve, attacker: dict[str, object], blocker: dict[str, object]
) -> None:
    """702.13, 702.36, 702.14: legal blocks; sneak 2 to guard (1/3), guard 1 back."""
    out = fight(resolve, attacker, blocker)
    assert dealt(out, "regular") == {("sneak", "guard", 2), ("guard", "sneak", 1)}


@pytest.mark.parametrize(
    ("attacker", "blocker", "keyword"),
    [
        ({"keywords": ["intimidate"], "colors": ["red"]}, {"colors": ["green"]}, "intimidate"),
        ({"keywords": ["intimidate"]}, {}, "intimidate"),  # colorless shares no color
        ({"keywords": ["fear"]}, {"colors": ["white"], "types": ["enchantment"]}, "fear"),
    ],
)
def test_blocks_the_evasion_forbids(
    resolve: Resolve, attacker: dict[str, object], blocker: dict[str, object], keyword: str
) -> None:
    with pytest.raises(InputError) as info:
        fight(resolve, attacker, blocker)
    assert "combat.blockers.guard" in str(info.value)
    assert keyword in str(info.value)


def test_swampwalk_unblockable_when_the_defending_player_has_a_swamp(resolve: Resolve) -> None:
    """702.14c: B controls a swamp (any case): the guard can't block the swampwalker."""
    players = '[players.A]\n[players.B]\nlands = ["SWAMP", "forest"]\n'
    with pytest.raises(InputError, match=r"swampwalk.*swamp"):
        fight(resolve, {"keywords": ["swampwalk"]}, {}, players)


def test_swampwalk_blockable_when_only_the_attacker_has_a_swamp(resolve: Resolve) -> None:
    """The w4 example: A controls the swamp, B a forest and an island: the bear blocks the 2/2
    swampwalker and they trade (2 each, 704.5g)."""
    players = '[players.A]\nlands = ["Swamp"]\n[players.B]\nlands = ["Forest", "Island"]\n'
    out = resolve(
        players
        + creature("walker", "A", 2, 2, "swampwalk")
        + creature("bear", "B", 2, 2)
        + combat({"walker": "B"}, {"bear": "walker"})
    )
    assert dealt(out, "regular") == {("walker", "bear", 2), ("bear", "walker", 2)}
    assert out["steps"][-1]["died"] == ["walker", "bear"]


def test_nonbasic_landwalk(resolve: Resolve) -> None:
    """A nonbasic land with a basic type is listed as both: nonbasic landwalk and swampwalk
    both make the sneak unblockable."""
    players = '[players.A]\n[players.B]\nlands = ["Swamp", "nonbasic"]\n'
    for walk in ("nonbasic landwalk", "swampwalk"):
        with pytest.raises(InputError, match=walk):
            fight(resolve, {"keywords": [walk]}, {}, players)


@pytest.mark.parametrize(
    ("where", "value", "words"),
    [
        ("creature", '["artefact"]', "unknown card type 'artefact'"),
        ("player", '["swmp"]', "unknown land type 'swmp'"),
    ],
)
def test_unknown_types_and_lands_name_the_place(
    resolve: Resolve, where: str, value: str, words: str
) -> None:
    if where == "creature":
        text = TWO + creature("bear", "A", 2, 2) + f"types = {value}\n" + combat({})
        path = "creatures.bear.types[0]"
    else:
        text = f"[players.A]\nlands = {value}\n[players.B]\n" + creature("bear", "A", 2, 2)
        path = "players.A.lands[0]"
    with pytest.raises(InputError) as info:
        resolve(text)
    assert path in str(info.value)
    assert words in str(info.value)
    assert "did you mean" in str(info.value)


def test_a_card_fills_types(resolve: Resolve) -> None:
    """An artifact creature card (Ornithopter, 0/2 flying artifact creature) blocks a red
    intimidate attacker: legal because it is an artifact. Sneak 2 to it: 0/2 dies."""
    out = resolve(
        TWO
        + creature("sneak", "A", 2, 2, "intimidate", colors=["red"])
        + '[creatures.thopter]\ncontroller = "B"\ncard = "Ornithopter"\n'
        + combat({"sneak": "B"}, {"thopter": "sneak"})
    )
    assert dealt(out, "regular") == {("sneak", "thopter", 2)}
