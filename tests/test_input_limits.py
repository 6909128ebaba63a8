"""Input limits (docs/scenarios.md "File types"): a JSON Lines line over 64 MiB or a TOML or
JSON file over 1 GiB is refused with exit 2 naming the place and the cap, once that much is
read, so an endless stream (``/dev/zero`` named ``.jsonl``) stops with a message and bounded
memory; random bytes or a NUL byte in a TOML or JSON file are refused at once."""

from __future__ import annotations

import json
import subprocess
import tomllib
from pathlib import Path

import pytest
from cli_run import run_cli

from ecs_combat.scenario import documents

ROOT = Path(__file__).resolve().parent.parent
GIANT = ROOT / "examples" / "decisions" / "giant-vs-two-bears.toml"


def line() -> str:
    """One scenario as a JSON line: the giant blocked by bear1."""
    doc = tomllib.loads(GIANT.read_text())
    doc["combat"]["blockers"] = {"bear1": "giant"}
    return json.dumps(doc, separators=(",", ":"))


def installed(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["ecs-combat", *args], capture_output=True, text=True, timeout=120)


def test_an_endless_json_lines_stream_stops_at_the_cap(tmp_path: Path) -> None:
    """``/dev/zero`` read as JSON Lines: one endless line, refused once 64 MiB are read."""
    endless = tmp_path / "zero.jsonl"
    endless.symlink_to("/dev/zero")
    p = installed("resolve", str(endless))
    assert p.returncode == 2 and p.stdout == ""
    assert p.stderr == (
        f"ecs-combat: {endless}:1: the line is larger than 64 MiB (67,108,864 bytes), "
        "the most ecs-combat reads\n"
    )


def test_endless_random_bytes_as_json_are_refused_at_once(tmp_path: Path) -> None:
    """``/dev/urandom`` named ``.json``: not UTF-8 within its first bytes."""
    endless = tmp_path / "random.json"
    endless.symlink_to("/dev/urandom")
    p = installed("resolve", str(endless))
    assert p.returncode == 2 and ": not valid UTF-8 text" in p.stderr
    assert p.stderr.startswith(f"ecs-combat: {endless}: byte ")


def test_endless_zeros_as_json_are_refused_at_once(tmp_path: Path) -> None:
    endless = tmp_path / "zero.json"
    endless.symlink_to("/dev/zero")
    p = run_cli(["resolve", str(endless)])
    assert (p.returncode, p.stderr) == (2, f"ecs-combat: {endless}: byte 0: a NUL byte: not text\n")


@pytest.mark.parametrize("engine", ["reference", "batched"])
def test_a_line_over_the_cap_is_refused_after_the_lines_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, engine: str
) -> None:
    """With a cap of 1,000 bytes: line 3 of 1,001 bytes (before its newline) is refused,
    naming it and the cap, after the results of lines 1 and 2 are printed (both engines)."""
    monkeypatch.setattr(documents, "MAX_LINE_BYTES", 1000, raising=False)
    good = line()
    long = '{"players":"' + "x" * (1000 - 13) + '"}'
    assert len(long) == 1001
    path = tmp_path / "many.jsonl"
    path.write_text(f"{good}\n{good}\n{long}\n{good}\n")
    p = run_cli(["resolve", str(path), "--json", "--engine", engine])
    assert p.returncode == 2 and len(p.stdout.splitlines()) == 2
    assert p.stderr == (
        f"ecs-combat: {path}:3: the line is larger than 1,000 bytes, the most "
        "ecs-combat reads (the 2 results before this line are printed)\n"
    )


def test_a_line_at_the_cap_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The cap counts a line's bytes before its newline: exactly the cap is read."""
    good = line()
    monkeypatch.setattr(documents, "MAX_LINE_BYTES", len(good), raising=False)
    path = tmp_path / "one.jsonl"
    path.write_text(f"{good}\n{good}")
    p = run_cli(["resolve", str(path), "--json"])
    assert p.returncode == 0, p.stderr
    assert len(p.stdout.splitlines()) == 2


@pytest.mark.parametrize("suffix", [".toml", ".json"])
def test_a_file_over_the_cap_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, suffix: str
) -> None:
    """A TOML or JSON file one byte over the cap is refused naming the cap; at the cap it is
    read (chunks of 7 bytes: the cap is checked chunk by chunk)."""
    text = GIANT.read_text() if suffix == ".toml" else line()
    path = tmp_path / f"giant{suffix}"
    path.write_text(text)
    size = len(text.encode())
    monkeypatch.setattr(documents, "_READ_CHUNK", 7, raising=False)
    monkeypatch.setattr(documents, "MAX_FILE_BYTES", size, raising=False)
    assert run_cli(["resolve", str(path)]).returncode == 0
    monkeypatch.setattr(documents, "MAX_FILE_BYTES", size - 1, raising=False)
    p = run_cli(["resolve", str(path)])
    assert (p.returncode, p.stderr) == (
        2,
        f"ecs-combat: {path}: the file is larger than {size - 1:,} bytes, the most "
        "ecs-combat reads\n",
    )


def test_invalid_utf8_across_chunks_names_its_byte(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Read 4 bytes at a time: an 'é' (2 bytes) split between chunks is read, and a bad
    byte after it is named at its place in the file."""
    monkeypatch.setattr(documents, "_READ_CHUNK", 4, raising=False)
    path = tmp_path / "bad.toml"
    path.write_bytes(b"#abc\xc3\xa9\n# \xff\n[players.A]\n")
    p = run_cli(["resolve", str(path)])
    assert (p.returncode, p.stderr) == (2, f"ecs-combat: {path}: byte 9: not valid UTF-8 text\n")
    path.write_bytes(b"#abc\xc3")  # ends inside a character
    p = run_cli(["resolve", str(path)])
    assert (p.returncode, p.stderr) == (2, f"ecs-combat: {path}: byte 4: not valid UTF-8 text\n")
