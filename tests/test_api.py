"""The Python API (ecs_combat.api, docs/python.md): the same answers as the command, on both
engines, with the rows of the tables where the docs say."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

import ecs_combat
from ecs_combat import OUTCOMES, InputError, Registry, battles, resolve_battles

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "docs" / "examples"
MELEE = ROOT / "examples" / "specs" / "melee.toml"


def cli_json(*args: str) -> object:
    done = subprocess.run(["ecs-combat", *args, "--json"], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("engine", ["reference", "batched"])
def test_resolve_gives_the_documents_of_resolve_json(registry: Registry, engine: str) -> None:
    """Files of combats and of turns, mixed, in order; each document as `resolve --json`."""
    files = [EXAMPLES / "game-ends.toml", EXAMPLES / "turns" / "two-wolves.toml",
             EXAMPLES / "blocking.toml"]  # fmt: skip
    results = ecs_combat.resolve(files, engine=engine, registry=registry)
    assert [type(r).__name__ for r in results] == ["CombatResult", "TurnResult", "CombatResult"]
    for path, result in zip(files, results, strict=True):
        assert result.to_json() == cli_json("resolve", str(path), "--engine", engine)


def test_load_reads_every_line_of_a_jsonl_file(registry: Registry) -> None:
    items = ecs_combat.load(EXAMPLES / "two-combats.jsonl", registry)
    assert len(items) == 2 and all(isinstance(i, ecs_combat.Scenario) for i in items)


def three_battles(registry: Registry) -> ecs_combat.Battles:
    """Battle 0: a 1/1 deathtoucher (row 0) blocked by a 5/5 (row 1) and a 2/2 (row 2): 1
    deathtouch damage is lethal (702.2c), so it kills the 5/5 with its 1 and both blockers deal
    it 7: it dies, trade. Battle 1: a 4/4 (row 3), B's 2/2 (row 4) stays home: 4 to B, life 16.
    Battle 2: a 2/1 (row 5) with menace, B's 1/1 (row 6) stays home (alone it can't block
    it, 702.111b): 2 to B, 18."""
    return battles(
        battle=[0, 0, 0, 1, 1, 2, 2],
        side=[0, 1, 1, 0, 1, 0, 1],
        power=[1, 5, 2, 4, 2, 2, 1],
        toughness=[1, 5, 2, 4, 2, 1, 1],
        blocks=[-1, 0, 0, -1, -1, -1, -1],
        keywords={
            "deathtouch": np.array([True, False, False, False, False, False, False]),
            "menace": np.array([False, False, False, False, False, True, False]),
        },
        life=20,
        registry=registry,
    )


@pytest.mark.parametrize("engine", ["reference", "batched"])
def test_battles_from_arrays_resolve_row_by_row(registry: Registry, engine: str) -> None:
    r = resolve_battles(three_battles(registry), engine=engine, registry=registry)
    c = r.creatures
    assert c["died"].tolist() == [True, True, False, False, False, False, False]
    assert c["blocking"].tolist() == [-1, 0, 0, -1, -1, -1, -1]
    assert c["attacking"].tolist() == [True, False, False, True, False, True, False]
    assert c["damage"].tolist()[:3] == [7, 1, 0]
    assert [OUTCOMES[o] for o in r.battles["outcome"]] == ["trade", "neither dies", "neither dies"]
    assert r.battles["life_b"].tolist() == [20, 16, 18]
    assert r.battles["attackers_died"].tolist() == [1, 0, 0]
    assert r.battles["blockers_died"].tolist() == [1, 0, 0]
    df = r.to_pandas()
    assert list(df.columns) == list(ecs_combat.BATTLE_RESULT_COLUMNS)
    assert df["outcome"].tolist() == ["trade", "neither dies", "neither dies"]
    assert list(r.to_pandas("creatures").columns) == list(ecs_combat.CREATURE_RESULT_COLUMNS)
    assert r.to_arrow("creatures").num_rows == 7


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"keywords": {"deathtuch": np.ones(2, bool)}}, "did you mean 'deathtouch'"),
        ({"keywords": {"bushido": np.ones(2, bool)}}, "'bushido' takes a number"),
        ({"blocks": [-1, 1]}, "blocks[1]: must be a creature of player A"),
        ({"blocks": [0, -1]}, "blocks[0]: a creature of player A attacks"),
        ({"blocks": [-1, 9]}, "blocks[1]: must be -1 or a row from 0 to 1"),
        ({"battle": [1, 0]}, "battle[1]: battles must come in order"),
        ({"side": [0, 2]}, "side[1]: must be 0"),
        ({"power": [1.5, 1]}, "power: must be an array of integers, not float64"),
    ],
)
def test_bad_arrays_name_the_array_and_row(
    registry: Registry, kwargs: dict[str, object], message: str
) -> None:
    args: dict[str, object] = {"battle": [0, 0], "side": [0, 1], "power": [1, 1],
                               "toughness": [1, 1], "registry": registry}  # fmt: skip
    args.update(kwargs)
    with pytest.raises(InputError) as error:
        battles(**args)  # type: ignore[arg-type]
    assert message in str(error.value)


@pytest.mark.parametrize(
    ("kwargs", "path", "message"),
    [
        (
            {"toughness": [1, 0]},
            "toughness[1]",
            "toughness 0: a creature with toughness 0 or less can't be on the battlefield (704.5f)",
        ),
        (
            {"keywords": {"flying": np.array([True, False])}},
            "blocks[1]",
            "'row1' can't block 'row0': 'row0' has flying and can be blocked only by "
            "creatures with flying or reach, which 'row1' doesn't have (702.9)",
        ),
        (
            {"keywords": {"menace": np.array([True, False])}},
            "blocks[1]",
            "'row0' has menace and can't be blocked except by 2 or more creatures, but only "
            "'row1' blocks it (702.111)",
        ),
        ({"life": 0}, "life", "a player at 0 or less life has lost (704.5a)"),
    ],
)
def test_arrays_refuse_what_a_file_refuses_with_its_message(
    registry: Registry, kwargs: dict[str, object], path: str, message: str
) -> None:
    """RULES 11.2, issue 30 item 3: B's 1/1 (row 1) blocks A's 1/1 (row 0). A blocker of
    toughness 0 (704.5f), a flyer blocked by a creature without flying or reach (702.9), a
    menace attacker blocked by one creature (702.111b), players at 0 life (704.5a): each
    refused with the message a scenario file gets (before: accepted, or the block silently
    left out)."""
    args: dict[str, object] = {"battle": [0, 0], "side": [0, 1], "power": [1, 1],
                               "toughness": [1, 1], "blocks": [-1, 0], "registry": registry}  # fmt: skip
    args.update(kwargs)
    with pytest.raises(InputError) as error:
        battles(**args)  # type: ignore[arg-type]
    assert (error.value.path, error.value.message) == (path, message)
    doc = {
        "players": {"A": {"life": args.get("life", 20)}, "B": {"life": args.get("life", 20)}},
        "creatures": {
            "row0": {"controller": "A", "power": 1, "toughness": 1, "keywords": []},
            "row1": {"controller": "B", "power": 1, "toughness": args["toughness"][1]},  # type: ignore[index]
        },
        "combat": {"attackers": {"row0": "B"}, "blockers": {"row1": "row0"}},
    }
    for name, has in dict(kwargs.get("keywords", {})).items():  # type: ignore[call-overload]
        doc["creatures"]["row0"]["keywords"] = [name] if has[0] else []  # type: ignore[index]
    with pytest.raises(InputError) as from_file:
        ecs_combat.parse_scenario(doc, registry, "f.json")
    assert from_file.value.message == message  # the same words as a file


def test_simulate_gives_the_summary_of_simulate_json(registry: Registry) -> None:
    """The same SPEC, battles and seed: the summary `simulate --json` prints (but how long it
    took), and tables of one row per battle and per creature."""
    sim = ecs_combat.simulate(MELEE, battles=1500, seed=4, registry=registry)
    doc = cli_json("simulate", str(MELEE), "-n", "1500", "--seed", "4")
    assert isinstance(doc, dict)
    for key in ("battles", "creatures", "seed", "spec", "totals", "matchups"):
        assert sim.summary[key] == doc[key], key
    assert sim.battles["battle"].tolist() == list(range(1500))
    assert len(sim.creatures["battle"]) == doc["creatures"]
    died = np.bincount(sim.creatures["battle"][sim.creatures["died"]], minlength=1500)
    assert (died == sim.battles["attackers_died"] + sim.battles["blockers_died"]).all()
    assert sim.to_pandas()["outcome"].iloc[0] in OUTCOMES


def test_simulate_of_a_card_pool_gives_the_card_summary(registry: Registry) -> None:
    spec = ROOT / "docs" / "examples" / "specs" / "two-drops.toml"
    sim = ecs_combat.simulate(spec, battles=300, seed=2, tables=False, registry=registry)
    assert sim.summary["simulation"] == "card pool"
    assert sim.battles == {} and sim.creatures == {}
    with pytest.raises(KeyError, match="no table 'cards'"):
        sim.table("cards")


@pytest.mark.parametrize("engine", ["reference", "batched"])
def test_damage_to_players_and_life_gained_are_credited_per_creature(
    registry: Registry, engine: str
) -> None:
    """A 3/3 with lifelink and trample (row 0) blocked by a 1/1 (row 1): lethal damage 1 to the
    blocker, 2 trample over to B (702.19b); lifelink gains all 3 it dealt (702.15b). B's 2/2
    (row 3) doesn't block A's 2/2 (row 2): 2 to B. B: 20 - 2 - 2 = 16; A: 20 + 3 = 23."""
    b = battles(
        battle=[0, 0, 0, 0], side=[0, 1, 0, 1], power=[3, 1, 2, 2], toughness=[3, 1, 2, 2],
        blocks=[-1, 0, -1, -1],
        keywords={"lifelink": np.array([True, False, False, False]),
                  "trample": np.array([True, False, False, False])},
        registry=registry,
    )  # fmt: skip
    r = resolve_battles(b, engine=engine, registry=registry)
    assert r.creatures["dealt_to_players"].tolist() == [2, 0, 2, 0]
    assert r.creatures["life_gained"].tolist() == [3, 0, 0, 0]
    assert (r.battles["life_a"].tolist(), r.battles["life_b"].tolist()) == ([23], [16])
    assert r.battles["damage_to_players"].tolist() == [4]
