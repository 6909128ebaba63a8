"""The command's messages: a bad command line or an empty file is one line naming the command,
the flag and what is wrong, with the closest valid name for a typo, exit status 2 (README.md
"Bad input"), never click's usage block; a long run in a pipe says how far it is. In this
process (tests/cli_run.py), but for one run of the installed command."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from cli_run import run_cli

ROOT = Path(__file__).resolve().parent.parent
SEED = str(ROOT / "examples" / "scenarios" / "cerberus-vs-boar.toml")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["simulate", "-n", "-5"], "simulate --battles/-n: must be at least 1, not -5"),
        (["simulate", "-n", "abc"], "simulate --battles/-n: must be an integer at least 1, not 'abc'"),
        (["simulate", "--engin", "batched"],
         "simulate --engin: no such option; did you mean --engine? (ecs-combat simulate --help "
         "lists them)"),
        (["simulate", "--engine", "fast"],
         "simulate --engine: must be one of batched, reference, not 'fast'"),
        (["resolve", SEED, "--engine", "batchd"],
         "resolve --engine: must be one of reference, batched, not 'batchd'; did you mean "
         "'batched'?"),
        (["simulate", "--seed"], "simulate --seed: needs a value (see ecs-combat simulate --help)"),
        (["blocks"], "blocks FILE: missing (see ecs-combat blocks --help)"),
        (["blocks", SEED, "--top", "0"], "blocks --top: must be at least 1, not 0"),
        (["simulat"], "no command is named 'simulat'; did you mean 'simulate'? (commands: "),
        (["--bogus"], "--bogus: no such option"),
        (["resolve", SEED, "extra"], "resolve: got unexpected extra argument (extra)"),
    ],
)  # fmt: skip
def test_a_bad_flag_is_one_line_naming_it(args: list[str], message: str) -> None:
    p = run_cli(args)
    assert p.returncode == 2
    assert p.stdout == ""
    assert p.stderr.count("\n") == 1, p.stderr  # one line: no usage block, no "Try ..."
    assert p.stderr.startswith(f"ecs-combat: {message}"), p.stderr
    assert "Usage:" not in p.stderr


def test_the_installed_command_says_a_bad_flag_in_one_line() -> None:
    """The console script itself (click's standalone mode), not only the group in process."""
    p = subprocess.run(
        ["ecs-combat", "simulate", "--engine", "fast"], capture_output=True, text=True
    )
    assert (p.returncode, p.stdout) == (2, "")
    assert p.stderr == (
        "ecs-combat: simulate --engine: must be one of batched, reference, not 'fast'\n"
    )


def test_a_misspelt_plugin_names_the_closest_and_few_others() -> None:
    """`-p no:NAME` once listed all 60 plugins (a 900-character line): now the closest and
    the eight most like it."""
    p = run_cli(["-p", "no:dubble strike", "resolve", SEED])
    assert p.returncode == 2
    line = p.stderr.strip()
    assert "did you mean 'double strike'?" in line
    assert "double_strike" in line.split("known: ")[1] and "more;" in line
    assert len(line) < 400, line


@pytest.mark.parametrize(
    ("name", "text", "command", "message"),
    [
        ("empty.toml", "", "resolve", "the file is empty: a scenario needs [players.NAME]"),
        ("blank.json", " \n\n", "resolve", "the file is empty: a scenario needs"),
        ("comments.toml", "# nothing yet\n", "resolve", "the file holds only comments"),
        ("empty.toml", "", "blocks", "the file is empty: a scenario needs"),
        ("empty.toml", "", "simulate", "the file is empty: a SPEC file needs at least one key"),
    ],
)
def test_an_empty_file_says_it_is_empty(
    tmp_path: Path, name: str, text: str, command: str, message: str
) -> None:
    path = tmp_path / name
    path.write_text(text)
    p = run_cli([command, str(path)])
    assert p.returncode == 2
    assert p.stderr == f"ecs-combat: {path}: {message}" + p.stderr.split(message, 1)[1]
    assert p.stderr.count("\n") == 1


def test_in_a_pipe_a_long_run_says_how_far_it_is_every_30_seconds() -> None:
    """PipeProgress on a clock the test moves: nothing before 30 s, then a line with the
    battles done, the speed and the time left at that speed; none for a finished run."""
    from ecs_combat.cli.simulate_run import PipeProgress

    now = [100.0]
    lines: list[str] = []
    progress = PipeProgress(2_000_000_000_000, clock=lambda: now[0], say=lines.append)
    now[0] += 29.0
    progress(29_000_000)
    assert lines == []  # under 30 s: quiet
    now[0] += 1.0
    progress(1_000_000)  # 30,000,000 in 30 s: 1,000,000 a second: 1,999,970,000 s to go
    assert lines == [
        "ecs-combat: 30,000,000 of 2,000,000,000,000 battles (0.0%) in 30 s, 1,000,000 a "
        "second; about 23 days left"
    ]
    now[0] += 10.0
    progress(10_000_000)
    assert len(lines) == 1  # the next line 30 s after the last
    now[0] += 20.0
    progress(20_000_000)
    assert lines[1].startswith(
        "ecs-combat: 60,000,000 of 2,000,000,000,000 battles (0.0%) in 1 min 0 s"
    )


@pytest.mark.parametrize(
    ("seconds", "said"),
    [(12.4, "12 s"), (725, "12 min 5 s"), (12_000, "3 h 20 min"), (4_000_000, "46 days")],
)
def test_time_left_is_said_in_the_largest_units(seconds: float, said: str) -> None:
    from ecs_combat.cli.simulate_run import duration

    assert duration(seconds) == said
