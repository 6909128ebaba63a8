"""The kernel's ``dies`` point: persist and undying returning creatures as new objects
(400.7), hand-derived on the three engines (reference, numpy, kernel); drawn scenarios with
them; what the kernel still leaves to the numpy engine."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import numpy as np
from hypothesis import HealthCheck, given, settings
from test_kernel_triggers import combat, three_engines
from test_kernels import (  # noqa: F401  (kernels on for this module, the same cache)
    BUNDLED,
    NOT_JITTED,
    assert_three_engines_agree,
    creature,
    engines_of,
    kernels_on,
)

from ecs_combat import parse_scenario
from ecs_combat.batched.from_scenarios import scenarios_to_batch
from ecs_combat.kernel.generate import generate
from ecs_combat.simulation.generate import Draws
from ecs_combat.simulation.generators import make_generator
from ecs_combat.simulation.pool_boards import kept_for, pool_tally
from ecs_combat.simulation.spec_reader import parse_spec
from ecs_combat.testing import scenarios

TWO_DROPS = Path(__file__).resolve().parent.parent / "docs/examples/specs/two-drops.toml"

TWO = "[players.a]\nlife = 20\n[players.b]\nlife = 20\n"


def with_counters(text: str, **counters: int) -> str:
    """A creature's table with counters (``{"+1/+1": 1}``)."""
    given = ", ".join(f'"{k.replace("plus", "+1/+1").replace("minus", "-1/-1")}" = {v}'
                      for k, v in counters.items())  # fmt: skip
    return text + f"counters = {{ {given} }}\n"


def test_persist_returns_with_a_minus_counter() -> None:
    """702.79a, 400.7: a 3/3 with persist blocked by a 4/4 dies (704.5g) and returns as a
    new object, its damage gone, with a -1/-1 counter (122.1a): 2/2, alive, returned 2 + 2."""
    text = TWO + creature("x", "a", 3, 3, "persist") + creature("y", "b", 4, 4)
    out = three_engines(text + combat({"x": "b"}, {"y": "x"}))
    assert out.alive.tolist() == [True, True]
    assert out.power.tolist() == [2, 4]
    assert out.toughness.tolist() == [2, 4]
    assert out.damage.tolist() == [0, 3]
    assert out.returned is not None and out.returned.tolist() == [4, -1]


def test_undying_returns_with_a_plus_counter() -> None:
    """702.93a: a 2/2 blocker with undying dies to a 3/3 attacker and returns with a +1/+1
    counter: 3/3, not blocking (506.4), no damage; the attacker, blocked (509.1h), deals
    nothing to the player."""
    text = TWO + creature("x", "a", 3, 3) + creature("y", "b", 2, 2, "undying")
    out = three_engines(text + combat({"x": "b"}, {"y": "x"}))
    assert out.alive.tolist() == [True, True]
    assert out.power.tolist() == [3, 3]
    assert out.damage.tolist() == [2, 0]
    assert out.life.tolist() == [20, 20]
    assert out.returned is not None and out.returned.tolist() == [-1, 6]


def test_a_minus_counter_as_it_last_existed_keeps_persist_from_returning() -> None:
    """702.79a, 603.10a: a 3/3 with persist and a -1/-1 counter (2/2) dies and stays dead."""
    x = with_counters(creature("x", "a", 3, 3, "persist"), minus=1)
    out = three_engines(TWO + x + creature("y", "b", 2, 2) + combat({"x": "b"}, {"y": "x"}))
    assert out.alive.tolist() == [False, False]
    assert out.returned is not None and out.returned.tolist() == [-1, -1]


def test_counters_annihilated_in_the_check_it_dies_in_are_as_it_last_existed() -> None:
    """704.3, 704.5q, 603.10a: a 2/2 with undying and a +1/+1 counter (3/3) is dealt 3
    damage by a 3/4 wither creature: three -1/-1 counters, 0/0. In the same check the counters
    would cancel and it dies (704.5f): it dies with its +1/+1 counter, so undying does
    nothing."""
    x = with_counters(creature("x", "a", 2, 2, "undying"), plus=1)
    text = TWO + x + creature("y", "b", 3, 4, "wither")
    out = three_engines(text + combat({"x": "b"}, {"y": "x"}))
    assert out.alive.tolist() == [False, True]


def test_counters_cancelled_in_the_first_check_are_gone_as_it_dies_later() -> None:
    """RULES 13, 704.5q, 702.25a, 702.93a: a 1/1 blocker with undying and a +1/+1 and a
    -1/-1 counter loses both in the combat's first check, before the attack triggers;
    flanking's trigger makes it 0/0 and it dies with no counter: it returns with a +1/+1
    counter, 2/2."""
    y = with_counters(creature("y", "b", 1, 1, "undying"), plus=1, minus=1)
    text = TWO + creature("x", "a", 1, 1, "flanking") + y
    out = three_engines(text + combat({"x": "b"}, {"y": "x"}))
    assert out.alive.tolist() == [True, True]
    assert out.power.tolist() == [1, 2]
    assert out.returned is not None and out.returned.tolist() == [-1, 4]


def test_a_returned_creature_that_dies_again_stays_dead() -> None:
    """702.79a, 400.7: a 1/1 with persist dies and returns with a -1/-1 counter: 0/0, it
    dies again (704.5f), a new object with the counter: it stays dead, `returned` unset."""
    text = TWO + creature("x", "a", 1, 1, "persist") + creature("y", "b", 2, 2)
    out = three_engines(text + combat({"x": "b"}, {"y": "x"}))
    assert out.alive.tolist() == [False, True]
    assert out.returned is not None and out.returned.tolist() == [-1, -1]


def test_several_creatures_dying_in_one_check_return_in_turn() -> None:
    """603.3b, 702.79a, 702.93a: a 3/3 persist attacker blocked by a 2/2 undying and a 1/1
    persist assigns 2 and 1 (510.1c): all three die in one check; each returns (3 - 1,
    2 + 1, 1 - 1), the 1/1 dies again at 0/0 (704.5f)."""
    text = TWO + creature("x", "a", 3, 3, "persist") + creature("y", "b", 2, 2, "undying")
    text += creature("z", "b", 1, 1, "persist")
    out = three_engines(text + combat({"x": "b"}, {"y": "x", "z": "x"}))
    assert out.alive.tolist() == [True, True, False]
    assert out.power.tolist()[:2] == [2, 3]
    assert out.returned is not None and out.returned.tolist() == [4, 6, -1]


def test_a_returned_creature_is_a_new_object_out_of_combat() -> None:
    """400.7, 506.4: a 2/2 first striker with persist blocked by a 3/3 first striker dies
    in the first-strike step and returns 1/1, out of combat: it deals no regular damage."""
    text = TWO + creature("x", "a", 2, 2, "persist", "double strike")
    text += creature("y", "b", 3, 3, "first strike")
    out = three_engines(text + combat({"x": "b"}, {"y": "x"}))
    assert out.alive.tolist() == [True, True]
    assert out.damage.tolist() == [0, 2]
    assert out.power.tolist() == [1, 3]


def test_a_trigger_put_on_the_stack_before_a_return_sees_the_new_object_gone() -> None:
    """702.25a-b, 400.7: a 1/1 attacker with flanking three times blocked by a 2/2 with
    persist: the first trigger makes it 1/1, the second 0/0 and it dies (704.5f) and
    returns 2/2 with a -1/-1 counter (1/1); the third trigger, put on the stack before, is
    about the old object and does nothing to the new one (400.7): it stays 1/1."""
    text = TWO + creature("x", "a", 1, 1, "flanking", "flanking", "flanking")
    text += creature("y", "b", 2, 2, "persist")
    out = three_engines(text + combat({"x": "b"}, {"y": "x"}))
    assert out.alive.tolist() == [True, True]
    assert out.power.tolist() == [1, 1]
    assert out.returned is not None and out.returned.tolist() == [-1, 2]
    assert out.life.tolist() == [20, 20]  # blocked (509.1h): no damage to the player


def test_the_two_drop_pool_runs_in_the_kernel() -> None:
    """Every card pair of the 2-drop pool (docs/examples/specs/two-drops.toml: persist and
    undying among its keywords) in one batch: the kernel takes it, and its outcomes kept per
    card pair are the numpy engine's."""
    spec = parse_spec(tomllib.loads(TWO_DROPS.read_text()), BUNDLED, "two-drops.toml")
    kernel, numpy_engine = engines_of(BUNDLED)
    stores = []
    for engine in (kernel, numpy_engine):
        generator = make_generator(spec, BUNDLED)
        if engine is kernel:
            assert generator.pool is not None
            a, b = np.meshgrid(
                np.arange(len(generator.pool.attacker)), np.arange(len(generator.pool.blocker))
            )
            side = np.stack([a.reshape(-1), b.reshape(-1)], axis=1)
            drawn = generator.build(Draws({"creatures": np.full(len(side), 2), "side": side}))
            k = kernel.kernel()
            assert k is not None
            assert k.refusal(kernel.schedules.of([drawn.batch]), drawn.batch) == ""
        assert pool_tally(generator, engine, 1, 0, 40_000) is not None
        store = kept_for(generator, engine)
        assert store is not None and store.known.all()
        stores.append(store)
    assert np.array_equal(stores[0].attacker, stores[1].attacker)
    assert np.array_equal(stores[0].blocker, stores[1].blocker)


def test_the_parts_are_the_plugins() -> None:
    """Persist's and undying's `dies` systems have kernel parts, from their plugins."""
    source = generate(BUNDLED)
    assert source.covers("ecs_combat_keywords.persist", "return with a -1/-1 counter")
    assert source.covers("ecs_combat_keywords.undying", "return with a +1/+1 counter")


def test_a_creature_with_two_dies_triggers_goes_to_the_numpy_engine() -> None:
    """The kernel resolves one "dies" trigger a creature: persist and undying together (or
    persist listed twice) are ordered by the numpy engine; persist alone is not refused."""
    kernel, _ = engines_of(BUNDLED)
    k = kernel.kernel()
    assert k is not None
    for keywords, why in ((("persist", "undying"), "two dies"), (("persist", "persist"), "two dies"),
                          (("persist",), "")):  # fmt: skip
        text = TWO + creature("x", "a", 2, 2, *keywords) + combat({"x": "b"})
        batch = scenarios_to_batch([parse_scenario(tomllib.loads(text), BUNDLED, "t")], BUNDLED)
        refusal = k.refusal(kernel.schedules.of([batch]), batch)
        assert (why in refusal) if why else refusal == "", refusal


KEYWORDS = ["persist", "undying", "first strike", "deathtouch", "wither", "flanking", "trample"]


@settings(max_examples=10 if NOT_JITTED else 80, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
@given(doc=scenarios(BUNDLED, keywords=KEYWORDS, players=3, state=False, events=False))
def test_three_engines_agree_on_drawn_returns(doc: dict[str, Any]) -> None:
    """The kit's check and the kernel against the numpy engine exactly (`returned`
    included), with persist, undying, wither's counters and flanking's triggers (a
    creature keeps the first of its "dies" keywords: the kernel takes one a creature)."""
    for c in doc["creatures"].values():
        dies = [k for k in c.get("keywords", []) if k in ("persist", "undying")]
        for k in dies[1:]:
            c["keywords"].remove(k)
    assert_three_engines_agree(doc)
