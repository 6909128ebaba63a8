"""Both engines print the same readable account (docs/output.md, "Both engines, one account"):
the batched engine records no sentences as it resolves, so its results are worded by the
reference engine, whose outcome is checked to be the batched engine's. Compared here over every
scenario and turn file of the examples, the docs and tests/scenarios (the shared examples
among them), over drawn scenarios, and through the installed command for a combat, a turn
and a race. The batched engine's results are checked to be unworded, so each comparison goes
through the wording."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from cli_run import run_cli
from conftest import bundled_registry
from hypothesis import HealthCheck, given, reject, settings

import ecs_combat
from ecs_combat import RefusedError, Registry, Scenario, TurnScenario, parse_scenario
from ecs_combat.batched.engine import BatchedEngine
from ecs_combat.decisions.decide import engine_for
from ecs_combat.reference.narration import EnginesDisagree, Narrator
from ecs_combat.rules.result import CombatResult
from ecs_combat.testing import scenarios

ROOT = Path(__file__).resolve().parent.parent
FILES = sorted(
    p
    for folder in ("examples/scenarios", "docs/examples", "tests/scenarios")
    for p in (ROOT / folder).rglob("*")
    if p.suffix in (".toml", ".json", ".jsonl")
    and not p.name.endswith(".expected.json")
    and "invalid" not in p.parts
    and "specs" not in p.parts
)

#: The bundled plugins, for the drawn scenarios.
DRAWN = bundled_registry()


def batched_results(registry: Registry, items: list[Scenario | TurnScenario]) -> list[Any] | None:
    """The batched engine's results of `items`, or None where it refuses them."""
    engine = engine_for(registry)  # made once a registry
    try:
        return [
            engine.resolve_turns([i])[0]
            if isinstance(i, TurnScenario)
            else engine.resolve_many([i])[0]
            for i in items
        ]
    except RefusedError:
        return None


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_both_engines_accounts_of_a_file_are_the_same(registry: Registry, path: Path) -> None:
    items = ecs_combat.load(path, registry)
    found = batched_results(registry, items)
    if found is None:
        pytest.skip("the batched engine refuses it (resolve says so, on the batched engine)")
    for item, result in zip(items, found, strict=True):
        assert not result.worded  # the batched engine's own result: it must be worded
        reference = ecs_combat.account(item, registry=registry)
        assert ecs_combat.account(item, result, registry=registry) == reference


def test_the_files_compared_include_turns_and_the_shared_examples() -> None:
    names = {p.name for p in FILES}
    assert {"two-wolves.toml", "w2-phases-two-wolves-ruling.toml", "cerberus-vs-boar.toml"} <= names
    assert len(FILES) > 200


@settings(
    max_examples=100,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(doc=scenarios(DRAWN))
def test_both_engines_accounts_of_drawn_scenarios_are_the_same(doc: dict[str, Any]) -> None:
    registry = DRAWN
    scenario = parse_scenario(doc, registry, "drawn.toml")
    found = batched_results(registry, [scenario])
    if found is None:
        reject()
    [result] = found
    assert ecs_combat.account(scenario, result, registry=registry) == ecs_combat.account(
        scenario, registry=registry
    )


def test_a_result_the_reference_engine_does_not_reach_is_an_internal_error(
    registry: Registry,
) -> None:
    [scenario] = ecs_combat.load(ROOT / "examples/scenarios/cerberus-vs-boar.toml", registry)
    assert isinstance(scenario, Scenario)
    [result] = BatchedEngine(registry).resolve_many([scenario])
    wrong = CombatResult(
        steps=result.steps,
        creatures=result.creatures,
        players={p: dataclasses.replace(o, life=o.life - 1) for p, o in result.players.items()},
        worded=False,
    )
    with pytest.raises(EnginesDisagree, match="finds another outcome than the batched engine"):
        Narrator(registry).combat(scenario, wrong)


def command(*args: str) -> str:
    p = run_cli(args, env={"ECS_COMBAT_PLUGINS": None, "COLUMNS": "200"})
    assert p.returncode == 0, p.stderr
    return p.stdout


@pytest.mark.parametrize(
    "args",
    [
        ["resolve", "docs/examples/divide.toml"],
        ["resolve", "docs/examples/turns/two-wolves.toml"],
        ["race", "examples/races/ogre-and-bear-vigilance.toml"],
    ],
)
def test_the_command_prints_the_same_account_on_both_engines(args: list[str]) -> None:
    full = [args[0], str(ROOT / args[1])]
    reference = command(*full, "--engine", "reference")
    assert "·" in reference and "may attack again" in reference  # it has words to lose
    assert command(*full, "--engine", "batched") == reference


def test_a_race_says_what_its_scores_mean() -> None:
    """The race's declarations show their scores (RULES section 9); the account explains the
    terms under them, as `attacks` does under its table."""
    out = command("race", str(ROOT / "examples/races/crack-back.toml"))
    assert "(score game 0, material 0, life 0, poison 0)" in out
    last = out.splitlines()[-1]
    assert last.startswith("Scores, from the attacking player's side")
    assert "life: life the defender loses minus life the attacking player loses" in last
