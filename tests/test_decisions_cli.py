"""`ecs-combat blocks` and `ecs-combat attacks` (CONTRACT section 8): the contract's document
and the replays' decisions through the installed command, the rest (and the replays' resolves)
by the command in this process (tests/cli_run.py)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from cli_run import Completed, run_cli

ROOT = Path(__file__).resolve().parent.parent
GIANT = ROOT / "examples" / "decisions" / "giant-vs-two-bears.toml"
RACE = ROOT / "examples" / "decisions" / "race.toml"
KNIGHT = ROOT / "examples" / "decisions" / "knight-first-strike-division.toml"


def installed(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "200"}
    env.pop("ECS_COMBAT_PLUGINS", None)
    return subprocess.run(["ecs-combat", *args], capture_output=True, text=True, env=env)


def run(*args: str) -> Completed:
    """The same command in this process (tests/cli_run.py)."""
    return run_cli(args, env={"COLUMNS": "200", "ECS_COMBAT_PLUGINS": None})


def test_blocks_json_is_the_contracts() -> None:
    p = installed("blocks", str(GIANT), "--json")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert set(out) == {
        "decision", "attacking_player", "defending_player", "objective", "optimal",
        "declarations", "optimal_count", "best", "run",
    }  # fmt: skip
    assert out["decision"] == "blocks" and out["optimal"] is True
    assert out["objective"] == ["game", "material", "life", "poison"]
    assert (out["declarations"], out["optimal_count"]) == (4, 1)
    assert len(out["best"]) == 3
    best = out["best"][0]
    assert best["blockers"] == {"bear1": "giant", "bear2": "giant"}
    assert best["score"] == {"game": 0, "material": -2, "life": 0, "poison": 0}
    assert set(best["outcome"]) == {"steps", "creatures", "players", "skipped_events"}


@pytest.mark.parametrize("engine", ["reference", "batched"])
@pytest.mark.parametrize("path", [GIANT, KNIGHT, RACE])
def test_every_best_entry_replays_to_its_outcome(tmp_path: Path, engine: str, path: Path) -> None:
    """Written into the scenario as combat.attackers / blockers / divide, each entry resolves
    with `ecs-combat resolve` to exactly its outcome, on both engines."""
    command = "attacks" if path == RACE else "blocks"
    p = installed(command, str(path), "--json", "--top", "4")
    assert p.returncode == 0, p.stderr
    import tomllib

    doc = tomllib.loads(path.read_text())
    for i, entry in enumerate(json.loads(p.stdout)["best"]):
        combat = dict(doc.get("combat", {}))
        if "attackers" in entry:
            combat["attackers"] = entry["attackers"]
        combat["blockers"] = entry["blockers"]
        if entry["divide"]:
            combat["divide"] = entry["divide"]
        written = tmp_path / f"{i}.json"
        written.write_text(json.dumps({**doc, "combat": combat}))
        r = run_cli(["resolve", str(written), "--json", "--engine", engine],
                    env={"COLUMNS": "200", "ECS_COMBAT_PLUGINS": None})  # fmt: skip
        assert r.returncode == 0, r.stderr
        assert json.loads(r.stdout) == entry["outcome"]


def test_knight_shows_its_first_strike_division() -> None:
    out = json.loads(run("blocks", str(KNIGHT), "--json", "--top", "4").stdout)
    both = [e for e in out["best"] if len(e["blockers"]) == 2]
    assert both[0]["divide"] == [
        {"step": "first-strike", "source": "knight", "amounts": {"wall": 3}}
    ]


def test_readable_form_compares_side_by_side() -> None:
    p = run("blocks", str(GIANT))
    assert p.returncode == 0, p.stderr
    assert "B's best blocks" in p.stdout and "optimal" in p.stdout
    assert "bear1 → giant; bear2 → giant" in p.stdout
    assert "Why #2 is worse for B" in p.stdout
    lines = p.stdout.splitlines()
    assert any(line.startswith("material") and "-2" in line for line in lines)


def test_attacks_json(tmp_path: Path) -> None:
    out = json.loads(run("attacks", str(RACE), "--json").stdout)
    assert out["decision"] == "attacks" and out["optimal"]
    assert out["declarations"] == 8  # three creatures able to attack: 2**3 declarations
    assert out["best"][0]["attackers"] == {"serra": "B"}


def test_jsonl_gives_a_line_per_scenario(tmp_path: Path) -> None:
    import tomllib

    doc = tomllib.loads(GIANT.read_text())
    path = tmp_path / "two.jsonl"
    path.write_text(json.dumps(doc) + "\n" + json.dumps(doc) + "\n")
    p = run("blocks", str(path), "--json")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert len(lines) == 2 and all(json.loads(x)["optimal_count"] == 1 for x in lines)


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    ("command", "text", "place", "words"),
    [
        ("blocks", GIANT.read_text() + 'blockers = { bear1 = "giant" }\n', "combat.blockers",
         "chooses the blocks"),
        ("blocks", GIANT.read_text().replace("[combat]\nattackers = { giant = \"B\" }\n", ""),
         "combat.attackers", "missing"),
        ("attacks", GIANT.read_text(), "combat.attackers", "chooses the attacks"),
        ("blocks", GIANT.read_text() + "[players.C]\n", "players", "two players"),
    ],
)  # fmt: skip
def test_bad_input_is_exit_2_naming_the_place(
    tmp_path: Path, command: str, text: str, place: str, words: str
) -> None:
    p = run(command, str(write(tmp_path, text)))
    assert p.returncode == 2, p.stderr
    assert place in p.stderr and words in p.stderr
    assert "Traceback" not in p.stderr and len(p.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("options", "words"),
    [
        (["--objective", "game,materail"], "did you mean 'material'"),
        (["--objective", "life,life"], "named twice"),
        (["--budget", "0"], "positive number"),
        (["--budget", "-2"], "positive number"),
        (["--top", "0"], "--top"),
    ],
)
def test_bad_options_are_exit_2(options: list[str], words: str) -> None:
    p = run("blocks", str(GIANT), *options)
    assert p.returncode == 2
    assert words in p.stderr and "Traceback" not in p.stderr


def test_the_readable_form_explains_the_score_terms() -> None:
    """`attacks` printed "life 4" with nothing saying whose life; a line under the table says
    what each term measures, from the attacking player's side (docs/decisions.md)."""
    p = run("attacks", str(RACE))
    assert p.returncode == 0, p.stderr
    legend = next(line for line in p.stdout.splitlines() if line.startswith("Scores, from A's"))
    assert "life: life B loses minus life A loses (life gained counts as life lost below 0)" in (
        legend
    )
    assert "material: the value" in legend and "game: 1 if B loses the game" in legend
    assert "poison: poison counters" in legend  # a plugin's term, with its summary


def test_an_approximate_card_is_flagged(tmp_path: Path) -> None:
    """Kitchen Finks's life gain on entering is ignored (docs/cards.md): `blocks` says so, as
    `resolve` does."""
    board = tmp_path / "finks.toml"
    board.write_text(
        '[players.A]\n[players.B]\n[creatures.finks]\ncard = "Kitchen Finks"\ncontroller = "A"\n'
        '[creatures.bear]\ncontroller = "B"\npower = 2\ntoughness = 2\n'
        '[combat]\nattackers = { finks = "B" }\n'
    )
    p = run("blocks", str(board))
    assert p.returncode == 0, p.stderr
    assert (
        "Note: finks is Kitchen Finks, modeled approximately: ignored 'When Kitchen Finks "
        "enters the battlefield, you gain 2 life.'; the search plays it without that text."
    ) in p.stdout.splitlines()
    attacks = tmp_path / "finks-attacks.toml"
    attacks.write_text(board.read_text().split("[combat]")[0])
    q = run("attacks", str(attacks))
    assert q.returncode == 0, q.stderr
    assert any(line.startswith("Note: finks is Kitchen Finks") for line in q.stdout.splitlines())
