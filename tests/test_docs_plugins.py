"""Every code block of docs/plugins.md runs: an HTML comment before each fenced block says
how it is checked (``<!-- check: KIND [ARGUMENT] -->``), and a block without one fails.

- ``layout DIR``: a package's file tree; each file and folder shown exists.
- ``pyproject DIR``: every key shown is in DIR/pyproject.toml with that value.
- ``excerpt MODULE``: an abridged module: each function and constant shown is the module's
  own (the same code, docstrings aside), each name imported is the one the module has.
- ``module MODULE``: the whole module but for its docstring, as written; it runs as a plugin
  in place of the package on the ``scenario`` block of the same package.
- ``module-as PLUGIN``: a bundled plugin's code as the page shows it, run in place of it:
  both engines give what the bundled plugin gives.
- ``scenario NAME``: a scenario (``NAME.toml`` for the console blocks), resolved on both
  engines to the outcome the page describes.
- ``console``: ``$ command`` lines run in a shell (in a folder holding the scenario files),
  each followed by its output exactly; a ``...`` line stands for lines left out, ``...`` in a
  line for text left out. ``pip install ./examples/X`` is checked as installed, not run.
- ``plugin-errors``: each line is what a deliberately broken module makes ``ecs-combat``
  print (exit status 1).
- ``python``: runs as a script in a new interpreter; ``pytest-file``: passes under pytest.
- ``test-command``: the README's test command.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import os
import re
import subprocess
import sys
import tomllib
import types
from collections.abc import Callable
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest

from ecs_combat import load_registry
from ecs_combat.testing import bundled_plugins, registry_with, resolve_both

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "plugins.md"
FENCE = re.compile(r"^```([\w-]*)\n(.*?)^```$", re.S | re.M)
MARK = re.compile(r"<!-- check: (\S+)(?: (\S+))? -->\n$")
BIN = Path(sys.executable).parent


def page_blocks() -> list[tuple[str, str, str, str]]:
    """(kind, argument, language, text) of every fenced block; kind "" where unmarked."""
    text = PAGE.read_text(encoding="utf-8")
    out = []
    for m in FENCE.finditer(text):
        mark = MARK.search(text[: m.start()][-200:])
        out.append(
            (mark.group(1), mark.group(2) or "", m.group(1), m.group(2))
            if mark
            else ("", "", m.group(1), m.group(2))
        )
    return out


BLOCKS = page_blocks()
SCENARIOS = {arg: text for kind, arg, _, text in BLOCKS if kind == "scenario"}


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ECS_COMBAT_")}
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    return {**env, **extra}


def _without_docstrings(node: ast.AST) -> str:
    """The node's code, docstrings left out."""
    node = ast.parse(ast.unparse(node))
    for n in ast.walk(node):
        body = getattr(n, "body", None)
        if (
            isinstance(body, list)
            and body
            and isinstance(body[0], ast.Expr)
            and isinstance(body[0].value, ast.Constant)
            and isinstance(body[0].value.value, str)
        ):
            n.body = body[1:] or [ast.Pass()]  # type: ignore[attr-defined]
    return ast.dump(node)


def _defined(tree: ast.Module) -> dict[str, ast.stmt]:
    """Top-level functions and constants by name."""
    out: dict[str, ast.stmt] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.FunctionDef | ast.ClassDef):
            out[stmt.name] = stmt
        elif isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                if isinstance(target, ast.Name):
                    out[target.id] = stmt
                elif isinstance(target, ast.Tuple):
                    out.update({e.id: stmt for e in target.elts if isinstance(e, ast.Name)})
    return out


def _plugin_module(name: str, code: str) -> types.ModuleType:
    """A module object made of `code`, to register with ``load_registry(extra=...)``."""
    module = types.ModuleType(name)
    exec(compile(code, f"<docs/plugins.md: {name}>", "exec"), module.__dict__)
    return module


def _wildcard(expected: str) -> re.Pattern[str]:
    """The expected output as a pattern: a ``...`` line is any lines, ``...`` any text."""
    parts = []
    for line in expected.splitlines():
        if line.strip() == "...":
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            parts.append(".*".join(re.escape(p) for p in line.rstrip().split("...")) + r"\n")
    return re.compile("".join(parts), re.S)


# -- the checks --------------------------------------------------------------------------


def check_layout(folder: str, text: str, tmp: Path) -> None:
    lines = text.splitlines()
    assert (ROOT / lines[0].rstrip("/")).is_dir()
    parents = [ROOT / lines[0].rstrip("/")]
    for line in lines[1:]:
        depth = (len(line) - len(line.lstrip())) // 2
        name = line.split()[0]
        parents = parents[:depth]
        path = parents[-1] / name.rstrip("/")
        assert path.exists(), path
        parents.append(path)
    assert len(lines) > 3


def check_pyproject(folder: str, text: str, tmp: Path) -> None:
    def subset(shown: Any, real: Any, where: str) -> None:
        if isinstance(shown, dict):
            for key, value in shown.items():
                assert key in real, f"{where}.{key}"
                subset(value, real[key], f"{where}.{key}")
        else:
            assert shown == real, where

    subset(tomllib.loads(text), tomllib.loads((ROOT / folder / "pyproject.toml").read_text()), "")


def check_excerpt(module_name: str, text: str, tmp: Path) -> None:
    module = importlib.import_module(module_name)
    real = _defined(ast.parse(Path(str(module.__file__)).read_text()))
    shown = ast.parse(text)
    for name, stmt in _defined(shown).items():
        assert name in real, f"{name} is not in {module_name}"
        assert _without_docstrings(stmt) == _without_docstrings(real[name]), name
    for stmt in shown.body:
        if isinstance(stmt, ast.ImportFrom) and stmt.module:
            source = importlib.import_module(stmt.module)
            for alias in stmt.names:
                assert getattr(module, alias.name) is getattr(source, alias.name), alias.name
    assert _defined(shown)


def check_module(module_name: str, text: str, tmp: Path) -> None:
    module = importlib.import_module(module_name)
    source = Path(str(module.__file__)).read_text()
    docstring_end = ast.parse(source).body[0].end_lineno
    assert text.strip() == "\n".join(source.splitlines()[docstring_end:]).strip()
    # it runs: the page's code in place of the package, on the package's scenario
    registry = registry_with(extra=[_plugin_module(f"doc_{module_name}", text)])
    outcome = SCENARIO_OUTCOMES[module_name.removeprefix("ecs_combat_")]
    doc = tomllib.loads(SCENARIOS[module_name.removeprefix("ecs_combat_")])
    outcome(*resolve_both(registry, doc))


def check_module_as(plugin: str, text: str, tmp: Path) -> None:
    bundled = bundled_plugins()
    others = [m for name, m in sorted(bundled.items()) if name != plugin]
    shown = load_registry(
        load=others, autoload=False, extra=[_plugin_module(f"doc_{plugin}", text)]
    )
    real = registry_with()
    doc = tomllib.loads(MODULE_AS_SCENARIOS[plugin])
    ref, bat = resolve_both(shown, doc)
    assert ref == bat == resolve_both(real, doc)[0]
    MODULE_AS_OUTCOMES[plugin](ref)


def check_scenario(name: str, text: str, tmp: Path) -> None:
    registry = registry_with(SCENARIO_PACKAGES[name])
    SCENARIO_OUTCOMES[name](*resolve_both(registry, tomllib.loads(text)))


def check_console(_: str, text: str, tmp: Path) -> None:
    for name, scenario in SCENARIOS.items():
        (tmp / f"{name}.toml").write_text(scenario)
    commands = re.split(r"^\$ ", text, flags=re.M)[1:]
    assert commands
    for chunk in commands:
        command, _, expected = chunk.partition("\n")
        if (install := re.fullmatch(r"pip install \./examples/(\S+)", command)) is not None:
            metadata.distribution(f"ecs-combat-{install.group(1)}")
            continue
        p = subprocess.run(
            command,
            shell=True,
            cwd=tmp,
            env=_env(COLUMNS="200"),
            capture_output=True,
            text=True,
        )
        got = "".join(line.rstrip() + "\n" for line in (p.stdout + p.stderr).splitlines())
        assert _wildcard(expected).fullmatch(got), f"$ {command}\n{got}"


BROKEN = {
    "typo_plugin": "from ecs_combat import hookimpl\n\n@hookimpl\ndef register_keyword():\n"
    "    return []\n",
    "broken_plugin": "from ecs_combat import hookimpl\n\n@hookimpl\ndef register_keywords():\n"
    "    return 'menace'\n",
    "steps_plugin": "from ecs_combat import Keyword, hookimpl\n\n@hookimpl\n"
    "def register_keywords():\n"
    "    return [Keyword('slow strike', strikes_in=frozenset({'slow-strike'}))]\n",
}


def check_plugin_errors(_: str, text: str, tmp: Path) -> None:
    for name, code in BROKEN.items():
        (tmp / f"{name}.py").write_text(code)
    lines = text.splitlines()
    assert len(lines) == 4
    for line in lines:
        match = re.search(r"plugin '(\w+)'", line)
        assert match is not None
        p = subprocess.run(
            [BIN / "ecs-combat", "-p", match.group(1), "plugins"],
            cwd=tmp,
            env=_env(PYTHONPATH=str(tmp)),
            capture_output=True,
            text=True,
        )
        assert (p.returncode, p.stderr) == (1, line + "\n")


def check_python(_: str, text: str, tmp: Path) -> None:
    p = subprocess.run(
        [sys.executable, "-c", text], cwd=tmp, env=_env(), capture_output=True, text=True
    )
    assert p.returncode == 0, p.stderr


def check_pytest_file(_: str, text: str, tmp: Path) -> None:
    (tmp / "test_from_the_docs.py").write_text(text)
    p = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_from_the_docs.py"],
        cwd=tmp,
        env=_env(),
        capture_output=True,
        text=True,
    )
    assert p.returncode == 0, p.stdout + p.stderr
    assert re.search(r"\b[1-9]\d* passed", p.stdout) and "failed" not in p.stdout


def check_test_command(_: str, text: str, tmp: Path) -> None:
    readme = (ROOT / "README.md").read_text()
    assert text.strip() in readme.splitlines()


CHECKS: dict[str, Callable[[str, str, Path], None]] = {
    "layout": check_layout,
    "pyproject": check_pyproject,
    "excerpt": check_excerpt,
    "module": check_module,
    "module-as": check_module_as,
    "scenario": check_scenario,
    "console": check_console,
    "plugin-errors": check_plugin_errors,
    "python": check_python,
    "pytest-file": check_pytest_file,
    "test-command": check_test_command,
}

#: The example package each scenario of the page uses (with the bundled plugins).
SCENARIO_PACKAGES = {"aardvark": "ecs_combat_alpha_strike", "legacy": "ecs_combat_legacy"}


def _aardvark(ref: Any, bat: Any) -> None:
    """Section 2: Aardvark deals 2 first-strike damage to Zebra, which dies; nobody deals
    damage in the regular step."""
    assert ref == bat
    assert [s["name"] for s in ref["steps"]] == ["first-strike", "regular"]
    assert ref["steps"][0]["damage"] == [{"source": "aardvark", "target": "zebra", "amount": 2}]
    assert ref["steps"][0]["died"] == ["zebra"] and ref["steps"][1]["damage"] == []


def _legacy(ref: Any, bat: Any) -> None:
    """The third example: the martyr dies to first strike, the heir gets its counter and
    kills the wall in the regular step, a 2/3 with 2 damage."""
    assert ref == bat
    assert [s["died"] for s in ref["steps"]] == [["martyr"], ["wall"]]
    assert ref["creatures"]["heir"] == {
        "alive": True,
        "damage": 2,
        "power": 2,
        "toughness": 3,
        "counters": {"+1/+1": 1},
    }


SCENARIO_OUTCOMES: dict[str, Callable[[Any, Any], None]] = {
    "aardvark": _aardvark,
    "legacy": _legacy,
}

#: A scenario for each bundled plugin the page shows: a 2/2 wither blocked by a 3/3.
MODULE_AS_SCENARIOS = {
    "wither": """
[players.A]
[players.B]
[creatures.withering]
controller = "A"
power = 2
toughness = 2
keywords = ["wither"]
[creatures.wall]
controller = "B"
power = 3
toughness = 3
[combat]
attackers = { withering = "B" }
blockers = { wall = "withering" }
""",
    "bushido": """
[players.A]
[players.B]
[creatures.bear]
controller = "A"
power = 2
toughness = 2
[creatures.samurai]
controller = "B"
power = 1
toughness = 1
keywords = ["bushido 2"]
[combat]
attackers = { bear = "B" }
blockers = { samurai = "bear" }
""",
}


def _wither(out: Any) -> None:
    """Two -1/-1 counters instead of 2 damage: the wall is a 1/1 with no damage."""
    wall = out["creatures"]["wall"]
    assert (wall["damage"], wall["toughness"], wall["counters"]) == (0, 1, {"-1/-1": 2})


def _bushido(out: Any) -> None:
    """702.45a: the 1/1 samurai blocks and becomes 3/3: it kills the 2/2 bear and survives
    with 2 damage."""
    samurai = out["creatures"]["samurai"]
    assert (samurai["power"], samurai["toughness"], samurai["damage"]) == (3, 3, 2)
    assert samurai["alive"] and not out["creatures"]["bear"]["alive"]


MODULE_AS_OUTCOMES: dict[str, Callable[[Any], None]] = {"wither": _wither, "bushido": _bushido}


def test_every_block_says_how_it_is_checked() -> None:
    unmarked = [text.splitlines()[:1] for kind, _, _, text in BLOCKS if kind not in CHECKS]
    assert unmarked == []
    assert len(BLOCKS) >= 18


@pytest.mark.parametrize(
    ("kind", "argument", "text"),
    [(k, a, t) for k, a, _, t in BLOCKS],
    ids=[f"{i:02d}-{k}-{a}".rstrip("-") for i, (k, a, _, _) in enumerate(BLOCKS)],
)
def test_the_block_runs(kind: str, argument: str, text: str, tmp_path: Path) -> None:
    if kind in {"excerpt", "module", "console", "pytest-file"} | {"scenario"}:
        for package in ("ecs_combat_alpha_strike", "ecs_combat_legacy"):
            if importlib.util.find_spec(package) is None:
                pytest.skip(f"{package} is not installed (the README's test command does)")
    CHECKS[kind](argument, text, tmp_path)


def test_a_wrong_output_fails() -> None:
    """The console check can fail: a changed word, a missing line."""
    assert _wildcard("a\n...\nc ... d\n").fullmatch("a\nb\nb\nc x d\n")
    assert not _wildcard("a\n...\nc ... d\n").fullmatch("a\nb\nc x e\n")
    assert not _wildcard("a\nb\n").fullmatch("a\n")
