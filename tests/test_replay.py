"""Battles you can replay: `simulate --out` names each battle's creatures, and `simulate
--replay K` prints battle K as a scenario file that `resolve` takes and that resolves to the
outcome the run recorded for it, on both engines."""

from __future__ import annotations

import csv
import json
import tomllib
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from ecs_combat.cli.main import cli
from ecs_combat.simulation.simulate import CREATURE_COLUMNS

ROOT = Path(__file__).resolve().parent.parent
#: SPECs of every kind: the tournament, made-up creatures with casts and hats, a card pool.
SPECS = {
    "tournament": None,
    "melee": ROOT / "examples" / "specs" / "melee.toml",
    "two-drops": ROOT / "docs" / "examples" / "specs" / "two-drops.toml",
}
BATTLES = 24


def invoke(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def spec_args(name: str) -> list[str]:
    spec = SPECS[name]
    return [] if spec is None else [str(spec)]


@pytest.mark.parametrize("engine", ["reference", "batched"])
@pytest.mark.parametrize("name", sorted(SPECS))
def test_a_replayed_battle_resolves_to_its_recorded_outcome(
    tmp_path: Path, name: str, engine: str
) -> None:
    """Battle K printed by --replay, resolved by `resolve --engine E`, kills exactly the
    creatures the per-creature file says died in battle K of the run on engine E, and deals
    the damage to players its per-battle row records."""
    out = tmp_path / "battles.csv"
    invoke("simulate", *spec_args(name), "-n", str(BATTLES), "--seed", "3",
           "--engine", engine, "--out", str(out))  # fmt: skip
    battles = rows(out)
    creatures = rows(tmp_path / "battles.creatures.csv")
    assert list(creatures[0]) == list(CREATURE_COLUMNS)
    for k in (0, 7, BATTLES - 1):
        scenario = tmp_path / f"battle-{k}.toml"
        scenario.write_text(invoke("simulate", *spec_args(name), "--seed", "3", "--replay", str(k)))
        doc = json.loads(invoke("resolve", str(scenario), "--json", "--engine", engine))
        recorded = {r["id"]: r for r in creatures if r["battle"] == str(k)}
        assert set(doc["creatures"]) == set(recorded)
        written = tomllib.loads(scenario.read_text())["creatures"]
        for cid, c in doc["creatures"].items():
            assert (not c["alive"]) == (recorded[cid]["died"] == "True"), (k, cid)
            assert written[cid]["controller"] == recorded[cid]["side"]
        to_players = sum(
            d["amount"] for s in doc["steps"] for d in s["damage"] if d["target"] in ("A", "B")
        )
        assert to_players == int(battles[k]["damage_to_players"])
        died = {side: sum(1 for r in recorded.values() if r["side"] == side and r["died"] == "True")
                for side in ("A", "B")}  # fmt: skip
        assert (died["A"], died["B"]) == (
            int(battles[k]["attackers_died"]),
            int(battles[k]["blockers_died"]),
        )


def test_the_creatures_table_names_cards_keywords_and_printed_stats(tmp_path: Path) -> None:
    """A card pool's creature rows name the card and its keywords; power and toughness are
    the card's printed ones (the battle's scenario has the same)."""
    out = tmp_path / "battles.csv"
    invoke("simulate", *spec_args("two-drops"), "-n", "5", "--seed", "1", "--out", str(out))
    creatures = rows(tmp_path / "battles.creatures.csv")
    assert [(r["battle"], r["side"], r["id"]) for r in creatures[:4]] == [
        ("0", "A", "c0"), ("0", "B", "c1"), ("1", "A", "c0"), ("1", "B", "c1"),
    ]  # fmt: skip
    scenario = tomllib.loads(invoke("simulate", *spec_args("two-drops"), "--seed", "1",
                                    "--replay", "0"))  # fmt: skip
    for r in creatures[:2]:
        c: dict[str, Any] = scenario["creatures"][r["id"]]
        assert r["card"] == c["name"] != ""
        assert (int(r["power"]), int(r["toughness"])) == (c["power"], c["toughness"])
        assert sorted(filter(None, r["keywords"].split(", "))) == sorted(c.get("keywords", []))


def test_replay_needs_the_seed_and_a_battle_of_the_run() -> None:
    runner = CliRunner()
    no_seed = runner.invoke(cli, ["simulate", "--replay", "3"])
    assert no_seed.exit_code == 2
    assert "--replay: 3: needs the run's --seed" in no_seed.output
    beyond = runner.invoke(cli, ["simulate", "-n", "10", "--seed", "1", "--replay", "10"])
    assert beyond.exit_code == 2
    assert "the run has battles 0 to 9 (-n 10)" in beyond.output
    with_out = runner.invoke(cli, ["simulate", "--seed", "1", "--replay", "1", "--out", "x.csv"])
    assert with_out.exit_code == 2
    assert "drop --out" in with_out.output
