"""The `ecs-combat` command: resolve, plugins, exit statuses (CONTRACT.md 2 and 4); through the
installed command, but for bad inputs, blocked plugins and one account, which run the command
in this process (tests/cli_run.py)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from cli_run import Completed, run_cli

ROOT = Path(__file__).resolve().parent.parent
SEED = ROOT / "examples" / "scenarios" / "cerberus-vs-boar.toml"
STRIKE_KEYWORDS = {
    "first strike",
    "double strike",
    "firstest strike",
    "last strike",
    "triple strike",
}


def in_process(*args: str) -> Completed:
    """The command in this process (tests/cli_run.py), with the environment of :func:`run`."""
    return run_cli(args, env={"ECS_COMBAT_PLUGINS": None, "COLUMNS": "200"})


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, **(env or {})}
    full_env.pop("ECS_COMBAT_PLUGINS", None)
    full_env["COLUMNS"] = "200"
    return subprocess.run(["ecs-combat", *args], capture_output=True, text=True, env=full_env)


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_resolve_json_matches_the_contract() -> None:
    p = run("resolve", str(SEED), "--json")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert set(out) == {"steps", "creatures", "players", "skipped_events"}
    assert [s["name"] for s in out["steps"]] == ["first-strike", "regular"]
    assert set(out["steps"][0]) == {"name", "damage", "life_gained", "died"}
    assert out["creatures"]["cerberus"] == {
        "alive": False,
        "damage": 2,
        "power": 1,
        "toughness": 2,
        "counters": {},
    }
    assert out["players"]["abby"] == {"life": 20, "lost": False, "poison": 0}


def test_resolve_readable_account_says_why() -> None:
    p = run("resolve", str(SEED))
    assert p.returncode == 0, p.stderr
    text = " ".join(p.stdout.split())
    assert "first-strike damage step" in text
    assert "had double strike as the first-strike step began" in text
    assert "had no" in text and "as the first-strike step began" in text
    assert "Brindle Boar (boar)" in text


def test_resolve_readable_account_explains_earlier_strikers(tmp_path: Path) -> None:
    f = write(
        tmp_path,
        "k.toml",
        '[players.A]\n[players.B]\n[creatures.k]\ncontroller = "A"\npower = 2\ntoughness = 2\n'
        'keywords = ["first strike"]\n[combat]\nattackers = { k = "B" }\n',
    )
    text = " ".join(in_process("resolve", str(f)).stdout.split())
    assert "a striker of an earlier step (first-strike), without" in text


def test_resolve_jsonl_prints_one_line_per_scenario(tmp_path: Path) -> None:
    a = {"players": {"A": {}, "B": {}}, "creatures": {"x": {"controller": "A", "power": 1, "toughness": 1}},
         "combat": {"attackers": {"x": "B"}}}  # fmt: skip
    f = write(tmp_path, "many.jsonl", "\n".join(json.dumps(a) for _ in range(3)) + "\n")
    p = run("resolve", str(f), "--json")
    assert p.returncode == 0, p.stderr
    lines = p.stdout.strip().splitlines()
    assert len(lines) == 3
    assert all(json.loads(line)["players"]["B"]["life"] == 19 for line in lines)


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ('[players.A]\n[players.B]\n[creatures.boar]\ncontroller = "B"\npower = "two"\ntoughness = 2\n',
         "creatures.boar.power"),
        ("[players.A]\n[players.B]\n[combat]\nattackers = { ghost = \"B\" }\n", "combat.attackers.ghost"),
        ("[players.A\n", "not valid TOML"),
    ],
)  # fmt: skip
def test_bad_input_exits_2_with_one_message(tmp_path: Path, text: str, place: str) -> None:
    f = write(tmp_path, "bad.toml", text)
    p = in_process("resolve", str(f), "--json")
    assert p.returncode == 2
    assert p.stdout == ""
    assert "Traceback" not in p.stderr
    assert str(f) in p.stderr and place in p.stderr
    assert len(p.stderr.strip().splitlines()) == 1


def test_illegal_division_found_while_resolving_exits_2_and_prints_nothing(tmp_path: Path) -> None:
    f = write(
        tmp_path,
        "div.toml",
        '[players.A]\n[players.B]\n[creatures.g]\ncontroller = "A"\npower = 3\ntoughness = 3\n'
        '[creatures.w]\ncontroller = "B"\npower = 0\ntoughness = 3\n'
        '[combat]\nattackers = { g = "B" }\nblockers = { w = "g" }\n'
        '[[combat.divide]]\nstep = "regular"\nsource = "g"\namounts = { w = 2 }\n',
    )
    p = run("resolve", str(f), "--json")
    assert p.returncode == 2 and p.stdout == ""
    assert "combat.divide[0].amounts" in p.stderr and "Traceback" not in p.stderr


def test_missing_file_exits_2() -> None:
    p = run("resolve", "/nonexistent/x.toml")
    assert p.returncode == 2 and "no such file" in p.stderr


def test_plugins_lists_the_five_strike_keywords() -> None:
    p = run("plugins", "--json")
    assert p.returncode == 0, p.stderr
    listed = json.loads(p.stdout)
    keywords = {k for plugin in listed for k in plugin["keywords"]}
    assert keywords >= STRIKE_KEYWORDS
    bundled = [pl for pl in listed if "first strike" in pl["keywords"]]
    assert bundled[0]["distribution"] == "ecs-combat" and bundled[0]["version"]
    table = run("plugins").stdout
    assert "first_strike" in table and "Damage steps" in table


def test_autoload_disabled_resolves_vanilla_combat(tmp_path: Path) -> None:
    """CONTRACT 4: with autoload disabled, vanilla combat still resolves (regular step only)."""
    env = {"ECS_COMBAT_DISABLE_PLUGIN_AUTOLOAD": "1"}
    f = write(
        tmp_path,
        "v.toml",
        '[players.A]\n[players.B]\n[creatures.x]\ncontroller = "A"\npower = 3\ntoughness = 3\n'
        '[combat]\nattackers = { x = "B" }\n',
    )
    p = run("resolve", str(f), "--json", env=env)
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    assert [s["name"] for s in out["steps"]] == ["regular"]
    assert out["players"]["B"]["life"] == 17
    assert json.loads(run("plugins", "--json", env=env).stdout) == []


def test_autoload_disabled_double_strike_is_an_input_error() -> None:
    p = run("resolve", str(SEED), "--json", env={"ECS_COMBAT_DISABLE_PLUGIN_AUTOLOAD": "1"})
    assert p.returncode == 2
    assert "double strike" in p.stderr and "creatures.cerberus.keywords[0]" in p.stderr


def test_explicit_plugin_loading_with_autoload_disabled() -> None:
    p = run(
        "-p", "ecs_combat_keywords.double_strike", "resolve", str(SEED), "--json",
        env={"ECS_COMBAT_DISABLE_PLUGIN_AUTOLOAD": "1"},
    )  # fmt: skip
    assert p.returncode == 0, p.stderr
    assert [s["name"] for s in json.loads(p.stdout)["steps"]] == ["first-strike", "regular"]


@pytest.mark.parametrize("spelling", ["no:double_strike", "no:double strike"])
def test_blocking_a_plugin_by_name(spelling: str) -> None:
    p = in_process("-p", spelling, "resolve", str(SEED), "--json")
    assert p.returncode == 2
    assert "double strike" in p.stderr and "blocked" in p.stderr
    listed = json.loads(in_process("-p", spelling, "plugins", "--json").stdout)
    assert all(pl["name"] != "double_strike" for pl in listed)


def test_blocking_first_strike_keeps_the_first_strike_step_for_double_strike() -> None:
    """The first-strike step comes from every plugin that needs it, not only first strike's."""
    p = run("-p", "no:first_strike", "resolve", str(SEED), "--json")
    assert p.returncode == 0, p.stderr
    assert [s["name"] for s in json.loads(p.stdout)["steps"]] == ["first-strike", "regular"]


def test_broken_plugin_is_reported_by_name(tmp_path: Path) -> None:
    (tmp_path / "broken_kw.py").write_text("raise RuntimeError('oops')\n")
    p = run("-p", "broken_kw", "plugins", env={"PYTHONPATH": str(tmp_path)})
    assert p.returncode == 1
    assert "broken_kw" in p.stderr and "failed to import" in p.stderr and "oops" in p.stderr
    assert "Traceback" not in p.stderr


def test_plugin_breaking_a_hook_contract_is_reported_by_name(tmp_path: Path) -> None:
    (tmp_path / "liar_kw.py").write_text(
        "from ecs_combat import hookimpl\n\n@hookimpl\ndef register_keywords():\n    return 'flying'\n"
    )
    p = run("-p", "liar_kw", "plugins", env={"PYTHONPATH": str(tmp_path)})
    assert p.returncode == 1
    assert "liar_kw" in p.stderr and "register_keywords" in p.stderr
    assert "Traceback" not in p.stderr


def test_version_and_help() -> None:
    assert run("--version").returncode == 0
    help_text = run("--help").stdout
    assert "resolve" in help_text and "plugins" in help_text
