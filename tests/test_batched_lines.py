"""``resolve FILE.jsonl --engine batched --json`` a chunk of lines at a time
(ecs_combat/cli/batched_lines.py): the row reader takes exactly the quick reader's lines and
builds the batch ``scenarios_to_batch`` builds of their scenarios; the text made from the run's
arrays is ``json.dumps`` of the reference engine's results; the command writes what the
line-by-line path writes, messages and all."""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import json
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import pytest
from cli_run import Completed, run_cli
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from ecs_combat import StateField, hookimpl
from ecs_combat.batched import lines as batch_lines
from ecs_combat.batched.arrays import CombatBatch
from ecs_combat.batched.engine import BatchedEngine
from ecs_combat.batched.from_scenarios import scenarios_to_batch
from ecs_combat.batched.lines import rows_to_batch
from ecs_combat.cards.notes import result_json
from ecs_combat.cli import batched_lines
from ecs_combat.cli.json_lines import json_line
from ecs_combat.errors import RefusedError
from ecs_combat.plugin.registry import Registry
from ecs_combat.reference.engine import ReferenceEngine
from ecs_combat.scenario.quick import QuickReader
from ecs_combat.scenario.quick_rows import RowReader
from tests.conftest import bundled_registry
from tests.test_quick_lines import documents

alpha_strike = pytest.importorskip("ecs_combat_alpha_strike")


@pytest.fixture(scope="module")
def registries(registry: Registry) -> list[Registry]:
    """The bundled plugins; with alpha strike (a static ability); with the third-party
    keywords of the examples that are installed (poisonous, legacy)."""
    extra = [alpha_strike]
    for name in ("ecs_combat_poisonous", "ecs_combat_legacy"):
        with contextlib.suppress(ImportError):
            extra.append(importlib.import_module(name))
    return [registry, bundled_registry(extra=(alpha_strike,)), bundled_registry(extra=tuple(extra))]


def read(lines: list[str], registry: Registry) -> tuple[Any, list[int]]:
    """What the row reader makes of some lines (text as the command gives it)."""
    docs = [orjson.loads(line) for line in lines]
    return RowReader(registry).read(docs, [line.count('"') for line in lines])


def assert_same_batch(got: CombatBatch, expected: CombatBatch) -> None:
    for f in dataclasses.fields(CombatBatch):
        a, b = getattr(got, f.name), getattr(expected, f.name)
        if isinstance(b, np.ndarray):
            assert isinstance(a, np.ndarray) and a.dtype == b.dtype, f.name
            assert np.array_equal(a, b), f.name
        elif isinstance(b, dict):
            assert list(a) == list(b), f.name
            for key in b:
                assert a[key].dtype == b[key].dtype and np.array_equal(a[key], b[key]), key
        elif isinstance(b, list):
            assert list(a) == b, f.name
        else:
            assert a == b, f.name


KEYWORDS = [
    "trample", "deathtouch", "lifelink", "first strike", "double strike", "wither", "infect",
    "persist", "indestructible", "bushido 2", "flanking", "rampage 1", "protection from red",
    "last strike", "firstest strike", "menace", "flying", "reach", "poisonous 1", "legacy 1",
]  # fmt: skip


#: Numbers beyond the text's look-up tables (-64 to 1,023), up to the format's limit.
LARGE = st.integers(1_000, 1_000_000_000)
# The strategies drawn from again and again, made once (making one costs more than drawing
# from it: this halved the time these tests spend drawing).
LIFE = st.one_of(st.integers(1, 6), LARGE)
POWER = st.one_of(st.integers(0, 5), st.integers(-2_000, 0), LARGE)
TOUGHNESS = st.one_of(st.integers(1, 5), LARGE)
SOME_KEYWORDS = st.lists(st.sampled_from(KEYWORDS), max_size=2, unique=True)
BOOLEANS = st.booleans()
ONE_IN = {n: st.integers(0, n - 1) for n in (4, 5, 6, 9)}


@st.composite
def combats(draw: st.DrawFn) -> dict[str, Any]:
    """Lines of the common shape with combat: attackers, blockers (several on one attacker),
    keywords, life totals, damage, colors, numbers small, large and negative."""
    players: dict[str, Any] = {"ann": {}, "bo": {}}
    if draw(BOOLEANS):
        players["cy"] = {}
    for p in players:
        if draw(ONE_IN[4]) == 0:
            players[p]["life"] = draw(LIFE)
    defenders = list(players)[1:]
    to_defend = st.sampled_from(defenders)

    def creature(controller: str) -> dict[str, Any]:
        t: dict[str, Any] = {"controller": controller}
        t["power"] = draw(POWER)
        t["toughness"] = draw(TOUGHNESS)
        if draw(BOOLEANS):
            t["keywords"] = draw(SOME_KEYWORDS)
        if draw(ONE_IN[6]) == 0:
            t["damage"] = draw(st.integers(0, t["toughness"] - 1))
        if draw(ONE_IN[6]) == 0:
            t["colors"] = ["red"]
        if draw(ONE_IN[9]) == 0:
            t["name"] = "Same Name"
        return t

    attackers = {f"a{i}": draw(to_defend) for i in range(draw(ONE_IN[4]))}
    creatures = {a: creature("ann") for a in attackers}
    blockers: dict[str, str] = {}
    for i in range(draw(ONE_IN[5])):
        controller = draw(to_defend)
        creatures[f"b{i}"] = creature(controller)
        mine = [a for a, d in attackers.items() if d == controller]
        if mine and draw(ONE_IN[5]) > 0:
            blockers[f"b{i}"] = draw(st.sampled_from(mine))
    return {
        "players": players,
        "creatures": creatures,
        "combat": {"attackers": attackers, "blockers": blockers},
    }


@st.composite
def mistaken(draw: st.DrawFn) -> dict[str, Any]:
    """A line of :func:`combats` with one thing changed, often what the rules or the format
    forbid."""
    doc = draw(combats())
    creatures, combat = doc["creatures"], doc["combat"]
    ids = [*creatures, "ann", "bo", "nobody"]
    cid = draw(st.sampled_from([*creatures, "zz"]))
    t = creatures.get(cid, {})
    change = draw(st.integers(0, 11))
    if change == 0:
        combat["attackers"][cid] = draw(st.sampled_from(["ann", "bo", "nobody", ["bo"]]))
    elif change == 1:
        combat["blockers"][cid] = draw(st.sampled_from([*ids, ["a0"], 3]))
    elif change == 2 and t:
        t["controller"] = draw(st.sampled_from(["ann", "bo", "cy", "nobody", 1]))
    elif change == 3 and t:
        t["damage"] = t["toughness"] + draw(st.integers(-1, 1))
    elif change == 4:
        doc["players"]["bo"] = {"life": draw(st.sampled_from([0, -1, 1, "20", 20.0, True]))}
    elif change == 5 and t:
        t[draw(st.sampled_from(["power", "toughness"]))] = draw(
            st.sampled_from([True, 2.5, "2", None, -3, 0, 10**9, 10**9 + 1, 2**70])
        )
    elif change == 6 and t:
        t[draw(st.sampled_from(["counters", "tapped", "summoning_sick", "card"]))] = draw(
            st.sampled_from([True, False, {"+1/+1": 1}, "Grizzly Bears"])
        )
    elif change == 7:
        creatures[draw(st.sampled_from(["ann", "bo", " ", ""]))] = {
            "controller": "bo", "power": 1, "toughness": 1,
        }  # fmt: skip
    elif change == 8 and t:
        t["keywords"] = draw(st.sampled_from([["flyng"], ["exalted"], ["lure"], [1], "trample"]))
    elif change == 9 and t:
        t["colors"] = draw(st.sampled_from([["green", "red"], ["red", "red"], [], ["pink"]]))
    elif change == 10:
        doc[draw(st.sampled_from(["events", "turn", "combat"]))] = draw(st.sampled_from([[], {}]))
    elif t:
        t["name"] = draw(st.sampled_from(["", " ", "Zed", 7]))
    return doc


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    docs=st.lists(st.one_of(documents(), combats(), mistaken()), min_size=1, max_size=5),
    duplicate=st.integers(-1, 4),
)
def test_row_reader_takes_the_quick_readers_lines_and_builds_their_batch(
    registries: list[Registry], docs: list[Any], duplicate: int
) -> None:
    """Several lines read together: the same lines taken as the quick reader takes one by one
    (a line in between that is not taken leaves nothing behind), the batch of their
    scenarios."""
    lines = [json.dumps(doc) for doc in docs]
    if 0 <= duplicate < len(lines) and '"power": ' in lines[duplicate]:  # a key given twice
        lines[duplicate] = lines[duplicate].replace('"power": ', '"power": 9, "power": ', 1)
    assume(all(line.isascii() and "\\" not in line for line in lines))
    for reg in registries:
        quick = QuickReader(reg)
        found = [quick.scenario(line.encode(), f"t.jsonl:{i + 1}") for i, line in enumerate(lines)]
        rows, taken = read(lines, reg)
        assert taken == [i for i, sc in enumerate(found) if sc is not None]
        if not taken:
            continue
        scenarios = [sc for sc in found if sc is not None]
        files = [f"t.jsonl:{i + 1}" for i in taken]
        assert_same_batch(rows_to_batch(rows, reg, files), scenarios_to_batch(scenarios, reg))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(docs=st.lists(combats(), min_size=1, max_size=6))
def test_the_text_is_json_dumps_of_the_reference_engines_results(
    registries: list[Registry], docs: list[dict[str, Any]]
) -> None:
    """Damage to creatures and players, trample, deathtouch, lifelink, counters (wither,
    infect), poison, several blockers, players' life, several attackers: each line's text is
    ``json.dumps`` of the reference engine's result document."""
    lines = [json.dumps(doc) for doc in docs]
    for reg in registries:
        rows, taken = read(lines, reg)
        if not taken:
            continue
        quick = QuickReader(reg)
        scenarios = [quick.scenario(lines[i].encode(), f"t.jsonl:{i + 1}") for i in taken]
        reference = ReferenceEngine(reg)
        expected = [
            json_line(result_json(sc, reference.resolve(sc))) + "\n" for sc in scenarios if sc
        ]
        batch = rows_to_batch(rows, reg, [f"t.jsonl:{i + 1}" for i in taken])
        assert BatchedEngine(reg).json_lines(batch) == "".join(expected)


def test_the_text_refuses_ids_json_dumps_would_escape(registry: Registry) -> None:
    rows, _ = read([json.dumps(doc) for doc in [PLAIN]], registry)
    batch = rows_to_batch(rows, registry, ["t.jsonl:1"])
    batch.creature_ids = ['a"0', "b0"]
    with pytest.raises(ValueError, match="escapes"):
        BatchedEngine(registry).json_lines(batch)


PLAIN: dict[str, Any] = {
    "players": {"alice": {}, "bob": {}},
    "creatures": {
        "a0": {"controller": "alice", "power": 2, "toughness": 2},
        "b0": {"controller": "bob", "power": 1, "toughness": 3, "keywords": ["deathtouch"]},
    },
    "combat": {"attackers": {"a0": "bob"}, "blockers": {"b0": "a0"}},
}
#: Valid lines of other shapes, which the full reader reads: counters, an event, a division, a
#: blocker of two attackers, a tapped creature, text that is not ASCII, an escape, a static
#: ability, a declare-attackers system.
UNUSUAL = [
    {**PLAIN, "creatures": {**PLAIN["creatures"], "a0": {**PLAIN["creatures"]["a0"], "counters": {"+1/+1": 1}}}},
    {**PLAIN, "events": [{"at": "declare-blockers", "action": "pump", "target": "a0", "power": 1}]},
    {**PLAIN, "combat": {**PLAIN["combat"], "divide": [{"step": "regular", "source": "a0", "amounts": {"b0": 2}}]}},
    {"players": {"p": {}, "q": {}}, "creatures": {
        "x": {"controller": "p", "power": 2, "toughness": 2}, "y": {"controller": "p", "power": 1, "toughness": 1},
        "z": {"controller": "q", "power": 1, "toughness": 5, "keywords": ["can block an additional creature"]}},
     "combat": {"attackers": {"x": "q", "y": "q"}, "blockers": {"z": ["x", "y"]}}},
    {**PLAIN, "creatures": {**PLAIN["creatures"], "c": {"controller": "bob", "power": 1, "toughness": 1, "tapped": True}}},
    {**PLAIN, "creatures": {**PLAIN["creatures"], "a0": {**PLAIN["creatures"]["a0"], "name": "Ærøskald"}}},
    {**PLAIN, "creatures": {**PLAIN["creatures"], "a0": {**PLAIN["creatures"]["a0"], "keywords": ["alpha strike"]}}},
    {**PLAIN, "creatures": {**PLAIN["creatures"], "a0": {**PLAIN["creatures"]["a0"], "keywords": ["exalted"]}}},
]  # fmt: skip


def plain(n: int) -> dict[str, Any]:
    """PLAIN with other numbers and ids."""
    doc: dict[str, Any] = json.loads(json.dumps(PLAIN).replace('"a0"', f'"a{n}"'))
    doc["creatures"][f"a{n}"]["power"] = n % 5
    return doc


def command(path: Path, engine: str) -> Completed:
    return run_cli(
        ["resolve", str(path), "--engine", engine, "--json"], env={"ECS_COMBAT_PLUGINS": None}
    )


def mixed_text(bad: str | None = None, at: int = 0) -> str:
    lines = []
    for n in range(14):
        lines.append(json.dumps(UNUSUAL[n % len(UNUSUAL)] if n % 3 == 2 else plain(n)))
        if n == 5:
            lines.append("")  # a blank line
    lines.append(json.dumps(PLAIN).replace('"a0"', '"\\u0061x"'))  # an escape
    if bad is not None:
        lines.insert(at, bad)
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("chunk", [3, 4096])
@pytest.mark.parametrize(
    ("bad", "at"),
    [
        (None, 0),
        (json.dumps(PLAIN).replace('"deathtouch"', '"flyng"'), 7),  # did you mean 'flying'?
        (json.dumps(PLAIN).replace('"toughness": 3', '"toughness": 0'), 0),
        (json.dumps(PLAIN).replace('"a0": "bob"', '"a0": "carol"'), 16),
        ('{"players": {"a": {}, "b": {}}, "players": {}}', 4),  # a key given twice
        ("not json", 9),
        ('{"creatures": {}}', 15),
    ],
)
def test_the_command_writes_what_the_line_by_line_path_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int, bad: str | None, at: int
) -> None:
    """The reference engine's run (line by line) and the batched engine's (a chunk at a time,
    here 3 lines or all): the same text, and for a bad line the same message after the same
    results, exit 2, no traceback."""
    monkeypatch.setattr(batched_lines, "CHUNK", chunk)
    path = tmp_path / "many.jsonl"
    path.write_text(mixed_text(bad, at), encoding="utf-8")
    fast, slow = command(path, "batched"), command(path, "reference")
    assert (fast.returncode, fast.stdout, fast.stderr) == (
        slow.returncode,
        slow.stdout,
        slow.stderr,
    )
    if bad is None:
        assert fast.returncode == 0 and len(fast.stdout.splitlines()) == 15
    else:
        assert fast.returncode == 2 and "Traceback" not in fast.stderr
        assert len(fast.stderr.splitlines()) == 1 and f"many.jsonl:{at + 1}" in fast.stderr


def test_a_misspelt_keyword_is_named_with_the_results_before_it(tmp_path: Path) -> None:
    path = tmp_path / "many.jsonl"
    bad = json.dumps(PLAIN).replace('"deathtouch"', '"flyng"')
    path.write_text(f"{json.dumps(PLAIN)}\n{bad}\n{json.dumps(PLAIN)}\n", encoding="utf-8")
    p = command(path, "batched")
    assert p.returncode == 2 and len(p.stdout.splitlines()) == 1
    assert p.stderr.startswith(f"ecs-combat: {path}:2: creatures.b0.keywords[0]: ")
    assert (
        "did you mean 'flying'?" in p.stderr
        and "(the 1 result before this line is printed)" in p.stderr
    )


@pytest.mark.parametrize("text", ["", "\n  \n"])
def test_a_file_without_scenarios_is_named(tmp_path: Path, text: str) -> None:
    path = tmp_path / "none.jsonl"
    path.write_text(text, encoding="utf-8")
    fast, slow = command(path, "batched"), command(path, "reference")
    assert (fast.returncode, fast.stdout, fast.stderr) == (
        slow.returncode,
        slow.stdout,
        slow.stderr,
    )
    assert fast.returncode == 2 and "holds no scenario" in fast.stderr
    missing = command(tmp_path / "missing.jsonl", "batched")
    assert missing.returncode == 2 and "no such file" in missing.stderr


def test_a_refused_batch_is_resolved_as_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A chunk's batch the engine refuses (more keywords than its masks hold) is resolved as
    the line-by-line path resolves it, with the same text."""

    def refuse(names: Any) -> dict[str, int]:
        raise RefusedError("too many keywords")

    path = tmp_path / "many.jsonl"
    path.write_text(mixed_text(), encoding="utf-8")
    expected = command(path, "reference")
    monkeypatch.setattr(batch_lines, "keyword_bits", refuse)
    p = command(path, "batched")
    assert p.returncode == 0 and p.stdout == expected.stdout


class _Checked:
    """A plugin whose state has a scenario check that may find a problem in any scenario."""

    @hookimpl
    def register_state(self) -> list[StateField]:
        return [StateField("player", "mood", "int", 0, check=lambda scenario: None)]


def test_a_plugins_check_is_never_skipped_unless_it_says_so() -> None:
    """The row reader takes no line when a plugin's scenario check may find a problem without
    state keys (the quick reader runs it); the bundled checks say they find none."""
    assert RowReader(bundled_registry()).usable
    checked = bundled_registry(extra=(_Checked(),))
    assert not RowReader(checked).usable
    _, taken = read([json.dumps(PLAIN)], checked)
    assert taken == []
    assert QuickReader(checked).scenario(json.dumps(PLAIN).encode(), "t.jsonl:1") is not None


def test_a_creatures_value_reaches_the_batch_from_the_row_reader(registry: Registry) -> None:
    """A line's ``value`` (which creature its player sacrifices first, RULES 13) is in the
    batch the row reader's columns make, as in the batch of the line's scenario (it was
    dropped: value_row empty)."""
    doc = {
        "players": {"alice": {}, "bob": {}},
        "creatures": {
            "a": {"controller": "alice", "power": 1, "toughness": 1},
            "b": {"controller": "bob", "power": 1, "toughness": 1, "value": 7},
        },
        "combat": {"attackers": {"a": "bob"}},
    }
    rows, taken = read([json.dumps(doc)], registry)
    assert taken == [0]
    batch = rows_to_batch(rows, registry, ["t.jsonl:1"])
    assert batch.value_row.tolist() == [1] and batch.value.tolist() == [7]
    (scenario,) = [QuickReader(registry).scenario(json.dumps(doc).encode(), "t.jsonl:1")]
    assert scenario is not None
    assert_same_batch(batch, scenarios_to_batch([scenario], registry))
