"""The Python examples of docs/distributed.md run as written, so the docs can't drift from the
API: the blocks of the page run in order, as one script, in a new directory; the only change is
the Dask scheduler's address, pointed at a local cluster. The plugin test kit's example of
docs/plugins.md runs as a pytest file."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGE = "docs/distributed.md"
BLOCK = re.compile(r"^```python\n(.*?)^```", re.DOTALL | re.MULTILINE)
SCHEDULER = "tcp://SCHEDULER:8786"


def examples() -> list[str]:
    return BLOCK.findall((ROOT / PAGE).read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def cluster() -> Iterator[Any]:
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=True, dashboard_address=":0"
    ) as local:
        yield local


def test_the_page_has_its_examples() -> None:
    blocks = examples()
    assert len(blocks) == 2
    assert any(SCHEDULER in block for block in blocks)


def test_the_python_examples_run(tmp_path: Path, cluster: Any) -> None:
    script = "\n".join(examples()).replace(SCHEDULER, cluster.scheduler_address)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ECS_COMBAT_")}
    p = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, env=env
    )
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "runs" / "t7" / "manifest.json").exists()


KIT_PAGE = "docs/plugins.md"
KIT_SECTION = "### The test kit"


def test_the_plugin_kit_example_runs_as_a_pytest_file(tmp_path: Path) -> None:
    """docs/plugins.md's test file for alpha strike passes under pytest, as written."""
    pytest.importorskip("ecs_combat_alpha_strike")
    page = (ROOT / KIT_PAGE).read_text(encoding="utf-8")
    section = page[page.index(KIT_SECTION) :]
    (code,) = BLOCK.findall(section)[:1]
    (tmp_path / "test_alpha_kit.py").write_text(code, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("ECS_COMBAT_")}
    p = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_alpha_kit.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
    )
    assert p.returncode == 0, p.stdout + p.stderr
    assert "2 passed" in p.stdout
