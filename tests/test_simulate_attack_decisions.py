"""Bulk decided attacks (``decisions = "optimal"``, CONTRACT 9; RULES 9 step 1): the attack
the bulk search (:class:`~ecs_combat.decisions.attack_search.AttackSearch`) chooses among a
battle's drawn attackers, with its blocks, is the one `best_attacks` shows first for that
battle's scenario, on small random boards with keywords; the chosen declarations resolve to
the same outcome on both engines. Hand-derived cases are in test_simulate_decisions.py and
test_simulate_decision_rules.py."""

from __future__ import annotations

import dataclasses
from typing import Any

from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st

from ecs_combat import Registry
from ecs_combat.batched.convert import batch_to_scenarios
from ecs_combat.batched.engine import BatchedEngine
from ecs_combat.cards.notes import result_json
from ecs_combat.decisions import best_attacks
from ecs_combat.decisions.decided import Decider
from ecs_combat.errors import InputError
from ecs_combat.reference.engine import ReferenceEngine
from ecs_combat.simulation.generate import draw_battles
from ecs_combat.simulation.generators import make_generator
from ecs_combat.simulation.spec_reader import parse_spec

KEYWORDS = (
    "first strike",
    "deathtouch",
    "trample",
    "flying",
    "reach",
    "menace",
    "lifelink",
    "vigilance",
    "can block an additional creature",
)


@st.composite
def small_specs(draw: st.DrawFn) -> dict[str, Any]:
    """SPECs of up to 3 attackers and 4 creatures that may block, power and toughness 0-3,
    some keywords, life low enough that the game term matters now and then."""
    chosen = draw(st.lists(st.sampled_from(KEYWORDS), max_size=4, unique=True))
    return {
        "attackers": [1, draw(st.integers(1, 3))],
        "blockers_per_attacker": [0, draw(st.integers(0, 2))],
        "power": [0, 3],
        "toughness": [1, 3],
        "life": draw(st.integers(1, 6)),
        "keywords": {k: draw(st.sampled_from([0.3, 0.6])) for k in chosen},
        "decisions": "optimal",
    }


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=small_specs(), seed=st.integers(0, 2**16))
def test_bulk_attacks_are_best_attacks_board_by_board(
    registry: Registry, doc: dict[str, Any], seed: int
) -> None:
    try:
        spec = parse_spec(doc, registry)
    except InputError as refused:  # too many declarations for an exact search: refused
        assert "is refused for this SPEC" in str(refused)
        reject()
    drawn = draw_battles(make_generator(spec, registry), seed, 0, 6)
    chosen, _ = Decider(registry).decide(drawn)
    mine = batch_to_scenarios(chosen.batch, registry)
    batched = BatchedEngine(registry).resolve_many(mine)
    for plain, decided, on_batched in zip(
        batch_to_scenarios(drawn.batch, registry), mine, batched, strict=True
    ):
        board = dataclasses.replace(plain, attackers={}, blockers={}, divisions=[])
        best = best_attacks(board, registry, top=1).best[0]
        assert dict(decided.attackers) == best.attackers, plain.file
        blockers = {b: a[0] if len(a) == 1 else list(a) for b, a in decided.blockers.items()}
        assert blockers == best.blockers, plain.file
        for result in (ReferenceEngine(registry).resolve(decided), on_batched):
            outcome = result_json(decided, result)
            assert outcome["creatures"] == best.outcome["creatures"], plain.file
            assert outcome["players"] == best.outcome["players"], plain.file
