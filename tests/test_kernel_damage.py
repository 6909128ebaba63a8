"""Protection, wither, infect and +1/+1 and -1/-1 counters in the compiled kernel
(``deal-damage`` prevention and replacement parts, columns shared by plugins, keyword
parameters as a column), hand-derived on the three engines (reference, numpy, kernel), and
drawn scenarios resolved exactly as the numpy engine resolves them.

Shares test_kernels.py's compiled cache and plugin set (the bundled plugins).
"""

from __future__ import annotations

import tomllib
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from test_kernel_triggers import combat
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

from ecs_combat import parse_scenario
from ecs_combat.batched.arrays import BatchOutcome, CombatBatch
from ecs_combat.batched.convert import ReferenceBatchEngine, batch_to_scenarios
from ecs_combat.batched.from_scenarios import scenarios_to_batch
from ecs_combat.reference.engine import ReferenceEngine
from ecs_combat.simulation.generate import draw_battles
from ecs_combat.simulation.generators import make_generator
from ecs_combat.simulation.spec_reader import parse_spec
from ecs_combat.testing import scenarios

#: The keywords with kernel forms here, and some of the damage keywords around them.
DAMAGE_KEYWORDS = [
    "protection", "wither", "infect", "lifelink", "deathtouch", "trample", "first strike",
    "double strike", "indestructible", "flanking",
]  # fmt: skip


def batch_of(text: str) -> CombatBatch:
    return scenarios_to_batch([parse_scenario(tomllib.loads(text), BUNDLED, "t.toml")], BUNDLED)


def three_engines(text: str) -> BatchOutcome:
    """A scenario's outcome on the kernel, which must resolve it, after checking that the
    numpy engine gives the same arrays (every one) and the reference engine the same
    state, poison counters included."""
    batch = batch_of(text)
    kernel, numpy_engine = engines_of(BUNDLED)
    ours = kernel_outcome(kernel, batch)
    assert_same(ours, numpy_engine.resolve_batch(batch))
    reference = ReferenceBatchEngine(BUNDLED).resolve_batch(batch)
    for name in ("alive", "damage", "power", "toughness", "life", "lost", "damage_to_players"):
        assert np.array_equal(getattr(ours, name), getattr(reference, name)), name
    (result,) = [ReferenceEngine(BUNDLED).resolve(s) for s in batch_to_scenarios(batch, BUNDLED)]
    assert ours.player_state is not None
    poison = [int(p.state.get("poison", 0)) for p in result.players.values()]
    assert ours.player_state["poison"].tolist() == poison
    return ours


def colored(name: str, who: str, power: int, toughness: int, colors: str, *kws: str) -> str:
    listed = ", ".join(f'"{c}"' for c in colors.split())
    return creature(name, who, power, toughness, *kws) + f"colors = [{listed}]\n"


# -- protection (702.16) ---------------------------------------------------------------------


def test_protection_prevents_damage_from_a_source_of_its_color() -> None:
    """702.16f: a 2/2 with protection from red blocks a red 3/3: the 3 damage is prevented;
    it deals 2 to the attacker."""
    text = PLAYERS + colored("x", "a", 3, 3, "red") + colored("y", "b", 2, 2, "white",
                                                             "protection from red")  # fmt: skip
    out = three_engines(text + combat({"x": "b"}, {"y": "x"}))
    assert out.damage.tolist() == [2, 0]
    assert out.alive.tolist() == [True, True]


def test_protection_from_another_color_prevents_nothing() -> None:
    """702.16f: protection from blue against a red 3/3: the 2/2 blocker takes 3 and dies
    (704.5g)."""
    text = PLAYERS + colored("x", "a", 3, 3, "red") + colored("y", "b", 2, 2, "white",
                                                             "protection from blue")  # fmt: skip
    out = three_engines(text + combat({"x": "b"}, {"y": "x"}))
    assert out.damage.tolist() == [2, 3]
    assert out.alive.tolist() == [True, False]


@pytest.mark.parametrize(("colors", "prevented"), [("white blue", True), ("blue", False)])
def test_protection_from_multicolored(colors: str, prevented: bool) -> None:
    """702.16f, 105.2b: protection from multicolored prevents the damage of a white and blue
    3/3, not of a blue one."""
    text = PLAYERS + colored("x", "a", 3, 3, colors)
    text += colored("y", "b", 2, 4, "green", "protection from multicolored")
    out = three_engines(text + combat({"x": "b"}, {"y": "x"}))
    assert out.damage.tolist() == [2, 0 if prevented else 3]


def test_protection_prevents_deathtouch_and_lifelink_damage() -> None:
    """702.16f before 702.2b and 702.15b: a black 1/1 with deathtouch and lifelink blocked
    by a 1/1 with protection from black: nothing dealt, nothing destroyed, no life gained."""
    text = PLAYERS + colored("x", "a", 1, 1, "black", "deathtouch", "lifelink")
    text += colored("y", "b", 1, 1, "white", "protection from black")
    out = three_engines(text + combat({"x": "b"}, {"y": "x"}))
    assert out.alive.tolist() == [False, True]
    assert out.life.tolist() == [20, 20]


# -- wither (702.80) and infect (702.90): damage as counters (120.3) -------------------------


def test_wither_damage_is_dealt_as_minus_counters() -> None:
    """702.80a, 120.3d: a 2/2 with wither blocked by a 3/3: two -1/-1 counters (122.1a) make
    it 1/1 with no damage marked; it deals 3 back and the attacker dies (704.5g)."""
    text = PLAYERS + creature("x", "a", 2, 2, "wither") + creature("y", "b", 3, 3)
    out = three_engines(text + combat({"x": "b"}, {"y": "x"}))
    assert out.power.tolist() == [2, 1]
    assert out.toughness.tolist() == [2, 1]
    assert out.damage.tolist() == [3, 0]
    assert out.alive.tolist() == [False, True]


def test_wither_with_lifelink_still_deals_damage() -> None:
    """702.80a, 702.15b: the damage is still dealt: its controller gains 2; to a player,
    wither changes nothing (2 life lost)."""
    text = PLAYERS + creature("x", "a", 2, 2, "wither", "lifelink") + creature("y", "b", 3, 3)
    text += creature("z", "a", 2, 2, "wither")
    out = three_engines(text + combat({"x": "b", "z": "b"}, {"y": "x"}))
    assert out.life.tolist() == [22, 18]
    assert out.toughness.tolist() == [2, 1, 2]


def test_wither_counters_kill_at_zero_toughness() -> None:
    """704.5f: a 2/2 wither attacker blocked by a 2/2: two -1/-1 counters, 0/0, put into
    the graveyard (not destroyed: indestructible doesn't save it, 702.12b)."""
    text = PLAYERS + creature("x", "a", 2, 2, "wither") + creature("y", "b", 2, 2, "indestructible")
    out = three_engines(text + combat({"x": "b"}, {"y": "x"}))
    assert out.alive.tolist() == [False, False]
    assert out.toughness.tolist() == [2, 0]


def test_infect_gives_poison_counters_instead_of_life_loss() -> None:
    """702.90b-c, 120.3b: an unblocked 3/3 with infect: 3 poison counters (122.1f), no life
    lost, still 3 damage dealt to the player."""
    out = three_engines(PLAYERS + creature("x", "a", 3, 3, "infect") + combat({"x": "b"}))
    assert out.life.tolist() == [20, 20]
    assert out.player_state is not None
    assert out.player_state["poison"].tolist() == [0, 3]
    assert out.damage_to_players.tolist() == [3]


def test_infect_to_ten_poison_loses_the_game() -> None:
    """704.5c: a player with 8 poison counters takes 2 infect damage: 10, and loses."""
    text = PLAYERS.replace("[players.b]\nlife = 20\n", "[players.b]\nlife = 20\npoison = 8\n")
    out = three_engines(text + creature("x", "a", 2, 2, "infect") + combat({"x": "b"}))
    assert out.lost.tolist() == [False, True]
    assert out.player_state is not None
    assert out.player_state["poison"].tolist() == [0, 10]


def test_infect_and_wither_on_one_creature_give_counters_once() -> None:
    """702.80a, 702.90c: one replacement of the same damage: a 2/2 with both blocked by a
    4/4 gives it two -1/-1 counters, 2/2."""
    text = PLAYERS + creature("x", "a", 2, 2, "wither", "infect") + creature("y", "b", 4, 4)
    out = three_engines(text + combat({"x": "b"}, {"y": "x"}))
    assert out.toughness.tolist() == [2, 2]
    assert out.damage.tolist() == [4, 0]


def test_protection_prevents_wither_damage() -> None:
    """702.16f before 702.80a: prevented damage puts no counters."""
    text = PLAYERS + colored("x", "a", 2, 2, "black", "wither")
    text += colored("y", "b", 2, 2, "white", "protection from black")
    out = three_engines(text + combat({"x": "b"}, {"y": "x"}))
    assert out.toughness.tolist() == [2, 2]
    assert out.alive.tolist() == [False, True]


# -- counters as columns (122.1a, 704.5q) ----------------------------------------------------


def test_counters_a_creature_begins_with_give_their_power_and_toughness() -> None:
    """122.1a: a 2/2 with two +1/+1 counters is 4/4: it survives a 3/3 and kills it."""
    text = PLAYERS + creature("x", "a", 2, 2) + 'counters = { "+1/+1" = 2 }\n'
    out = three_engines(text + creature("y", "b", 3, 3) + combat({"x": "b"}, {"y": "x"}))
    assert out.power.tolist() == [4, 3]
    assert out.alive.tolist() == [True, False]


def counter_columns(text: str) -> tuple[list[int], list[int]]:
    """The kernel's +1/+1 and -1/-1 counter columns after resolving a scenario."""
    batch = batch_of(text)
    engine = engines_of(BUNDLED)[0]
    kernel = engine.kernel()
    assert kernel is not None
    schedule = engine.schedules.of([batch])
    assert not kernel.refusal(schedule, batch)
    kernel.compile()
    args = kernel._arguments(batch, kernel.plan(schedule))
    kernel.module.resolve_range(0, batch.n_battles, *args)
    owns = args[11]
    (i,) = [i for i, (p, _) in enumerate(kernel.source.owns) if p.endswith("pt_counters")]
    return owns[i].plus.tolist(), owns[i].minus.tolist()


def test_counters_cancel_as_a_state_based_action() -> None:
    """704.5q: a 2/2 with two +1/+1 counters (4/4) blocks a 1/1 with wither: both deal
    damage at once (510.2), 4 to the attacker; one -1/-1 counter, then one of each is
    removed: one +1/+1 left, 3/3, no damage marked on it."""
    text = PLAYERS + creature("x", "a", 1, 1, "wither")
    text += creature("y", "b", 2, 2) + 'counters = { "+1/+1" = 2 }\n'
    text += combat({"x": "b"}, {"y": "x"})
    out = three_engines(text)
    assert out.power.tolist() == [1, 3]
    assert out.damage.tolist() == [4, 0]
    assert counter_columns(text) == ([0, 1], [0, 0])


# -- drawn: the kernel against the numpy engine exactly, and the kit's check -----------------


@settings(max_examples=10 if NOT_JITTED else 100, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
@given(doc=scenarios(BUNDLED, keywords=DAMAGE_KEYWORDS, players=3, state=False, events=False))
def test_three_engines_agree_on_drawn_damage_keywords(doc: dict[str, Any]) -> None:
    """The kit's check (kernel against the reference engine) and the kernel against the
    numpy engine exactly, every outcome array, with drawn protection qualities, wither,
    infect and counters."""
    assert_three_engines_agree(doc)


SPEC = """
attackers = [1, 3]
blockers_per_attacker = [0, 2]
power = [1, 5]
toughness = [1, 5]
life = 6
[keywords]
wither = 0.2
infect = 0.2
lifelink = 0.1
deathtouch = 0.1
trample = 0.1
"first strike" = 0.1
"""


def test_drawn_battles_with_wither_and_infect_are_resolved_alike() -> None:
    """A drawn SPEC batch: every outcome array as the numpy engine's, and the counters did
    something (toughness lowered, poison given)."""
    spec = parse_spec(tomllib.loads(SPEC), BUNDLED, "counters.toml")
    batch = draw_battles(make_generator(spec, BUNDLED), 5, 0, 1500).batch
    with_kernel, numpy_engine = engines_of(BUNDLED)
    ours = kernel_outcome(with_kernel, batch)
    assert_same(ours, numpy_engine.resolve_batch(batch))
    assert (ours.toughness < np.asarray(batch.toughness)).any()
    assert ours.player_state is not None and ours.player_state["poison"].any()
