"""Poisonous N (702.70) on both engines: hand-derived rule tests. They run with ecs-combat's
test command once this package is installed (skipped otherwise)."""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from typing import Any

import pytest

pytest.importorskip("ecs_combat_poisonous")

from ecs_combat import (
    BatchedEngine,
    InputError,
    ReferenceEngine,
    Registry,
    load_registry,
    parse_scenario,
)

Resolve = Callable[[str], dict[str, Any]]


@pytest.fixture(scope="module")
def registry() -> Registry:
    """Every installed plugin, as a user's installation loads them."""
    return load_registry(autoload=True)


@pytest.fixture(params=["reference", "batched"])
def resolve(request: pytest.FixtureRequest, registry: Registry) -> Resolve:
    """Resolve a TOML scenario with one engine; return its ``resolve --json`` document."""
    engine = ReferenceEngine(registry) if request.param == "reference" else None
    batched = BatchedEngine(registry)

    def run(text: str) -> dict[str, Any]:
        scenario = parse_scenario(tomllib.loads(text), registry, "test.toml")
        if engine is not None:
            return engine.resolve(scenario).to_json()
        return batched.resolve_many([scenario])[0].to_json()

    return run


def scenario(attacker: str, *blocker: str, life: int = 20, poison: int = 0) -> str:
    """Players A and B (B with `life` and `poison`), A's attacker and B's blockers as TOML
    tables (``id = "power/toughness keyword, keyword"``)."""
    text = f"[players.A]\n[players.B]\nlife = {life}\n" + (f"poison = {poison}\n" if poison else "")
    blocks = []
    for i, spec in enumerate([attacker, *blocker]):
        cid = "snake" if i == 0 else f"wall{i}"
        pt, _, kws = spec.partition(" ")
        power, toughness = pt.split("/")
        keywords = [k.strip() for k in kws.split(",") if k.strip()]
        text += (
            f'[creatures.{cid}]\ncontroller = "{"A" if i == 0 else "B"}"\npower = {power}\n'
            f"toughness = {toughness}\nkeywords = {keywords!r}\n".replace("'", '"')
        )
        if i:
            blocks.append(f'{cid} = "snake"')
    text += '[combat.attackers]\nsnake = "B"\n'
    if blocks:
        text += "[combat.blockers]\n" + "\n".join(blocks) + "\n"
    return text


def test_702_70_poisonous_gives_poison_counters(resolve: Resolve) -> None:
    """An unblocked 1/1 with poisonous 2: B loses 1 life and gets 2 poison counters."""
    out = resolve(scenario("1/1 poisonous 2"))
    assert out["players"]["B"] == {"life": 19, "lost": False, "poison": 2}


def test_113_2c_each_instance_triggers(resolve: Resolve) -> None:
    """Poisonous 1 listed twice: two triggers, one poison counter each."""
    out = resolve(scenario("1/1 poisonous 1, poisonous 1"))
    assert out["players"]["B"]["poison"] == 2


def test_702_70_no_trigger_without_damage_to_a_player(resolve: Resolve) -> None:
    """A blocked poisonous creature deals no combat damage to B: no poison counters."""
    out = resolve(scenario("1/1 poisonous 3", "2/2"))
    assert out["players"]["B"]["poison"] == 0


def test_704_5c_poisonous_to_ten_loses(resolve: Resolve) -> None:
    """8 poison counters + poisonous 2: B has 10 and loses (704.5c)."""
    out = resolve(scenario("1/1 poisonous 2", poison=8))
    assert out["players"]["B"] == {"life": 19, "lost": True, "poison": 10}


def test_603_3_a_player_who_lost_to_the_damage_gets_nothing(resolve: Resolve) -> None:
    """B at 1 life loses to the damage at the state-based check before the trigger resolves:
    the game is over and B gets no poison counters."""
    out = resolve(scenario("1/1 poisonous 3", life=1))
    assert out["players"]["B"] == {"life": 0, "lost": True, "poison": 0}


def test_603_10_a_poisonous_creature_that_died_still_poisons(resolve: Resolve) -> None:
    """A 2/2 trampler with poisonous 1 blocked by a 2/1: 1 to the blocker, 1 to B; both
    creatures die, and the trigger still gives B a poison counter."""
    out = resolve(scenario("2/2 trample, poisonous 1", "2/1"))
    assert out["creatures"]["snake"]["alive"] is False
    assert out["players"]["B"] == {"life": 19, "lost": False, "poison": 1}


def test_poisonous_needs_the_poison_plugin() -> None:
    """With the poison plugin blocked, poisonous is unavailable: an input error says why."""
    registry = load_registry(autoload=True, block=["poison"])
    with pytest.raises(InputError) as info:
        parse_scenario(tomllib.loads(scenario("1/1 poisonous 1")), registry, "test.toml")
    assert "player state 'poison', which no loaded plugin declares" in str(info.value)
