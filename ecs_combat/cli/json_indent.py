"""``json.dumps(doc, indent=2)``'s text made from ``json.dumps(doc)``'s, over arrays: how
``resolve FILE --json`` writes a battle too large for a Python document of its result
(:func:`~ecs_combat.batched.result_text.json_text` gives the one-line text).

The one-line text separates items with ``", "`` and keys from values with ``": "``; the indented
text puts each item of a nonempty table or list on its own line, indented two spaces a level,
and the closing bracket on a line of its own. So the indented text is the one-line text with
edits at the brackets and commas outside strings: after a nonempty table's or list's opening
bracket and before its closing one a line break and indentation are put; the space after each
comma becomes a line break and indentation. Strings are found by their quotes, which is exact
for text whose strings hold no ``\\"`` (:func:`~ecs_combat.batched.result_text.plain_ids`).
The output is written in pieces as it is made, so memory stays small beside the text.
"""

from __future__ import annotations

from typing import BinaryIO

import numpy as np
import numpy.typing as npt

I64 = np.int64
#: Source bytes edited and written at a time.
PIECE = 1 << 22
_QUOTE, _SPACE, _NEWLINE = ord('"'), ord(" "), ord("\n")
#: What each byte is where it stands outside a string: an opening bracket, a closing one, a
#: comma, or nothing to edit (0).
_OPEN, _CLOSE, _COMMA = 1, 2, 3
_CODES = np.zeros(256, np.uint8)
_CODES[np.frombuffer(b"{[", np.uint8)] = _OPEN
_CODES[np.frombuffer(b"}]", np.uint8)] = _CLOSE
_CODES[ord(",")] = _COMMA


def write_indented(text: bytes, out: BinaryIO) -> None:
    """Write ``json.dumps(doc, indent=2)`` for one document whose ``json.dumps(doc)`` is
    `text` (one line without its line end, strings without ``\\"`` or ``\\\\``), a piece of
    :data:`PIECE` source bytes at a time."""
    src = np.frombuffer(text, np.uint8)
    quotes, level = 0, 0  # before the piece: quotes seen, and the level of nesting
    for start in range(0, len(src), PIECE):
        end = min(start + PIECE, len(src))
        at, gone, deep, quotes, level = _edits(src, start, end, quotes, level)
        out.write(_piece(src, start, end, at, gone, deep))
    if not len(src):
        out.write(text)


def _edits(
    src: npt.NDArray[np.uint8], start: int, end: int, quotes: int, level: int
) -> tuple[npt.NDArray[I64], npt.NDArray[I64], npt.NDArray[I64], int, int]:
    """The edits of source bytes ``start`` to ``end``, `quotes` and `level` being the
    quotes seen and the level of nesting before them: where line breaks go (before the byte at
    each place), how many bytes they replace there (the space after a comma), and the
    indentation level of the line they begin; then the quotes seen and the level after."""
    part = src[start:end]
    folded = part | 0x20  # "{" and "[", "}" and "]" alike
    found = (folded == ord("{")) | (folded == ord("}"))
    found |= part == ord(",")
    found |= part == _QUOTE
    marks = np.flatnonzero(found) + start
    quoted = src[marks] == _QUOTE
    seen = quotes + np.cumsum(quoted)
    marks = marks[(seen % 2 == 0) & ~quoted]  # outside strings
    kind = _CODES[src[marks]]
    opens, closes = kind == _OPEN, kind == _CLOSE
    levels = level + np.cumsum(opens.astype(I64) - closes)  # the level after each mark
    # an empty table or list stays "{}" or "[]": its brackets are next to each other
    after = _CODES[src[np.minimum(marks + 1, len(src) - 1)]]
    before = _CODES[src[np.maximum(marks - 1, 0)]]
    after_open = opens & ~((after == _CLOSE) & (marks + 1 < len(src)))
    before_close = closes & ~((before == _OPEN) & (marks > 0))
    comma = kind == _COMMA
    edit = after_open | before_close | comma
    at = np.where(before_close, marks, marks + 1)[edit]
    return (
        at,
        comma[edit].astype(I64),
        levels[edit],
        quotes + int(quoted.sum()),
        int(levels[-1]) if len(levels) else level,
    )


def _piece(
    src: npt.NDArray[np.uint8],
    start: int,
    end: int,
    at: npt.NDArray[I64],
    gone: npt.NDArray[I64],
    deep: npt.NDArray[I64],
) -> bytes:
    """The output for source bytes ``start`` to ``end`` with the edits at `at` (all within):
    a line break and indentation put before each, less the space an edit replaces (which
    stays as the indentation's last)."""
    sizes = 1 + 2 * deep - gone
    firsts = np.cumsum(sizes) - sizes
    added = np.full(int(sizes.sum()), _SPACE, np.uint8)
    added[firsts] = _NEWLINE
    # the k-th added byte goes before source byte `place`: at `place + k` in the output
    placed = np.repeat(at - start, sizes) + np.arange(len(added), dtype=I64)
    out = np.empty(end - start + len(added), np.uint8)
    kept = np.ones(len(out), np.bool_)
    kept[placed] = False
    out[placed] = added
    out[kept] = src[start:end]
    return out.tobytes()
