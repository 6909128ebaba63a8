"""docs/decisions.md runs as written: each ``<!-- blocks: PATH [ARGS] -->`` or ``<!-- attacks:
... -->`` block is what `ecs-combat blocks|attacks PATH ARGS --json` prints (every field shown
printed so; fields left out not checked), and its Python example runs."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGE = (ROOT / "docs" / "decisions.md").read_text()
MARKED = re.findall(r"<!-- (blocks|attacks): ([^>]*?) -->\n```json\n(.*?)```", PAGE, re.S)
PYTHON = re.findall(r"^```python\n(.*?)^```", PAGE, re.S | re.M)


def partial(want: Any, got: Any, where: str = "") -> list[str]:
    if isinstance(want, dict) and isinstance(got, dict):
        return [d for k, v in want.items() for d in (
            partial(v, got[k], f"{where}.{k}") if k in got else [f"{where}.{k}: not printed"]
        )]  # fmt: skip
    if isinstance(want, list) and isinstance(got, list):
        if len(want) > len(got):
            return [f"{where}: {len(got)} printed, {len(want)} documented"]
        return [d for i, w in enumerate(want) for d in partial(w, got[i], f"{where}[{i}]")]
    return [] if want == got else [f"{where}: {got!r} printed, {want!r} documented"]


def test_the_page_has_its_examples() -> None:
    assert len(MARKED) >= 3 and len(PYTHON) == 1


@pytest.mark.parametrize(("command", "args", "text"), MARKED, ids=[a for _, a, _ in MARKED])
def test_documented_decision(command: str, args: str, text: str) -> None:
    proc = subprocess.run(
        ["ecs-combat", command, *args.split(), "--json"], capture_output=True, text=True, cwd=ROOT
    )
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    want = json.loads(text)
    assert partial(want, got) == []


def test_the_python_example_runs() -> None:
    proc = subprocess.run(
        [sys.executable, "-c", PYTHON[0]], capture_output=True, text=True, cwd=ROOT
    )
    assert proc.returncode == 0, proc.stderr
