"""Attack and block triggers in the compiled kernel (``declare-attackers`` and
``declare-blockers`` parts): exalted, bushido, rampage, flanking and the other shapes' users,
hand-derived on the three engines (reference, numpy, kernel), and drawn batches resolved
exactly as the numpy engine resolves them.

Shares test_kernels.py's compiled cache and plugin set (the bundled plugins);
``test_parts_run_as_python`` there runs this module too with ``NUMBA_DISABLE_JIT=1``.
"""

from __future__ import annotations

import tomllib
import types
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_kernels import (  # noqa: F401  (kernels on for this module, the same cache)
    BUNDLED,
    NOT_JITTED,
    PLAYERS,
    assert_same,
    assert_three_engines_agree,
    creature,
    engines_of,
    kernel_outcome,
    kernels_on,
)

from ecs_combat import Keyword, PumpTrigger, System, block_trigger, hookimpl, parse_scenario
from ecs_combat.batched.arrays import BatchOutcome
from ecs_combat.batched.convert import ReferenceBatchEngine
from ecs_combat.batched.from_scenarios import scenarios_to_batch
from ecs_combat.kernel.generate import generate
from ecs_combat.simulation.generate import draw_battles
from ecs_combat.simulation.generators import make_generator
from ecs_combat.simulation.spec_reader import parse_spec
from ecs_combat.testing import registry_with, scenarios

#: The trigger keywords with kernel forms, and some of the damage keywords around them.
TRIGGER_KEYWORDS = [
    "exalted", "bushido", "rampage", "flanking", "frenzy", "afflict", "battle cry", "melee",
    "first strike", "double strike", "deathtouch", "trample", "lifelink", "indestructible",
]  # fmt: skip


def three_engines(text: str) -> BatchOutcome:
    """A scenario's outcome on the kernel, which must resolve it, after checking that the
    reference and numpy engines give the same arrays (the kernel's power: also pumps)."""
    scenario = parse_scenario(tomllib.loads(text), BUNDLED, "test.toml")
    batch = scenarios_to_batch([scenario], BUNDLED)
    kernel, numpy_engine = engines_of(BUNDLED)
    ours = kernel_outcome(kernel, batch)
    assert_same(ours, numpy_engine.resolve_batch(batch))
    reference = ReferenceBatchEngine(BUNDLED).resolve_batch(batch)
    for name in ("alive", "damage", "power", "toughness", "life", "lost"):
        assert np.array_equal(getattr(ours, name), getattr(reference, name)), name
    return ours


def combat(attackers: dict[str, str], blockers: dict[str, str] | None = None) -> str:
    """A ``[combat]`` table."""
    att = ", ".join(f'{a} = "{p}"' for a, p in attackers.items())
    text = f"[combat]\nattackers = {{ {att} }}\n"
    if blockers:
        text += "blockers = { " + ", ".join(f'{b} = "{a}"' for b, a in blockers.items()) + " }\n"
    return text


# -- hand-derived, on the three engines ------------------------------------------------------


def test_exalted_counts_each_instance_for_a_creature_attacking_alone() -> None:
    """702.83a-b: a 2/2 attacking alone gets +1/+1 for each instance of exalted among its
    controller's permanents (four: its own, one creature's, another's listed twice): 6/6, 6
    damage to the player; the defending player's exalted creature gives nothing."""
    text = PLAYERS + creature("x", "a", 2, 2, "exalted") + creature("e", "a", 1, 1, "exalted")
    text += creature("f", "a", 1, 1, "exalted", "exalted") + creature("g", "b", 1, 1, "exalted")
    out = three_engines(text + combat({"x": "b"}))
    assert out.power.tolist() == [6, 1, 1, 1]
    assert out.toughness.tolist() == [6, 1, 1, 1]
    assert out.life.tolist() == [20, 14]


def test_exalted_does_nothing_for_two_attackers() -> None:
    """702.83a: two attackers, nobody attacks alone: 2 + 1 damage."""
    text = PLAYERS + creature("x", "a", 2, 2, "exalted") + creature("e", "a", 1, 1, "exalted")
    out = three_engines(text + combat({"x": "b", "e": "b"}))
    assert out.power.tolist() == [2, 1]
    assert out.life.tolist() == [20, 17]


def test_bushido_on_both_sides() -> None:
    """702.45a: a 2/2 with bushido 2 blocked by a 3/3 with bushido 1: 4/4 and 4/4, each
    deals 4 to the other: both die (704.5g)."""
    text = PLAYERS + creature("x", "a", 2, 2, "bushido 2") + creature("y", "b", 3, 3, "bushido 1")
    out = three_engines(text + combat({"x": "b"}, {"y": "x"}))
    assert out.power.tolist() == [4, 4]
    assert out.alive.tolist() == [False, False]
    assert out.damage.tolist() == [4, 4]


def test_bushido_unblocked_does_not_trigger() -> None:
    """702.45a: no block, no trigger: 2 damage."""
    out = three_engines(PLAYERS + creature("x", "a", 2, 2, "bushido 2") + combat({"x": "b"}))
    assert out.power.tolist() == [2]
    assert out.life.tolist() == [20, 18]


def test_rampage_counts_blockers_beyond_the_first() -> None:
    """702.23a: a 3/3 with rampage 2 blocked by three 1/1s gets +2/+2 for each blocker
    beyond the first: 7/7, lethal damage to each (1 each, the rest to the first), takes 3."""
    text = PLAYERS + creature("x", "a", 3, 3, "rampage 2")
    text += creature("y", "b", 1, 1) + creature("z", "b", 1, 1) + creature("w", "b", 1, 1)
    out = three_engines(text + combat({"x": "b"}, {"y": "x", "z": "x", "w": "x"}))
    assert out.power.tolist() == [7, 1, 1, 1]
    assert out.alive.tolist() == [True, False, False, False]
    assert out.damage.tolist() == [3, 5, 1, 1]


def test_flanking_shrinks_a_blocker_without_it() -> None:
    """702.25a: a 1/1 blocking a 2/2 with flanking gets -1/-1 and dies (704.5f) before
    damage; the attacker stays blocked (509.1h) and deals no damage to the player."""
    text = PLAYERS + creature("x", "a", 2, 2, "flanking") + creature("y", "b", 1, 1)
    out = three_engines(text + combat({"x": "b"}, {"y": "x"}))
    assert out.alive.tolist() == [True, False]
    assert out.power.tolist() == [2, 0]
    assert out.life.tolist() == [20, 20]
    assert out.damage.tolist() == [0, 0]


def test_flanking_blocker_with_flanking_is_not_shrunk() -> None:
    """702.25a: a blocker with flanking itself does not trigger it: 2/2 against 2/2."""
    text = PLAYERS + creature("x", "a", 2, 2, "flanking") + creature("y", "b", 2, 2, "flanking")
    out = three_engines(text + combat({"x": "b"}, {"y": "x"}))
    assert out.power.tolist() == [2, 2]
    assert out.alive.tolist() == [False, False]


@pytest.mark.parametrize(
    ("keywords", "power"),
    [(("flanking", "rampage 1"), 2), (("rampage 1", "flanking"), 3)],
)
def test_one_sources_triggers_in_listed_order(keywords: tuple[str, ...], power: int) -> None:
    """603.3b, RULES 7: one source's triggers resolve in the order its instances are listed,
    state-based actions after each (704.3). Flanking first kills both 1/1 blockers before
    rampage counts them (+0/+0); rampage first counts one beyond the first (+1/+1)."""
    text = PLAYERS + creature("x", "a", 2, 2, *keywords)
    text += creature("y", "b", 1, 1) + creature("z", "b", 1, 1)
    out = three_engines(text + combat({"x": "b"}, {"y": "x", "z": "x"}))
    assert out.power.tolist() == [power, 0, 0]
    assert out.alive.tolist() == [True, False, False]


def test_the_non_active_players_triggers_resolve_first() -> None:
    """603.3b: the blocker's bushido (non-active player) resolves before the attacker's
    flanking: 1/1 -> 2/2 -> 1/1, so it lives to trade with the 1/1 attacker (704.5g). In
    the other order it would die at 0/0 first and the attacker would live."""
    text = PLAYERS + creature("x", "a", 1, 1, "flanking") + creature("y", "b", 1, 1, "bushido 1")
    out = three_engines(text + combat({"x": "b"}, {"y": "x"}))
    assert out.power.tolist() == [1, 1]
    assert out.alive.tolist() == [False, False]


def test_frenzy_afflict_and_battle_cry() -> None:
    """702.68a: unblocked with frenzy 2, +2/+0; 702.91a: battle cry gives each other
    attacker +1/+0 (as attackers are declared, before frenzy); 702.130a: blocked with
    afflict 3, the defending player loses 3 life. b takes 4 from the frenzied 1/1 (1 + 1 +
    2), 1 from the battle cry creature and loses 3: 12; the 0/4 blocker takes 3 and lives."""
    text = PLAYERS + creature("f", "a", 1, 1, "frenzy 2") + creature("c", "a", 1, 1, "battle cry")
    text += creature("x", "a", 2, 2, "afflict 3") + creature("y", "b", 0, 4)
    out = three_engines(text + combat({"f": "b", "c": "b", "x": "b"}, {"y": "x"}))
    assert out.power.tolist() == [4, 1, 3, 0]
    assert out.life.tolist() == [20, 12]
    assert out.alive.tolist() == [True, True, True, True]


def test_melee_counts_the_opponents_attacked() -> None:
    """702.121a: a attacks b with two creatures and c with one: the melee creature gets
    +2/+2 (two opponents, each counted once); b takes 3 + 1, c takes 1."""
    text = "[players.a]\nlife = 20\n[players.b]\nlife = 20\n[players.c]\nlife = 20\n"
    text += creature("m", "a", 1, 1, "melee") + creature("x", "a", 1, 1)
    text += creature("y", "a", 1, 1)
    out = three_engines(text + combat({"m": "b", "x": "b", "y": "c"}))
    assert out.power.tolist() == [3, 1, 1]
    assert out.life.tolist() == [20, 16, 19]


def test_the_batch_is_not_changed_by_the_kernel() -> None:
    """The kernel pumps copies: the batch's arrays stay as given (the numpy engine, run
    after it on the same batch, starts from them)."""
    text = PLAYERS + creature("x", "a", 2, 2, "bushido 2") + creature("y", "b", 3, 3)
    batch = scenarios_to_batch(
        [parse_scenario(tomllib.loads(text + combat({"x": "b"}, {"y": "x"})), BUNDLED, "t")],
        BUNDLED,
    )
    kernel_outcome(engines_of(BUNDLED)[0], batch)
    assert np.asarray(batch.power).tolist() == [2, 3]
    assert np.asarray(batch.toughness).tolist() == [2, 3]


# -- drawn: the kernel against the numpy engine exactly, and the kit's check -----------------


@settings(max_examples=10 if NOT_JITTED else 100, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
@given(doc=scenarios(BUNDLED, keywords=TRIGGER_KEYWORDS, players=3, state=False, events=False))
def test_three_engines_agree_on_drawn_triggers(doc: dict[str, Any]) -> None:
    """The kit's check (kernel against the reference engine) and the kernel against the
    numpy engine exactly, with drawn numbers (bushido 3, afflict 2) and three players."""
    for c in doc["creatures"].values():
        c.pop("counters", None)
    assert_three_engines_agree(doc)


SPEC = """
attackers = [1, 4]
blockers_per_attacker = [0, 3]
power = [0, 6]
toughness = [1, 6]
life = 6
[keywords]
exalted = 0.2
flanking = 0.2
"battle cry" = 0.1
"first strike" = 0.1
deathtouch = 0.1
trample = 0.1
"""


def test_drawn_battles_with_triggers_are_resolved_alike() -> None:
    """A drawn SPEC batch (exalted, flanking, battle cry among others): every outcome array
    as the numpy engine's, and the triggers did something."""
    spec = parse_spec(tomllib.loads(SPEC), BUNDLED, "triggers.toml")
    batch = draw_battles(make_generator(spec, BUNDLED), 5, 0, 1500).batch
    with_kernel, numpy_engine = engines_of(BUNDLED)
    ours = kernel_outcome(with_kernel, batch)
    assert_same(ours, numpy_engine.resolve_batch(batch))
    assert not np.array_equal(ours.power, np.asarray(batch.power))  # some pumped


@st.composite
def numbered(draw: st.DrawFn) -> str:
    """A board of numbered trigger keywords (bushido N, rampage N, afflict N)."""
    text = PLAYERS
    names = []
    for i in range(draw(st.integers(1, 3))):
        kws = draw(st.lists(st.sampled_from(["bushido", "rampage", "afflict", "flanking"]),
                            max_size=3))  # fmt: skip
        listed = [k if k == "flanking" else f"{k} {draw(st.integers(1, 3))}" for k in kws]
        text += creature(f"a{i}", "a", draw(st.integers(1, 4)), draw(st.integers(1, 4)), *listed)
        names.append(f"a{i}")
    blocks = {}
    for j in range(draw(st.integers(0, 3))):
        kws = draw(st.lists(st.sampled_from(["bushido 1", "bushido 2", "flanking"]), max_size=2))
        text += creature(f"b{j}", "b", draw(st.integers(0, 3)), draw(st.integers(1, 4)), *kws)
        blocks[f"b{j}"] = draw(st.sampled_from(names))
    return text + combat(dict.fromkeys(names, "b"), blocks)


@settings(max_examples=10 if NOT_JITTED else 60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
@given(text=numbered())
def test_numbered_instances_on_three_engines(text: str) -> None:
    """Numbers as columns: every drawn board of numbered triggers resolved in the kernel,
    as the numpy and the reference engines resolve it."""
    three_engines(text)


# -- a third-party plugin built on the shapes gets its kernel form (generated, not compiled) --


def valor_plugin(power: int) -> types.ModuleType:
    """A third-party keyword, valor N: +`power`/+0 for each N as it becomes blocked."""
    module = types.ModuleType(f"valor_{power}")
    pump = PumpTrigger("valor", power, 0, "{keyword} {n} ({id}): +{power}/+{toughness}")

    @hookimpl
    def register_keywords() -> list[Keyword]:
        return [Keyword("valor", rule="702.45", parameter="number")]

    @hookimpl
    def register_systems() -> list[System]:
        return [block_trigger("valor", "becomes blocked", pump.resolve, pump.resolve_batched)]

    module.register_keywords = register_keywords  # type: ignore[attr-defined]
    module.register_systems = register_systems  # type: ignore[attr-defined]
    return module


def test_a_third_party_pump_trigger_has_a_kernel_part() -> None:
    """The shape's kernel part, its numbers written into the generated source; another
    number is another kernel (the cache is keyed by every part's source as generated)."""
    two, three = (generate(registry_with(extra=[valor_plugin(p)])) for p in (2, 3))
    (part,) = [p for p in two.parts if "valor" in p.keywords]
    assert part.part.point == "declare-blockers" and part.part.event == "becomes blocked"
    assert ("POWER", 2) in part.part.numbers
    assert "c.power[row] += 2 * times" in part.text
    assert "c.toughness[row] += 0 * times" in part.text
    assert two.digest != three.digest
