"""Hostile and huge input: deep nesting, huge integers, text that is not Unicode, files too big to
hold, quadratic traps. Bad input is always exit status 2 and one line naming the file and place."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from cli_run import Completed, run_cli

from ecs_combat.cli.stream import StreamError, resolve_stream
from ecs_combat.errors import InputError, RefusedError
from ecs_combat.plugin.registry import Registry
from ecs_combat.rules.result import CombatResult
from ecs_combat.scenario.checks import MAX_DEPTH, check_document
from ecs_combat.scenario.loader import iter_scenarios, load_scenarios, parse_scenario
from ecs_combat.scenario.model import Scenario
from ecs_combat.simulation.spec_reader import load_spec, parse_spec


def installed(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "200"}
    env.pop("ECS_COMBAT_PLUGINS", None)
    return subprocess.run(["ecs-combat", *args], capture_output=True, text=True, env=env)


def run(*args: str) -> Completed:
    """The same command in this process (tests/cli_run.py)."""
    return run_cli(args, env={"COLUMNS": "200", "ECS_COMBAT_PLUGINS": None})


def one_line_error(p: subprocess.CompletedProcess[str], start: str) -> str:
    """The message of a run that failed as bad input should: status 2, one line, no traceback."""
    assert p.returncode == 2, p.stderr
    assert p.stderr.count("\n") == 1, p.stderr
    assert p.stderr.startswith(f"ecs-combat: {start}"), p.stderr
    return p.stderr


def fight(power: int = 2) -> dict[str, Any]:
    """A small valid scenario."""
    return {
        "players": {"A": {}, "B": {"life": 5}},
        "creatures": {
            "x": {"controller": "A", "power": power, "toughness": 2},
            "y": {"controller": "B", "power": 1, "toughness": 2},
        },
        "combat": {"attackers": {"x": "B"}, "blockers": {"y": "x"}},
    }


def nested(depth: int) -> Any:
    """Lists nested `depth` deep."""
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


# -- nesting --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("deep.toml", "a = " + "[" * 500 + "]" * 500 + "\n"),
        ("deep-tables.toml", "a = " + "{ b = " * 400 + "1" + " }" * 400 + "\n"),
        ("deep.json", "[" * 1000 + "]" * 1000),
        ("deep-objects.json", '{"a": ' * 1000 + "1" + "}" * 1000),
    ],
)
def test_nesting_the_parser_cannot_descend_is_bad_input(
    tmp_path: Path, name: str, text: str
) -> None:
    f = tmp_path / name
    f.write_text(text)
    message = one_line_error(run("resolve", str(f)), f"{f}: line 1: ")
    assert f"nest deeper than {MAX_DEPTH} levels" in message


def test_deep_spec_files_are_bad_input(tmp_path: Path) -> None:
    f = tmp_path / "deep.toml"
    f.write_text("attackers = 1\n\nlife = " + "[" * 500 + "]" * 500 + "\n")
    message = one_line_error(installed("simulate", str(f), "-n", "10"), f"{f}: line 3: ")
    assert "nest deeper than" in message


def test_nesting_is_limited_and_the_place_named(registry: Registry) -> None:
    doc = fight()
    doc["players"]["A"]["life"] = nested(MAX_DEPTH - 3)  # the document, players, A: 3 levels
    with pytest.raises(InputError, match=r"players\.A\.life: must be an integer, not a list"):
        parse_scenario(doc, registry, "f.json")
    doc["players"]["A"]["life"] = nested(MAX_DEPTH - 2)
    with pytest.raises(InputError) as info:
        parse_scenario(doc, registry, "f.json")
    place = "players.A.life" + "[0]" * (MAX_DEPTH - 3)
    assert str(info.value) == f"f.json: {place}: tables and lists nest deeper than 32 levels"


def test_json_nesting_the_parser_can_descend_names_the_key(
    registry: Registry, tmp_path: Path
) -> None:
    f = tmp_path / "deep.json"
    f.write_text(json.dumps({"players": {"A": {"life": nested(500)}}}))
    with pytest.raises(InputError, match=r"deep.json: players\.A\.life\[0\]\[0\]"):
        load_scenarios(f, registry)


def test_jsonl_nesting_names_the_line(registry: Registry, tmp_path: Path) -> None:
    f = tmp_path / "many.jsonl"
    f.write_text(json.dumps(fight()) + "\n" + "[" * 3000 + "]" * 3000 + "\n")
    with pytest.raises(InputError) as info:
        load_scenarios(f, registry)
    assert str(info.value) == f"{f}:2: tables and lists nest deeper than 32 levels"


def test_spec_nesting_is_limited(registry: Registry) -> None:
    with pytest.raises(InputError, match=r"s.toml: keywords.x\[0\]"):
        parse_spec({"keywords": {"x": nested(100)}}, registry, "s.toml")


# -- integers and text ----------------------------------------------------------------------------


def test_integers_too_long_to_convert_name_the_line(registry: Registry, tmp_path: Path) -> None:
    toml = tmp_path / "long.toml"
    toml.write_text("[players.A]\n[players.B]\nlife = 1" + "0" * 5000 + "\n")
    with pytest.raises(
        InputError, match=r"long\.toml: line 3: an integer of more than 4,300 digits"
    ):
        load_scenarios(toml, registry)
    as_json = tmp_path / "long.json"
    as_json.write_text('{"players": {"A": {},\n "B": {"life": 1' + "0" * 5000 + "}}}")
    with pytest.raises(InputError, match=r"long\.json: line 2: an integer of more than 4,300"):
        load_scenarios(as_json, registry)
    spec = tmp_path / "spec.toml"
    spec.write_text("life = 1" + "0" * 5000 + "\n")
    with pytest.raises(InputError, match=r"spec\.toml: line 1: an integer of more than"):
        load_spec(spec, registry)


def test_huge_hexadecimal_integers_are_out_of_range(tmp_path: Path) -> None:
    """TOML's hexadecimal integers have no length limit; Python can't print them in decimal."""
    f = tmp_path / "hex.toml"
    f.write_text(
        '[players.A]\n[players.B]\n[creatures.c]\ncontroller = "A"\n'
        f"power = 0x{'f' * 5000}\ntoughness = 1\n"
    )
    message = one_line_error(run("resolve", str(f)), f"{f}: creatures.c.power: ")
    assert "an integer of about 6,021 digits is out of range" in message


def test_huge_probability_is_described(registry: Registry) -> None:
    with pytest.raises(
        InputError, match=r"state\.player\.hat: probability must be between 0 and 1, not an"
    ):
        parse_spec({"state": {"player": {"hat": 16**5000}}}, registry, "s.toml")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '{"players": {"\\ud800": {}}}',
            "players.\\ud800: not valid Unicode text: a lone surrogate '\\ud800' at character 0",
        ),
        (
            '{"players": {"A": {"life": "\\udfff"}}}',
            "players.A.life: not valid Unicode text: a lone surrogate '\\udfff' at character 0",
        ),
        ('{"players": {"A\\nB": {}}}', "players.A\\nB: a key can't hold a control character"),
        (
            '{"players": {"A\\u2028B": {}}}',
            "players.A\\u2028B: a key can't hold a control character",
        ),
    ],
)
def test_keys_and_text_that_would_break_messages(
    registry: Registry, tmp_path: Path, text: str, message: str
) -> None:
    f = tmp_path / "bad.json"
    f.write_text(text)
    with pytest.raises(InputError) as info:
        load_scenarios(f, registry)
    assert str(info.value) == f"{f}: {message}"
    str(info.value).encode("utf-8")  # printable as it is


def test_surrogates_in_documents_given_directly(registry: Registry) -> None:
    with pytest.raises(InputError, match="lone surrogate"):
        check_document({"a": ["ok", "\udc80"]}, "doc")


def test_huge_strings_and_lists_are_plain_errors(registry: Registry) -> None:
    doc = fight()
    doc["creatures"]["x"]["keywords"] = ["flying"] * 100_000 + [1]
    with pytest.raises(InputError, match=r"creatures.x.keywords\[100000\]: must be a non-empty"):
        parse_scenario(doc, registry, "f.json")
    doc = fight()
    doc["combat"]["attackers"] = {"x" * 1_000_000: "B"}
    with pytest.raises(InputError, match="unknown creature"):
        parse_scenario(doc, registry, "f.json")


# -- loading is linear ----------------------------------------------------------------------------


class Id(str):
    """A creature id that counts how often it is hashed or compared."""

    uses = 0

    def __hash__(self) -> int:
        Id.uses += 1
        return str.__hash__(self)

    def __eq__(self, other: object) -> bool:
        Id.uses += 1
        return str.__eq__(self, other)


def pairs(n: int) -> dict[str, Any]:
    """A scenario where each of n attackers is blocked by its own blocker."""
    creatures: dict[str, Any] = {}
    attackers: dict[str, str] = {}
    blockers: dict[str, str] = {}
    for i in range(n):
        creatures[Id(f"a{i}")] = {"controller": "A", "power": 2, "toughness": 2}
        creatures[Id(f"b{i}")] = {"controller": "B", "power": 1, "toughness": 3}
        attackers[Id(f"a{i}")] = "B"
        blockers[Id(f"b{i}")] = Id(f"a{i}")
    return {
        "players": {"A": {}, "B": {}},
        "creatures": creatures,
        "combat": {"attackers": attackers, "blockers": blockers},
    }


def test_validation_work_grows_linearly_with_creatures(registry: Registry) -> None:
    """Each id is hashed and compared a bounded number of times, however many creatures there
    are (quadratic validation made 20,000 pairs take a minute)."""
    uses = []
    for n in (100, 400):
        doc = pairs(n)
        Id.uses = 0
        scenario = parse_scenario(doc, registry, "pairs.json")
        uses.append(Id.uses)
        assert len(scenario.blockers) == n
    assert uses[1] <= 4 * uses[0] * 1.1


def test_blockers_of_follows_new_declarations(registry: Registry) -> None:
    scenario = parse_scenario(pairs(3), registry, "pairs.json")
    assert scenario.blockers_of("a1") == ["b1"]
    scenario.blockers = {"b0": ("a1",), "b1": ("a1",)}
    assert scenario.blockers_of("a1") == ["b0", "b1"]
    scenario.blockers["b2"] = ("a0", "a1")
    assert scenario.blockers_of("a1") == ["b0", "b1", "b2"]
    assert scenario.blockers_of("a0") == ["b2"]


# -- JSON Lines are streamed ----------------------------------------------------------------------


def test_jsonl_scenarios_are_read_one_line_at_a_time(registry: Registry, tmp_path: Path) -> None:
    f = tmp_path / "many.jsonl"
    f.write_text(json.dumps(fight()) + "\n" + "{not json\n")
    scenarios = iter_scenarios(f, registry)
    assert next(scenarios).file == f"{f}:1"
    with pytest.raises(InputError, match=":2: not valid JSON"):
        next(scenarios)


class Engine:
    """A stand-in engine that records its batches and refuses what it is told to."""

    def __init__(self, refuse: str | None = None, whole_batches: bool = False) -> None:
        self.batches: list[list[str]] = []
        self.refuse = refuse
        self.whole_batches = whole_batches

    def resolve_many(self, scenarios: Sequence[Scenario]) -> list[CombatResult]:
        self.batches.append([s.file for s in scenarios])
        if self.whole_batches and len(scenarios) > 1:
            raise RefusedError("the batch as a whole")
        if any(s.file == self.refuse for s in scenarios):
            raise RefusedError("not this one")
        return [CombatResult([], {}, {}) for _ in scenarios]


def lines(registry: Registry, n: int, bad: int | None = None) -> Iterator[Scenario]:
    for i in range(1, n + 1):
        if i == bad:
            raise InputError(f"f.jsonl:{i}", "players", "bad")
        yield parse_scenario(fight(), registry, f"f.jsonl:{i}")


def test_streams_are_resolved_in_bounded_batches(registry: Registry) -> None:
    engine = Engine()
    read = 0

    def counted() -> Iterator[Scenario]:
        nonlocal read
        for s in lines(registry, 25):
            read += 1
            yield s

    for done, (scenario, _) in enumerate(resolve_stream(counted(), engine, batch=10), 1):
        assert read <= (done + 9) // 10 * 10  # never more than one batch read ahead
        assert scenario.file == f"f.jsonl:{done}"
    assert [len(b) for b in engine.batches] == [10, 10, 5]


def test_a_bad_line_comes_after_the_results_before_it(registry: Registry) -> None:
    given = []
    with pytest.raises(StreamError) as info:
        for scenario, _ in resolve_stream(lines(registry, 30, bad=15), Engine(), batch=10):
            given.append(scenario.file)
    assert given == [f"f.jsonl:{i}" for i in range(1, 15)]
    assert info.value.done == 14
    one = StreamError(InputError("f.jsonl:2", "", "bad"), "f.jsonl:2", 1)
    assert one.resume_note() == " (the 1 result before this line is printed)"
    assert f"{info.value.error}{info.value.resume_note()}" == (
        "f.jsonl:15: players: bad (the 14 results before this line are printed)"
    )


def test_a_refused_batch_is_resolved_one_at_a_time(registry: Registry) -> None:
    given = [s.file for s, _ in resolve_stream(lines(registry, 4), Engine(whole_batches=True), 3)]
    assert given == [f"f.jsonl:{i}" for i in range(1, 5)]
    given = []
    with pytest.raises(StreamError) as info:
        for scenario, _ in resolve_stream(lines(registry, 9), Engine(refuse="f.jsonl:5"), 3):
            given.append(scenario.file)
    assert given == [f"f.jsonl:{i}" for i in range(1, 5)]
    assert (info.value.scenario, info.value.done) == ("f.jsonl:5", 4)


@pytest.mark.parametrize("engine", ["reference", "batched"])
def test_resolve_prints_results_before_a_bad_line(tmp_path: Path, engine: str) -> None:
    f = tmp_path / "many.jsonl"
    good = [json.dumps(fight(power)) for power in (1, 2, 3)]
    f.write_text("\n".join([*good, '{"players": 1}', good[0]]) + "\n")
    p = installed("resolve", str(f), "--engine", engine, "--json")
    message = one_line_error(p, f"{f}:4: players: must be a table")
    assert message.endswith("(the 3 results before this line are printed)\n")
    alive = [json.loads(line)["creatures"]["y"]["alive"] for line in p.stdout.splitlines()]
    assert alive == [True, False, False]


def test_readable_accounts_have_rules_only_between_several(tmp_path: Path) -> None:
    one = tmp_path / "one.jsonl"
    one.write_text(json.dumps(fight()) + "\n")
    two = tmp_path / "two.jsonl"
    two.write_text(json.dumps(fight()) + "\n\n" + json.dumps(fight()) + "\n")
    single, double = run("resolve", str(one)), run("resolve", str(two))
    assert single.returncode == double.returncode == 0
    assert f"{one}:1" not in single.stdout
    assert f"{two}:1" in double.stdout and f"{two}:3" in double.stdout
    body = single.stdout.strip()
    assert double.stdout.count(body) == 2
