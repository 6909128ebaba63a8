"""``resolve FILE.jsonl --json`` writes each line with :func:`json_line`: the text of
``json.dumps`` exactly, whatever the document holds."""

from __future__ import annotations

import io
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from ecs_combat.cli.json_lines import LineWriter, json_document, json_line

TEXT = st.one_of(
    st.sampled_from(["a0", "regular", "+1/+1", 'say "hi"', "a,b", "x: y", "t\\u", "Ørn", "é"]),
    st.text(max_size=6),
)
SCALARS = st.one_of(
    st.integers(-(2**70), 2**70),
    st.integers(-5, 30),
    st.booleans(),
    st.none(),
    st.floats(allow_nan=True, allow_infinity=True),
    TEXT,
)
DOCUMENTS = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(TEXT, inner, max_size=4),
        st.dictionaries(st.integers(0, 3), inner, max_size=2),  # keys json writes as text
    ),
    max_leaves=20,
)


@settings(max_examples=600, deadline=None)
@given(doc=DOCUMENTS)
def test_json_line_is_json_dumps(doc: Any) -> None:
    assert json_line(doc) == json.dumps(doc)


def test_delete_is_escaped_as_json_escapes_it() -> None:
    """DEL (0x7f) is ASCII, which orjson writes as it is and json escapes: both writers give
    json's text (hypothesis found it)."""
    doc = {"name": "a\x7fb", "power": 2}
    assert json_line(doc) == json.dumps(doc) == '{"name": "a\\u007fb", "power": 2}'
    assert json_document(doc) == json.dumps(doc, indent=2)


def test_a_result_document_takes_the_quick_way() -> None:
    """A typical result: strings with commas and colons inside them stay as they are."""
    doc = {
        "steps": [{"name": "regular", "damage": [{"source": "a,0", "target": "b:0", "amount": 2}]}],
        "creatures": {"a,0": {"alive": True, "damage": 1, "counters": {"+1/+1": 1}}},
        "players": {"b:0": {"life": -3, "lost": False}},
        "skipped_events": [],
    }
    assert json_line(doc) == json.dumps(doc)


def test_writer_flushes_every_batch_and_when_asked() -> None:
    class Counting(io.StringIO):
        flushes = 0

        def flush(self) -> None:
            self.flushes += 1
            super().flush()

    stream = Counting()
    writer = LineWriter(stream, 1000)
    for _ in range(1001):
        writer.write("{}")
    assert stream.flushes == 1
    writer.flush()
    assert stream.flushes == 2
    assert stream.getvalue() == "{}\n" * 1001
    one = Counting()
    each = LineWriter(one)  # the reference engine's batches are one scenario
    each.write("{}")
    each.write("{}")
    assert one.flushes == 2
