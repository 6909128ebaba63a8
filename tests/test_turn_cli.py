"""`ecs-combat resolve TURN_FILE` and `ecs-combat phases FILE` (CONTRACT.md section 6): the
JSON documents, TOML/JSON/JSON Lines turn files, the readable account in a pipe, exit 2 for
bad input."""

from __future__ import annotations

import json
import os
import subprocess
import tomllib
from pathlib import Path

import pytest
from cli_run import Completed, run_cli

TURN = """\
[players.A]
[players.B]

[creatures.knight]
controller = "A"
power = 2
toughness = 4
keywords = ["vigilance"]

[creatures.bear]
controller = "B"
power = 2
toughness = 2

[creatures.wolf]
card = "Throat Wolf"
controller = "B"

[turn]
active = "A"

[[combats]]
attackers = { knight = "B" }
blockers = { bear = "knight" }

[[combats]]
attackers = { wolf = "A" }
blockers = { knight = "wolf" }
"""


def installed(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "200"}
    env.pop("ECS_COMBAT_PLUGINS", None)
    return subprocess.run(["ecs-combat", *args], capture_output=True, text=True, env=env)


def run(*args: str) -> Completed:
    """The same command in this process (tests/cli_run.py)."""
    return run_cli(args, env={"COLUMNS": "200", "ECS_COMBAT_PLUGINS": None})


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_resolve_json_is_the_contract_document(tmp_path: Path) -> None:
    p = run("resolve", write(tmp_path, "turn.toml", TURN), "--json")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert set(out) == {"phases", "combats", "creatures", "players", "skipped_phases"}
    assert out["skipped_phases"] == []  # CONTRACT 8: always present
    assert out["phases"] == [
        {"phase": "main", "player": "A", "created_by": "turn"},
        {"phase": "combat", "player": "A", "created_by": "turn"},
        {"phase": "combat", "player": "B", "created_by": "Throat Wolf (wolf)"},
        {"phase": "main", "player": "A", "created_by": "turn"},
    ]
    assert [set(c) for c in out["combats"]] == [{"player", "steps", "skipped_events"}] * 2
    assert [[s["name"] for s in c["steps"]] for c in out["combats"]] == [
        ["regular"],
        ["firstest-strike", "regular"],
    ]
    assert set(out["creatures"]["knight"]) == {"alive", "damage", "power", "toughness", "counters"}
    assert (out["creatures"]["knight"]["alive"], out["creatures"]["knight"]["damage"]) == (False, 5)


def test_json_and_json_lines_turn_files(tmp_path: Path) -> None:
    """The same turn in TOML, JSON and as a line of JSON Lines gives the same document; a
    .jsonl file prints one compact line per turn."""
    doc = tomllib.loads(TURN)
    toml_out = json.loads(run("resolve", write(tmp_path, "t.toml", TURN), "--json").stdout)
    json_out = json.loads(
        run("resolve", write(tmp_path, "t.json", json.dumps(doc)), "--json").stdout
    )
    lines = json.dumps(doc) + "\n\n" + json.dumps({**doc, "combats": []}) + "\n"
    p = run("resolve", write(tmp_path, "t.jsonl", lines), "--json")
    assert p.returncode == 0, p.stderr
    first, second = (json.loads(line) for line in p.stdout.splitlines())
    assert toml_out == json_out == first
    assert [c["steps"] for c in second["combats"]] == [[], []]
    phases = run("phases", str(tmp_path / "t.jsonl"), "--json").stdout.splitlines()
    assert [json.loads(line) for line in phases] == [first["phases"], first["phases"]]


def test_a_jsonl_file_holds_turns_or_combats_not_both(tmp_path: Path) -> None:
    combat = {"players": {"A": {}, "B": {}}, "combat": {}}
    text = json.dumps(tomllib.loads(TURN)) + "\n" + json.dumps(combat) + "\n"
    path = write(tmp_path, "mixed.jsonl", text)
    p = run("resolve", path, "--json")
    assert p.returncode == 2
    assert len(p.stdout.splitlines()) == 1  # the first turn's result came first
    assert p.stderr == (
        f"ecs-combat: {path}:2: this is one combat, not a turn (no `turn` or `combats`): a "
        "file holds either turns or combats (the 1 result before this one is printed)\n"
    )


def test_readable_account_in_a_pipe(tmp_path: Path) -> None:
    """Phases in order with who attacks and which card created each; each combat's steps;
    the damage the knight brings into the Wolf's combat; the end of the turn."""
    p = installed("resolve", write(tmp_path, "turn.toml", TURN))
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[:6] == [
        "A's turn (turn order A, B): 4 phases, 2 of them combat phases",
        "#  phase   active player  attacks  who may attack     created by",
        "1  main    A              -        -                  the turn itself",
        "2  combat  A              A        any creature of A  the turn itself",
        "3  combat  B              B        only wolf          Throat Wolf (wolf)",
        "4  main    A              -        -                  the turn itself",
    ]
    headings = [line for line in lines if line.startswith("-- ")]
    assert headings == [
        "-- Phase 1: main phase 1 of A's turn --",
        "-- Phase 2: combat phase 1, A attacks (the turn's own) --",
        "-- Phase 3: combat phase 2, B attacks (created by Throat Wolf (wolf); only Throat "
        "Wolf (wolf) may attack) --",
        "-- Phase 4: main phase 2 of A's turn --",
    ]
    assert "Attacking: Throat Wolf (wolf) → A" in lines
    assert "· knight has 2 damage marked from earlier this turn (120.6)" in lines
    assert "  Died: knight" in lines
    assert lines.index("The outcome: creatures and players as the last combat phase ends") < (
        lines.index("-- Phase 4: main phase 2 of A's turn --")
    )
    assert not any("\x1b" in line for line in lines)  # no colors in a pipe


def test_phases_readable_and_for_a_combat_file(tmp_path: Path) -> None:
    """`phases` on a one-combat scenario: the turn of its first player."""
    text = TURN.split("[turn]")[0].replace("[creatures.knight]", "[combat]\n\n[creatures.knight]")
    path = write(tmp_path, "combat.toml", text)
    p = run("phases", path, "--json")
    assert p.returncode == 0, p.stderr
    assert [q["player"] for q in json.loads(p.stdout)] == ["A", "A", "B", "A"]
    plain = run("phases", path).stdout.splitlines()
    assert plain[0] == "A's turn (turn order A, B): 4 phases, 2 of them combat phases"
    assert plain[4].split() == ["3", "combat", "B", "B", "only", "wolf", "Throat", "Wolf", "(wolf)"]


@pytest.mark.parametrize(
    ("change", "where"),
    [
        (('keywords = ["vigilance"]', "keywords = []"), "combats[1].blockers.knight: 'knight' "
         "can't block in combat phase 2: it is tapped: attacking earlier this turn tapped it "
         "(508.1f)"),
        (("attackers = { wolf", "attackers = { bear"), "combats[1].attackers.bear: only 'wolf' "
         "can attack in this combat phase (B attacks; created by Throat Wolf (wolf))"),
        (('blockers = { knight = "wolf" }', 'blockers = { bear = "wolf" }'),
         "combats[1].blockers.bear: 'bear' is controlled by 'B', but 'wolf' attacks 'A' (509.1a)"),
        (('blockers = { bear = "knight" }\n', 'blockers = { bear = "knight" }\n\n[[combats.events]]\n'
          'at = "declare-blockers"\naction = "destroy"\ntarget = "knight"\n'),
         "combats[1].blockers.knight: 'knight' can't block in combat phase 2: it is not on "
         "the battlefield: it left earlier this turn"),
        (('blockers = { bear = "knight" }\n\n[[combats]]\nattackers = { wolf = "A" }\n'
          'blockers = { knight = "wolf" }',
          'blockers = { bear = "knight" }\nevents = [{ at = "after first-strike", action = '
          '"enter", attacking = "B", creature = { id = "cub", controller = "A", power = 1, '
          'toughness = 1 } }]\n\n[[combats]]\nattackers = { wolf = "A" }\n'
          'blockers = { cub = "wolf" }'),
         "combats[1].blockers.cub: 'cub' can't block in combat phase 2: it is not on the "
         "battlefield: it never entered"),
        (("attackers = { knight", "attackers = { wolf"), "combats[0].attackers.wolf: 'wolf' is "
         "controlled by 'B', but 'A' is the attacking player of this combat phase (A attacks; "
         "the turn's own; 506.2)"),
        (("active = \"A\"", "active = \"B\""), "combats[1]: 2 combats listed, but the turn "
         "has 1 combat phase (B attacks; the turn's own; `ecs-combat phases FILE` lists them)"),
    ],
)  # fmt: skip
@pytest.mark.parametrize("engine", ["reference", "batched"])
def test_errors_exit_2_with_one_line(
    tmp_path: Path, change: tuple[str, str], where: str, engine: str
) -> None:
    """The same message from both engines, also for what only playing the turn tells."""
    assert change[0] in TURN
    path = write(tmp_path, "turn.toml", TURN.replace(*change))
    p = run("resolve", path, "--json", "--engine", engine)
    assert (p.returncode, p.stdout) == (2, "")
    assert p.stderr == f"ecs-combat: {path}: {where}\n"


def test_batched_engine_on_a_turn_file(tmp_path: Path) -> None:
    """The batched engine resolves turns as the reference engine does."""
    path = write(tmp_path, "turn.toml", TURN)
    p = installed("resolve", path, "--json", "--engine", "batched")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout) == json.loads(installed("resolve", path, "--json").stdout)


def test_phases_reads_a_turn_whose_combats_are_wrong(tmp_path: Path) -> None:
    """`phases` prints the schedule whatever the `[[combats]]` entries say, so the message for
    too many entries (which points at `phases`) can be followed: A's combat, then B's Wolf's."""
    text = (
        '[players.A]\n[players.B]\n[creatures.wolf]\ncard = "Throat Wolf"\ncontroller = "B"\n'
        "[turn]\n[[combats]]\n[[combats]]\n[[combats]]\n"
    )
    path = write(tmp_path, "turn.toml", text)
    resolved = run("resolve", path)
    assert resolved.returncode == 2
    assert "3 combats listed, but the turn has 2 combat phases" in resolved.stderr
    listed = run("phases", path, "--json")
    assert listed.returncode == 0, listed.stderr
    assert [(p["phase"], p["player"]) for p in json.loads(listed.stdout)] == [
        ("main", "A"), ("combat", "A"), ("combat", "B"), ("main", "A"),
    ]  # fmt: skip
