"""One battle of many creatures added to the row reader's columns a column at a time
(:func:`battle_rows`): a few look-ups per creature, the checks over arrays, the same columns
and the same lines refused (:class:`Unusual`) as the line loop of
:meth:`~ecs_combat.scenario.quick_rows.RowReader.read`.

A battle comes here as a :class:`Battle`, its columns as its text gives them: from the
decoded document's dictionaries (:func:`dict_battle`), or from the lists of a battle's text
decoded without a dictionary per creature (:mod:`~ecs_combat.scenario.battle_lists`).
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import repeat
from operator import itemgetter
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import numpy.typing as npt

from ecs_combat.scenario.row_columns import I64, Columns, IntArray

if TYPE_CHECKING:
    from ecs_combat.scenario.quick_rows import Keywords, RowReader

_CONTROLLER, _POWER, _TOUGHNESS = (
    itemgetter("controller"),
    itemgetter("power"),
    itemgetter("toughness"),
)
#: What a keyword list not read yet is remembered as.
_UNREAD: Any = object()


class Unusual(Exception):
    """The line is not of the common shape: the full reader reads it."""


#: How a battle's creatures with keys beyond controller, power and toughness are added to the
#: columns (the reader, the columns, the battle's first creature row); how many strings those
#: keys and values hold.
Wide = Callable[["RowReader", Columns, int], int]


#: A battle's ids as :class:`IdTable` keys them: the longest id's length (at least 1), and
#: each id's bytes up to it (8 or fewer read as one integer).
IdKeys = tuple[int, npt.NDArray[Any]]


class KeyedNames:
    """Creatures' names given as :class:`IdTable` keys for ids of at most `width` bytes (none
    of the names longer), not as strings."""

    def __init__(self, width: int, keys: npt.NDArray[Any]) -> None:
        self.width = width
        self.keys = keys

    def __len__(self) -> int:
        return len(self.keys)


#: Creatures' names: strings (or anything a document holds), or keys.
Names = list[Any] | KeyedNames


class Battle(NamedTuple):
    """One battle's creatures and declarations, a column each, in the order of its text."""

    ids: list[str]
    #: Each creature's controller, power and toughness as given.
    controller: list[Any]
    power: list[Any]
    toughness: list[Any]
    #: The attackers' ids and the players they attack.
    attackers: tuple[Names, list[Any]]
    #: The blockers' ids and the attackers they block.
    blockers: tuple[Names, Names]
    #: The creatures with other keys.
    wide: Wide
    #: The ids as :class:`IdTable` keys them, when already made.
    keys: IdKeys | None = None


class Listed(NamedTuple):
    """A battle read from its text without a dictionary per creature: its players as the
    decoded document gives them, its creatures and declarations as columns."""

    players: dict[str, Any]
    battle: Battle


def dict_battle(
    creatures: dict[str, Any], attackers: dict[str, Any], blockers: dict[str, Any]
) -> Battle:
    """The columns of a battle decoded as dictionaries (keys given once); Unusual (or
    KeyError) unless every creature is a table with a controller, power and toughness."""
    tables = list(creatures.values())
    if set(map(type, tables)) != {dict}:
        raise Unusual
    ids = list(creatures)
    n = len(tables)

    def wide(reader: RowReader, c: Columns, c0: int) -> int:
        found = np.flatnonzero(np.fromiter(map(len, tables), I64, n) != 3).tolist()
        return _wide(reader, (ids, tables), found, c0, c) if found else 0

    return Battle(
        ids,
        list(map(_CONTROLLER, tables)),
        list(map(_POWER, tables)),
        list(map(_TOUGHNESS, tables)),
        (list(attackers), list(attackers.values())),
        (list(blockers), list(blockers.values())),
        wide,
    )


def battle_rows(
    reader: RowReader, battle: Battle, place: dict[str, int], c: Columns, a0: int
) -> int:
    """The creatures, attacks and blocks of one battle added to `c` (`a0` attackers before
    it); how many strings its creatures' tables hold besides their ids, keys and
    controllers. Unusual (or KeyError) for a battle the line loop refuses: a creature id
    given twice or also a player's, an attacker or blocker given twice, a creature both
    attacking and blocking."""
    p0, c0, n = len(c.life) - len(place), len(c.power), len(battle.ids)  # before this battle
    ids = IdTable(battle.ids, battle.keys)
    if not ids.unique or (ids.places(list(place)) >= 0).any():
        raise Unusual  # an id given twice, or a player's
    controller = list(map(place.__getitem__, battle.controller))
    c.controller += controller
    c.power += battle.power
    c.toughness += battle.toughness
    marks = (p0, c0, len(c.others), len(c.attack_row), len(c.block_order))
    strings = battle.wide(reader, c, c0)
    owner = np.array(controller, I64)
    (attack_ids, attacked), (block_ids, blocked_ids) = battle.attackers, battle.blockers
    attacker = ids.places(attack_ids)
    attack_player = np.fromiter(map(place.__getitem__, attacked), I64, len(attacked))
    if (attacker < 0).any() or (attack_player == p0).any() or (owner[attacker] != p0).any():
        raise Unusual  # not a creature, or the first player attacks another
    # each creature's place among the attackers (-1: not attacking)
    attack = np.full(n, -1, I64)
    attack[attacker] = np.arange(len(attacker))
    if (attack[attacker] != np.arange(len(attacker))).any():
        raise Unusual  # an attacker given twice
    c.attack_row += (attacker + c0).tolist()
    c.attack_player += attack_player.tolist()
    if block_ids:
        blocker, blocked = ids.places(block_ids), ids.places(blocked_ids)
        if (blocker < 0).any() or (blocked < 0).any():
            raise Unusual  # not a creature
        k = attack[blocked]
        if (attack[blocker] >= 0).any() or (k < 0).any():
            raise Unusual  # an attacker blocks, or a creature not attacking is blocked
        if (attack_player[k] != owner[blocker]).any():
            raise Unusual  # it blocks a creature not attacking its controller
        once = np.zeros(n, np.bool_)
        once[blocker] = True
        if once.sum() != len(block_ids):
            raise Unusual  # a blocker given twice
        c.block_order += (k + a0).tolist()
        c.block_blocker += (blocker + c0).tolist()
        c.block_attacker += (blocked + c0).tolist()
    if len(c.others) > marks[2] and not reader.legal(c, c0, marks):
        raise Unusual
    return strings


class IdTable:
    """A battle's creature ids as fixed-width bytes, sorted: where each of many names is among
    them, over arrays, without a dictionary of a million strings."""

    def __init__(self, ids: list[str], given: IdKeys | None = None) -> None:
        self.ids = ids
        if given is None:
            self.width = max(map(len, ids), default=1) or 1
            keys, _ = self._keys(ids)
        else:
            self.width, keys = given
        self.keys = keys
        self.order = np.argsort(keys, kind="stable")
        self.sorted = keys[self.order]
        #: Whether no id is given twice.
        self.unique = not bool((self.sorted[1:] == self.sorted[:-1]).any())

    def _keys(self, names: list[Any]) -> tuple[npt.NDArray[Any], npt.NDArray[np.bool_]]:
        """Strings as keys: their first bytes up to this table's width (8 or fewer read as
        one integer), and which are longer (none of the ids); Unusual for anything else."""
        if set(map(type, names)) - {str}:
            raise Unusual
        n, w = len(names), self.width
        try:  # one byte more than the width: a string longer has it
            text = np.fromiter(names, f"S{w + 1}", n).view(np.uint8).reshape(n, w + 1)
        except UnicodeEncodeError:
            raise Unusual from None
        return id_keys(text, w), text[:, w] != 0

    def places(self, names: Names) -> IntArray:
        """Each name's place among the ids, -1 for a name not among them (strings or keys
        of this table's width only)."""
        if isinstance(names, KeyedNames):
            if names.width != self.width:
                raise Unusual
            keys, n = names.keys, len(names)
            none_longer = np.zeros(n, np.bool_)
            if n:  # the ids from one on, in their order: no search
                start = int(self._search(keys[:1], none_longer[:1])[0])
                if (
                    0 <= start <= len(self.keys) - n
                    and (self.keys[start : start + n] == keys).all()
                ):
                    return np.arange(start, start + n, dtype=I64)
            return self._search(keys, none_longer)
        if names and type(names[0]) is str:  # the ids from one on, in their order: no search
            start = self._search(*self._keys([names[0]]))[0]
            if start >= 0 and self.ids[start : start + len(names)] == names:
                return np.arange(start, start + len(names), dtype=I64)
        return self._search(*self._keys(names))

    def _search(self, keys: npt.NDArray[Any], longer: npt.NDArray[np.bool_]) -> IntArray:
        """:meth:`places` of names keyed, found by searching the sorted ids."""
        if not len(self.sorted):
            return np.full(len(keys), -1, I64)
        by = np.argsort(keys)  # searched in order: each search starts where the last ended
        at = np.empty(len(keys), I64)
        at[by] = np.searchsorted(self.sorted, keys[by])
        at = at.clip(max=len(self.sorted) - 1)
        found = (self.sorted[at] == keys) & ~longer
        return np.where(found, self.order[at], -1)


def id_keys(text: npt.NDArray[np.uint8], width: int) -> npt.NDArray[Any]:
    """Keys of strings given as rows of bytes padded with zeros (at least `width` of them):
    their first `width` bytes, 8 or fewer read as one integer."""
    n = len(text)
    if width <= 8:
        keys = np.zeros((n, 8), np.uint8)
        keys[:, :width] = text[:, :width]
        return keys.view(np.uint64).reshape(n)
    return np.ascontiguousarray(text[:, :width]).view(f"S{width}").reshape(n)


def remembered_keywords(reader: RowReader, listed: tuple[Any, ...]) -> Keywords:
    """A keyword list's instances as :meth:`RowReader.keywords` reads them, remembered by the
    reader; Unusual for a list it does not take."""
    kept = reader.keyword_lists.get(listed, _UNREAD)
    if kept is _UNREAD:
        kept = reader.keyword_lists[listed] = reader.keywords(listed)
    if kept is None:
        raise Unusual
    return kept  # type: ignore[no-any-return]


def listed_keywords(ids: list[str], wide: list[int], texts: list[tuple[Any, ...]]) -> Wide:
    """How a battle's creatures `wide` (places among `ids`), whose only other key is
    keywords (their `texts`), are added to the columns."""

    def keywords(reader: RowReader, c: Columns, c0: int) -> int:
        found = {k: remembered_keywords(reader, k) for k in set(texts)}
        kept = list(map({k: v if v[0] else None for k, v in found.items()}.__getitem__, texts))
        rows = (np.array(wide, I64) + c0).tolist()
        names = list(map(ids.__getitem__, wide))
        c.others += zip(rows, names, repeat(0), kept, repeat(0), repeat(0), repeat(None))
        return 0

    return keywords


def _wide(
    reader: RowReader,
    given: tuple[list[str], list[dict[str, Any]]],
    wide: list[int],
    c0: int,
    c: Columns,
) -> int:
    """The creatures ``wide`` of a battle (ids and tables `given`, rows from `c0`), which have
    keys beyond controller, power and toughness, as :meth:`RowReader.other` reads them, those
    with keywords alone quickly; how many strings those keys and values hold."""
    strings = 0
    others = c.others
    ids, tables = given
    for i in wide:
        t = tables[i]
        texts = t.get("keywords") if len(t) == 4 else None
        if type(texts) is not list:
            strings += reader.other(ids[i], t, c0 + i, c)
            continue
        kept = remembered_keywords(reader, tuple(texts))
        others.append((c0 + i, ids[i], 0, kept if kept[0] else None, 0, 0, None))
        strings += 1 + len(texts)
    return strings
