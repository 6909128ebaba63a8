"""Battles of many creatures (issue 36): block requirements without a blockers-by-attackers
matrix; ``resolve FILE`` reading a battle of the common shape a column at a time, picking the
batched engine by size, writing ``--json`` from arrays and summarising the readable account;
the decision search refusing such boards. The large-battle path must give exactly what the
ordinary path gives; the expected counts are worked out by hand."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from cli_run import Completed, run_cli
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ecs_combat import Registry, parse_scenario
from ecs_combat.batched.combat import play
from ecs_combat.batched.engine import BatchedEngine
from ecs_combat.batched.from_scenarios import scenarios_to_batch
from ecs_combat.batched.lines import rows_to_batch
from ecs_combat.batched.result_text import INDENTED, json_pieces, json_text
from ecs_combat.cli import large_battle
from ecs_combat.errors import InputError, RefusedError
from ecs_combat.reference.engine import ReferenceEngine
from ecs_combat.rules.requirements import block_requirements, check_requirements
from ecs_combat.scenario import quick_rows
from ecs_combat.scenario.battle_file import read_battle
from ecs_combat.scenario.quick_rows import RowReader
from tests.test_batched_lines import assert_same_batch, combats, mistaken


def battle(pairs: int, power: int = 1, toughness: int = 1, **extra: Any) -> dict[str, Any]:
    """`pairs` attackers of A, each blocked by one creature of B; every creature
    ``power/toughness``, the attackers with `extra` keys."""
    creatures: dict[str, Any] = {}
    for i in range(pairs):
        creatures[f"a{i}"] = {"controller": "A", "power": power, "toughness": toughness, **extra}
    for i in range(pairs):
        creatures[f"b{i}"] = {"controller": "B", "power": power, "toughness": toughness}
    return {
        "players": {"A": {}, "B": {}},
        "creatures": creatures,
        "combat": {
            "attackers": {f"a{i}": "B" for i in range(pairs)},
            "blockers": {f"b{i}": f"a{i}" for i in range(pairs)},
        },
    }


def write(tmp_path: Path, doc: dict[str, Any], name: str = "big.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(doc))
    return path


# -- block requirements (509.1c) ---------------------------------------------------------------


def test_block_requirements_keep_pairs_not_a_blockers_by_attackers_matrix(
    registry: Registry,
) -> None:
    """2,000 attackers and 2,000 blockers without lure: no requirement, and no 4 MB matrix of
    blockers by attackers (a 1,000,000-creature battle asked for 233 GiB)."""
    scenario = parse_scenario(battle(2_000), registry, "big.json")
    tracemalloc.start()
    try:
        reqs = block_requirements(scenario, registry)
        check_requirements(scenario, registry)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert reqs.most_obeyable() == 0 and reqs.pairs.shape == (0, 2)
    assert peak < 1_000_000


def test_a_lure_among_many_requires_every_able_blocker(registry: Registry) -> None:
    """509.1c: one lure attacker (a0) among 300; the 300 blockers of B can each block it, so
    each must (capacity 1: the most obeyable is 300); b5 blocking a5 leaves one unobeyed."""
    doc = battle(300)
    doc["creatures"]["a0"]["keywords"] = ["lure"]
    doc["combat"]["blockers"] = {f"b{i}": "a0" for i in range(300)}
    scenario = parse_scenario(doc, registry, "lure.json")
    reqs = block_requirements(scenario, registry)
    assert reqs.pairs.tolist() == [[i, 0] for i in range(300)]
    assert reqs.most_obeyable() == 300
    doc["combat"]["blockers"]["b5"] = "a5"
    with pytest.raises(Exception, match=r"'b5' is able to block 'a0' and doesn't: lure \(a0\)"):
        parse_scenario(doc, registry, "lure.json")


# -- the row reader, a column at a time --------------------------------------------------------


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=st.one_of(combats(), mistaken()), duplicate=st.booleans())
def test_a_battle_read_a_column_at_a_time_is_read_as_line_by_line(
    registry: Registry, doc: dict[str, Any], duplicate: bool
) -> None:
    """The same documents taken (a key given twice refused), the same batch built, whether
    the reader takes a battle a column at a time (:func:`~ecs_combat.scenario.battle_rows.battle_rows`) or creature by
    creature."""
    text = json.dumps(doc)
    if duplicate and '"power": ' in text:
        text = text.replace('"power": ', '"power": 9, "power": ', 1)
    parsed = json.loads(text)
    found = []
    for large in (10**9, 0):
        saved, quick_rows.LARGE = quick_rows.LARGE, large
        try:
            found.append(RowReader(registry).read([parsed], [text.count('"')]))
        finally:
            quick_rows.LARGE = saved
    (rows, taken), (columns, taken_by_columns) = found
    assert taken == taken_by_columns
    if taken:
        assert_same_batch(
            rows_to_batch(columns, registry, ["f"]), rows_to_batch(rows, registry, ["f"])
        )


# -- resolve: the large-battle path gives the ordinary path's output ---------------------------


def resolve(path: Path, *options: str) -> Completed:
    return run_cli(["resolve", str(path), *options])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=combats())
def test_json_of_the_large_battle_path_is_the_ordinary_paths_on_both_engines(
    tmp_path_factory: pytest.TempPathFactory, doc: dict[str, Any]
) -> None:
    """Small battles forced through the large-battle path (read as columns, resolved from
    arrays, indented over arrays): the text the reference engine's result gives; an illegal
    one the same message."""
    path = write(tmp_path_factory.mktemp("b"), doc)
    saved = quick_rows.LARGE, large_battle.LARGE_FILE
    quick_rows.LARGE, large_battle.LARGE_FILE = 0, 0
    try:
        large = resolve(path, "--json", "--engine", "batched")
    finally:
        quick_rows.LARGE, large_battle.LARGE_FILE = saved
    reference = resolve(path, "--json", "--engine", "reference")
    batched = resolve(path, "--json", "--engine", "batched")  # the ordinary path, batched
    # an illegal block (menace blocked by one) is the same message and status
    for ordinary in (reference, batched):
        assert (large.returncode, large.stderr) == (ordinary.returncode, ordinary.stderr)
        assert large.stdout == ordinary.stdout


def test_a_toml_battle_takes_the_large_battle_path(tmp_path: Path, registry: Registry) -> None:
    """A TOML battle of the common shape is read as columns too, with the same output."""
    text = (
        '[players.A]\n[players.B]\nlife = 3\n[creatures.a]\ncontroller = "A"\npower = 2\n'
        'toughness = 2\nkeywords = ["first strike"]\n[creatures.b]\ncontroller = "B"\n'
        'power = 1\ntoughness = 1\n[combat]\nattackers = { a = "B" }\n'
    )
    path = tmp_path / "one.toml"
    path.write_text(text)
    rows = read_battle(path, RowReader(registry))
    assert rows is not None and rows.life.tolist() == [20, 3]
    saved, large_battle.LARGE_FILE = large_battle.LARGE_FILE, 0
    try:
        batched = resolve(path, "--json", "--engine", "batched")
    finally:
        large_battle.LARGE_FILE = saved
    assert batched.stdout == resolve(path, "--json", "--engine", "reference").stdout
    assert json.loads(batched.stdout)["players"]["B"]["life"] == 1  # 3 - 2


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=combats(), piece=st.sampled_from([1, 2, 7, 1 << 20]))
def test_the_indented_text_made_from_arrays_is_json_dumps_indent_2(
    registry: Registry, doc: dict[str, Any], piece: int
) -> None:
    """The batched engine's text of one battle in the indented layout is
    ``json.dumps(result, indent=2)`` of the reference engine's result, whatever the pieces it
    is made in: empty steps, lists and tables stay ``[]`` and ``{}``, counters and the
    plugins' state keep their lines."""
    try:
        scenario = parse_scenario(doc, registry, "b.json")
    except InputError:  # an illegal block, or a keyword of a plugin not loaded here
        return
    try:
        expected = json.dumps(ReferenceEngine(registry).resolve(scenario).to_json(), indent=2)
    except RefusedError:
        return
    s = BatchedEngine(registry).start(scenarios_to_batch([scenario], registry), record=True)
    play(s)
    assert s.records.log is not None
    rows = (s.frame, s.creatures, s.keywords, s.combat, s.players, s.records.log)
    assert "".join(json_pieces(*rows, INDENTED, piece)) == expected + "\n"
    assert json_text(*rows) == json.dumps(json.loads(expected)) + "\n"


# -- the engine a battle's size picks ----------------------------------------------------------


def test_a_battle_of_1000_creatures_is_resolved_with_the_batched_engine(tmp_path: Path) -> None:
    """500 pairs: the batched engine, said on standard error; the JSON the reference
    engine's; 499 pairs: the reference engine, nothing said."""
    path = write(tmp_path, battle(500, 2, 2))
    picked = resolve(path, "--json")
    assert picked.returncode == 0
    assert picked.stderr == (
        f"ecs-combat: {path}: 1,000 creatures, resolved with the batched engine (from 1,000; "
        "--engine reference to use the reference engine)\n"
    )
    assert picked.stdout == resolve(path, "--json", "--engine", "reference").stdout
    assert resolve(path, "--json", "--engine", "batched").stderr == ""
    small = write(tmp_path, battle(499, 2, 2), "small.json")
    assert resolve(small, "--json").stderr == ""


def test_a_large_battle_the_fast_reader_leaves_is_still_resolved_batched(
    tmp_path: Path,
) -> None:
    """1,000 creatures with counters (not the common shape): the ordinary reader reads them,
    the size still picks the batched engine."""
    doc = battle(500, 2, 2)
    doc["creatures"]["a0"]["counters"] = {"+1/+1": 1}
    path = write(tmp_path, doc)
    picked = resolve(path, "--json")
    assert "resolved with the batched engine" in picked.stderr
    out = json.loads(picked.stdout)
    assert out["creatures"]["a0"]["power"] == 3 and out["creatures"]["b0"]["alive"] is False


# -- the readable account, summarised ----------------------------------------------------------


def test_the_account_of_1000_creatures_is_summarised(tmp_path: Path) -> None:
    """500 1/1 attackers, each blocked by a 1/1: in the regular step all 1,000 strike, deal
    1,000 damage in 1,000 entries, none to players, and all die."""
    path = write(tmp_path, battle(500))
    out = resolve(path)
    assert out.returncode == 0
    lines = out.stdout.splitlines()
    assert lines[0] == "1,000 creatures: 500 attacking, 500 of them blocked by 500 blockers"
    assert lines[1] == "regular damage step"
    assert lines[2] == (
        "  1,000 creatures strike; 1,000 damage entries, 1,000 damage in all (0 to players); "
        "1,000 creatures die"
    )
    assert "End of combat: 0 creatures alive, 1,000 died" in lines
    assert lines[-1].endswith(f"`ecs-combat resolve {path} --json` prints every damage entry "
                              "and every creature.")  # fmt: skip
    assert len(lines) < 20


# -- bad input in a large file -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (("b1700", "power", "2"), "creatures.b1700.power: must be an integer, not a string"),
        (
            ("a1200", "keywords", ["flyng"]),
            "creatures.a1200.keywords[0]: unknown keyword 'flyng'",
        ),
        (("a3", "tougness", 1), "creatures.a3.tougness: unknown key 'tougness'"),
        (
            ("b1999", "toughness", 0),
            "creatures.b1999.toughness: toughness 0: a creature with toughness 0 or less",
        ),
    ],
)
def test_bad_input_in_a_large_file_gets_the_ordinary_message(
    tmp_path: Path, change: tuple[str, str, Any], message: str
) -> None:
    """4,000 creatures with one mistake: exit status 2 and the full reader's one line."""
    doc = battle(2_000)
    cid, key, value = change
    doc["creatures"][cid][key] = value
    path = write(tmp_path, doc)
    for engine in ([], ["--engine", "batched"]):
        out = resolve(path, "--json", *engine)
        assert out.returncode == 2 and out.stdout == ""
        assert out.stderr.startswith(f"ecs-combat: {path}: {message}")
        assert out.stderr.count("\n") == 1


def test_the_first_mistake_of_a_large_file_in_the_text_is_named_with_the_closest_name(
    tmp_path: Path,
) -> None:
    """Two mistakes in 4,000 creatures: the one written first is named (a3's key, before
    b1700's power), with the closest valid key; the same line whichever engine."""
    doc = battle(2_000)
    doc["creatures"]["b1700"]["power"] = "2"
    doc["creatures"]["a3"]["tougness"] = 1
    path = write(tmp_path, doc)
    outs = [resolve(path, "--json", *engine) for engine in ([], ["--engine", "batched"])]
    for out in outs:
        assert out.returncode == 2 and out.stdout == ""
        assert out.stderr.startswith(f"ecs-combat: {path}: creatures.a3.tougness: unknown key")
        assert "'toughness'" in out.stderr and out.stderr.count("\n") == 1
    assert outs[0].stderr == outs[1].stderr


# -- the decision search refuses large boards --------------------------------------------------


def test_the_decision_search_refuses_a_board_of_over_1000_creatures(tmp_path: Path) -> None:
    doc = battle(501)
    del doc["combat"]["blockers"]
    path = write(tmp_path, doc)
    out = run_cli(["blocks", str(path)])
    assert out.returncode == 2
    assert out.stderr == (
        f"ecs-combat: {path}: creatures: 1,002 creatures: decisions search boards of at most "
        "1,000 creatures\n"
    )


def test_resolve_help_says_the_size() -> None:
    assert f"{large_battle.LARGE_BATTLE:,} creatures or more" in run_cli(
        ["resolve", "--help"]
    ).stdout.replace("\n", " ").replace("  ", " ")


def test_pick_engine_keeps_what_engine_says() -> None:
    assert large_battle.pick_engine("reference", 10**6, "f") == "reference"
    assert large_battle.pick_engine(None, 999, "f") == "reference"


def test_a_device_is_left_to_the_full_reader(tmp_path: Path, registry: Registry) -> None:
    """Only a regular file is read whole here: /dev/zero named .json is not read at all (the
    full reader's limits apply to it)."""
    link = tmp_path / "zero.json"
    link.symlink_to("/dev/zero")
    assert read_battle(link, RowReader(registry)) is None
