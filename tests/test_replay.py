"""Battles you can replay: `simulate --out` names each battle's creatures, and `simulate
--replay K` prints battle K as a scenario file that `resolve` takes and that resolves to the
outcome the run recorded for it, on both engines."""

from __future__ import annotations

import csv
import json
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import ecs_combat
from ecs_combat import Registry
from ecs_combat.cli.main import cli
from ecs_combat.simulation.creature_rows import CREATURE_COLUMNS
from ecs_combat.simulation.generate import Generator
from ecs_combat.simulation.generators import make_generator
from ecs_combat.simulation.replay import replay_text
from ecs_combat.simulation.spec_reader import load_spec

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


#: A SPEC with [turn] and everything a turn may hold: both players' Throat Wolves (combat
#: phases A, B, A after the first), a Resurgence for A in main phase 1 (another combat and
#: main phase), `[[casts]]` in the first combat, hats, and 6 life so that games end.
TURN_SPEC = """
attackers = [1, 3]
blockers_per_attacker = [0, 2]
power = [1, 4]
toughness = [1, 4]
life = 6

[keywords]
vigilance = 0.3
"first strike" = 0.2
exalted = 0.1
deathtouch = 0.1
trample = 0.2
lifelink = 0.1
menace = 0.1
flying = 0.1

[state]
creature = { hat = 0.3 }

[[casts]]
card = "Hat Trick"
probability = 0.3

[[turn.creatures]]
card = "Throat Wolf"
controller = "attacking player"

[[turn.creatures]]
card = "Throat Wolf"
controller = "defending player"

[[turn.casts]]
card = "Resurgence"
caster = "attacking player"

[[turn.combats]]
attack = 0.9
block = 0.6
"""
EXTRA_COMBAT = ROOT / "examples" / "specs" / "extra-combat.toml"


def command(*args: str, cwd: Path = ROOT) -> str:
    """The installed `ecs-combat` with these arguments; its output (exit status 0)."""
    done = subprocess.run(["ecs-combat", *args], capture_output=True, text=True, cwd=cwd)
    assert done.returncode == 0, done.stderr
    return done.stdout


def turn_outcome(doc: dict[str, Any]) -> tuple[dict[str, bool], int]:
    """A turn's `resolve --json` document: which creatures died, by id, and the combat damage
    dealt to players over all its combat phases."""
    died = {cid: not c["alive"] for cid, c in doc["creatures"].items()}
    damage = sum(
        d["amount"]
        for combat in doc["combats"]
        for step in combat["steps"]
        for d in step["damage"]
        if d["target"] in doc["players"]
    )
    return died, damage


def assert_recorded(
    doc: dict[str, Any], k: int, battles: list[dict[str, str]], creatures: list[dict[str, str]]
) -> None:
    """The resolved turn kills exactly the creatures the run's creatures file says died in
    battle k, and deals the damage to players its per-battle row records."""
    died, damage = turn_outcome(doc)
    recorded = {r["id"]: r["died"] == "True" for r in creatures if r["battle"] == str(k)}
    assert died == recorded, k
    row = battles[k]
    assert damage == int(row["damage_to_players"]), k
    sides = {r["id"]: r["side"] for r in creatures if r["battle"] == str(k)}
    lost = [sum(died[c] for c in died if sides[c] == side) for side in ("A", "B")]
    assert lost == [int(row["attackers_died"]), int(row["blockers_died"])], k


def test_a_replayed_turn_resolves_to_its_recorded_outcome(tmp_path: Path) -> None:
    """The installed command: battle K of a SPEC with [turn] (a Throat Wolf's combat phase
    for B after A's), printed by --replay, is a turn file whose phases are A's then B's, and
    `resolve --engine E` gives the outcome the run recorded for battle K on both engines."""
    out = tmp_path / "battles.csv"
    command("simulate", str(EXTRA_COMBAT), "-n", "40", "--seed", "1", "--out", str(out))
    battles, creatures = rows(out), rows(tmp_path / "battles.creatures.csv")
    for k in (2, 39):
        turn = tmp_path / f"turn-{k}.toml"
        turn.write_text(command("simulate", str(EXTRA_COMBAT), "--seed", "1", "--replay", str(k)))
        written = tomllib.loads(turn.read_text())
        assert len(written["combats"]) == 2 and written["turn"] == {"active": "A"}
        for engine in ("reference", "batched"):
            doc = json.loads(command("resolve", str(turn), "--json", "--engine", engine))
            assert_recorded(doc, k, battles, creatures)
    phases = json.loads(command("phases", str(turn), "--json"))
    assert [p["player"] for p in phases if p["phase"] == "combat"] == ["A", "B"]


def replayed(generator: Generator, registry: Registry, seed: int, k: int) -> str:
    """`simulate SPEC --seed S --replay K`, in this process."""
    return replay_text(generator, registry, seed, k, ())


def test_every_replayed_turn_resolves_to_its_recorded_outcome(
    tmp_path: Path, registry: Registry
) -> None:
    """Every battle of a run of TURN_SPEC (Wolves for both players, a Resurgence, casts,
    games that end), replayed and resolved on both engines, gives its recorded outcome; the
    battles include later phases with attacks and blocks, phases that did not happen and
    players who lost."""
    spec = tmp_path / "turns.toml"
    spec.write_text(TURN_SPEC)
    out = tmp_path / "battles.csv"
    n = 40
    invoke("simulate", str(spec), "-n", str(n), "--seed", "5", "--out", str(out))
    battles, creatures = rows(out), rows(tmp_path / "battles.creatures.csv")
    generator = make_generator(load_spec(str(spec), registry), registry)
    seen = {"later attacks": 0, "later blocks": 0, "skipped": 0, "lost": 0, "events": 0}
    for k in range(n):
        text = replayed(generator, registry, 5, k)
        written = tomllib.loads(text)
        assert written["turn"]["casts"] == [{"card": "Resurgence", "caster": "A", "main": 1}]
        later = written["combats"][1:]
        seen["later attacks"] += any(c["attackers"] for c in later)
        seen["later blocks"] += any(c.get("blockers") for c in later)
        seen["events"] += bool(written["combats"][0].get("events"))
        turn = tmp_path / f"turn-{k}.toml"
        turn.write_text(text)
        for engine in ("reference", "batched"):
            [result] = ecs_combat.resolve(turn, engine=engine, registry=registry)
            doc = result.to_json()
            assert_recorded(doc, k, battles, creatures)
        seen["skipped"] += bool(doc["skipped_phases"])
        seen["lost"] += any(p["lost"] for p in doc["players"].values())
    assert all(seen.values()), seen


def test_a_replayed_turn_declares_only_what_the_state_allows(registry: Registry) -> None:
    """RULES 8: a creature that attacked in A's combat phase without vigilance is tapped: it
    doesn't block the Wolf in B's combat phase; only the Wolf attacks in it (its ability:
    only Throat Wolf can attack during that combat phase)."""
    generator = make_generator(load_spec(str(EXTRA_COMBAT), registry), registry)
    checked = 0
    for k in range(30):
        turn = tomllib.loads(replayed(generator, registry, 1, k))
        wolf = next(cid for cid, c in turn["creatures"].items() if c.get("card") == "Throat Wolf")
        first, second = turn["combats"]
        tapped = {
            cid for cid in first["attackers"]
            if "vigilance" not in turn["creatures"][cid].get("keywords", [])
        }  # fmt: skip
        assert set(second["attackers"]) <= {wolf}
        assert not tapped & set(second.get("blockers", {}))
        checked += bool(second.get("blockers"))
    assert checked  # some battles block the Wolf
