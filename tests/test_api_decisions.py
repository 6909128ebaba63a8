"""The decisions of the Python API (ecs_combat.best_blocks / best_attacks, docs/python.md
"Decisions"): the answers of `ecs-combat blocks|attacks --json`, from files or scenarios, and
the command's errors as InputError."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

import ecs_combat
from ecs_combat import InputError, Objective, Registry, parse_scenario

ROOT = Path(__file__).resolve().parent.parent
DECISIONS = ROOT / "examples" / "decisions"


def without_run(doc: dict[str, Any]) -> dict[str, Any]:
    """A decision document but for `run` (the time taken depends on the run)."""
    return {k: v for k, v in doc.items() if k != "run"}


@pytest.mark.parametrize(
    ("decision", "file", "args"),
    [
        ("blocks", "giant-vs-two-bears.toml", {}),
        ("blocks", "knight-first-strike-division.toml", {"top": 4, "objective": "material,life"}),
        ("attacks", "race.toml", {"top": 2}),
    ],
)
def test_the_answer_of_the_command(
    registry: Registry, decision: str, file: str, args: dict[str, Any]
) -> None:
    """The same document as the installed command prints (but `run`)."""
    path = DECISIONS / file
    decide = ecs_combat.best_blocks if decision == "blocks" else ecs_combat.best_attacks
    answer = decide(path, registry, **args)
    assert isinstance(answer, ecs_combat.Decision)
    assert all(isinstance(c, ecs_combat.Choice) for c in answer.best)
    options = [x for k, v in args.items() for x in (f"--{k}", str(v))]
    done = subprocess.run(
        ["ecs-combat", decision, str(path), *options, "--json"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    assert without_run(answer.to_json()) == without_run(json.loads(done.stdout))


def test_a_scenario_object_and_every_form_of_objective(registry: Registry) -> None:
    """A 4/4 given `value = 10` attacks two 2/2s (value 2 + 2 = 4 each). No block: 4 life,
    (material 0, life 4). One blocks: it dies for nothing, (4, 0). Both: the 4/4 takes 4 and
    dies (10), dividing 2 and 2 it kills both (8): (8 - 10 = -2, 0). B minimises: material
    first, the double block (-2); life first, the three blocks tie at life 0 and material
    decides, the double block again; life alone, the three tie (the fewest creatures first:
    b1, then b2, then both) and no block (life 4) comes last."""
    doc = {
        "players": {"A": {}, "B": {}},
        "creatures": {
            "giant": {"controller": "A", "power": 4, "toughness": 4, "value": 10},
            "b1": {"controller": "B", "power": 2, "toughness": 2},
            "b2": {"controller": "B", "power": 2, "toughness": 2},
        },
        "combat": {"attackers": {"giant": "B"}},
    }
    scenario = parse_scenario(doc, registry, "giant")
    both = {"b1": "giant", "b2": "giant"}
    first = ecs_combat.best_blocks(scenario, registry, top=4)
    assert first.best[0].blockers == both
    assert first.best[0].score == {"game": 0, "material": -2, "life": 0, "poison": 0}
    assert first.declarations == 4 and first.optimal_count == 1
    for objective in (
        "life,material",
        ["life", "material"],
        Objective.parse("life,material", registry),
    ):
        answer = ecs_combat.best_blocks(scenario, registry, objective=objective)
        assert answer.objective == ("life", "material")
        assert answer.best[0].blockers == both
        assert answer.best[0].score == {"life": 0, "material": -2}
    life = ecs_combat.best_blocks(scenario, registry, top=4, objective=["life"])
    assert life.optimal_count == 3  # b1, b2 or both: life 0
    assert [c.blockers for c in life.best[:2]] == [{"b1": "giant"}, {"b2": "giant"}]
    assert life.best[3].blockers == {} and life.best[3].score == {"life": 4}
    # registry optional: the installed plugins (the same answer)
    assert ecs_combat.best_blocks(scenario).best[0].score == first.best[0].score


def test_a_choice_scenario_resolves_to_its_outcome(registry: Registry) -> None:
    """Each choice's scenario has its declarations written in: resolving it gives exactly the
    choice's outcome, on both engines."""
    answer = ecs_combat.best_attacks(DECISIONS / "race.toml", registry, top=3)
    for choice in answer.best:
        assert choice.scenario.attackers == choice.attackers
        for engine in ("reference", "batched"):
            [result] = ecs_combat.resolve(choice.scenario, engine=engine, registry=registry)
            assert result.to_json() == choice.outcome


GIANT = {
    "players": {"A": {}, "B": {}},
    "creatures": {
        "giant": {"controller": "A", "power": 3, "toughness": 3},
        "bear": {"controller": "B", "power": 2, "toughness": 2},
    },
}


@pytest.mark.parametrize(
    ("decision", "combat", "kwargs", "message"),
    [
        ("blocks", {"attackers": {"giant": "B"}}, {"objective": "materail"},
         "objective: unknown score term 'materail'; did you mean 'material'?"),
        ("blocks", {"attackers": {"giant": "B"}}, {"objective": ["life", "life"]},
         "objective: score term 'life' is named twice"),
        ("blocks", {"attackers": {"giant": "B"}}, {"top": 0}, "top: must be 1 or more, not 0"),
        ("attacks", {}, {"budget": -1.0},
         "budget: must be a positive number of seconds, not -1"),
        ("blocks", {}, {}, "t: combat.attackers: missing: best_blocks answers declared attackers"),
        ("blocks", {"attackers": {"giant": "B"}, "blockers": {"bear": "giant"}}, {},
         "t: combat.blockers: best_blocks chooses the blocks and divisions itself"),
        ("attacks", {"attackers": {"giant": "B"}}, {},
         "t: combat.attackers: best_attacks chooses the attacks, blocks and divisions itself"),
    ],
)  # fmt: skip
def test_bad_input_is_an_input_error(
    registry: Registry,
    decision: str,
    combat: dict[str, Any],
    kwargs: dict[str, Any],
    message: str,
) -> None:
    scenario = parse_scenario({**GIANT, "combat": combat}, registry, "t")
    decide = ecs_combat.best_blocks if decision == "blocks" else ecs_combat.best_attacks
    with pytest.raises(InputError) as error:
        decide(scenario, registry, **kwargs)
    assert str(error.value).startswith(message), str(error.value)


def test_a_file_must_hold_one_combat(registry: Registry) -> None:
    jsonl = ROOT / "docs" / "examples" / "two-combats.jsonl"
    with pytest.raises(InputError, match="holds 2 scenarios: decide one at a time"):
        ecs_combat.best_blocks(jsonl, registry)
    turn = ROOT / "docs" / "examples" / "turns" / "two-wolves.toml"
    with pytest.raises(InputError, match="a decision is about one combat, not a turn file"):
        ecs_combat.best_attacks(turn, registry)


def test_three_players_are_refused(registry: Registry) -> None:
    doc = {**GIANT, "players": {"A": {}, "B": {}, "C": {}}}
    with pytest.raises(InputError, match="a decision is between two players"):
        ecs_combat.best_attacks(parse_scenario(doc, registry, "t"), registry)
