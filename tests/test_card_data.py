"""The bundled card database: the packaged file is what tools/build_card_data.py builds from
data/creatures.jsonl.gz, an installed package (wheel or sdist, ``pip install .``) has it, and
docs/cards.md says what tools/card_coverage.py and ``ecs-combat cards`` print."""

from __future__ import annotations

import gzip
import importlib.util
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from test_cards_command import run as run_cards

ROOT = Path(__file__).resolve().parent.parent
PACKAGED = "ecs_combat/cards/data/creatures.json.gz"
#: What a wheel or sdist is built from (the rest of the worktree is left out).
SOURCES = ("pyproject.toml", "README.md", "ecs_combat", "plugins", "docs")


def tool(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def test_packaged_data_is_what_the_build_tool_makes() -> None:
    build = tool("build_card_data")
    packaged = json.loads(gzip.decompress((ROOT / PACKAGED).read_bytes()))
    assert packaged == build.columns()
    assert len(packaged["name"]) == 12_584


def source_copy(tmp_path: Path) -> Path:
    """The files a package is built from, copied (a build leaves files where it runs)."""
    src = tmp_path / "src"
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(
                ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info")
            )
        else:
            src.mkdir(exist_ok=True)
            shutil.copy(ROOT / name, src / name)
    return src


def test_the_wheel_of_pip_install_has_the_data(tmp_path: Path) -> None:
    """`pip install .` installs the wheel pip builds: the data must be in it, byte for byte."""
    src = source_copy(tmp_path)
    out = tmp_path / "dist"
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(src)],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    (wheel,) = out.glob("*.whl")
    with zipfile.ZipFile(wheel) as z:
        assert z.read(PACKAGED) == (ROOT / PACKAGED).read_bytes()
        # the pages help texts name, for `ecs-combat docs PAGE` after pip install
        for page in ("scenarios.md", "output.md", "python.md"):
            assert z.read(f"ecs_combat_docs/{page}") == (ROOT / "docs" / page).read_bytes()


def test_the_sdist_has_the_data(tmp_path: Path) -> None:
    build_meta = pytest.importorskip("setuptools.build_meta")
    src = source_copy(tmp_path)
    out = tmp_path / "dist"
    out.mkdir()
    cwd = os.getcwd()
    os.chdir(src)
    try:
        name = build_meta.build_sdist(str(out))
    finally:
        os.chdir(cwd)
    with tarfile.open(out / name) as tar:
        member = tar.extractfile(f"{name.removesuffix('.tar.gz')}/{PACKAGED}")
        assert member is not None and member.read() == (ROOT / PACKAGED).read_bytes()


# -- docs/cards.md says what the tools print ------------------------------------------------

CARDS_MD = (ROOT / "docs" / "cards.md").read_text()


def test_coverage_figures_in_the_docs_are_computed() -> None:
    coverage = tool("card_coverage")
    start = CARDS_MD.index(coverage.BEGIN) + len(coverage.BEGIN)
    shown = CARDS_MD[start : CARDS_MD.index(coverage.END)]
    figures = coverage.coverage(coverage.bundled_registry(), coverage.keyword_names())
    assert shown == coverage.markdown(figures), "run: python tools/card_coverage.py --write"
    assert figures.total == 12_584
    assert 0 < figures.exact < figures.total


def test_coverage_reads_keyword_lines() -> None:
    coverage = tool("card_coverage")
    names = {"flash", "ward", "cumulative upkeep", "landfall", "swampwalk", "partner with"}
    assert coverage.line_keywords("Flash", names) == {"flash"}
    assert coverage.line_keywords("Ward {2}", names) == {"ward"}
    assert coverage.line_keywords("Ward—Pay 3 life.", names) == {"ward"}
    assert coverage.line_keywords("Cumulative upkeep {1}{G}", names) == {"cumulative upkeep"}
    assert coverage.line_keywords("Flash, swampwalk", names) == {"flash", "swampwalk"}
    assert coverage.line_keywords("Partner with Some Name", names) == {"partner with"}
    assert coverage.line_keywords("Landfall — Whenever a land enters", names) is None
    assert coverage.line_keywords("Sacrifice Brindle Boar: You gain 4 life.", names) is None


BLOCK = re.compile(r"<!-- (cards|cards-json): (.*?) -->\n```\w*\n(.*?)```", re.S)


@pytest.mark.parametrize(("kind", "args", "text"), BLOCK.findall(CARDS_MD))
def test_cards_output_shown_in_the_docs(kind: str, args: str, text: str) -> None:
    argv = shlex.split(args)
    proc = run_cards(*argv, *(["--json"] if kind == "cards-json" else []))
    assert proc.returncode == 0, proc.stderr
    if kind == "cards-json":
        got: Any = json.loads(proc.stdout)
        assert got == json.loads(text)
    else:
        assert proc.stdout == text
