"""The installed ``ecs-combat`` command as people use it: in pipes, with typos, with odd names."""

from __future__ import annotations

import json
import os
import re
import subprocess
import tomllib
from pathlib import Path

import pytest
from cli_run import Completed, run_cli

from ecs_combat import InputError, parse_scenario
from ecs_combat.console import ELISION, SHOWN_LENGTH, plain_lines, shown
from ecs_combat.plugin.registry import Registry
from ecs_combat.simulation.spec_reader import parse_spec
from ecs_combat.suggest import closest

ROOT = Path(__file__).resolve().parent.parent
SEED = ROOT / "examples" / "scenarios" / "cerberus-vs-boar.toml"
MELEE = ROOT / "examples" / "specs" / "melee.toml"
BOX = re.compile("[─-╿]")  # box-drawing characters
ANSI = "\x1b["


def run(*args: str, terminal: bool = False) -> Completed:
    """The command in this process (tests/cli_run.py), its standard output not a terminal, as
    a pipe (or, with `terminal`, drawn as for one)."""
    env: dict[str, str | None] = dict.fromkeys(
        ("ECS_COMBAT_PLUGINS", "FORCE_COLOR", "TTY_COMPATIBLE", "NO_COLOR")
    )
    env["COLUMNS"] = "300" if terminal else "60"
    if terminal:
        env["TTY_COMPATIBLE"] = "1"
    return run_cli(args, env=env)


def installed(
    *args: str, env: dict[str, str] | None = None, terminal: bool = False
) -> subprocess.CompletedProcess[str]:
    """Run the installed command with standard output a pipe (or, with `terminal`, drawn as
    for one)."""
    full_env = {**os.environ, **(env or {})}
    for name in ("ECS_COMBAT_PLUGINS", "FORCE_COLOR", "TTY_COMPATIBLE", "NO_COLOR"):
        full_env.pop(name, None)
    # A narrow pipe, where a table would have to truncate or wrap; a wide terminal.
    full_env["COLUMNS"] = "300" if terminal else "60"
    if terminal:
        full_env["TTY_COMPATIBLE"] = "1"  # Rich draws as for a terminal
    return subprocess.run(["ecs-combat", *args], capture_output=True, text=True, env=full_env)


def scenario(name: str = "Two-Headed Cerberus", cid: str = "cerberus") -> dict[str, object]:
    return {
        "players": {"abby": {}, "nadine": {}},
        "creatures": {
            cid: {"name": name, "controller": "abby", "power": 1, "toughness": 2},
            "boar": {"name": "Brindle Boar", "controller": "nadine", "power": 2, "toughness": 2},
        },
        "combat": {"attackers": {cid: "nadine"}, "blockers": {"boar": cid}},
    }


def write_json(path: Path, doc: object) -> Path:
    path.write_text(json.dumps(doc))
    return path


def assert_plain(text: str) -> None:
    assert BOX.search(text) is None, text
    assert "…" not in text and ANSI not in text, text


# -- 1. output in pipes -----------------------------------------------------------------------


def test_plugins_in_a_pipe_is_one_plain_row_per_plugin() -> None:
    p = run("plugins")
    assert p.returncode == 0, p.stderr
    assert_plain(p.stdout)
    rows = [line for line in p.stdout.splitlines() if "double strike" in line]
    assert len(rows) == 1 and rows[0].split()[0] == "double_strike"
    assert p.stdout.splitlines()[0].split() == [
        "plugin", "distribution", "version", "keywords", "steps", "cards", "systems",
    ]  # fmt: skip


def test_resolve_in_a_pipe_keeps_every_line_whole() -> None:
    p = installed("resolve", str(SEED))
    assert p.returncode == 0, p.stderr
    assert_plain(p.stdout)
    lines = p.stdout.splitlines()
    assert (
        "  ✘ Brindle Boar (boar): had no double strike, first strike or triple strike as the "
        "first-strike step began" in lines
    )
    assert "first-strike damage step" in lines
    assert any(line.split() == ["abby", "20", "no", "0"] for line in lines)  # 0 poison


def test_resolve_on_a_terminal_still_draws_tables() -> None:
    p = installed("resolve", str(SEED), terminal=True)
    assert p.returncode == 0, p.stderr
    assert BOX.search(p.stdout) is not None and ANSI in p.stdout


def test_simulate_in_a_pipe_has_one_line_headers_and_no_rules(tmp_path: Path) -> None:
    p = installed("simulate", str(MELEE), "-n", "300", "--seed", "3")
    assert p.returncode == 0, p.stderr
    assert_plain(p.stdout)
    lines = p.stdout.splitlines()
    assert lines[1].split("  ")[0:2] == ["attacker", ""]  # padded columns
    assert "attacker wins" in lines[1] and "damage to players" in lines[1]
    assert any(
        line.startswith("first strike + deathtouch  first strike + deathtouch") for line in lines
    )
    assert all(line.strip() for line in lines)


def test_simulate_json_is_unchanged_in_a_pipe() -> None:
    p = run("simulate", "-n", "100", "--seed", "1", "--json")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["battles"] == 100


def test_bench_in_a_pipe() -> None:
    p = run(
        "bench", "-n", "200", "--reference-battles", "10", "--melee-battles", "20",
        "--repeat", "1", "--in-process",
    )  # fmt: skip
    assert p.returncode == 0, p.stderr
    assert_plain(p.stdout)
    lines = p.stdout.splitlines()
    assert lines[1].split() == [
        "workload", "engine", "battles", "seconds", "engine", "s", "battles/s", "creatures/s",
        "vs", "ref.",
    ]  # fmt: skip
    assert any(line.startswith("melee, batched: ") and "tallying" in line for line in lines)


def test_plain_lines_pad_and_align_columns() -> None:
    assert plain_lines(["a", "n"], [["xyz", "1"], ["b", "100"]], [False, True]) == [
        "a      n",
        "xyz    1",
        "b    100",
    ]


# -- 2. typos ---------------------------------------------------------------------------------


def test_blocking_an_unknown_plugin_is_an_error_that_suggests() -> None:
    p = run("-p", "no:frist strike", "resolve", str(SEED), "--json")
    assert p.returncode == 2 and p.stdout == ""
    assert "did you mean 'first strike'?" in p.stderr
    assert "first_strike" in p.stderr and "double_strike" in p.stderr
    assert len(p.stderr.splitlines()) == 1
    p = run("-p", "no:tramlpe", "plugins")
    assert p.returncode == 2 and "did you mean 'trample'?" in p.stderr


def test_blocking_an_explicitly_loaded_module_by_its_name_is_known() -> None:
    module = "ecs_combat_keywords.double_strike"
    p = run("-p", module, "-p", f"no:{module}", "plugins", "--json")
    assert p.returncode == 0, p.stderr


@pytest.mark.parametrize("command", ["resolve", "plugins"])
def test_plugin_options_after_the_command(command: str) -> None:
    args = [str(SEED), "--json"] if command == "resolve" else ["--json"]
    p = run(command, *args, "-p", "no:double strike")
    if command == "resolve":
        assert p.returncode == 2 and "its plugin 'double_strike' is blocked" in p.stderr
    else:
        assert p.returncode == 0, p.stderr
        assert all(pl["name"] != "double_strike" for pl in json.loads(p.stdout))
    assert "-p MODULE|no:NAME" in run(command, "--help").stdout


def test_plugin_options_before_and_after_the_command_add_up() -> None:
    p = run("-p", "no:trample", "plugins", "--json", "-p", "no:double_strike")
    names = {pl["name"] for pl in json.loads(p.stdout)}
    assert "trample" not in names and "double_strike" not in names


def test_a_misspelt_plugin_module_gets_the_closest_installed_one() -> None:
    p = run("-p", "ecs_combat_keywords.dubble_strike", "plugins")
    assert p.returncode == 1
    assert "did you mean 'ecs_combat_keywords.double_strike'?" in p.stderr


def test_unknown_keyword_suggests_the_closest(registry: Registry) -> None:
    doc = scenario()
    doc["creatures"]["cerberus"]["keywords"] = ["dubble strike"]  # type: ignore[index]
    with pytest.raises(InputError) as info:
        parse_scenario(doc, registry, "s.json")
    assert info.value.message == (
        "unknown keyword 'dubble strike': no loaded plugin provides it; "
        "did you mean 'double strike'?"
    )
    with pytest.raises(InputError, match="did you mean 'first strike'"):
        parse_spec({"matchup": ["frist strike"]}, registry, "spec.toml")


def test_an_unrelated_unknown_keyword_gets_no_suggestion(registry: Registry) -> None:
    doc = scenario()
    doc["creatures"]["cerberus"]["keywords"] = ["phasing"]  # type: ignore[index]
    with pytest.raises(InputError) as info:
        parse_scenario(doc, registry, "s.json")
    assert "did you mean" not in info.value.message


def test_unknown_card_suggests_the_closest(registry: Registry) -> None:
    doc = scenario()
    doc["events"] = [
        {"at": "declare-blockers", "action": "cast", "card": "Hat Trik", "caster": "abby",
         "target": "cerberus"},
    ]  # fmt: skip
    with pytest.raises(InputError, match="did you mean 'Hat Trick'"):
        parse_scenario(doc, registry, "s.json")
    with pytest.raises(InputError, match="did you mean 'Hat Trick'"):
        parse_spec({"casts": [{"card": "hat trik", "probability": 0.5}]}, registry, "spec.toml")


def test_closest() -> None:
    known = ["first strike", "double strike", "trample"]
    assert closest("Frist  Strike", known) == "first strike"
    assert closest("double_strike", known) == "double strike"
    assert closest("horsemanship", known) is None
    assert closest("first strike" * 100, known) is None


# -- 3. markup in user text -------------------------------------------------------------------


@pytest.mark.parametrize("terminal", [False, True])
@pytest.mark.parametrize("name", ["[/]", "[bold red]Evil", "[link=x]a"])
def test_names_are_never_markup(tmp_path: Path, name: str, terminal: bool) -> None:
    f = write_json(tmp_path / "s.json", scenario(name=name, cid=name))
    for engine in ("reference", "batched"):
        p = run("resolve", str(f), "--engine", engine, terminal=terminal)
        assert p.returncode == 0, p.stderr
        assert f"{name} → nadine" in p.stdout and f"{name}: struck in no earlier step" in p.stdout
        if terminal:
            assert "\x1b[1;31mEvil" not in p.stdout


@pytest.mark.parametrize("terminal", [False, True])
def test_a_jsonl_path_with_markup_is_printed_as_is(tmp_path: Path, terminal: bool) -> None:
    folder = tmp_path / "runs[" / "b]"
    folder.mkdir(parents=True)
    f = folder / "many.jsonl"
    f.write_text(json.dumps(scenario()) + "\n" + json.dumps(scenario()) + "\n")
    p = run("resolve", str(f), terminal=terminal)
    assert p.returncode == 0, p.stderr
    assert f"{f}:2" in p.stdout


@pytest.mark.parametrize("terminal", [False, True])
def test_plugin_keywords_are_never_markup(tmp_path: Path, terminal: bool) -> None:
    (tmp_path / "markup_kw.py").write_text(
        "from ecs_combat import Keyword, hookimpl\n\n"
        "@hookimpl\ndef register_keywords():\n"
        "    return [Keyword('[/]'), Keyword('[bold red]evil')]\n"
    )
    p = installed(
        "-p", "markup_kw", "plugins", env={"PYTHONPATH": str(tmp_path)}, terminal=terminal
    )
    assert p.returncode == 0, p.stderr
    assert "[/], [bold red]evil" in p.stdout


# -- 4. text that is not valid Unicode --------------------------------------------------------


@pytest.mark.parametrize("as_json", [False, True])
def test_a_lone_surrogate_is_refused_as_the_file_is_read(tmp_path: Path, as_json: bool) -> None:
    f = tmp_path / "s.json"
    f.write_text(json.dumps(scenario(name="\ud800")))  # json.dumps writes it as \ud800
    p = installed("resolve", str(f), *(["--json"] if as_json else []))
    assert p.returncode == 2 and p.stdout == ""
    assert "creatures.cerberus.name: not valid Unicode text" in p.stderr
    assert "Traceback" not in p.stderr


def test_a_lone_surrogate_in_a_key_is_refused(tmp_path: Path) -> None:
    f = tmp_path / "s.jsonl"
    f.write_text(json.dumps(scenario(cid="x\udfff")) + "\n")
    p = installed("resolve", str(f))
    assert p.returncode == 2 and p.stdout == ""
    assert f"{f}:1: creatures.x\\udfff: not valid Unicode text" in p.stderr


def test_a_surrogate_pair_is_a_character_and_a_spec_is_checked_too(tmp_path: Path) -> None:
    f = write_json(tmp_path / "s.json", scenario(name="Grinning \U0001f600"))
    assert "\\ud83d\\ude00" in f.read_text()  # written as a pair of escapes
    p = installed("resolve", str(f))
    assert p.returncode == 0, p.stderr
    assert "Grinning \U0001f600 (cerberus)" in p.stdout
    f = write_json(tmp_path / "spec.json", {"matchup": ["first strike\udc00"]})
    p = installed("simulate", str(f))
    assert p.returncode == 2 and "spec.json: matchup[0]: not valid Unicode text" in p.stderr


def test_an_output_encoding_without_the_characters_escapes_them() -> None:
    p = installed("resolve", str(SEED), env={"PYTHONIOENCODING": "ascii"})
    assert p.returncode == 0, p.stderr
    assert "Attacking: Two-Headed Cerberus (cerberus) \\u2192 nadine" in p.stdout


# -- 5. long names ----------------------------------------------------------------------------


def test_long_names_are_elided_in_the_account_and_exact_in_json(tmp_path: Path) -> None:
    long_id = "x" * 500_000 + "y"
    f = write_json(tmp_path / "s.json", scenario(name="N" * 1_000_000, cid=long_id))
    p = run("resolve", str(f))
    assert p.returncode == 0, p.stderr
    assert len(p.stdout) < 20_000 and ELISION in p.stdout
    p = run("resolve", str(f), "--json")
    assert long_id in json.loads(p.stdout)["creatures"]


def test_shown_elides_the_middle_and_escapes_control_characters() -> None:
    text = shown("a" * 1000 + "b")
    assert len(text) == SHOWN_LENGTH and text.startswith("aaa") and text.endswith("ab")
    assert shown("two\nlines\t\ud800") == "two\\nlines\\t\\ud800"
    assert shown("Jötunn ✔") == "Jötunn ✔"


# -- 6. files ---------------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["resolve", "simulate"])
def test_both_commands_open_files_alike(tmp_path: Path, command: str) -> None:
    p = run(command, str(tmp_path / "nope.toml"))
    assert p.returncode == 2
    assert p.stderr == f"ecs-combat: {tmp_path / 'nope.toml'}: no such file\n"
    (tmp_path / "x.yaml").write_text("a: 1\n")
    p = run(command, str(tmp_path / "x.yaml"))
    assert p.returncode == 2 and "unknown file type: use .toml" in p.stderr
    (tmp_path / "bad.toml").write_text("[x\n")
    p = run(command, str(tmp_path / "bad.toml"))
    assert p.returncode == 2 and "bad.toml: not valid TOML" in p.stderr


def test_a_scenario_given_to_simulate_says_use_resolve() -> None:
    p = run("simulate", str(SEED))
    assert p.returncode == 2
    assert "this looks like a scenario" in p.stderr
    assert f"use `ecs-combat resolve {SEED}`" in p.stderr


def test_a_spec_given_to_resolve_says_use_simulate() -> None:
    p = run("resolve", str(MELEE))
    assert p.returncode == 2
    assert "this looks like a SPEC file" in p.stderr
    assert f"use `ecs-combat simulate {MELEE}`" in p.stderr


def test_simulate_reads_a_json_spec(tmp_path: Path) -> None:
    spec = tomllib.loads(MELEE.read_text())
    f = write_json(tmp_path / "melee.json", spec)
    p = run("simulate", str(f), "-n", "200", "--seed", "2", "--json")
    q = run("simulate", str(MELEE), "-n", "200", "--seed", "2", "--json")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["matchups"] == json.loads(q.stdout)["matchups"]


# -- 7. both engines' accounts ----------------------------------------------------------------


def test_both_engines_accounts_are_the_same() -> None:
    """The batched engine's result worded by the reference engine (docs/output.md)."""
    reference = run("resolve", str(SEED)).stdout.splitlines()
    batched = run("resolve", str(SEED), "--engine", "batched").stdout.splitlines()
    assert batched == reference
    end = reference.index("End of combat")
    assert reference[end + 1].endswith("tapped  may attack again")


# -- 8. messages ------------------------------------------------------------------------------


def test_a_key_with_a_newline_gives_a_one_line_message(tmp_path: Path) -> None:
    doc = scenario()
    doc["creatures"]["boar"]["po\nwer"] = 2  # type: ignore[index]
    p = run("resolve", str(write_json(tmp_path / "s.json", doc)))
    assert p.returncode == 2
    assert p.stderr.count("\n") == 1 and "creatures.boar.po\\nwer" in p.stderr


def test_null_is_called_null(tmp_path: Path) -> None:
    doc = scenario()
    doc["creatures"]["boar"]["power"] = None  # type: ignore[index]
    p = run("resolve", str(write_json(tmp_path / "s.json", doc)))
    assert p.returncode == 2
    assert "creatures.boar.power: must be an integer, not null" in p.stderr


# -- 9. documentation -------------------------------------------------------------------------


def test_the_docs_give_one_test_command() -> None:
    def commands(path: Path) -> set[str]:
        text = path.read_text()
        return {line.strip() for line in text.splitlines() if "python -m pytest" in line}

    readme = {c for c in commands(ROOT / "README.md") if c.startswith("python3 -m venv")}
    assert len(readme) == 1
    assert commands(ROOT / "docs" / "plugins.md") == readme
    assert commands(ROOT / ".ci" / "run") == readme
    # in parallel, with pytest-xdist from the test extra
    assert next(iter(readme)).endswith("python -m pytest -n auto")
    test_extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]["test"]
    assert any(r.startswith("pytest-xdist") for r in test_extra)


def test_a_command_invoked_without_the_group_takes_plugin_options() -> None:
    from click.testing import CliRunner

    from ecs_combat.cli.main import plugins

    result = CliRunner().invoke(plugins, ["--json", "-p", "no:trample"])
    assert result.exit_code == 0, result.output
    assert all(pl["name"] != "trample" for pl in json.loads(result.output))
