"""The Python API's accounts, replays and generated scenarios (ecs_combat.account, replay,
scenarios; docs/python.md): the same text and battles as the command, in this process."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_run import run_cli

import ecs_combat
from ecs_combat import InputError, Registry, Scenario, TurnScenario

ROOT = Path(__file__).resolve().parent.parent
MELEE = ROOT / "examples" / "specs" / "melee.toml"
EXTRA = ROOT / "examples" / "specs" / "extra-combat.toml"
DOCS = ROOT / "docs" / "examples"


def command(*args: str) -> str:
    p = run_cli(args, env={"ECS_COMBAT_PLUGINS": None, "COLUMNS": "200"})
    assert p.returncode == 0, p.stderr
    return p.stdout


@pytest.mark.parametrize(
    "name", ["first-combat.toml", "divide.toml", "events.toml", "real-cards.toml"]
)
def test_the_account_is_what_resolve_prints(registry: Registry, name: str) -> None:
    [scenario] = ecs_combat.load(DOCS / name, registry)
    assert isinstance(scenario, Scenario)
    text = ecs_combat.account(scenario, registry=registry)
    assert text == command("resolve", str(DOCS / name))
    [result] = ecs_combat.resolve(scenario, registry=registry)
    assert ecs_combat.account(scenario, result, registry=registry) == text


def test_a_turns_account_and_the_batched_engines(registry: Registry) -> None:
    turn_file = DOCS / "turns" / "two-wolves.toml"
    [turn] = ecs_combat.load(turn_file, registry)
    assert isinstance(turn, TurnScenario)
    assert ecs_combat.account(turn, registry=registry) == command("resolve", str(turn_file))
    [scenario] = ecs_combat.load(DOCS / "divide.toml", registry)
    batched = ecs_combat.account(scenario, engine="batched", registry=registry)
    assert batched == command("resolve", str(DOCS / "divide.toml"), "--engine", "batched")
    assert batched == ecs_combat.account(scenario, registry=registry)  # the same words
    assert "· trample: 3 to B after lethal to every blocker" in batched


def test_replay_is_the_battle_simulate_replay_prints(registry: Registry, tmp_path: Path) -> None:
    """replay(K) is `simulate --replay K` read back: resolved, the same account as the file's."""
    battle = ecs_combat.replay(42, MELEE, seed=7, registry=registry)
    assert isinstance(battle, Scenario) and battle.file == "battle 42"
    printed = tmp_path / "b42.toml"
    printed.write_text(command("simulate", str(MELEE), "--seed", "7", "--replay", "42"))
    assert ecs_combat.account(battle, registry=registry) == command("resolve", str(printed))


def test_replay_of_a_turn_spec_gives_the_turn(registry: Registry, tmp_path: Path) -> None:
    turn = ecs_combat.replay(3, EXTRA, seed=1, registry=registry)
    assert isinstance(turn, TurnScenario)
    printed = tmp_path / "t3.toml"
    printed.write_text(command("simulate", str(EXTRA), "--seed", "1", "--replay", "3"))
    [read] = ecs_combat.load(printed, registry)
    assert [r.to_json() for r in ecs_combat.resolve([turn, read], registry=registry)] == [
        r.to_json() for r in ecs_combat.resolve([read, read], registry=registry)
    ]


def test_scenarios_are_the_runs_battles_in_order(registry: Registry) -> None:
    """scenarios(N) draws battles start .. start + N - 1 of the run: each the replay of its
    number, and resolved, the outcomes the run's table records for them."""
    drawn = ecs_combat.scenarios(MELEE, battles=6, seed=3, start=10, registry=registry)
    assert [s.file for s in drawn] == [f"battle {k}" for k in range(10, 16)]
    again = ecs_combat.replay(13, MELEE, seed=3, registry=registry)
    assert ecs_combat.account(drawn[3], registry=registry) == ecs_combat.account(
        again, registry=registry
    )
    run = ecs_combat.simulate(MELEE, battles=16, seed=3, registry=registry)
    table = run.to_pandas("creatures")
    for scenario, result in zip(drawn, ecs_combat.resolve(drawn, registry=registry), strict=True):
        k = int(scenario.file.split()[1])
        rows = table[table.battle == k]
        dead = {c for c, o in result.creatures.items() if not o.alive}  # type: ignore[union-attr]
        assert set(rows.loc[rows.died, "id"]) == dead


def test_scenarios_with_optimal_decisions_attack_and_block_as_the_search_does(
    registry: Registry,
) -> None:
    """decisions="optimal" (CONTRACT 9, version 1.3): each battle's attack is the attacking
    player's best, and its blocks the defending player's best answer (`best_attacks`)."""
    [drawn] = ecs_combat.scenarios(battles=1, seed=5, start=2, registry=registry)
    [decided] = ecs_combat.scenarios(
        battles=1, seed=5, start=2, decisions="optimal", registry=registry
    )
    assert [c.id for c in decided.creatures.values()] == [c.id for c in drawn.creatures.values()]
    free = Scenario(**{**decided.__dict__, "attackers": {}, "blockers": {}})
    best = ecs_combat.best_attacks(free, registry, top=1).best[0]
    assert dict(decided.attackers) == best.attackers
    assert {k: list(v) for k, v in decided.blockers.items()} == {
        k: [v] if isinstance(v, str) else list(v) for k, v in best.blockers.items()
    }


@pytest.mark.parametrize(
    ("call", "place"),
    [
        (lambda r: ecs_combat.replay(-1, seed=1, registry=r), "battle"),
        (lambda r: ecs_combat.scenarios(battles=0, seed=1, registry=r), "battles"),
        (lambda r: ecs_combat.scenarios(EXTRA, seed=1, registry=r), "turn"),
        (lambda r: ecs_combat.replay(1, seed=1, decisions="best", registry=r), "decisions"),
    ],
)
def test_bad_arguments_name_the_argument(registry: Registry, call: object, place: str) -> None:
    with pytest.raises(InputError) as caught:
        call(registry)  # type: ignore[operator]
    assert caught.value.path == place
