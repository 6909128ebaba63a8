"""Legacy N (the example dies trigger) on both engines: hand-derived rule tests, and the test
kit's agreement check. They run with ecs-combat's test command once this package is
installed (skipped otherwise)."""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings

pytest.importorskip("ecs_combat_legacy")

from ecs_combat import (
    BatchedEngine,
    InputError,
    ReferenceEngine,
    Registry,
    load_registry,
    parse_scenario,
)
from ecs_combat.testing import (
    assert_engines_agree,
    assert_turn_engines_agree,
    registry_with,
    scenarios,
    turns,
)

Resolve = Callable[[str], dict[str, Any]]
REGISTRY = registry_with("ecs_combat_legacy")


@pytest.fixture(scope="module")
def ecs_combat_plugins() -> list[str]:
    """The plugin under test, for the kit's ``ecs_combat_registry`` fixture (usually in the
    package's conftest.py)."""
    return ["ecs_combat_legacy"]


@pytest.fixture(params=["reference", "batched"])
def resolve(request: pytest.FixtureRequest) -> Resolve:
    """Resolve a TOML scenario with one engine; return its ``resolve --json`` document."""
    engine = ReferenceEngine(REGISTRY) if request.param == "reference" else None
    batched = BatchedEngine(REGISTRY)

    def run(text: str) -> dict[str, Any]:
        scenario = parse_scenario(tomllib.loads(text), REGISTRY, "test.toml")
        if engine is not None:
            return engine.resolve(scenario).to_json()
        return batched.resolve_many([scenario])[0].to_json()

    return run


def creature(cid: str, controller: str, pt: str, *keywords: str, plus: int = 0) -> str:
    """A creature table: ``pt`` is ``power/toughness``, `plus` its +1/+1 counters."""
    power, toughness = pt.split("/")
    text = (
        f'[creatures.{cid}]\ncontroller = "{controller}"\npower = {power}\n'
        f"toughness = {toughness}\nkeywords = {list(keywords)!r}\n".replace("'", '"')
    )
    return text + (f'counters = {{ "+1/+1" = {plus} }}\n' if plus else "")


def battle(*creatures: str, attackers: str, blockers: str = "", life: int = 20) -> str:
    """Players A and B (B at `life`), the creatures, and the combat's tables as TOML."""
    text = f"[players.A]\n[players.B]\nlife = {life}\n" + "".join(creatures)
    text += f"[combat.attackers]\n{attackers}\n"
    return text + (f"[combat.blockers]\n{blockers}\n" if blockers else "")


def plus(out: dict[str, Any], cid: str) -> int:
    return int(out["creatures"][cid]["counters"].get("+1/+1", 0))


def test_legacy_puts_counters_on_its_controllers_other_creatures(resolve: Resolve) -> None:
    """A 2/2 with legacy 1 blocked by a 3/3 dies (3 >= 2): A's heir (not in combat) gets
    1 +1/+1 counter and is 2/2; B's wall gets none."""
    out = resolve(
        battle(
            creature("martyr", "A", "2/2", "legacy 1"),
            creature("heir", "A", "1/1"),
            creature("wall", "B", "3/3"),
            attackers='martyr = "B"',
            blockers='wall = "martyr"',
        )
    )
    assert out["creatures"]["martyr"]["alive"] is False
    assert plus(out, "heir") == 1 and out["creatures"]["heir"]["power"] == 2
    assert plus(out, "wall") == 0


def test_603_10a_counters_as_it_last_existed(resolve: Resolve) -> None:
    """A 1/1 with legacy 1 and two +1/+1 counters (3/3) blocked by a 4/4 dies with its two
    counters: the heir gets 1 + 2 = 3 and is 1/1 + 3 = 4/4."""
    out = resolve(
        battle(
            creature("martyr", "A", "1/1", "legacy 1", plus=2),
            creature("heir", "A", "1/1"),
            creature("wall", "B", "4/4"),
            attackers='martyr = "B"',
            blockers='wall = "martyr"',
        )
    )
    assert plus(out, "heir") == 3 and out["creatures"]["heir"]["toughness"] == 4


def test_113_2c_each_instance_triggers(resolve: Resolve) -> None:
    """Legacy 1 and legacy 2 on a creature with one +1/+1 counter: two triggers,
    (1 + 1) + (2 + 1) = 5 counters on the heir."""
    out = resolve(
        battle(
            creature("martyr", "A", "1/1", "legacy 1", "legacy 2", plus=1),
            creature("heir", "A", "1/1"),
            creature("wall", "B", "4/4"),
            attackers='martyr = "B"',
            blockers='wall = "martyr"',
        )
    )
    assert plus(out, "heir") == 5


def test_creatures_dying_together_get_nothing_from_each_other(resolve: Resolve) -> None:
    """Two 2/2s with legacy 1, each blocked by a 3/3, die in the same damage step: they are
    both off the battlefield as the triggers resolve, so only the heir gets counters, 1 from
    each: 2."""
    out = resolve(
        battle(
            creature("left", "A", "2/2", "legacy 1"),
            creature("right", "A", "2/2", "legacy 1"),
            creature("heir", "A", "1/1"),
            creature("w1", "B", "3/3"),
            creature("w2", "B", "3/3"),
            attackers='left = "B"\nright = "B"',
            blockers='w1 = "left"\nw2 = "right"',
        )
    )
    assert [out["creatures"][c]["alive"] for c in ("left", "right")] == [False, False]
    assert plus(out, "left") == plus(out, "right") == 0
    assert plus(out, "heir") == 2


def test_the_trigger_resolves_before_the_next_damage_step(resolve: Resolve) -> None:
    """510.4: a 2/2 first striker kills the 1/1 legacy 1 in the first-strike step; the heir,
    a 1/2 blocked by a 2/2, gets its counter before the regular step, so it deals 2 (kills
    the 2/2) and takes 2 with toughness 3 (survives). Without the trigger, neither dies."""
    out = resolve(
        battle(
            creature("martyr", "A", "1/1", "legacy 1"),
            creature("heir", "A", "1/2"),
            creature("striker", "B", "2/2", "first strike"),
            creature("wall", "B", "2/2"),
            attackers='martyr = "B"\nheir = "B"',
            blockers='striker = "martyr"\nwall = "heir"',
        )
    )
    assert [s["name"] for s in out["steps"]] == ["first-strike", "regular"]
    assert out["steps"][0]["died"] == ["martyr"]
    assert out["steps"][1]["died"] == ["wall"]
    assert out["creatures"]["heir"] == {
        "alive": True,
        "damage": 2,
        "power": 2,
        "toughness": 3,
        "counters": {"+1/+1": 1},
    }


@pytest.mark.parametrize("keywords", [("legacy 1", "persist"), ("persist", "legacy 1")])
def test_11_5_legacy_and_persist_resolve_in_the_order_listed(
    resolve: Resolve, keywords: tuple[str, str]
) -> None:
    """RULES 11.5: a 1/1 with legacy 1 and persist blocked by a 2/2 dies with no counters;
    its two triggers resolve in the order its keywords are listed.
    Legacy first: the heir gets 1 + 0 = 1 counter (the martyr is gone); persist returns the
    martyr, a new object, with a -1/-1 counter: 0/0, it dies at the next check (704.5f); of
    its new triggers, legacy gives the heir 1 + 0 more and persist does nothing (it had a
    -1/-1 counter).
    Persist first: the martyr returns as a 0/0 and dies at the check after it; its new
    triggers resolve before the old legacy trigger (a stack): persist does nothing, legacy
    gives the heir 1; then the old legacy trigger gives the heir 1 (the new martyr is a new
    object to it, 400.7, and dead anyway).
    Either way: the martyr died twice in the step (RULES 11.11), the heir has 2 counters."""
    out = resolve(
        battle(
            creature("martyr", "A", "1/1", *keywords),
            creature("heir", "A", "1/1"),
            creature("wall", "B", "2/2"),
            attackers='martyr = "B"',
            blockers='wall = "martyr"',
        )
    )
    assert out["steps"][0]["died"] == ["martyr", "martyr"]
    assert out["creatures"]["martyr"]["alive"] is False
    assert plus(out, "heir") == 2


def test_no_trigger_once_the_game_is_over(resolve: Resolve) -> None:
    """B at 2 life: the unblocked 2/2 heir's damage makes B lose in the same step the
    legacy creature dies; the game is over, so no trigger resolves and the heir stays 2/2."""
    out = resolve(
        battle(
            creature("martyr", "A", "2/2", "legacy 1"),
            creature("heir", "A", "2/2"),
            creature("wall", "B", "3/3"),
            attackers='martyr = "B"\nheir = "B"',
            blockers='wall = "martyr"',
            life=2,
        )
    )
    assert out["players"]["B"]["lost"] is True
    assert out["creatures"]["martyr"]["alive"] is False
    assert plus(out, "heir") == 0


def test_legacy_needs_the_counters_plugin() -> None:
    """With pt_counters blocked, legacy is unavailable: an input error says why."""
    registry = load_registry(autoload=True, block=["pt_counters"])
    doc = tomllib.loads(
        battle(creature("martyr", "A", "2/2", "legacy 1"), attackers='martyr = "B"')
    )
    with pytest.raises(
        InputError, match=r"keyword 'legacy' \(plugin '\w+'\) is unavailable: it requires"
    ):
        parse_scenario(doc, registry, "test.toml")


def test_the_registry_fixture_adds_it(ecs_combat_registry: Registry) -> None:
    """The kit's fixture with `ecs_combat_plugins` naming this package (above)."""
    assert "legacy" in ecs_combat_registry.keywords


@settings(
    max_examples=100,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(scenarios(REGISTRY, keywords=["legacy", "first strike", "persist", "wither"]))
def test_engines_agree(doc: dict[str, Any]) -> None:
    """CONTRACT.md 2: random legal battles with legacy resolve the same on both engines."""
    assert_engines_agree(REGISTRY, doc)


@settings(
    max_examples=50,
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(turns(REGISTRY, keywords=["legacy", "first strike", "vigilance"]))
def test_engines_agree_on_turns(doc: dict[str, Any]) -> None:
    """The same for whole turns (RULES 8): counters legacy put stay for the later combat
    phases."""
    assert_turn_engines_agree(REGISTRY, doc)


def test_state_based_actions_are_checked_again_after_legacy_resolves(resolve: Resolve) -> None:
    """704.3, 704.5q: the martyr (1/1, legacy 1) dies to the 3/3 wall; legacy puts one +1/+1
    counter on A's heir, which has one -1/-1 counter. The state-based actions are checked
    again after the trigger, so the two counters are removed: the heir ends with none, a 2/2
    (2/2 printed, +1 - 1)."""
    text = battle(
        creature("martyr", "A", "1/1", "legacy 1"),
        creature("heir", "A", "2/2"),
        creature("wall", "B", "3/3"),
        attackers='martyr = "B"',
        blockers='wall = "martyr"',
    ).replace("[creatures.wall]", 'counters = { "-1/-1" = 1 }\n[creatures.wall]')
    out = resolve(text)
    assert out["steps"][-1]["died"] == ["martyr"]
    heir = out["creatures"]["heir"]
    assert heir["counters"] == {}
    assert (heir["power"], heir["toughness"]) == (2, 2)
