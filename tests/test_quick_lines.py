"""The quick reader of JSON Lines (ecs_combat/scenario/quick.py) gives exactly the full
reader's scenario, or leaves the line to it: never another scenario, never another error."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ecs_combat.errors import InputError
from ecs_combat.plugin.registry import Registry
from ecs_combat.scenario.checks import check_document
from ecs_combat.scenario.documents import checked, decode_json
from ecs_combat.scenario.loader import iter_scenarios, parse_scenario
from ecs_combat.scenario.model import Scenario
from ecs_combat.scenario.quick import QuickReader
from tests.conftest import bundled_registry

alpha_strike = pytest.importorskip("ecs_combat_alpha_strike")

PLAIN = {
    "players": {"alice": {}, "bob": {}},
    "creatures": {
        "a0": {"controller": "alice", "power": 2, "toughness": 2},
        "b0": {"controller": "bob", "power": 1, "toughness": 3},
    },
    "combat": {"attackers": {"a0": "bob"}, "blockers": {"b0": "a0"}},
}


@pytest.fixture(scope="module")
def with_static() -> Registry:
    """The bundled plugins and alpha strike, whose static ability gives first strike."""
    return bundled_registry(extra=(alpha_strike,))


def full(line: str, registry: Registry, where: str = "t.jsonl:1") -> Scenario | str:
    """What the full reader makes of a line: its scenario, or its error's message."""
    try:
        doc = checked(decode_json(line, where, lines=False), where, "scenario", "t.jsonl")
        check_document(doc, where)
        return parse_scenario(doc, registry, where)
    except InputError as exc:
        return str(exc)


def same(quick: Scenario | None, line: str, registry: Registry) -> None:
    """`quick` is None, or the full reader's scenario of `line` (in every field and order)."""
    if quick is None:
        return
    expected = full(line, registry)
    assert isinstance(expected, Scenario), expected
    assert quick == expected
    assert repr(quick) == repr(expected)  # the order of every table too


def test_plain_line_is_read_quickly_and_exactly(registry: Registry, with_static: Registry) -> None:
    line = json.dumps(PLAIN)
    for reg in (registry, with_static):
        quick = QuickReader(reg).scenario(line.encode(), "t.jsonl:1")
        assert quick is not None  # the common line takes the quick path
        same(quick, line, reg)


@pytest.mark.parametrize(
    "line",
    [
        # a key given twice: orjson would keep the last, the full reader refuses it
        '{"players": {"alice": {}, "bob": {}}, "creatures": {"a": {"controller": "alice", '
        '"power": 2, "power": 3, "toughness": 2}}}',
        '{"players": {"alice": {}, "alice": {}, "bob": {}}}',
        # an escape, a non-ASCII name, DEL in an id
        '{"players": {"al\\u0069ce": {}, "bob": {}}}',
        '{"players": {"alice": {}, "bob": {}}, "creatures": {"a": {"controller": "alice", '
        '"power": 2, "toughness": 2, "name": "Ørn"}}}',
        '{"players": {"al\x7fce": {}, "bob": {}}}',
        "not json",
        "[1, 2]",
        '{"players": {"alice": {}, "bob": {}}, "creatures": {}, "combat": {}, "events": []}',
    ],
)
def test_unusual_text_goes_to_the_full_reader(registry: Registry, line: str) -> None:
    assert QuickReader(registry).scenario(line.encode(), "t.jsonl:1") is None


def _with(creature: dict[str, Any], attacks: bool = True, blocks: bool = True) -> str:
    doc = json.loads(json.dumps(PLAIN))
    doc["creatures"]["a0"].update(creature)
    if not blocks:
        del doc["combat"]["blockers"]
    if not attacks:
        del doc["combat"]
    return json.dumps(doc)


@pytest.mark.parametrize(
    ("creature", "why"),
    [
        ({"tapped": True}, "tapped: the full reader checks the attack"),
        ({"counters": {"+1/+1": 1}}, "a key the quick reader leaves"),
        ({"damage": 2}, "lethal damage (704.5g)"),
        ({"colors": ["green", "red"]}, "colors not in the format's order: kept as written"),
        ({"keywords": ["lure"]}, "a block requirement (509.1c)"),
        ({"keywords": ["exalted"]}, "a declare-attackers system"),
        ({"keywords": ["defender"]}, "it can't attack: the full reader says why"),
        ({"keywords": ["flying"]}, "its blocker can't block it: the full reader says why"),
        ({"keywords": ["menace"]}, "one blocker is too few"),
        ({"keywords": ["flyng"]}, "an unknown keyword"),
        ({"keywords": ["bushido"]}, "a keyword without its number"),
        ({"power": True}, "a boolean power"),
        ({"power": 2.0}, "a number that is not an integer"),
        ({"toughness": 0}, "toughness 0 (704.5f)"),
        ({"power": 1_000_000_001}, "out of range"),
        ({"controller": "carol"}, "an unknown player"),
    ],
)
def test_what_the_full_reader_must_judge_goes_to_it(
    registry: Registry, creature: dict[str, Any], why: str
) -> None:
    line = _with(creature)
    assert QuickReader(registry).scenario(line.encode(), "t.jsonl:1") is None, why


def test_static_ability_goes_to_the_full_reader_only_where_its_keyword_is(
    with_static: Registry,
) -> None:
    """Alpha strike's static ability belongs to alpha strike: a line without it is read
    quickly (as the batched engine calls the static hook only for a batch using it), a line
    with it is left to the full reader, which builds the reference world."""
    reader = QuickReader(with_static)
    assert reader.scenario(json.dumps(PLAIN).encode(), "t.jsonl:1") is not None
    line = _with({"keywords": ["alpha strike"]}, attacks=False)
    assert reader.scenario(line.encode(), "t.jsonl:1") is None


def test_file_read_quickly_gives_the_full_readers_scenarios_and_error(
    registry: Registry, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Line 3 is invalid: both readers give lines 1-2 (line 2 a blank line skipped) and then
    the same error."""
    path = tmp_path / "many.jsonl"
    bad = _with({"keywords": ["defender"]})
    path.write_text(f"{json.dumps(PLAIN)}\n\n{bad}\n{json.dumps(PLAIN)}\n", encoding="utf-8")

    def read() -> tuple[list[str], str]:
        got: list[str] = []
        with pytest.raises(InputError) as exc:
            for sc in iter_scenarios(path, registry):
                got.append(repr(sc))
        return got, str(exc.value)

    quick = read()
    monkeypatch.setattr(QuickReader, "read", lambda self, raws, files: [None] * len(raws))
    assert read() == quick
    assert len(quick[0]) == 1
    assert quick[1].startswith(f"{path}:3: combat.attackers.a0: 'a0' has defender")


KEYWORDS = [
    "flying", "reach", "menace", "lure", "exalted", "vigilance", "defender", "first strike",
    "deathtouch", "bushido 2", "protection from red", "skulk", "alpha strike", "can't block",
    "flanking", "fear", "intimidate", "shadow", "horsemanship", "swampwalk", "FLYING",
    "flyng", "bushido", " ", "", "protection from green", "landwalk",
]  # fmt: skip
IDS = ["a", "b", "c", "alice", "bob", "d e"]
INTS = st.one_of(
    st.integers(1, 6),
    st.integers(1, 6),
    st.integers(-3, 6),
    st.sampled_from([0, 1_000_000_000, 1_000_000_001, True, 2.0, "2"]),
)


#: The creature keys the quick reader may read, and other values for them.
OPTIONAL = {
    "damage": INTS,
    "tapped": st.sampled_from([False, True, 0]),
    "summoning_sick": st.sampled_from([False, True]),
    "colors": st.lists(st.sampled_from(["red", "green", "blue", "Red", "pink", 1]), max_size=3),
    "types": st.lists(st.sampled_from(["artifact", "land", "enchantment", "Land"]), max_size=2),
    "value": INTS,
    "hat": st.booleans(),
    "counters": st.just({"+1/+1": 1}),
}


@st.composite
def documents(draw: st.DrawFn) -> Any:
    """Scenario documents near the common shape, many of them invalid or unusual."""
    players = {p: {} for p in draw(st.lists(st.sampled_from(["alice", "bob", "carol"]),
                                            min_size=1, max_size=3, unique=True))}  # fmt: skip
    for p in players:
        if draw(st.integers(0, 5)) == 0:
            players[p]["life"] = draw(INTS)
        if draw(st.integers(0, 20)) == 0:
            players[p]["poison"] = 1
    creatures: dict[str, Any] = {}
    for cid in draw(st.lists(st.sampled_from(IDS), max_size=4, unique=True)):
        t: dict[str, Any] = {
            "controller": draw(st.sampled_from([*players, "zed"])),
            "power": draw(INTS),
            "toughness": draw(INTS),
        }
        if draw(st.booleans()):
            t["keywords"] = draw(st.lists(st.sampled_from(KEYWORDS), max_size=2))
        if draw(st.integers(0, 6)) == 0:
            t["name"] = draw(st.sampled_from(["Zebra", "aardvark", ""]))
        for key, values in OPTIONAL.items():
            if draw(st.integers(0, 4)) == 0:
                t[key] = draw(values)
        for key in [
            k for k in ("controller", "power", "toughness") if draw(st.integers(0, 15)) == 0
        ]:
            del t[key]
        creatures[cid] = t
    ids = [*creatures, "zed"]
    attackers = {
        c: draw(st.sampled_from([*players, "a"]))
        for c in draw(st.lists(st.sampled_from(ids), max_size=3, unique=True))
    }
    blockers = {
        c: draw(st.sampled_from([*ids, ["a", "b"]]))
        for c in draw(st.lists(st.sampled_from(ids), max_size=3, unique=True))
    }
    doc: dict[str, Any] = {"players": players, "creatures": creatures}
    if attackers or blockers or draw(st.booleans()):
        doc["combat"] = {"attackers": attackers, "blockers": blockers}
    return doc


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=documents(), duplicate=st.booleans())
def test_quick_reader_agrees_with_the_full_reader(
    registry: Registry, with_static: Registry, doc: Any, duplicate: bool
) -> None:
    line = json.dumps(doc)
    if duplicate and '"power": ' in line:  # a key given twice in the text
        line = line.replace('"power": ', '"power": 9, "power": ', 1)
    for reg in (registry, with_static):
        same(QuickReader(reg).scenario(line.encode(), "t.jsonl:1"), line, reg)


def test_every_key_it_reads_is_read_as_the_full_reader_does(
    registry: Registry, with_static: Registry
) -> None:
    line = _with(
        {
            "name": "Ann",
            "keywords": ["protection from red", "bushido 2", "first strike"],
            "damage": 1,
            "colors": ["white", "green"],
            "types": ["artifact", "land"],
            "value": -4,
            "tapped": False,
            "summoning_sick": False,
        }
    )
    for reg in (registry, with_static):
        quick = QuickReader(reg).scenario(line.encode(), "t.jsonl:1")
        assert quick is not None
        same(quick, line, reg)
        assert quick.creatures["a0"].colors == ("white", "green")
        assert quick.creatures["a0"].parameters == ("red", 2, None)
