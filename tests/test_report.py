"""The readable account of `resolve` (console/account.py): losses after the step, event or trigger
that caused them, players leaving with their creatures, prevented damage, counters. The notes
come from the reference engine (the batched engine records none)."""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def account(path: Path | str) -> list[str]:
    done = subprocess.run(
        ["ecs-combat", "resolve", str(path), "--engine", "reference"],
        capture_output=True, text=True, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_a_loss_is_announced_after_the_step_that_caused_it() -> None:
    """game-ends.toml: the knight's first-strike damage takes B from 2 to -1 (704.5a): the
    loss is said under the first-strike step, not above it."""
    lines = account(ROOT / "docs" / "examples" / "game-ends.toml")
    step = lines.index("first-strike damage step")
    loss = lines.index("· player B is at 0 or less life and loses (704.5a)")
    assert step < loss
    assert lines[loss - 1].split() == ["knight", "B", "3"]


def test_a_loss_from_an_event_follows_the_event(tmp_path: Path) -> None:
    """A `damage` event after the first-strike step deals 5 to B at 5 life: B loses then."""
    path = tmp_path / "event.toml"
    path.write_text(
        '[players.A]\n[players.B]\nlife = 5\n\n[creatures.knight]\ncontroller = "A"\n'
        'power = 1\ntoughness = 1\nkeywords = ["first strike"]\n\n[combat]\n'
        'attackers = { knight = "B" }\n\n[[events]]\nat = "after first-strike"\n'
        'action = "damage"\ntarget = "B"\namount = 5\n'
    )
    lines = account(path)
    loss = next(i for i, line in enumerate(lines) if "player B is at 0 or less life" in line)
    assert loss > lines.index("first-strike damage step")
    assert any("knight" in line and "B" in line for line in lines[:loss])


def test_a_player_leaving_the_game_is_narrated(tmp_path: Path) -> None:
    """Three players: A's first striker deals B (2 life) 2 in the first-strike step: B loses
    (704.5a) and leaves the game with its wall (800.4a); A and C remain, so the game goes on,
    and A's bear, attacking B, no longer attacks (506.4): no regular-step damage to B."""
    path = tmp_path / "three.toml"
    path.write_text(
        "[players.A]\n[players.B]\nlife = 2\n[players.C]\n\n"
        '[creatures.duelist]\ncontroller = "A"\npower = 2\ntoughness = 2\n'
        'keywords = ["first strike"]\n\n'
        '[creatures.bear]\ncontroller = "A"\npower = 2\ntoughness = 2\n\n'
        '[creatures.wall]\ncontroller = "B"\npower = 0\ntoughness = 4\n\n'
        '[combat]\nattackers = { duelist = "B", bear = "B" }\n'
    )
    lines = account(path)
    leaves = lines.index(
        "· player B leaves the game (800.4a) with its creatures: wall; duelist, bear no longer "
        "attack (506.4)"
    )
    assert lines.index("· player B is at 0 or less life and loses (704.5a)") == leaves - 1
    assert leaves > lines.index("first-strike damage step")


def test_prevented_damage_is_shown_as_prevented(tmp_path: Path) -> None:
    """A red 3/3 blocked by a 2/2 with protection from red: its 3 damage is prevented
    (702.16f): the account says so, and the knight survives with 0 damage."""
    path = tmp_path / "protection.toml"
    path.write_text(
        '[players.A]\n[players.B]\n\n[creatures.goblin]\ncontroller = "A"\npower = 3\n'
        'toughness = 3\ncolors = ["red"]\n\n[creatures.knight]\ncontroller = "B"\npower = 2\n'
        'toughness = 2\nkeywords = ["protection from red"]\n\n[combat]\n'
        'attackers = { goblin = "B" }\nblockers = { knight = "goblin" }\n'
    )
    lines = account(path)
    assert "  · 3 of the 3 damage goblin assigns to knight is prevented" in lines
    knight = next(line for line in lines if line.startswith("knight "))
    assert knight.split()[:3] == ["knight", "yes", "0"]


def test_counters_are_shown(tmp_path: Path) -> None:
    """A 2/2 with two +1/+1 counters and a lifelink counter: 4/4 (122.1a), counters shown."""
    path = tmp_path / "counters.toml"
    path.write_text(
        '[players.A]\n[players.B]\n\n[creatures.bear]\ncontroller = "A"\npower = 2\n'
        'toughness = 2\ncounters = { "+1/+1" = 2, lifelink = 1 }\n\n[combat]\n'
        'attackers = { bear = "B" }\n'
    )
    lines = account(path)
    header = next(line for line in lines if line.startswith("creature "))
    assert "counters" in header.split()
    bear = next(line for line in lines if line.startswith("bear "))
    assert "4/4" in bear and "+1/+1: 2" in bear and "lifelink: 1" in bear
