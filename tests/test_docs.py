"""The documentation's examples are real files, resolved by both engines as the docs say.

In the Markdown under docs/, an HTML comment before a fenced block says what the block is:

- ``<!-- example: PATH -->``: the block is the whole text of the file PATH;
- ``<!-- outcome: PATH -->``: `ecs-combat resolve PATH --json` gives this (every field shown
  must be printed exactly so; lists of `damage`, `life_gained` and `died` in any order; for a
  .jsonl file, a list with one document per line);
- ``<!-- outcome-full: PATH -->``: the same, and no field may be left out;
- ``<!-- error: PATH -->``: `ecs-combat resolve PATH` exits 2 with exactly this line;
- ``<!-- phases: PATH -->``: `ecs-combat phases PATH --json` gives exactly this (for a .jsonl
  file, a list with one list per line).

Every file under docs/examples/ must be shown, and have an outcome, phases or an error.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_run import Completed, run_cli

from ecs_combat.errors import InputError
from ecs_combat.plugin.registry import Registry
from ecs_combat.scenario.schema import TURN_TABLES, tables
from ecs_combat.simulation.spec_reader import SpecReader, parse_spec

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
EXAMPLES = DOCS / "examples"
ENGINES = ("reference", "batched")
MARKER = re.compile(
    r"<!-- (example|outcome|outcome-full|error|phases): (\S+) -->\n```[\w-]*\n(.*?)```", re.S
)
UNORDERED = {"damage", "life_gained", "died"}


def blocks() -> Iterator[tuple[str, str, str, str]]:
    """(kind, path, block text, doc file) for every marked block of the docs."""
    for md in [*sorted(DOCS.glob("*.md")), ROOT / "README.md"]:
        for kind, path, text in MARKER.findall(md.read_text()):
            yield kind, path, text, md.name


BLOCKS = list(blocks())
FILES = sorted(
    p.relative_to(ROOT).as_posix()
    for p in EXAMPLES.rglob("*")
    if p.suffix in (".toml", ".json", ".jsonl") and "specs" not in p.parts
)


def installed(path: str, engine: str, *extra: str) -> subprocess.CompletedProcess[str]:
    """`ecs-combat resolve PATH --engine ENGINE ...`: the installed command."""
    env = {**os.environ, "COLUMNS": "200"}
    env.pop("ECS_COMBAT_DISABLE_PLUGIN_AUTOLOAD", None)
    return subprocess.run(
        ["ecs-combat", "resolve", path, "--engine", engine, *extra],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
    )


def run(path: str, engine: str, *extra: str) -> Completed:
    """The same command, in this process (tests/cli_run.py)."""
    env = {"COLUMNS": "200", "ECS_COMBAT_DISABLE_PLUGIN_AUTOLOAD": None}
    return run_cli(["resolve", path, "--engine", engine, *extra], env=env, cwd=ROOT)


def differences(want: Any, got: Any, where: str, full: bool) -> list[str]:
    """Where `got` differs from the documented `want`."""
    if isinstance(want, dict) and isinstance(got, dict):
        out = []
        if full and set(want) != set(got):
            out.append(f"{where}: keys {sorted(got)} printed, {sorted(want)} documented")
        for key, value in want.items():
            if key not in got:
                out.append(f"{where}.{key}: documented but not printed")
            else:
                out += differences(value, got[key], f"{where}.{key}", full)
        return out
    if isinstance(want, list) and isinstance(got, list):
        if where.rsplit(".", 1)[-1] in UNORDERED:
            key = lambda v: json.dumps(v, sort_keys=True)  # noqa: E731
            want, got = sorted(want, key=key), sorted(got, key=key)
        if len(want) != len(got):
            return [f"{where}: {len(got)} items printed, {len(want)} documented: {got}"]
        return [
            d for i, (w, g) in enumerate(zip(want, got, strict=True))
            for d in differences(w, g, f"{where}[{i}]", full)
        ]  # fmt: skip
    return [] if want == got else [f"{where}: {got!r} printed, {want!r} documented"]


def test_the_docs_have_examples() -> None:
    assert len([b for b in BLOCKS if b[0] == "example"]) >= 15
    assert len(FILES) >= 15


@pytest.mark.parametrize("path", FILES)
def test_every_example_file_is_shown_with_its_outcome(path: str) -> None:
    kinds = {kind for kind, p, _, _ in BLOCKS if p == path}
    assert "example" in kinds, f"{path} is not shown in the docs"
    wanted = {"error"} if "/invalid/" in path else {"outcome", "outcome-full", "phases"}
    assert kinds & wanted, f"{path} has no documented {' or '.join(sorted(wanted))}"


@pytest.mark.parametrize(
    ("path", "text"),
    [(p, t) for k, p, t, _ in BLOCKS if k == "example"],
    ids=[f"{d}:{p}" for k, p, _, d in BLOCKS if k == "example"],
)
def test_shown_example_is_the_file(path: str, text: str) -> None:
    assert (ROOT / path).read_text() == text


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("kind", "path", "text"),
    [(k, p, t) for k, p, t, _ in BLOCKS if k.startswith("outcome")],
    ids=[f"{d}:{p}" for k, p, _, d in BLOCKS if k.startswith("outcome")],
)
def test_documented_outcome(kind: str, path: str, text: str, engine: str) -> None:
    proc = run(path, engine, "--json")
    assert proc.returncode == 0, proc.stderr
    if path.endswith(".jsonl"):
        got: Any = [json.loads(line) for line in proc.stdout.splitlines()]
    else:
        got = json.loads(proc.stdout)
    assert differences(json.loads(text), got, "", kind == "outcome-full") == []


@pytest.mark.parametrize("engine", ENGINES)
def test_the_installed_command_prints_the_documented_outcome(engine: str) -> None:
    """The first documented outcome and error, through the installed command."""
    kind, path, text, _ = next(b for b in BLOCKS if b[0].startswith("outcome"))
    proc = installed(path, engine, "--json")
    assert proc.returncode == 0, proc.stderr
    assert differences(json.loads(text), json.loads(proc.stdout), "", kind == "outcome-full") == []
    _, path, text, _ = next(b for b in BLOCKS if b[0] == "error")
    proc = installed(path, engine)
    assert (proc.returncode, proc.stdout, proc.stderr) == (2, "", text)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("path", "text"),
    [(p, t) for k, p, t, _ in BLOCKS if k == "error"],
    ids=[p for k, p, _, _ in BLOCKS if k == "error"],
)
def test_documented_error(path: str, text: str, engine: str) -> None:
    proc = run(path, engine)
    assert (proc.returncode, proc.stdout, proc.stderr) == (2, "", text)


@pytest.mark.parametrize(
    ("path", "text"),
    [(p, t) for k, p, t, _ in BLOCKS if k == "phases"],
    ids=[f"{d}:{p}" for k, p, _, d in BLOCKS if k == "phases"],
)
def test_documented_phases(path: str, text: str) -> None:
    proc = run_cli(["phases", path, "--json"], cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    if path.endswith(".jsonl"):
        got: Any = [json.loads(line) for line in proc.stdout.splitlines()]
    else:
        got = json.loads(proc.stdout)
    assert got == json.loads(text)


def test_every_scenario_key_is_documented(registry: Registry) -> None:
    """Each key of the format (ecs_combat.scenario.schema, checked against the loader by
    tests/test_schema.py), the bundled plugins' included, is described in docs/scenarios.md."""
    text = (DOCS / "scenarios.md").read_text()
    for where, table in tables(registry).items():
        for key in table:
            assert f"`{key}`" in text, f"{where}.{key}"


def test_every_turn_key_is_documented() -> None:
    """Each key of a turn file is described in docs/turns.md."""
    text = (DOCS / "turns.md").read_text()
    for where, table in TURN_TABLES.items():
        for key in table:
            assert f"`{key}`" in text, f"{where}.{key}"


def test_counter_keywords_are_listed(registry: Registry) -> None:
    """docs/scenarios.md names exactly the bundled keywords that may be counters."""
    text = " ".join((DOCS / "scenarios.md").read_text().split())
    found = re.search(r"Only these bundled keywords may be counters: (.*?) \(a plugin", text)
    assert found
    bundled = [k for k in registry.keywords.values() if k.name != "alpha strike"]
    assert found.group(1).split(", ") == sorted(k.name for k in bundled if k.counter)


def anchors(md: Path) -> set[str]:
    """The anchors GitHub makes for a Markdown file's headings, and its explicit ones."""
    text = re.sub(r"^```.*?^```", "", md.read_text(), flags=re.M | re.S)  # not code blocks
    out: set[str] = set(re.findall(r'<a id="([^"]+)"></a>', text))
    seen: dict[str, int] = {}
    for heading in re.findall(r"^#+ (.+)$", text, re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(f"{slug}-{n}" if n else slug)
    return out


def test_docs_links_resolve() -> None:
    """The docs link only to files of the repository and to headings that exist, and name no
    specification users don't have."""
    for md in [*sorted(DOCS.glob("*.md")), ROOT / "README.md"]:
        text = md.read_text()
        for target, anchor in re.findall(r"\]\(([^)#\s]*)(?:#([^)\s]+))?\)", text):
            if "://" in target:
                continue
            path = md.parent / target if target else md
            assert path.exists(), f"{md.name} links to missing {target}"
            if anchor and path.suffix == ".md":
                assert anchor in anchors(path), f"{md.name} links to missing {target}#{anchor}"
        assert not re.search(r"CONTRACT\.md|RULES\.md|shared/|\b[Ii]ssues? \d", text), md.name


def test_resolve_help_points_to_the_docs() -> None:
    proc = subprocess.run(["ecs-combat", "resolve", "--help"], capture_output=True, text=True)
    for doc in ("docs/scenarios.md", "docs/output.md"):
        assert doc in proc.stdout.replace("\n  ", " ")
        assert (ROOT / doc).exists()


SIMULATE = (DOCS / "simulate.md").read_text()
SPECS = re.findall(r"<!-- spec(?:: (\S+))? -->\n```toml\n(.*?)```", SIMULATE, re.S)
#: The SPEC text behind each error line documented in simulate.md.
SPEC_ERRORS = {
    "keywords.trample: probability must be between 0 and 1, not 1.5": "keywords = { trample = 1.5 }",
    "casts[0].card: no card 'Giant Growth' in the card library (loaded: Assault, Battery, Hat "
    "Trick, Joint Assault, Response, Resurgence)":
        '[[casts]]\ncard = "Giant Growth"\nprobability = 0.5',
    "attackers: min 3 is greater than max 1": "attackers = [3, 1]",
    "blocker.speed: unknown key 'speed' (allowed: keywords, pool, power, state, toughness)":
        "[blocker]\nspeed = 2",
}  # fmt: skip


@pytest.mark.parametrize(("path", "text"), SPECS, ids=[p or "spec" for p, _ in SPECS])
def test_spec_examples_are_valid(registry: Registry, path: str, text: str) -> None:
    if path:
        assert (ROOT / path).read_text() == text
    parse_spec(tomllib.loads(text), registry, "doc.toml")


def test_every_spec_example_file_is_shown() -> None:
    shown = {p for p, _ in SPECS}
    for spec in sorted((EXAMPLES / "specs").glob("*.toml")):
        assert spec.relative_to(ROOT).as_posix() in shown


def test_spec_example_runs(registry: Registry) -> None:
    proc = subprocess.run(
        ["ecs-combat", "simulate", "docs/examples/specs/trample.toml", "-n", "300", "--json",
         "--seed", "1"],
        capture_output=True, text=True, cwd=ROOT, check=True,
    )  # fmt: skip
    summary = json.loads(proc.stdout)
    assert {(m["attacker"], m["blocker"]) for m in summary["matchups"]} == {
        ("none", "none"),
        ("trample", "none"),
    }


def test_documented_spec_errors(registry: Registry) -> None:
    block = re.search(r"<!-- spec-errors -->\n```\n(.*?)```", SIMULATE, re.S)
    assert block
    lines = block.group(1).splitlines()
    assert [line.removeprefix("ecs-combat: melee.toml: ") for line in lines] == list(SPEC_ERRORS)
    for message, text in SPEC_ERRORS.items():
        with pytest.raises(InputError) as caught:
            parse_spec(tomllib.loads(text), registry, "melee.toml")
        assert str(caught.value) == f"melee.toml: {message}"


def test_every_spec_key_is_documented() -> None:
    section = SIMULATE.split("## SPEC files")[1].split("\n## ")[0]
    rows = {
        cells[0]: line
        for line in section.splitlines()
        if line.startswith("| `") and (cells := line.split(" | "))
    }
    keys = set(SpecReader.TOP) | {"state.creature", "state.player"}
    keys |= {f"casts[i].{k}" for k in ("card", "probability", "target")}
    for key in sorted(keys - {"attacker", "blocker"}):
        assert f"| `{key}`" in rows, key
    side = rows["| `attacker`, `blocker`"]
    for key in SpecReader.SIDE:
        assert f"`{key}`" in side, key


PYTHON_BLOCK = re.compile(r"```python\n(.*?)```", re.S)


def test_the_python_api_examples_run(tmp_path: Path) -> None:
    """docs/python.md: its Python blocks, in order, as one script from the repository's root
    (each block's asserts pin what the page says)."""
    blocks = PYTHON_BLOCK.findall((DOCS / "python.md").read_text())
    assert len(blocks) >= 6
    script = tmp_path / "python_md.py"
    script.write_text("\n".join(blocks))
    env = {**os.environ}
    env.pop("ECS_COMBAT_DISABLE_PLUGIN_AUTOLOAD", None)
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, cwd=ROOT, env=env
    )
    assert done.returncode == 0, done.stderr


def test_the_architecture_tree_lists_every_module() -> None:
    """docs/architecture.md's tree names every module of ecs_combat/ under its folder (a
    package's ``__init__.py`` when it holds more than its docstring), and nothing that is
    gone, so the map can't fall behind the code."""
    import ast
    import re

    text = (ROOT / "docs" / "architecture.md").read_text()
    block = text.split("## The tree", 1)[1].split("```", 2)[1]
    listed: set[str] = set()
    folders: list[str] = []
    for line in block.splitlines():
        m = re.match(r"^( *)(\S+(?:/|\.py))(?:\s|$)", line)
        if m is None:
            continue
        depth, name = len(m.group(1)) // 2, m.group(2)
        folders = folders[:depth]
        if name.endswith("/"):
            folders.append(name.rstrip("/"))
        else:
            listed.add("/".join([*folders, name]))
    code = ROOT / "ecs_combat"
    found = set()
    for path in code.rglob("*.py"):
        body = ast.parse(path.read_text()).body
        if path.name == "__init__.py" and len(body) <= 1 and path.parent != code:
            continue  # a docstring only: its folder's line says what it is
        found.add(str(path.relative_to(ROOT)))
    assert len(found) > 150
    assert sorted(found - listed) == [], "modules missing from docs/architecture.md"
    assert sorted(listed - found) == [], "listed in docs/architecture.md, but gone"
