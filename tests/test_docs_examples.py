"""The Python examples of docs/distributed.md run as written, so the docs can't drift from the
API: the blocks of the page run in order, as one script, in a new directory; the only change is
the Dask scheduler's address, pointed at a local cluster."""

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
