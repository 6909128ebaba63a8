"""Bulk turns: a SPEC with `[turn]` (docs/simulate.md), drawn and resolved as arrays.

The bulk result must equal resolving the very same turns (the declarations each phase made)
one by one from scenarios, with the batched engine's turn path and with the reference engine.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ecs_combat import InputError, Registry
from ecs_combat.batched.convert import batch_to_scenarios
from ecs_combat.batched.engine import BatchedEngine
from ecs_combat.batched.turn_play import TurnRun
from ecs_combat.plugin.phases import Phase
from ecs_combat.reference.engine import ReferenceEngine
from ecs_combat.scenario.turns import TurnScenario
from ecs_combat.simulation.generate import Drawn, SpecGenerator, draw_battles
from ecs_combat.simulation.generators import make_generator
from ecs_combat.simulation.spec_reader import parse_spec

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "specs" / "extra-combat.toml"

#: Both players have a Throat Wolf: on A's turn the combat phases are A, B (B's Wolf), A (A's).
TWO_WOLVES = {
    "attackers": [1, 3],
    "blockers_per_attacker": [0, 2],
    "power": [1, 4],
    "toughness": [1, 4],
    "keywords": {"vigilance": 0.3, "first strike": 0.2, "exalted": 0.1, "deathtouch": 0.1},
    "turn": {
        "creatures": [
            {"card": "Throat Wolf", "controller": "attacking player"},
            {"card": "Throat Wolf", "controller": "defending player"},
        ],
        "combats": [{"attack": 0.9, "block": 0.6}, {"attack": 0.8, "block": 0.7}],
    },
}


def spec_of(doc: dict[str, Any], registry: Registry) -> SpecGenerator:
    generator = make_generator(parse_spec(doc, registry, "turn-spec.toml"), registry)
    assert isinstance(generator, SpecGenerator)
    return generator


def played(registry: Registry, drawn: Drawn) -> TurnRun:
    assert drawn.turn is not None
    run = TurnRun(BatchedEngine(registry).schedules, drawn.turn, record=False, strict=False)
    run.play_turns()
    run.raise_error()
    return run


def as_turns(registry: Registry, generator: SpecGenerator, run: TurnRun) -> list[TurnScenario]:
    """The turns the bulk run played, as scenarios: each phase's declarations as made."""
    assert generator.turn is not None
    plan = generator.turn
    per_phase = [batch_to_scenarios(b, registry) for b in run.phase_batches]
    out = []
    for b, first in enumerate(per_phase[0]):
        ids = list(first.creatures)
        extra = ids[len(ids) - plan.n_extra :]
        phases = [
            p
            if p.only_attackers is None
            else Phase(
                p.kind,
                p.player,
                p.created_by,
                frozenset(extra[plan.ids.index(c)] for c in p.only_attackers),
            )
            for p in plan.phases
        ]
        combats = [
            dataclasses.replace(sc[b], players=first.players, creatures=first.creatures)
            for sc in per_phase
        ]
        out.append(
            TurnScenario(f"battle {b}", first.players, first.creatures, "A", phases, combats)
        )
    return out


def compare(run: TurnRun, turns: list[TurnScenario], results: list[Any]) -> None:
    outcome = run.outcome()
    alive, damage = outcome.alive.tolist(), outcome.damage.tolist()
    life = outcome.life.tolist()
    row = 0
    for b, (turn, result) in enumerate(zip(turns, results, strict=True)):
        for cid in turn.creatures:
            got = result.creatures[cid]
            assert (got.alive, got.damage) == (alive[row], damage[row]), (b, cid)
            row += 1
        assert [p.life for p in result.players.values()] == life[2 * b : 2 * b + 2]


def test_phases_of_the_spec(registry: Registry) -> None:
    """RULES 8: Wolves for A and B, A's turn -> combat phases A, B, A."""
    generator = spec_of(TWO_WOLVES, registry)
    assert generator.turn is not None
    combats = [(p.player, p.created_by) for p in generator.turn.phases if p.kind == "combat"]
    assert combats == [("A", "turn"), ("B", "Throat Wolf (turn2)"), ("A", "Throat Wolf (turn1)")]


def test_bulk_turns_equal_the_same_turns_one_by_one(registry: Registry) -> None:
    """The bulk result equals resolving each drawn turn alone from its scenarios."""
    generator = spec_of(TWO_WOLVES, registry)
    drawn = draw_battles(generator, 7, 0, 400)
    run = played(registry, drawn)
    turns = as_turns(registry, generator, run)
    assert any(sc.attackers for t in turns for sc in t.combats[1:])  # the Wolves fought
    assert any(sc.blockers for t in turns for sc in t.combats[1:])
    compare(run, turns, BatchedEngine(registry).resolve_turns(turns))


def test_bulk_turns_equal_the_reference_engine(registry: Registry) -> None:
    """The same, resolved by the reference engine one turn at a time."""
    reference = ReferenceEngine(registry)
    generator = spec_of(TWO_WOLVES, registry)
    run = played(registry, draw_battles(generator, 11, 0, 150))
    turns = as_turns(registry, generator, run)
    compare(run, turns, [reference.resolve_turn(t) for t in turns])


def test_tapped_or_dead_creatures_do_not_declare_later(registry: Registry) -> None:
    """RULES 8: in a later phase only untapped creatures on the battlefield declare: a Wolf
    that attacked in the first combat (no vigilance) can't attack in its own."""
    doc = json.loads(json.dumps(TWO_WOLVES))
    doc["keywords"] = {}
    generator = spec_of(doc, registry)
    run = played(registry, draw_battles(generator, 5, 0, 300))
    first, second, third = run.phase_batches
    tapped_first = first.attacking >= 0
    assert not np.any((third.attacking >= 0) & tapped_first)
    blocked_in_second = np.zeros(first.n_creatures, np.bool_)
    blocked_in_second[second.block_blocker] = True
    assert not np.any(blocked_in_second & tapped_first)


def test_without_the_extra_attack_the_battles_are_the_first_combat(registry: Registry) -> None:
    """The turn's draws come after the first combat's: with the Wolf never attacking, every
    battle ends as the same SPEC without `[turn]` does (the Wolf stays home)."""
    doc = tomllib.loads(EXAMPLE.read_text())
    doc["turn"]["combats"][0]["attack"] = 0.0
    plain = {k: v for k, v in doc.items() if k != "turn"}
    with_turn, without = spec_of(doc, registry), spec_of(plain, registry)
    state = played(registry, draw_battles(with_turn, 3, 0, 2000)).state
    outcome = BatchedEngine(registry).resolve_batch(draw_battles(without, 3, 0, 2000).batch)
    on_bf = state.creatures.on_bf
    wolf = np.zeros(state.frame.n, np.bool_)
    ends = np.searchsorted(state.creatures.battle, np.arange(1, state.frame.nb + 1)) - 1
    wolf[ends] = True  # the Wolf is each battle's last row
    assert on_bf[~wolf].tolist() == outcome.alive.tolist()
    assert state.players.life.tolist() == outcome.life.tolist()
    assert on_bf[wolf].all()


def test_simulate_a_turn_spec_on_the_command_line(tmp_path: Path) -> None:
    """The example SPEC runs; the extra combat phase deals more damage to players than the
    same battles without it."""

    def run(path: Path) -> dict[str, Any]:
        done = subprocess.run(
            ["ecs-combat", "simulate", str(path), "-n", "3000", "--seed", "1", "--json"],
            capture_output=True,
            text=True,
            check=True,
        )
        doc: dict[str, Any] = json.loads(done.stdout)
        return doc

    on = run(EXAMPLE)
    off = run(EXAMPLE.with_name("extra-combat-off.toml"))
    assert on["spec"]["turn"]["creatures"] == [
        {"card": "Throat Wolf", "controller": "defending player"}
    ]
    assert on["battles"] == off["battles"] == 3000
    assert on["totals"]["damage_to_players"] > off["totals"]["damage_to_players"]


def test_reference_engine_refuses_turn_specs() -> None:
    """Bulk turns resolve on the batched engine only: exit 2 naming --engine."""
    done = subprocess.run(
        ["ecs-combat", "simulate", str(EXAMPLE), "-n", "10", "--engine", "reference"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2
    assert "--engine" in done.stderr and "batched" in done.stderr


@pytest.mark.parametrize(
    ("turn", "path", "words"),
    [
        (
            {"creatures": [{"card": "Throat Wulf", "controller": "defending player"}]},
            "turn.creatures[0].card",
            "did you mean 'Throat Wolf'",
        ),
        (
            {"creatures": [{"card": "Throat Wolf", "controller": "me"}]},
            "turn.creatures[0].controller",
            "'attacking player' or 'defending player'",
        ),
        ({"combats": [{"attack": 0.5}]}, "turn.combats", "0 combat phases after the first"),
        (
            {
                "creatures": [{"card": "Throat Wolf", "controller": "defending player"}],
                "combats": [{"attack": 2}],
            },
            "turn.combats[0].attack",
            "between 0 and 1",
        ),
        (
            {"casts": [{"card": "Hat Trick", "caster": "attacking player"}]},
            "turn.casts[0].card",
            "needs a target",
        ),
        ({"wolves": 1}, "turn.wolves", "unknown"),
    ],
)
def test_turn_spec_errors(registry: Registry, turn: Any, path: str, words: str) -> None:
    """Bad `[turn]` tables name the place and what is wrong."""
    with pytest.raises(InputError) as caught:
        parse_spec({"turn": turn}, registry, "turn-spec.toml")
    assert caught.value.path == path
    assert words in str(caught.value)


KEYWORDS = (
    "vigilance",
    "first strike",
    "deathtouch",
    "exalted",
    "flying",
    "battle cry",
    "flanking",
    "lifelink",
    "trample",
    "indestructible",
    "menace",
    "reach",
)


@st.composite
def turn_specs(draw: st.DrawFn) -> dict[str, Any]:
    """A random SPEC with a `[turn]`: Wolves for one or both players, random keywords."""
    keywords = {k: draw(st.sampled_from([0.0, 0.2, 0.5])) for k in KEYWORDS}
    wolves = draw(st.sampled_from([["defending player"], ["attacking player", "defending player"]]))
    chances = st.fixed_dictionaries(
        {"attack": st.sampled_from([0.5, 1.0]), "block": st.sampled_from([0.0, 0.5, 1.0])}
    )
    return {
        "attackers": [1, draw(st.integers(1, 3))],
        "blockers_per_attacker": [0, draw(st.integers(0, 2))],
        "power": [0, 4],
        "toughness": [1, 4],
        "keywords": {k: p for k, p in keywords.items() if p},
        "turn": {
            "creatures": [{"card": "Throat Wolf", "controller": w} for w in wolves],
            "combats": [draw(chances) for _ in wolves],
        },
    }


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(turn_specs(), st.integers(0, 2**16))
def test_agreement_on_drawn_turns(registry: Registry, doc: dict[str, Any], seed: int) -> None:
    """Random bulk turns resolve as the same turns one by one, with the batched engine's turn
    path and with the reference engine."""
    generator = spec_of(doc, registry)
    run = played(registry, draw_battles(generator, seed, 0, 60))
    turns = as_turns(registry, generator, run)
    compare(run, turns, BatchedEngine(registry).resolve_turns(turns))
    reference = ReferenceEngine(registry)
    compare(run, turns, [reference.resolve_turn(t) for t in turns])
