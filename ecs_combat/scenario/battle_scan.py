"""One battle's JSON text read into columns over arrays, without decoding it
(:func:`scanned_battle`): how ``resolve`` reads a battle of a million creatures quickly.

The text must be ASCII without a backslash, so each double quote opens or closes a string.
The text kept to its brackets, braces, colons, commas and quotes must be exactly what a
document of the shape read here has: ``{"players": …, "creatures": …, "combat":
{"attackers": …, "blockers": …}}``, each creature ``"":{"":"","":,"":}`` (and perhaps
``,"":[…]`` of keywords); then no string holds such a character, and every string, key and
number is found by its place among the quotes. What lies between the strings is checked
over arrays (their bytes counted): only JSON whitespace and those characters, but for the
creatures' power and toughness, each one integer as JSON writes it
(``-?(0|[1-9][0-9]*)``, at most 15 digits); no string holds a control character; the keys
are exactly controller, power, toughness and keywords. The players are decoded by orjson (a
few). So a text read here is valid JSON, decodes to what is read, and gives the
:class:`~ecs_combat.scenario.battle_rows.Battle`
:func:`~ecs_combat.scenario.battle_lists.listed_battle` gives, but for the attackers' and
blockers' names, given as keys (:class:`~ecs_combat.scenario.battle_rows.KeyedNames`) when
no name is longer than every id; anything else gives None, and the text is read as
:func:`~ecs_combat.scenario.battle_file.read_battle` read it before.
"""

from __future__ import annotations

from functools import cache
from itertools import pairwise
from typing import Any

import numpy as np
import numpy.typing as npt
import orjson
from numpy.lib.stride_tricks import sliding_window_view

from ecs_combat.scenario.battle_rows import (
    Battle,
    IdKeys,
    KeyedNames,
    Listed,
    Names,
    id_keys,
    listed_keywords,
)
from ecs_combat.scenario.row_columns import I64, IntArray

#: JSON's whitespace.
_SPACE = b" \t\n\r"
#: Every byte but those the shape is checked by.
_OTHERS = bytes(sorted(set(range(256)) - set(b'{}[]:,"')))
_OTHERS_AND_SPACE = bytes(sorted(set(_OTHERS) - set(_SPACE)))
_IS_SPACE = np.zeros(256, np.int64)
_IS_SPACE[list(_SPACE)] = 1
#: A creature without keywords, its id included, kept to its structure.
_PLAIN = b'"":{"":"","":,"":}'
_BYTES = np.uint8
#: The most digits of a number read here (a larger one goes the slower way).
_DIGITS = 15
_TENS = 10 ** np.arange(_DIGITS + 1, dtype=I64)
Bytes = npt.NDArray[np.uint8]
Words = npt.NDArray[np.uint64]
#: Places in the text (32 bits: a text is under 2**31 bytes).
Places = npt.NDArray[np.int32]
#: The bytes the quotes are looked for in at a time (the comparison's array stays small).
_CHUNK = 1 << 20
#: Masks of a word's first 0 to 8 bytes (little-endian: the first byte is the lowest).
_MASKS = np.array([(1 << 8 * i) - 1 for i in range(9)], np.uint64)


@cache
def _with_keywords(m: int) -> bytes:
    """A creature with `m` keywords, its id included, kept to its structure."""
    return b'"":{"":"","":,"":,"":[' + b",".join([b'""'] * m) + b"]}"


class _Text:
    """A text's bytes and its quotes' places: string k runs from ``opens[k]`` to
    ``closes[k]``."""

    def __init__(self, raw: bytes) -> None:
        self.raw = raw
        self.bytes: Bytes = np.frombuffer(raw, _BYTES)
        self.quotes = _places(self.bytes, ord('"'))
        self.opens = self.quotes[0::2]
        self.closes = self.quotes[1::2]
        #: The text read as 8 bytes (a little-endian integer) from each place.
        self.words: Words = np.ndarray(
            (max(len(raw) - 7, 0),), np.dtype("<u8"), buffer=raw, strides=(1,)
        )
        #: The spaces in the strings read by :meth:`texts`, and whether one held a control
        #: character.
        self.spaces = 0
        self.controls = False

    def span(self, k: IntArray) -> tuple[Places, Places]:
        """Where strings `k` start and end (their contents, ends excluded)."""
        return self.opens[k] + 1, self.closes[k]

    def word(self, k: int) -> bytes:
        """String `k`'s contents."""
        return self.raw[int(self.opens[k]) + 1 : int(self.closes[k])]

    def heads(self, start: Places, size: Places) -> Words | None:
        """The first bytes (at most 8, zeros after a shorter string's end) of the strings at
        `start` of `size` bytes, each as one integer; None when one is too near the text's
        end to be read so."""
        if len(start) and int(start.max()) >= len(self.words):
            return None
        return self.words[start] & _MASKS[np.minimum(size, 8)]

    def all_are(self, k: IntArray, word: bytes) -> bool:
        """Whether strings `k` all hold exactly `word`."""
        start, end = self.span(k)
        if not (end - start == len(word)).all():
            return False
        if len(word) > 8 and len(k) and int(start.max()) + len(word) - 8 < len(self.words):
            # 8 bytes at a time, the last 8 ending where the word ends
            for at in [*range(0, len(word) - 8, 8), len(word) - 8]:
                value = int.from_bytes(word[at : at + 8], "little")
                if not (self.words[start + at] == value).all():
                    return False
            return True
        heads = self.heads(start, end - start)
        if heads is not None and len(word) <= 8:
            return bool((heads == int.from_bytes(word, "little")).all())
        found = sliding_window_view(self.bytes, len(word))[start]
        return bool((found == np.frombuffer(word, _BYTES)).all())

    def texts(self, k: IntArray, keyed: list[IdKeys] | None = None) -> list[str]:
        """Strings `k` as Python strings: gathered with their closing quotes and split (and
        their :class:`IdTable` keys added to `keyed`, if they can be made here)."""
        if not len(k):
            return []
        start, end = self.span(k)
        size = end - start
        width = int(size.max()) + 1
        if width <= 64 and int(start.max()) + width <= len(self.bytes):
            rows = sliding_window_view(self.bytes, width)[start]
            inside = np.arange(width) <= size[:, None]
            found = rows[inside]
            if keyed is not None and width > 1:
                inside[np.arange(len(k)), size] = False  # the closing quotes
                keyed.append((width - 1, id_keys(np.where(inside, rows, 0), width - 1)))
        else:
            size += 1
            before = np.cumsum(size) - size
            found = self.bytes[np.arange(int(size.sum())) + np.repeat(start - before, size)]
        if (found < ord(" ")).any():
            self.controls = True
        joined = found.tobytes()
        self.spaces += joined.count(b" ")
        return joined.decode("ascii").split('"')[:-1]

    def keyed(self, k: IntArray, width: int) -> KeyedNames | None:
        """Strings `k` as :class:`IdTable` keys for ids of at most `width` bytes; None when
        one is longer."""
        start, end = self.span(k)
        size = end - start
        if len(k) and (int(size.max()) > width or int(start.max()) + width > len(self.bytes)):
            return None
        heads = self.heads(start, size) if width <= 8 else None
        if heads is not None:
            found = heads.view(np.uint8).reshape(len(k), 8)
            keys = heads
        else:
            found = sliding_window_view(self.bytes, width)[start]
            found = np.where(np.arange(width) < size[:, None], found, 0)
            keys = id_keys(found, width)
        if ((found < ord(" ")) & (found > 0)).any():
            self.controls = True
        self.spaces += int(np.count_nonzero(found == ord(" ")))
        return KeyedNames(width, keys)

    def names(self, k: IntArray, width: int | None) -> Names:
        """Strings `k` as keys for ids of at most `width` bytes when they can be, else as
        Python strings."""
        found = None if width is None else self.keyed(k, width)
        return self.texts(k) if found is None else found

    def labels(self, k: IntArray, names: list[str]) -> list[str] | None:
        """Strings `k` as Python strings when each is one of `names` (the same objects);
        None when one is not."""
        start, end = self.span(k)
        size = end - start
        which = np.full(len(k), -1, I64)
        for i, name in enumerate(names):
            word = name.encode("ascii")
            if not word or int(start.max(initial=0)) + len(word) > len(self.bytes):
                return None
            same = sliding_window_view(self.bytes, len(word))[start] == np.frombuffer(word, _BYTES)
            which[(size == len(word)) & same.all(1)] = i
            self.spaces += word.count(b" ") * int((which == i).sum())
        if (which < 0).any():
            return None
        return list(map(names.__getitem__, which.tolist()))

    def numbers(self, k: IntArray) -> tuple[IntArray, int] | None:
        """The integers written after strings `k` (keys), and how many bytes they take; None
        unless each is an integer as JSON writes it, of at most 15 digits, right after the
        colon that follows its key or after one whitespace byte after that."""
        if not len(k):
            return np.zeros(0, I64), 0
        colon = self.closes[k] + 1
        text = self.bytes
        if not (text[colon] == ord(":")).all():
            return None
        start = colon + 1 + _IS_SPACE[text[colon + 1]]
        signed = text[start] == ord("-")
        digits = start + signed  # where each number's digits start
        lead = text[digits]
        size = np.zeros(len(k), I64)
        value = np.zeros(len(k), I64)
        going = np.ones(len(k), np.bool_)
        last = len(text) - 1
        for _ in range(_DIGITS + 1):  # a digit more each time, for the numbers not ended
            found = text[np.minimum(digits + size, last)]
            going &= (found >= ord("0")) & (found <= ord("9"))
            if not going.any():
                break
            value = np.where(going, value * 10 + (found - ord("0")), value)
            size += going
        if going.any() or not (size >= 1).all() or ((lead == ord("0")) & (size > 1)).any():
            return None  # too long, no digit, or a zero leading
        return np.where(signed, -value, value), int(size.sum() + signed.sum())


def scanned_battle(raw: bytes) -> Listed | None:
    """The battle of a JSON text (ASCII without a backslash) as columns, or None unless it is
    ``{"players": …, "creatures": …, "combat": {"attackers": …, "blockers": …}}`` in that
    order, with at least one creature, each creature's keys exactly
    controller, power, toughness and perhaps keywords, in that order."""
    text = _Text(raw)
    quotes = text.quotes
    if len(quotes) < 16 or len(quotes) % 2 or raw[: quotes[0]].strip(_SPACE) != b"{":
        return None
    spaced = raw.translate(None, _OTHERS_AND_SPACE)
    kept = spaced.translate(None, _SPACE)
    found = _players(text, kept)
    if found is None:
        return None
    players, first, rest = found
    parts = _parts(kept, rest)
    if parts is None:
        return None
    end, n_attacks, n_blocks = parts
    shape = _creatures(memoryview(kept)[rest + 5 : end])
    if shape is None:
        return None
    n, wide, keywords = shape
    pairs = [(b'"":"",' * k)[:-1] for k in (n_attacks, n_blocks)]
    if memoryview(kept)[end:] != b'},"":{"":{' + pairs[0] + b'},"":{' + pairs[1] + b"}}}":
        return None
    # string numbers: the creatures' key, each creature's strings, combat's and attackers'
    # keys, the attacks, the blockers' key, the blocks
    each = np.full(n, 5, I64)
    each[wide] = 6 + keywords
    at = first + 1 + np.concatenate([[0], np.cumsum(each)[:-1]]).astype(I64)
    combat = first + 1 + int(each.sum())
    blocks = combat + 3 + 2 * n_attacks
    if not (
        text.word(first) == b"creatures"
        and text.word(combat) == b"combat"
        and text.word(combat + 1) == b"attackers"
        and text.word(blocks - 1) == b"blockers"
        and text.all_are(at + 1, b"controller")
        and text.all_are(at + 3, b"power")
        and text.all_are(at + 4, b"toughness")
        and text.all_are(at[wide] + 5, b"keywords")
    ):
        return None
    power = text.numbers(at + 3)
    toughness = text.numbers(at + 4)
    if power is None or toughness is None:
        return None
    declared = ((combat + 2, n_attacks), (blocks, n_blocks))
    battle = _battle(text, at, wide, keywords, (power[0], toughness[0]), declared, players)
    # from the creatures' key on, what is not in a string is whitespace, structure and
    # those numbers, each string read is without a control character
    start = int(text.opens[first])
    strings = int((text.closes[first:] - text.opens[first:] + 1).sum())
    head = raw[:start]
    spaces = len(spaced) - len(kept) - (len(head) - len(head.translate(None, _SPACE)))
    spaces -= text.spaces
    structure = len(kept) - (rest + 1) - (len(quotes) - 2 * first)
    if (
        battle is None
        or text.controls
        or len(raw) - start - strings != structure + spaces + power[1] + toughness[1]
    ):
        return None
    return Listed(players, battle)


def _places(text: Bytes, byte: int) -> Places:
    """Where `byte` is in `text` (of fewer than 2**31 bytes), found a chunk at a time."""
    found = [
        np.flatnonzero(text[at : at + _CHUNK] == byte).astype(np.int32) + at
        for at in range(0, len(text), _CHUNK)
    ]
    return np.concatenate(found) if found else np.zeros(0, np.int32)


def _players(text: _Text, kept: bytes) -> tuple[dict[str, Any], int, int] | None:
    """The players (decoded by orjson), the string number of the creatures' key and where
    the creatures' key starts in `kept`; None unless the text starts with the players and
    then the creatures."""
    if not kept.startswith(b'{"":{'):
        return None
    head = np.frombuffer(kept[: 1 << 16], _BYTES)
    depth = np.cumsum(
        (head == ord("{")).astype(I64)
        + (head == ord("["))
        - (head == ord("}"))
        - (head == ord("]"))
    )
    closed = np.flatnonzero(depth[4:] == 1)
    if not len(closed):
        return None
    end = 4 + int(closed[0])  # the players' closing brace
    if kept[end + 1 : end + 7] != b',"":{"':
        return None
    first = kept[: end + 1].count(b'"') // 2
    cut = text.raw[int(text.opens[0]) : int(text.opens[first])].rstrip(_SPACE)
    if not cut.endswith(b","):
        return None
    try:
        top = orjson.loads(b"{" + cut[:-1] + b"}")
    except orjson.JSONDecodeError:
        return None
    players = top.get("players")
    if list(top) != ["players"] or type(players) is not dict:
        return None
    if set(map(type, players.values())) != {dict}:
        return None
    if 2 * first != 2 + 2 * len(players) + 2 * sum(map(len, players.values())):
        return None  # a key given twice, or a string where a number goes
    return players, first, end + 1


def _parts(kept: bytes, rest: int) -> tuple[int, int, int] | None:
    """Where the creatures' end in the kept text (from `rest`, ``,"":{`` of the creatures),
    and how many attacks and blocks the rest gives room for."""
    start = rest + 5
    end = kept.find(b'},"":{"":{', start)
    if end <= start:
        return None
    attacks = end + 10
    attacks_end = kept.find(b"}", attacks)
    blocks = attacks_end + 6
    if attacks_end < attacks or len(kept) - 3 < blocks:
        return None
    return end, (attacks_end - attacks + 1) // 6, (len(kept) - 3 - blocks + 1) // 6


def _creatures(kept: memoryview) -> tuple[int, IntArray, IntArray] | None:
    """How many creatures the creatures' `kept` text gives and those with keywords (their
    places and how many keywords each has); None unless it is such creatures, separated by
    commas."""
    text = np.frombuffer(kept, _BYTES)
    ends = np.flatnonzero(text == ord("}"))
    if not len(ends) or ends[-1] != len(text) - 1:
        return None
    sizes = np.diff(ends, prepend=-2) - 1
    plain = sizes == len(_PLAIN)
    wide = np.flatnonzero(~plain)
    keywords = np.where(sizes[wide] == 24, 0, (sizes[wide] - 23) // 3)
    starts = ends - sizes + 1  # the first at 0, each after a comma
    if (keywords < 0).any() or not (text[starts[1:] - 1] == ord(",")).all():
        return None
    found = sliding_window_view(text, len(_PLAIN))[starts[plain]]
    if not (found == np.frombuffer(_PLAIN, _BYTES)).all():
        return None
    places = zip(starts[wide].tolist(), sizes[wide].tolist(), keywords.tolist(), strict=True)
    for at, size, m in places:
        if kept[at : at + size] != _with_keywords(m):
            return None
    return len(ends), wide, keywords


def _battle(
    text: _Text,
    at: IntArray,
    wide: IntArray,
    keywords: IntArray,
    numbers: tuple[IntArray, IntArray],
    declared: tuple[tuple[int, int], tuple[int, int]],
    players: dict[str, Any],
) -> Battle | None:
    """The battle's columns from its strings' places: each creature's strings from `at`; the
    attacks' and blocks' first strings and how many there are. None when a controller or a
    player attacked is not one of `players` (the slower way says which)."""
    keyed: list[IdKeys] = []
    ids = text.texts(at, keyed)
    start = np.repeat(at[wide] + 6, keywords)
    before = np.cumsum(keywords) - keywords
    listed = text.texts(start + np.arange(len(start), dtype=I64) - np.repeat(before, keywords))
    cuts = np.append(before, len(listed)).tolist()
    texts = [tuple(listed[a:b]) for a, b in pairwise(cuts)]
    names = list(players)
    controller = text.labels(at + 2, names)
    (attack, attacked), blocks = declared
    attack_ids = np.arange(attack, attack + 2 * attacked, 2, dtype=I64)
    players_attacked = text.labels(attack_ids + 1, names)
    if controller is None or players_attacked is None:
        return None
    width = keyed[0][0] if keyed else None
    block = np.arange(blocks[0], blocks[0] + 2 * blocks[1], 2, dtype=I64)
    return Battle(
        ids,
        controller,
        numbers[0].tolist(),
        numbers[1].tolist(),
        (text.names(attack_ids, width), players_attacked),
        (text.names(block, width), text.names(block + 1, width)),
        listed_keywords(ids, wide.tolist(), texts),
        keyed[0] if keyed else None,
    )
