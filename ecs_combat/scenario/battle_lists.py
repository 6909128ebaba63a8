"""One battle's JSON text decoded without a dictionary per creature (:func:`listed_battle`):
how ``resolve`` reads a battle of many creatures of the common shape quickly.

The text's braces and colons are translated into brackets and commas (``bytes.translate``),
so orjson decodes each object as a list of its keys and values: a creature is a list, its
controller, power and toughness in places 1, 3 and 5, and the creatures are columns without
a dictionary each. What the translation loses (which brackets were braces, which commas
colons, and what the strings held of them) is checked over the whole text at once: the text
kept to its brackets, braces, colons, commas and quotes (``bytes.translate`` deleting the
rest) must be exactly what a document of the shape read here has, ``"":{"":"","":,"":}`` for
a creature without keywords. When it is, the text is valid JSON, its strings hold no such
character, and it decodes to the dictionaries the lists stand for; when anything is unusual
(another shape, another order of keys, a key given twice), :func:`listed_battle` gives None
and the document is read as dictionaries, by the same row reader
(:func:`~ecs_combat.scenario.battle_rows.battle_rows` takes both).
"""

from __future__ import annotations

from functools import cache
from operator import itemgetter
from typing import Any

import numpy as np
import orjson

from ecs_combat.scenario.battle_rows import Battle, Listed, listed_keywords
from ecs_combat.scenario.row_columns import I64

_AS_LISTS = bytes.maketrans(b"{}:", b"[],")
#: Every byte but those the shape is checked by.
_OTHERS = bytes(sorted(set(range(256)) - set(b'{}[]:,"')))
_TOP = ("players", "creatures", "combat")
_COMBAT = ("attackers", "blockers")
#: The keys of a creature read here, in the order they must be written.
_KEYS = ("controller", "power", "toughness", "keywords")
#: A creature without keywords, its id included, kept to its structure.
_PLAIN = b'"":{"":"","":,"":}'


@cache
def _with_keywords(m: int) -> bytes:
    """A creature with `m` keywords, its id included, kept to its structure."""
    return b'"":{"":"","":,"":,"":[' + b",".join([b'""'] * m) + b"]}"


def _pairs(listed: Any) -> dict[Any, Any] | None:
    """An object decoded as a list of keys and values, as a dictionary; None for a key given
    twice (or anything that is not such a list)."""
    if type(listed) is not list or len(listed) % 2:
        return None
    try:
        out = dict(zip(listed[0::2], listed[1::2], strict=True))
    except TypeError:  # a key that can't be one (a list)
        return None
    return out if 2 * len(out) == len(listed) else None


def _scalars(table: dict[Any, Any]) -> bytes:
    """An object of scalars kept to its structure."""
    return b"{" + b",".join([b'"":'] * len(table)) + b"}"


def listed_battle(raw: bytes) -> Listed | None:
    """The battle of a JSON text (ASCII without a backslash) as columns, or None unless it is
    one object of players, creatures whose keys are exactly controller, power, toughness and
    perhaps keywords, in that order, and attackers and blockers."""
    try:
        top = _pairs(orjson.loads(raw.translate(_AS_LISTS)))
    except orjson.JSONDecodeError:
        return None
    if top is None or "players" not in top or not set(top).issubset(_TOP):
        return None
    skeleton: dict[str, bytes] = {}
    players = _pairs(top["players"])
    combat = _pairs(top.get("combat", []))
    if players is None or combat is None or not set(combat).issubset(_COMBAT):
        return None
    for pid, t in players.items():
        players[pid] = _pairs(t)
        if players[pid] is None:
            return None
    skeleton["players"] = b"{" + b",".join(b'"":' + _scalars(t) for t in players.values()) + b"}"
    declared: dict[str, tuple[list[Any], list[Any]]] = {}
    for key, pairs in combat.items():
        if type(pairs) is not list or len(pairs) % 2:
            return None
        declared[key] = (pairs[0::2], pairs[1::2])
    skeleton["combat"] = (
        b"{"
        + b",".join(b'"":{' + b",".join([b'"":""'] * len(p[0])) + b"}" for p in declared.values())
        + b"}"
    )
    found = _creatures(
        top.get("creatures", []), (declared.get("attackers"), declared.get("blockers"))
    )
    if found is None:
        return None
    battle, skeleton["creatures"] = found
    if raw.translate(None, _OTHERS) != b"{" + b",".join(b'"":' + skeleton[k] for k in top) + b"}":
        return None
    return Listed(players, battle)


def _creatures(
    listed: Any, declared: tuple[tuple[list[Any], list[Any]] | None, ...]
) -> tuple[Battle, bytes] | None:
    """The creatures (a list of ids and tables as lists) and the declarations as a
    :class:`Battle`, and the creatures kept to their structure; None unless every table is
    of the shape read here."""
    if type(listed) is not list or len(listed) % 2:
        return None
    ids, tables = listed[0::2], listed[1::2]
    n = len(tables)
    try:
        sizes = np.fromiter(map(len, tables), I64, n)
        keys = set(map(itemgetter(0, 2, 4), tables))  # a set of tuples: the quickest check
    except (TypeError, IndexError):
        return None
    wide = np.flatnonzero(sizes != 6).tolist()
    if (keys != {_KEYS[:3]} and n) or (sizes[wide] != 8).any():
        return None
    texts = [tables[i][7] for i in wide]
    if [tables[i][6] for i in wide].count("keywords") != len(wide):
        return None
    if not all(type(t) is list for t in texts):
        return None
    pieces = [_PLAIN] * n
    for i, t in zip(wide, texts, strict=True):
        pieces[i] = _with_keywords(len(t))

    empty: tuple[list[Any], list[Any]] = ([], [])
    battle = Battle(
        ids,
        list(map(itemgetter(1), tables)),
        list(map(itemgetter(3), tables)),
        list(map(itemgetter(5), tables)),
        declared[0] or empty,
        declared[1] or empty,
        listed_keywords(ids, wide, list(map(tuple, texts))),
    )
    return battle, b"{" + b",".join(pieces) + b"}"
