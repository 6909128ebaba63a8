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
#: Edits made at a time: each piece written holds this many line breaks.
PIECE = 1 << 18
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
    `text` (one line without its line end, strings without ``\\"`` or ``\\\\``)."""
    src = np.frombuffer(text, np.uint8)
    pos, skip, depth = _edits(src)
    start = 0
    for k in range(0, len(pos), PIECE):
        at, gone, deep = pos[k : k + PIECE], skip[k : k + PIECE], depth[k : k + PIECE]
        end = len(src) if k + PIECE >= len(pos) else int(pos[k + PIECE])
        out.write(_piece(src, start, end, at, gone, deep))
        start = end
    if not len(pos):
        out.write(text)


def _edits(
    src: npt.NDArray[np.uint8],
) -> tuple[npt.NDArray[I64], npt.NDArray[I64], npt.NDArray[I64]]:
    """Where line breaks go (before the byte at each place), how many bytes they replace
    there (the space after a comma), and the indentation level of the line they begin."""
    folded = src | 0x20  # "{" and "[", "}" and "]" alike
    found = (folded == ord("{")) | (folded == ord("}"))
    del folded
    found |= src == ord(",")
    found |= src == _QUOTE
    marks = np.flatnonzero(found)
    del found
    quoted = src[marks] == _QUOTE
    outside = np.cumsum(quoted) % 2 == 0  # after an even number of quotes
    marks = marks[outside & ~quoted]
    kind = _CODES[src[marks]]
    opens, closes = kind == _OPEN, kind == _CLOSE
    level = np.cumsum(opens.astype(I64) - closes)  # the level after each mark
    # an empty table or list stays "{}" or "[]": its brackets are next to each other
    adjacent = np.diff(marks) == 1
    empty_open = opens & np.append(adjacent & (kind[1:] == _CLOSE), False)
    empty_close = closes & np.insert(adjacent & (kind[:-1] == _OPEN), 0, False)
    after_open = opens & ~empty_open
    before_close = closes & ~empty_close
    comma = kind == _COMMA
    edit = after_open | before_close | comma
    pos = np.where(before_close, marks, marks + 1)[edit]
    skip = comma[edit].astype(I64)
    depth = level[edit]
    return pos, skip, depth


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
