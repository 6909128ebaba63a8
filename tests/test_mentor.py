"""Mentor (702.134): whenever it attacks, a +1/+1 counter on target attacking creature with
lesser power; the default target is the attacker with the greatest power below the mentor's,
the first in the file on a tie (RULES 10). Both engines, hand-derived."""

from __future__ import annotations

import tomllib

import pytest
from scenario_text import combat, creature

from ecs_combat import InputError, Registry, parse_scenario
from tests.conftest import Resolve

PLAYERS = "[players.A]\n[players.B]\n"


def pt(out: dict[str, object], cid: str) -> tuple[int, int]:
    c = out["creatures"][cid]  # type: ignore[index]
    return c["power"], c["toughness"]


def test_702_134_default_target_greatest_lesser_power(resolve: Resolve) -> None:
    """The 3/3 mentor attacks with a 1/1, a 2/2 and a 2/1: the greatest power below 3 is 2,
    the 2/2 first in the file: it becomes 3/3; the others stay."""
    out = resolve(
        PLAYERS
        + creature("sensei", "A", 3, 3, "mentor")
        + creature("kid", "A", 1, 1)
        + creature("pupil", "A", 2, 2)
        + creature("squire", "A", 2, 1)
        + combat({"sensei": "B", "kid": "B", "pupil": "B", "squire": "B"})
    )
    assert pt(out, "pupil") == (3, 3)
    assert pt(out, "squire") == (2, 1) and pt(out, "kid") == (1, 1) and pt(out, "sensei") == (3, 3)
    assert out["creatures"]["pupil"]["counters"] == {"+1/+1": 1}  # type: ignore[index]
    assert out["players"]["B"]["life"] == 20 - (3 + 1 + 3 + 2)  # type: ignore[index]


def test_the_given_target(resolve: Resolve) -> None:
    """targets = { mentor = "kid" }: the 1/1 gets the counter, 2/2."""
    out = resolve(
        PLAYERS
        + creature("sensei", "A", 3, 3, "mentor", targets={"mentor": "kid"})
        + creature("kid", "A", 1, 1)
        + creature("pupil", "A", 2, 2)
        + combat({"sensei": "B", "kid": "B", "pupil": "B"})
    )
    assert pt(out, "kid") == (2, 2) and pt(out, "pupil") == (2, 2)


def test_two_instances_both_default_to_the_same_target(resolve: Resolve) -> None:
    """Two instances, no targets: each chose the 2/2 as attackers were declared; the first
    makes it 3/3, and the second finds its power (3) no longer less than the mentor's (3) as
    it resolves: nothing (608.2b)."""
    out = resolve(
        PLAYERS
        + creature("sensei", "A", 3, 3, "mentor", "mentor")
        + creature("pupil", "A", 2, 2)
        + combat({"sensei": "B", "pupil": "B"})
    )
    assert pt(out, "pupil") == (3, 3)


def test_no_lesser_attacker_no_trigger(resolve: Resolve) -> None:
    """The 2/2 mentor attacks with a 3/3 only: no target, nothing happens."""
    out = resolve(
        PLAYERS
        + creature("sensei", "A", 2, 2, "mentor")
        + creature("ogre", "A", 3, 3)
        + combat({"sensei": "B", "ogre": "B"})
    )
    assert pt(out, "ogre") == (3, 3) and pt(out, "sensei") == (2, 2)


def test_mentor_in_many_battles_at_once(registry: Registry) -> None:
    """The batched engine's default targets, battle by battle, in one batch: each battle as
    alone (the reference engine)."""
    from ecs_combat.batched.engine import BatchedEngine
    from ecs_combat.reference.engine import ReferenceEngine

    texts = [
        PLAYERS
        + creature("m", "A", p, 3, "mentor")
        + creature("a", "A", q, 2)
        + creature("b", "A", r, 2)
        + combat({"m": "B", "a": "B", "b": "B"})
        for p, q, r in [(3, 2, 2), (2, 1, 3), (1, 1, 1), (4, 1, 3), (5, 4, 4)]
    ]
    scenarios = [parse_scenario(tomllib.loads(t), registry, f"b{i}") for i, t in enumerate(texts)]
    batched = [r.to_json() for r in BatchedEngine(registry).resolve_many(scenarios)]
    reference = [ReferenceEngine(registry).resolve(s).to_json() for s in scenarios]
    assert batched == reference
    counters = [{c: v["counters"] for c, v in out["creatures"].items()} for out in reference]
    assert counters[0] == {"m": {}, "a": {"+1/+1": 1}, "b": {}}  # tie: the first
    assert counters[1] == {"m": {}, "a": {"+1/+1": 1}, "b": {}}
    assert counters[2] == {"m": {}, "a": {}, "b": {}}  # none lesser
    assert counters[3] == {"m": {}, "a": {}, "b": {"+1/+1": 1}}
    assert counters[4] == {"m": {}, "a": {"+1/+1": 1}, "b": {}}


def test_a_target_not_attacking_is_refused(registry: Registry) -> None:
    text = (
        PLAYERS
        + creature("sensei", "A", 3, 3, "mentor", targets={"mentor": "kid"})
        + creature("kid", "A", 1, 1)
        + combat({"sensei": "B"})
    )
    with pytest.raises(InputError) as caught:
        parse_scenario(tomllib.loads(text), registry, "t.toml")
    assert caught.value.path == "creatures.sensei.targets.mentor"
    assert "it is not declared as an attacker" in str(caught.value)


def test_a_target_naming_the_mentor_itself_is_refused(registry: Registry) -> None:
    """RULES 11.7: a mentor's power is never lower than its own, so a `targets` entry naming
    the mentor itself could never be legal: an input error (before: the trigger did nothing)."""
    text = (
        PLAYERS
        + creature("sensei", "A", 3, 3, "mentor", targets={"mentor": "sensei"})
        + combat({"sensei": "B"})
    )
    with pytest.raises(InputError) as caught:
        parse_scenario(tomllib.loads(text), registry, "t.toml")
    assert caught.value.path == "creatures.sensei.targets.mentor"
    assert "it is the source itself" in str(caught.value)
