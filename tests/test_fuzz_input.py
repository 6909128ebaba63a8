"""Bounded fuzzing of the scenario and SPEC loaders: random documents, random mutations of valid
ones, random text. Every input either loads (and then resolves or is refused) or is an
:class:`InputError`; no other exception ever escapes."""

from __future__ import annotations

import copy
import io
import json
import math
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.console import Console

from ecs_combat.batched.engine import BatchedEngine
from ecs_combat.console.account import render
from ecs_combat.errors import InputError, RefusedError
from ecs_combat.plugin.loading import load_registry
from ecs_combat.plugin.registry import Registry
from ecs_combat.reference.engine import ReferenceEngine
from ecs_combat.scenario.loader import load_scenarios
from ecs_combat.simulation.spec_reader import load_spec

REGISTRY = load_registry(autoload=True)
FUZZ = settings(
    max_examples=150,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

KEYS = [
    # scenarios
    "players", "creatures", "combat", "events", "attackers", "blockers", "divide", "life",
    "hat", "wearing_hat", "name", "controller", "power", "toughness", "keywords", "counters",
    "damage", "paired_with", "id", "summoning_sick", "at", "action", "target", "amount",
    "creature", "attacking", "card", "caster", "step", "source", "amounts",
    # SPEC files
    "blockers_per_attacker", "state", "attacker", "blocker", "casts", "matchup", "player",
    "probability",
    # ids, keywords, points, actions
    "A", "B", "x", "y", "flying", "first strike", "deathtouch", "trample", "regular",
    "declare-blockers", "after regular", "grant", "damage", "enter", "cast", "Hat Trick",
]  # fmt: skip


@dataclass(frozen=True)
class Literal:
    """Text put as it is into a document: what Python values can't be written as."""

    json: str
    toml: str


def deep(n: int) -> Literal:
    """Lists nested n deep (parsers recurse; so would serializers)."""
    return Literal("[" * n + "]" * n, "[" * n + "]" * n)


def long_integer(digits: int) -> Literal:
    """An integer of many digits (Python converts at most 4,300 decimal digits)."""
    return Literal("1" + "0" * (digits - 1), "1" + "0" * (digits - 1))


def hexadecimal(digits: int) -> Literal:
    """A TOML hexadecimal integer, which has no length limit (JSON gets a string)."""
    return Literal(json.dumps("f" * digits), "0x" + "f" * digits)


LITERALS = st.one_of(
    st.builds(deep, st.integers(0, 1200)),
    st.builds(long_integer, st.integers(4000, 4400)),
    st.builds(hexadecimal, st.integers(1, 5000)),
)
SCALARS = st.one_of(
    st.booleans(),
    st.integers(min_value=-3, max_value=8),
    st.integers(),
    st.sampled_from([10**9, 10**9 + 1, -(10**9) - 1, 2**63, 10**40]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(KEYS),
    st.text(max_size=6),
    st.sampled_from(["\ud800", "a\udc80b", "\u2028", " "]),
    LITERALS,
)
KEY_TEXT = st.one_of(st.text(max_size=5), st.sampled_from(["\ud800", "a\nb", "\x85"]))


def documents(null: bool) -> st.SearchStrategy[Any]:
    """Nested tables and lists of scalars (and null for JSON), keys mostly the format's own."""
    leaves = st.one_of(st.none(), SCALARS) if null else SCALARS
    keys = st.one_of(st.sampled_from(KEYS), KEY_TEXT)
    return st.recursive(
        leaves,
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=5),
        max_leaves=40,
    )


def json_text(value: Any) -> str:
    """A value as JSON, literals included."""
    literals: list[Literal] = []

    def mark(literal: Literal) -> str:
        literals.append(literal)
        return f"@@{len(literals) - 1}@@"

    text = json.dumps(value, default=mark)
    for i, literal in enumerate(literals):
        text = text.replace(f'"@@{i}@@"', literal.json, 1)
    return text


def toml_value(value: Any) -> str:
    """A value as TOML (inline tables and arrays)."""
    if isinstance(value, Literal):
        return value.toml
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return "{" + ", ".join(f"{json.dumps(k)} = {toml_value(v)}" for k, v in value.items()) + "}"


def toml_document(doc: dict[str, Any]) -> str:
    return "".join(f"{json.dumps(k)} = {toml_value(v)}\n" for k, v in doc.items())


VALID_SCENARIO: dict[str, Any] = {
    "players": {"A": {"life": 20}, "B": {"life": 5, "hat": True}},
    "creatures": {
        "x": {"controller": "A", "power": 3, "toughness": 2, "keywords": ["trample"]},
        "y": {"controller": "B", "power": 1, "toughness": 2, "counters": {"deathtouch": 1}},
        "z": {"controller": "B", "power": 1, "toughness": 1},
    },
    "combat": {
        "attackers": {"x": "B"},
        "blockers": {"y": "x", "z": ["x"]},
        "divide": [{"step": "regular", "source": "x", "amounts": {"y": 2, "z": 1}}],
    },
    "events": [
        {"at": "declare-blockers", "action": "pump", "target": "x", "power": 1},
        {"at": "declare-blockers", "action": "grant", "target": "y", "keywords": ["flying"]},
        {"at": "after regular", "action": "damage", "target": "B", "amount": 1},
        {
            "at": "declare-blockers",
            "action": "enter",
            "attacking": "B",
            "creature": {"id": "w", "controller": "A", "power": 1, "toughness": 1},
        },
    ],
}
VALID_SPEC: dict[str, Any] = {
    "attackers": [1, 3],
    "blockers_per_attacker": [0, 2],
    "power": [1, 6],
    "life": 20,
    "matchup": ["first strike"],
    "keywords": {"first strike": 0.2, "trample": 0.1},
    "blocker": {"keywords": {"trample": 0}},
    "state": {"creature": {"hat": 0.3}, "player": {"hat": 0.5}},
    "casts": [{"card": "Hat Trick", "probability": 0.2}],
}


#: What a mutation puts in a place: mostly a scalar, sometimes a structure.
REPLACEMENTS = st.one_of(SCALARS, st.just([]), st.just({}), documents(null=False))


@st.composite
def mutations(draw: Callable[[st.SearchStrategy[Any]], Any], base: dict[str, Any]) -> Any:
    """A valid document with one to three places replaced, added or removed."""
    doc = copy.deepcopy(base)
    for _ in range(draw(st.integers(1, 3))):
        node: Any = doc
        while True:
            keys = list(node) if isinstance(node, dict) else list(range(len(node)))
            if not keys:
                break
            key = draw(st.sampled_from(keys))
            child = node[key]
            if isinstance(child, dict | list) and child and draw(st.integers(0, 4)):
                node = child
                continue
            choice = draw(st.sampled_from(["replace", "remove", "add"]))
            if choice == "remove":
                del node[key]
            elif choice == "add" and isinstance(node, dict):
                node[draw(st.sampled_from(KEYS))] = draw(REPLACEMENTS)
            else:
                node[key] = draw(REPLACEMENTS)
            break
    return doc


@pytest.fixture(scope="module")
def workdir() -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as name:
        yield Path(name)


def load_and_resolve(path: Path, registry: Registry) -> None:
    """Load a scenario file; resolve what loads with both engines. Only our errors may escape."""
    try:
        scenarios = load_scenarios(path, registry)
    except InputError as exc:
        assert "\n" not in str(exc)
        str(exc).encode("utf-8")
        return
    for engine in (ReferenceEngine(registry), BatchedEngine(registry)):
        try:
            results = engine.resolve_many(scenarios)
        except (InputError, RefusedError) as exc:
            assert "\n" not in str(exc)
            continue
        out = io.StringIO()
        console = Console(file=out, width=100)
        for scenario, result in zip(scenarios, results, strict=True):
            json.dumps(result.to_json())
            render(scenario, result, console)
        out.getvalue().encode("utf-8")  # printable


def load_spec_file(path: Path, registry: Registry) -> None:
    try:
        load_spec(path, registry)
    except InputError as exc:
        assert "\n" not in str(exc)
        str(exc).encode("utf-8")


@FUZZ
@given(doc=documents(null=True))
def test_random_json_scenarios(workdir: Path, doc: Any) -> None:
    path = workdir / "fuzz.json"
    path.write_text(json_text(doc), encoding="utf-8")
    load_and_resolve(path, REGISTRY)


@FUZZ
@given(doc=st.dictionaries(st.sampled_from(KEYS) | KEY_TEXT, documents(null=False)))
def test_random_toml_scenarios_and_specs(workdir: Path, doc: dict[str, Any]) -> None:
    path = workdir / "fuzz.toml"
    path.write_text(toml_document(doc), encoding="utf-8")
    load_and_resolve(path, REGISTRY)
    load_spec_file(path, REGISTRY)


@FUZZ
@given(doc=mutations(VALID_SCENARIO))
def test_mutated_scenarios(workdir: Path, doc: dict[str, Any]) -> None:
    path = workdir / "mutated.jsonl"
    path.write_text(json.dumps(VALID_SCENARIO) + "\n" + json_text(doc) + "\n", encoding="utf-8")
    load_and_resolve(path, REGISTRY)
    path = workdir / "mutated.toml"
    path.write_text(toml_document(doc), encoding="utf-8")
    load_and_resolve(path, REGISTRY)


@FUZZ
@given(doc=mutations(VALID_SPEC))
def test_mutated_specs(workdir: Path, doc: dict[str, Any]) -> None:
    path = workdir / "spec.toml"
    path.write_text(toml_document(doc), encoding="utf-8")
    load_spec_file(path, REGISTRY)


@FUZZ
@given(text=st.text(alphabet=st.sampled_from("[]{}\"'#=,.:\\\n 01aAx-eu"), max_size=80))
def test_random_text(workdir: Path, text: str) -> None:
    for suffix in (".toml", ".json", ".jsonl"):
        path = workdir / f"text{suffix}"
        path.write_text(text, encoding="utf-8")
        load_and_resolve(path, REGISTRY)
    load_spec_file(workdir / "text.toml", REGISTRY)


def test_the_valid_documents_are_valid(workdir: Path) -> None:
    """The mutations start from documents that load (else they would test little)."""
    path = workdir / "valid.toml"
    path.write_text(toml_document(VALID_SCENARIO), encoding="utf-8")
    (scenario,) = load_scenarios(path, REGISTRY)
    assert len(scenario.events) == 4
    path.write_text(toml_document(VALID_SPEC), encoding="utf-8")
    assert load_spec(path, REGISTRY).casts
