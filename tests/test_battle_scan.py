"""A battle's JSON text read over arrays (:func:`~ecs_combat.scenario.battle_scan.scanned_battle`):
strings, keys and numbers found by their places among the quotes once the text's structure is
checked. It must take only valid JSON of its shape, read exactly what the dictionaries say
(the same lines taken, the same batch), and leave every text it is unsure of to the slower
readers, so that ``resolve`` gives the full reader's one line for every mistake."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from cli_run import run_cli
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from ecs_combat.batched.lines import rows_to_batch
from ecs_combat.cli import large_battle
from ecs_combat.plugin.registry import Registry
from ecs_combat.scenario.battle_rows import IdTable, KeyedNames, Unusual, id_keys
from ecs_combat.scenario.battle_scan import scanned_battle
from ecs_combat.scenario.quick_rows import RowReader
from tests.test_batched_lines import assert_same_batch, combats, mistaken
from tests.test_battle_lists import _canonical
from tests.test_large_battles import battle

#: Changes of a power's text (``"power": 1`` in the document), most of them not JSON or not
#: an integer as JSON writes it.
_NUMBERS = ["01", "-0", "-1", "1.0", "1e2", "1 2", "+1", "-", "--1", "1-", "1x", "x1", "true",
            "null", '"1"', "9" * 16, "1" * 15, "1000000001", "[1]", "{}", "0", "00"]  # fmt: skip
#: Changes of the text around a key (``"power": ``): whitespace, and what is not.
_AROUND = ['"power" : ', '"power":', '"power":\t', '"power":  ', '"power":\n ', '"power":x ',
           '"power": \x01', '"power":: ', '"power"\x0b: ']  # fmt: skip
#: Changes of an id's text (``"a0"`` wherever it is).
_IDS = ['"a\t0"', '"a\n0"', '"a 0"', '" "', '""', '"b0"', '"ann"', '"a0\x01"', '"power"',
        '"controller"', '"0"']  # fmt: skip


def _fast(doc: dict[str, Any]) -> bool:
    """Whether a document is of the shape read over arrays (given that the dictionaries'
    reader takes it)."""
    if list(doc) != ["players", "creatures", "combat"] or not doc["creatures"]:
        return False
    if not _canonical(doc):
        return False
    return type(doc["combat"]) is dict and list(doc["combat"]) == ["attackers", "blockers"]


@st.composite
def texts(draw: st.DrawFn) -> tuple[str, bool]:
    """A document of :func:`combats` or :func:`mistaken` as text, indented or not, compact
    or not, with at most one change to its text: a power written otherwise, the text around
    a key, a key's name, an id, something between the strings. And whether the text was
    changed."""
    doc = draw(st.one_of(combats(), mistaken()))
    if draw(st.booleans()) and type(doc.get("creatures")) is dict:  # often of the shape
        for t in doc["creatures"].values():
            for key in set(t) - {"controller", "power", "toughness", "keywords"}:
                del t[key]
    layout = draw(st.sampled_from([{}, {"indent": 2}, {"separators": (",", ":")}]))
    text = json.dumps(doc, **layout)
    change = draw(st.integers(0, 6))
    if change == 1 and '"power": ' in text:
        at = text.index('"power": ') + len('"power": ')
        end = min(i for i in (text.find(",", at), text.find("}", at)) if i >= 0)
        text = text[:at] + draw(st.sampled_from(_NUMBERS)) + text[end:]
    elif change == 2 and '"power": ' in text:
        text = text.replace('"power": ', draw(st.sampled_from(_AROUND)), 1)
    elif change == 4:  # a key misspelt, or a key's name where an id goes
        old = draw(st.sampled_from(['"power"', '"toughness"', '"controller"', '"keywords"']))
        new = draw(st.sampled_from(['"powr"', '"tougness"', '"Controller"', '"keyword"',
                                    '"powex"', '"toughnesx"', '"controllex"', '"keywordx"']))  # fmt: skip
        text = text.replace(old, new, 1)
    elif change == 5:  # something that is no whitespace after a comma, colon or brace
        at = draw(st.sampled_from([i for i, ch in enumerate(text) if ch in ",:{"]))
        text = text[: at + 1] + draw(st.sampled_from(["x", "1", "-", "t", "\x01"])) + text[at + 1 :]
    elif change == 3 and '"a0"' in text:
        new = draw(st.sampled_from(_IDS))
        if draw(st.booleans()):  # every "a0", or the first
            text = text.replace('"a0"', new, draw(st.sampled_from([1, -1])))
        else:  # the last: a name in the combat's declarations only
            at = text.rindex('"a0"')
            text = text[:at] + new + text[at + 4 :]
    else:
        return text, False
    return text, True


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(given=texts())
def test_a_battle_read_over_arrays_is_read_as_dictionaries(
    registry: Registry, given: tuple[str, bool]
) -> None:
    """Any text read over arrays is valid JSON and gives the lines and the batch the
    dictionaries give; a document of the shape read so, unchanged, is read so."""
    text, changed = given
    assume(text.isascii() and "\\" not in text)
    raw = text.encode()
    scanned = scanned_battle(raw)
    try:
        doc = json.loads(text)
    except json.JSONDecodeError:
        assert scanned is None
        return
    expected, expected_taken = RowReader(registry).read([json.loads(text)], [text.count('"')])
    if scanned is None:  # only what the dictionaries' reader refuses, or not of the shape
        assert changed or not _fast(doc) or not expected_taken
        return
    assert scanned.players == doc["players"]
    assert list(dict.fromkeys(scanned.battle.ids)) == list(doc["creatures"])
    rows, taken = RowReader(registry).read([scanned], [None])
    assert taken == expected_taken
    if taken:
        assert_same_batch(
            rows_to_batch(rows, registry, ["f"]), rows_to_batch(expected, registry, ["f"])
        )


def _small() -> dict[str, Any]:
    doc = battle(2, power=3, toughness=4, keywords=["first strike"])
    doc["players"]["A"] = {"life": 7}
    return doc


def test_a_battle_of_the_shape_is_read_over_arrays(registry: Registry) -> None:
    """Two attackers with first strike blocked one by one (509.1a): the columns as written,
    whether indented or compact."""
    for layout in ({}, {"indent": 2}, {"separators": (",", ":")}):
        scanned = scanned_battle(json.dumps(_small(), **layout).encode())  # type: ignore[arg-type]
        assert scanned is not None
        b = scanned.battle
        assert scanned.players == {"A": {"life": 7}, "B": {}}
        assert b.ids == ["a0", "a1", "b0", "b1"] and b.controller == ["A", "A", "B", "B"]
        assert b.power == [3, 3, 3, 3] and b.toughness == [4, 4, 4, 4]
        assert b.attackers[1] == ["B", "B"]
        rows, taken = RowReader(registry).read([scanned], [None])
        assert taken == [0] and rows.keywords[0] == rows.keywords[1] is not None
        # a0 and a1 attack B (player row 1); b0 blocks a0, b1 blocks a1
        assert rows.attacking.tolist() == [1, 1, -1, -1]
        assert rows.block_blocker.tolist() == [2, 3] and rows.block_attacker.tolist() == [0, 1]


@pytest.mark.parametrize("number", ["01", "1.0", "1e2", "1 2", "+1", "-", "--1", "1x", "9" * 16])
def test_a_number_not_written_as_json_writes_an_integer_is_left_to_the_slower_readers(
    number: str,
) -> None:
    text = json.dumps(_small()).replace('"power": 3', f'"power": {number}', 1)
    assert scanned_battle(text.encode()) is None


@pytest.mark.parametrize(
    ("number", "value"), [("-0", 0), ("-12", -12), ("0", 0), ("123456789012345", 123456789012345)]
)
def test_integers_are_read_with_their_sign(number: str, value: int) -> None:
    text = json.dumps(_small()).replace('"power": 3', f'"power": {number}', 1)
    scanned = scanned_battle(text.encode())
    assert scanned is not None and scanned.battle.power == [value, 3, 3, 3]


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ('"a0": {', '"a\t0": {'),  # a control character in a string: not JSON
        ('"power": 3', '"power":x 3'),  # something between the strings that is no number
        ('"B": {}}', '"B": {}} x'),
        ('"b1": "a1"', '"b1": "a1" 1'),
        ('"controller": "A"', '"controller": "C"'),  # no such player
        ('"power"', '"powr"'),  # another key
        ('"power"', '"powex"'),  # another key of the same length (its last byte)
        ('"toughness"', '"toughnesx"'),
        ('"controller"', '"controllex"'),
        ('"keywords"', '"keywordx"'),
        ('"b1": "a1"', '"b1": "\x011"'),  # a control character in a blocked name only
        ('"power": 3, "toughness": 4', '"toughness": 4, "power": 3'),  # another order
        ('"players"', '"player"'),
    ],
)
def test_a_text_not_of_the_shape_is_left_to_the_slower_readers(old: str, new: str) -> None:
    text = json.dumps(_small())
    assert old in text
    assert scanned_battle(text.replace(old, new, 1).encode()) is None


def test_odd_whitespace_and_spaced_ids_are_read(registry: Registry) -> None:
    """Whitespace of every kind between the strings, spaces inside them."""
    text = json.dumps(_small(), indent="\t").replace('"a0"', '"a 0"').replace("\n", "\r\n")
    scanned = scanned_battle(text.encode())
    assert scanned is not None and scanned.battle.ids[0] == "a 0"
    rows, taken = RowReader(registry).read([scanned], [None])
    assert taken == [0] and rows.creature_ids[0] == "a 0"
    assert rows.block_blocker.tolist() == [2, 3] and rows.block_attacker.tolist() == [0, 1]


# -- resolve: bad input in a large file, the full reader's one line ----------------------------


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ('"power": 1', '"power": 01'),
        ('"power": 1', '"power": 1.5'),
        ('"power": 1', '"power": 1 2'),
        ('"power": 1', '"power": -'),
        ('"toughness": 1', '"toughness": 1e400'),
        ('"a5": {', '"a\\u0035x": {'),  # an escape
        ('"a5": {', '"a\\"5": {'),
        ('"a5": {', '"\u00e95": {'),  # an id not ASCII
        ('"a5": {', '"a\t5": {'),
        ('"b7": {', '"a7": {'),  # an id given twice
        ('"power": 1', '"power": 1, "power": 2'),  # a key given twice
        ('"controller": "A"', '"controller" :\n\t "A"'),  # odd whitespace, then a mistake
        ('"b9": "a9"', '"b9": "a9" x'),
    ],
)
def test_bad_input_at_the_fast_readers_edge_gets_the_ordinary_message(
    tmp_path: Path, old: str, new: str
) -> None:
    """4,000 creatures with one change: the large-battle path gives exactly what the
    ordinary path gives (a message, or the same output when the change is valid)."""
    text = json.dumps(battle(2_000))
    assert old in text
    path = tmp_path / "big.json"
    path.write_text(text.replace(old, new, 1))
    fast = run_cli(["resolve", str(path), "--json", "--engine", "batched"])
    saved, large_battle.LARGE_FILE = large_battle.LARGE_FILE, 1 << 62
    try:
        ordinary = run_cli(["resolve", str(path), "--json", "--engine", "batched"])
    finally:
        large_battle.LARGE_FILE = saved
    assert (fast.returncode, fast.stdout, fast.stderr) == (
        ordinary.returncode,
        ordinary.stdout,
        ordinary.stderr,
    )
    if fast.returncode:
        assert fast.returncode == 2 and fast.stderr.count("\n") == 1


def test_an_id_table_finds_names_given_as_keys() -> None:
    """Names keyed over arrays (as the reader over arrays gives the attackers and blockers):
    each one's place, -1 for a name not among the ids; a run of the ids found without a
    search, one running past the last id searched."""
    ids = ["b1", "a", "a10", "zz"]
    table = IdTable(ids)

    def keyed(names: list[str], width: int = table.width) -> KeyedNames:
        text = np.zeros((len(names), width), np.uint8)
        for i, name in enumerate(names):
            text[i, : len(name)] = list(name.encode())
        return KeyedNames(width, id_keys(text, width))

    assert table.places(keyed(["zz", "a", "a1", "b1", "a10", "b"])).tolist() == [3, 1, -1, 0, 2, -1]
    assert table.places(keyed(ids[1:])).tolist() == [1, 2, 3]
    assert table.places(keyed(["a", "zz"])).tolist() == [1, 3]  # from an id on, not a run
    assert table.places(keyed(["a10", "zz", "b1"])).tolist() == [2, 3, 0]
    assert table.places(keyed([])).tolist() == []
    with pytest.raises(Unusual):
        table.places(keyed(["a"], width=table.width + 1))
