"""A battle's JSON text decoded as lists (:func:`~ecs_combat.scenario.battle_lists.listed_battle`,
issue 36): its braces and colons translated away, its shape checked over the whole text. It
must take only valid JSON, read exactly what the dictionaries say (the same lines taken, the
same batch), and leave every text it is unsure of to the dictionaries' reader."""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from ecs_combat.batched.lines import rows_to_batch
from ecs_combat.plugin.registry import Registry
from ecs_combat.scenario.battle_lists import listed_battle
from ecs_combat.scenario.battle_rows import IdTable, Unusual
from ecs_combat.scenario.quick_rows import RowReader
from tests.test_batched_lines import assert_same_batch, combats, mistaken

#: Characters the translation loses track of, and what a text may have them changed to.
_SWAPS = {":": ",", ",": ":", "{": "[", "}": "]", "[": "{", "]": "}"}


def _canonical(doc: dict[str, Any]) -> bool:
    """Whether every creature has exactly controller, power, toughness and perhaps keywords,
    in that order (the tables read as lists)."""
    order = ["controller", "power", "toughness", "keywords"]
    tables = doc.get("creatures", {})
    return type(tables) is dict and all(
        type(t) is dict and list(t) in (order[:3], order) for t in tables.values()
    )


@st.composite
def texts(draw: st.DrawFn) -> tuple[str, bool]:
    """A document of :func:`combats` or :func:`mistaken` as text, perhaps indented, with at
    most one change to its text: a brace, bracket, colon or comma swapped for another, one
    moved, an id renamed to hold such a character, a key given twice, the keys sorted. And
    whether the text was changed."""
    doc = draw(st.one_of(combats(), mistaken()))
    indent = draw(st.sampled_from([None, 0, 2]))
    change = draw(st.integers(0, 7))
    if change == 1:
        return json.dumps(doc, indent=indent, sort_keys=True), True
    text = json.dumps(doc, indent=indent)
    places = [i for i, ch in enumerate(text) if ch in _SWAPS]
    at = draw(st.sampled_from(places))
    if change == 2:  # one structural character swapped (inside a string or not)
        text = text[:at] + _SWAPS[text[at]] + text[at + 1 :]
    elif change == 3:  # one moved
        to = draw(st.integers(0, len(text) - 1))
        ch, rest = text[at], text[:at] + text[at + 1 :]
        text = rest[:to] + ch + rest[to:]
    elif change == 4 and '"a0"' in text:  # an id holding a structural character
        odd = draw(st.sampled_from(["a:0", "a,0", "{a0}", "[a0"]))
        text = text.replace('"a0"', f'"{odd}"')
    elif change == 5 and '"power": ' in text:  # a key given twice
        text = text.replace('"power": ', '"power": 9, "power": ', 1)
    elif change == 7 and '"b0": {' in text:  # a creature id given twice
        text = text.replace('"b0": {', '"a0": {' if '"a0": {' in text else '"bo": {', 1)
    elif change == 6:  # two values with nothing but a space between (a comma dropped)
        text = text[:at] + " " + text[at + 1 :] if text[at] == "," else text
    else:
        return text, False
    return text, True


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(given=texts())
def test_a_battle_read_as_lists_is_read_as_dictionaries(
    registry: Registry, given: tuple[str, bool]
) -> None:
    """Any text read as lists is valid JSON, and gives the lines and the batch the
    dictionaries give; a document of the shape read as lists, unchanged, is read so."""
    text, changed = given
    assume(text.isascii() and "\\" not in text)
    raw = text.encode()
    listed = listed_battle(raw)
    try:
        doc = json.loads(text)
    except json.JSONDecodeError:
        assert listed is None
        return
    expected, expected_taken = RowReader(registry).read([orjson.loads(raw)], [text.count('"')])
    if listed is None:  # only what the dictionaries' reader refuses, or not of the shape
        assert changed or not _canonical(doc) or not expected_taken
        return
    rows, taken = RowReader(registry).read([listed], [None])
    assert taken == expected_taken
    if taken:
        assert_same_batch(
            rows_to_batch(rows, registry, ["f"]), rows_to_batch(expected, registry, ["f"])
        )


@pytest.mark.parametrize(
    "text",
    [
        # a table opened with a bracket and closed with a brace
        '{"players": {"A": {}, "B": {}}, "creatures": {"a": ["controller": "A", "power": 1, '
        '"toughness": 1}}}',
        # a comma for a colon, and a colon for a comma
        '{"players": {"A": {}, "B": {}}, "creatures": {"a", {"controller": "A", "power": 1, '
        '"toughness": 1}}}',
        '{"players": {"A": {}: "B": {}}}',
        # keywords in braces
        '{"players": {"A": {}, "B": {}}, "creatures": {"a": {"controller": "A", "power": 1, '
        '"toughness": 1, "keywords": {"trample"}}}}',
    ],
)
def test_text_that_is_not_json_is_not_read_as_lists(text: str) -> None:
    json.loads(text.translate(str.maketrans("{}:", "[],")))  # valid once translated
    with pytest.raises(json.JSONDecodeError):
        json.loads(text)
    assert listed_battle(text.encode()) is None


def test_a_document_that_is_a_list_is_not_read_as_lists() -> None:
    assert listed_battle(b'["players", ["A", [], "B", []]]') is None


def test_ids_holding_a_colon_or_brace_are_left_to_the_dictionaries(registry: Registry) -> None:
    """An id ``a:0`` (valid JSON) is not read as lists: translated, it would read ``a,0``."""
    doc = {
        "players": {"A": {}, "B": {}},
        "creatures": {
            "a:0": {"controller": "A", "power": 2, "toughness": 2},
            "b{0}": {"controller": "B", "power": 1, "toughness": 1},
        },
        "combat": {"attackers": {"a:0": "B"}, "blockers": {"b{0}": "a:0"}},
    }
    assert listed_battle(json.dumps(doc).encode()) is None
    plain = json.dumps(doc).replace("a:0", "a0").replace("b{0}", "b0")
    listed = listed_battle(plain.encode())
    assert listed is not None and listed.battle.ids == ["a0", "b0"]
    rows, taken = RowReader(registry).read([listed], [None])
    assert taken == [0] and rows.block_attacker.tolist() == [0]


@pytest.mark.parametrize("prefix", ["", "a-very-long-prefix-"])
def test_an_id_table_finds_each_name_among_the_ids(prefix: str) -> None:
    """Ids of up to 8 bytes (read as integers) and longer: each name's place, -1 for a name
    not among them (one longer than every id, a prefix of one, one cut short)."""
    ids = [f"{prefix}{x}" for x in ("b1", "a", "a10", "zz")]
    table = IdTable(ids)
    assert table.unique
    names = [f"{prefix}{x}" for x in ("zz", "a", "a1", "b1", "a10", "a100", "b")]
    assert table.places(names).tolist() == [3, 1, -1, 0, 2, -1, -1]
    assert table.places([f"{prefix}a10-and-longer-than-every-id"]).tolist() == [-1]
    assert table.places(ids[1:]).tolist() == [1, 2, 3]  # a run of the ids: no search
    assert table.places([ids[1], ids[2], ids[0]]).tolist() == [1, 2, 0]
    assert not IdTable([*ids, f"{prefix}a"]).unique
    assert IdTable([]).places(["a"]).tolist() == [-1]
    with pytest.raises(Unusual):
        table.places([3])
