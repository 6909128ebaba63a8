"""The shared shapes of the plugin API (PumpTrigger, CounterTrigger, block_trigger,
attack_trigger) used by a
third-party plugin, as docs/plugins.md shows: its keywords resolve by hand's numbers on both
engines (509.2-509.5 block triggers; 122.1a counters)."""

from __future__ import annotations

from typing import Any

import pytest
from conftest import ENGINES, Resolve, text_resolver
from scenario_text import combat, creature

from ecs_combat import (
    AttackDeclaration,
    BatchAttackDeclaration,
    BatchContext,
    BatchTriggers,
    CombatContext,
    CounterTrigger,
    Keyword,
    PumpTrigger,
    System,
    Trigger,
    attack_trigger,
    block_trigger,
    hookimpl,
)
from ecs_combat.testing import registry_with

PLAYERS = "[players.A]\n[players.B]\n"
#: Made up: +2/+0 for each N when it becomes blocked.
SURGE = PumpTrigger("surge", 2, 0, "{keyword} {n} ({id}): +{power}/+{toughness}")
#: Made up: -1/-1 for each N times the blockers beyond the first, when it blocks or is blocked.
CROWD = PumpTrigger(
    "crowd", -1, -1, "{keyword} {n} ({id}): {beyond} beyond", per_blocker_beyond_first=True
)
#: Made up: a +1/+1 counter on each attacker with it, as attackers are declared.
ZEAL = CounterTrigger("zeal", "+1/+1", "{keyword} ({id}): a counter")


def _zeal(combat: CombatContext, declaration: AttackDeclaration) -> None:
    declaration.trigger_each_instance(combat, "zeal", ZEAL.resolve)


def _zeal_batched(batch: BatchContext, declaration: BatchAttackDeclaration) -> None:
    declaration.trigger_each_instance(batch, "zeal", ZEAL.resolve_batched)


def _tithe(combat: CombatContext, trigger: Trigger) -> None:
    combat.lose_life(trigger.data["defending_player"], trigger.data["n"])


def _tithe_batched(batch: BatchContext, triggers: BatchTriggers) -> None:
    batch.lose_life(triggers.data["defending_player"], triggers.data["n"])


class ThirdParty:
    """A plugin written with the shared shapes only."""

    @hookimpl
    def register_keywords(self) -> list[Keyword]:
        return [
            Keyword("surge", rule="702.999", parameter="number"),
            Keyword("crowd", rule="702.998", parameter="number"),
            Keyword("zeal", rule="702.997", requires=frozenset({"+1/+1"})),
            Keyword("tithe", rule="702.996", parameter="number"),
        ]

    @hookimpl
    def register_systems(self) -> list[System]:
        return [
            block_trigger("surge", "becomes blocked", SURGE.resolve, SURGE.resolve_batched),
            block_trigger(
                "crowd", "blocks or becomes blocked", CROWD.resolve, CROWD.resolve_batched
            ),
            System("declare-attackers", "attack trigger", _zeal, _zeal_batched, {"zeal"}),
            attack_trigger("tithe", _tithe, _tithe_batched, defender=True),
        ]


@pytest.fixture(scope="module", params=ENGINES)
def run(request: pytest.FixtureRequest) -> Resolve:
    return text_resolver(request.param, registry_with(extra=[ThirdParty()]))


def pt(out: dict[str, Any], cid: str) -> tuple[int, int]:
    c = out["creatures"][cid]
    return c["power"], c["toughness"]


def test_a_pump_trigger_per_n_when_blocked(run: Resolve) -> None:
    """surge 3 (+2/+0 per N) on a 1/1 blocked by a 0/9 wall: 1 + 6 = 7 power, toughness 1;
    unblocked, nothing: 1/1."""
    blocked = run(
        PLAYERS
        + creature("s", "A", 1, 1, "surge 3")
        + creature("w", "B", 0, 9)
        + combat({"s": "B"}, {"w": "s"})
    )
    assert pt(blocked, "s") == (7, 1)
    unblocked = run(PLAYERS + creature("s", "A", 1, 1, "surge 3") + combat({"s": "B"}))
    assert pt(unblocked, "s") == (1, 1)


def test_a_pump_trigger_per_blocker_beyond_the_first(run: Resolve) -> None:
    """crowd 1 (-1/-1 per N per blocker beyond the first) on a 5/5 attacker blocked by three
    0/4 walls: two beyond the first, 5/5 -> 3/3; on each wall (blocking, no one blocks it):
    0 beyond, 0/4 stays."""
    out = run(
        PLAYERS
        + creature("big", "A", 5, 5, "crowd 1")
        + creature("w1", "B", 0, 4, "crowd 1")
        + creature("w2", "B", 0, 4)
        + creature("w3", "B", 0, 4)
        + combat({"big": "B"}, {"w1": "big", "w2": "big", "w3": "big"})
    )
    assert pt(out, "big") == (3, 3)
    assert pt(out, "w1") == (0, 4)


def test_a_counter_trigger_puts_one_counter_per_instance(run: Resolve) -> None:
    """zeal twice on a 2/2 attacker: two +1/+1 counters as attackers are declared: 4/4."""
    out = run(PLAYERS + creature("z", "A", 2, 2, "zeal", "zeal") + combat({"z": "B"}))
    assert pt(out, "z") == (4, 4)


def test_an_attack_trigger_remembers_the_player_attacked(run: Resolve) -> None:
    """tithe 2 (made up: the player it attacks loses N life) on a 1/1 attacking B, unblocked:
    B loses 2 as attackers are declared and 1 combat damage: 20 -> 17; A keeps 20."""
    out = run(PLAYERS + creature("t", "A", 1, 1, "tithe 2") + combat({"t": "B"}))
    assert out["players"]["B"]["life"] == 17
    assert out["players"]["A"]["life"] == 20
