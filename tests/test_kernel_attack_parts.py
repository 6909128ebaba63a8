"""The kernel parts of dethrone, mentor, vigilance and haste (attack triggers and systems at
``declare-attackers``), hand-derived, on the three engines; drawn scenarios with them."""

from __future__ import annotations

import tomllib
from typing import Any

import numpy as np
from hypothesis import HealthCheck, given, settings
from test_kernel_triggers import combat, three_engines
from test_kernels import (  # noqa: F401  (kernels on for this module, the same cache)
    BUNDLED,
    NOT_JITTED,
    assert_same,
    assert_three_engines_agree,
    creature,
    engines_of,
    kernel_outcome,
    kernels_on,
)

from ecs_combat import parse_scenario
from ecs_combat.batched.from_scenarios import scenarios_to_batch
from ecs_combat.kernel.generate import generate
from ecs_combat.simulation.generate import draw_battles
from ecs_combat.simulation.generators import make_generator
from ecs_combat.simulation.spec_reader import parse_spec
from ecs_combat.testing import scenarios

#: Three players, the last with the most life.
THREE = "[players.a]\nlife = 20\n[players.b]\nlife = 15\n[players.c]\nlife = 25\n"
TWO = "[players.a]\nlife = 20\n[players.b]\nlife = 20\n"


def test_dethrone_attacking_the_player_with_the_most_life() -> None:
    """702.105a: a 2/2 with dethrone attacking a player tied for the most life gets a +1/+1
    counter as its trigger resolves (122.1a: 3/3), and deals 3."""
    out = three_engines(TWO + creature("x", "a", 2, 2, "dethrone") + combat({"x": "b"}))
    assert out.power.tolist() == [3]
    assert out.toughness.tolist() == [3]
    assert out.life.tolist() == [20, 17]


def test_dethrone_among_three_players() -> None:
    """702.105a: only the attacker of the player with the most life (c, 25) triggers, twice
    for its two instances (702.105b): 4/4, 4 damage to c; the one attacking b (15) does not
    trigger: 2 damage to b."""
    text = THREE + creature("x", "a", 2, 2, "dethrone", "dethrone")
    text += creature("y", "a", 2, 2, "dethrone")
    out = three_engines(text + combat({"x": "c", "y": "b"}))
    assert out.power.tolist() == [4, 2]
    assert out.life.tolist() == [20, 13, 21]


def test_dethrone_blocked_keeps_its_counter() -> None:
    """702.105a, 510.1: the trigger resolves before blocks: a 1/1 with dethrone is a 2/2
    when a 2/2 blocks it: both die (704.5g)."""
    text = TWO + creature("x", "a", 1, 1, "dethrone") + creature("y", "b", 2, 2)
    out = three_engines(text + combat({"x": "b"}, {"y": "x"}))
    assert out.power.tolist() == [2, 2]
    assert out.alive.tolist() == [False, False]
    assert out.life.tolist() == [20, 20]


def test_vigilance_changes_nothing_in_one_combat() -> None:
    """702.20b: attacking without tapping; in one combat the outcome is a 3/3's: 3 damage,
    and a 2/2 blocker of a second vigilant attacker dies."""
    text = TWO + creature("x", "a", 3, 3, "vigilance") + creature("z", "a", 3, 3, "vigilance")
    text += creature("y", "b", 2, 2)
    out = three_engines(text + combat({"x": "b", "z": "b"}, {"y": "z"}))
    assert out.alive.tolist() == [True, True, False]
    assert out.life.tolist() == [20, 17]


def test_haste_attacks_the_turn_it_came() -> None:
    """702.10b, 302.6: a summoning-sick 2/2 with haste may attack; it deals 2."""
    text = TWO + creature("x", "a", 2, 2, "haste").replace(
        "keywords", "summoning_sick = true\nkeywords"
    )
    out = three_engines(text + combat({"x": "b"}))
    assert out.life.tolist() == [20, 18]


def test_the_parts_are_the_plugins() -> None:
    """The three systems have kernel parts, from their plugins."""
    source = generate(BUNDLED)
    assert source.covers("ecs_combat_keywords.dethrone", "attack trigger")
    assert source.covers("ecs_combat_keywords.vigilance", "attacks untapped")
    assert source.covers("ecs_combat_keywords.haste", "explains")


KEYWORDS = [
    "dethrone",
    "mentor",
    "vigilance",
    "haste",
    "exalted",
    "first strike",
    "deathtouch",
    "lifelink",
]


@settings(max_examples=10 if NOT_JITTED else 60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
@given(doc=scenarios(BUNDLED, keywords=KEYWORDS, players=3, state=False, events=False))
def test_three_engines_agree_on_drawn_attack_parts(doc: dict[str, Any]) -> None:
    """The kit's check and the kernel against the numpy engine exactly, with dethrone and
    mentor (their +1/+1 counters), vigilance and haste among others, and three players."""
    for c in doc["creatures"].values():
        c.pop("counters", None)
    assert_three_engines_agree(doc)


# -- mentor: a target chosen as the trigger is put on the stack --------------------------------


def test_mentor_puts_a_counter_on_the_greatest_lesser_attacker() -> None:
    """702.134a: a 3/3 mentor attacking beside a 2/2 and a 1/1 targets the greatest power
    below its own (the 2/2, RULES section 10): a 3/3 then; 3 + 3 + 1 = 7 damage."""
    text = TWO + creature("m", "a", 3, 3, "mentor") + creature("x", "a", 2, 2)
    text += creature("y", "a", 1, 1)
    out = three_engines(text + combat({"m": "b", "x": "b", "y": "b"}))
    assert out.power.tolist() == [3, 3, 1]
    assert out.toughness.tolist() == [3, 3, 1]
    assert out.life.tolist() == [20, 13]


def test_mentor_ties_go_to_the_first_and_alone_it_does_nothing() -> None:
    """702.134a: two 1/1s below a 2/2 mentor: the first listed gets the counter; a mentor
    attacking alone has no target: nothing triggers (603.3d)."""
    text = TWO + creature("m", "a", 2, 2, "mentor") + creature("x", "a", 1, 1)
    text += creature("y", "a", 1, 1)
    out = three_engines(text + combat({"m": "b", "x": "b", "y": "b"}))
    assert out.power.tolist() == [2, 2, 1]
    alone = three_engines(TWO + creature("m", "a", 2, 2, "mentor") + combat({"m": "b"}))
    assert alone.power.tolist() == [2]
    assert alone.life.tolist() == [20, 18]


def test_mentor_target_no_longer_lesser_as_it_resolves() -> None:
    """608.2b: two 2/2 mentors beside a 1/1: both target the 1/1 (chosen as they trigger);
    the first resolving makes it 2/2, so the second finds it no longer lesser: 2/2."""
    text = TWO + creature("m", "a", 2, 2, "mentor") + creature("n", "a", 2, 2, "mentor")
    text += creature("x", "a", 1, 1)
    out = three_engines(text + combat({"m": "b", "n": "b", "x": "b"}))
    assert out.power.tolist() == [2, 2, 2]
    assert out.life.tolist() == [20, 14]


def test_mentor_beside_a_protected_attacker_goes_to_numpy() -> None:
    """702.16b: a creature with protection may not be targeted: the kernel, which does not
    ask target restrictions, refuses the batch; the numpy engine resolves it."""
    text = TWO + creature("m", "a", 3, 3, "mentor")
    text += creature("x", "a", 2, 2, "protection from creatures") + combat({"m": "b", "x": "b"})
    batch = scenarios_to_batch([parse_scenario(tomllib.loads(text), BUNDLED, "t.toml")], BUNDLED)
    kernel, _ = engines_of(BUNDLED)
    compiled = kernel.kernel()
    assert compiled is not None
    why = compiled.refusal(kernel.schedules.of([batch]), batch)
    assert why == "a target a trigger chooses may have a target restriction"
    assert kernel.resolve_batch(batch).power.tolist() == [3, 2]  # untargetable: no counter


def test_a_choose_needs_its_event() -> None:
    """The contract: `choose` with the choosing event only."""
    from ecs_combat.plugin.kernels import KernelPart, kernel_problem

    part = KernelPart("declare-attackers", "attack trigger", lambda *a: None, event="attacks",
                      choose=lambda *a: -1)  # fmt: skip
    assert "choose" in kernel_problem(part, "ecs_combat_keywords.mentor", BUNDLED)


# -- banding: another player divides the damage (702.22j-k) ------------------------------------


def test_a_trampler_blocked_by_a_banding_creature_deals_all_of_it_to_it() -> None:
    """702.22j: a 4/4 trampler blocked by a 1/1 with banding: the defending player divides
    its damage, none to a player (trample's excess included): 4 to the 1/1, life 20."""
    text = TWO + creature("x", "a", 4, 4, "trample") + creature("y", "b", 1, 1, "banding")
    out = three_engines(text + combat({"x": "b"}, {"y": "x"}))
    assert out.damage.tolist() == [1, 4]
    assert out.alive.tolist() == [True, False]
    assert out.life.tolist() == [20, 20]


def test_a_banding_attacker_and_deathtouch_trample() -> None:
    """702.22k, 702.2c, 702.19b: a 2/2 deathtouch trampler blocked by a 1/3 with banding
    assigns all 2 to it (its controller divides: none to the player); the attacker with
    banding unblocked beside it deals its 2: life 18."""
    text = TWO + creature("x", "a", 2, 2, "deathtouch", "trample")
    text += creature("z", "a", 2, 2, "banding") + creature("y", "b", 1, 3, "banding")
    out = three_engines(text + combat({"x": "b", "z": "b"}, {"y": "x"}))
    assert out.damage.tolist() == [1, 0, 2]
    assert out.alive.tolist() == [True, True, False]
    assert out.life.tolist() == [20, 18]


def test_banding_refusals() -> None:
    """The kernel plays no bands (702.22c-h) and no division another player chooses among
    two or more creatures (702.22j; the numpy engine asks `combat.divide` for it); a batch
    without banding fights is taken."""
    kernel, _ = engines_of(BUNDLED)
    compiled = kernel.kernel()
    assert compiled is not None

    def why(text: str, legal: bool = False) -> str:
        doc = tomllib.loads(text)
        batch = scenarios_to_batch([parse_scenario(doc, BUNDLED, "t.toml")], BUNDLED)
        assert compiled is not None
        return compiled.refusal(kernel.schedules.of([batch]), batch, legal)

    pair = TWO + creature("x", "a", 2, 2, "banding") + creature("z", "a", 2, 2, "banding")
    banded = pair + combat({"x": "b", "z": "b"}) + 'bands = [["x", "z"]]\n'
    assert why(banded) == "the batch has bands"
    assert why(pair + combat({"x": "b", "z": "b"})) == ""
    two = TWO + creature("x", "a", 4, 4) + creature("y", "b", 1, 1, "banding")
    two += creature("w", "b", 1, 1) + combat({"x": "b"}, {"y": "x", "w": "x"})
    assert why(two) == "another player divides a creature's damage among two or more creatures"
    one = TWO + creature("x", "a", 4, 4) + creature("y", "b", 1, 1, "banding")
    one += combat({"x": "b"}, {"y": "x"})
    assert why(one) == ""
    assert why(one, legal=True).startswith("another player may divide")
    blocks_two = TWO + creature("x", "a", 1, 1, "banding") + creature("v", "a", 1, 1)
    blocks_two += creature("y", "b", 4, 4) + combat({"x": "b", "v": "b"}, {"y": "x"})
    assert why(blocks_two) == ""  # one attacker blocked: nothing to choose


SPEC = """
attackers = [1, 3]
blockers_per_attacker = [0, 1]
power = [1, 5]
toughness = [1, 5]
life = 20
[keywords]
dethrone = 0.3
mentor = 0.3
banding = 0.2
trample = 0.2
vigilance = 0.2
haste = 0.2
deathtouch = 0.1
"""


def test_a_drawn_spec_batch_with_the_attack_parts() -> None:
    """A drawn SPEC batch (dethrone, mentor, banding, trample, vigilance, haste): the kernel
    takes it, every outcome array as the numpy engine's, and counters were put."""
    spec = parse_spec(tomllib.loads(SPEC), BUNDLED, "attack.toml")
    batch = draw_battles(make_generator(spec, BUNDLED), 5, 0, 1500).batch
    with_kernel, numpy_engine = engines_of(BUNDLED)
    ours = kernel_outcome(with_kernel, batch)
    assert_same(ours, numpy_engine.resolve_batch(batch))
    assert (ours.power > np.asarray(batch.power)).any()  # some +1/+1 counters
