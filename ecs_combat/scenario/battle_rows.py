"""One battle of many creatures added to the row reader's columns a column at a time
(:func:`battle_rows`): a few look-ups per creature, the checks over arrays, the same columns
and the same lines refused (:class:`Unusual`) as the line loop of
:meth:`~ecs_combat.scenario.quick_rows.RowReader.read`."""

from __future__ import annotations

from operator import itemgetter
from typing import TYPE_CHECKING, Any

import numpy as np

from ecs_combat.scenario.row_columns import I64, Columns

if TYPE_CHECKING:
    from ecs_combat.scenario.quick_rows import RowReader

_CONTROLLER, _POWER, _TOUGHNESS = (
    itemgetter("controller"),
    itemgetter("power"),
    itemgetter("toughness"),
)
#: What a keyword list not read yet is remembered as.
_UNREAD: Any = object()


class Unusual(Exception):
    """The line is not of the common shape: the full reader reads it."""


def battle_rows(
    reader: RowReader,
    creatures: dict[str, Any],
    combat: tuple[dict[str, Any], dict[str, Any]],
    place: dict[str, int],
    c: Columns,
    a0: int,
) -> int:
    """The creatures, attacks (``combat[0]``) and blocks (``combat[1]``) of one battle added
    to `c` (`a0` attackers before it); how many strings the creatures' tables hold besides
    their ids, keys and controllers. Unusual (or KeyError) for a battle the line loop
    refuses."""
    attackers, blockers = combat
    p0, c0, n = len(c.life) - len(place), len(c.power), len(creatures)  # before this battle
    tables = list(creatures.values())
    if set(map(type, tables)) != {dict} or not place.keys().isdisjoint(creatures):
        raise Unusual
    controller = list(map(place.__getitem__, map(_CONTROLLER, tables)))
    c.controller += controller
    c.power += map(_POWER, tables)
    c.toughness += map(_TOUGHNESS, tables)
    strings = 0  # the ids, 3 keys and a controller are counted by the caller
    marks = (p0, c0, len(c.others), len(c.attack_row), len(c.block_order))
    wide = np.flatnonzero(np.fromiter(map(len, tables), I64, n) != 3).tolist()
    if wide:  # creatures with more than a controller, power and toughness
        strings += _wide(reader, (list(creatures), tables), wide, c0, c)
    row = dict(zip(creatures, range(c0, c0 + n), strict=True))
    owner = np.array(controller, I64)
    attack_row = np.fromiter(map(row.__getitem__, attackers), I64, len(attackers))
    attack_player = np.fromiter(map(place.__getitem__, attackers.values()), I64)
    if (attack_player == p0).any() or (owner[attack_row - c0] != p0).any():
        raise Unusual  # the first player attacks another
    c.attack_row += attack_row.tolist()
    c.attack_player += attack_player.tolist()
    if blockers:
        if not attackers.keys().isdisjoint(blockers):
            raise Unusual
        blocker = np.fromiter(map(row.__getitem__, blockers), I64, len(blockers))
        blocked = np.fromiter(map(row.__getitem__, blockers.values()), I64, len(blockers))
        # each creature's place among the attackers (-1: not attacking)
        attack = np.full(n, -1, I64)
        attack[attack_row - c0] = np.arange(len(attack_row))
        k = attack[blocked - c0]
        if (k < 0).any() or (attack_player[k] != owner[blocker - c0]).any():
            raise Unusual  # it blocks a creature not attacking its controller
        c.block_order += (k + a0).tolist()
        c.block_blocker += blocker.tolist()
        c.block_attacker += blocked.tolist()
    if len(c.others) > marks[2] and not reader.legal(c, c0, marks):
        raise Unusual
    return strings


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
    memory, others = reader.keyword_lists, c.others
    ids, tables = given
    for i in wide:
        t = tables[i]
        texts = t.get("keywords") if len(t) == 4 else None
        if type(texts) is not list:
            strings += reader.other(ids[i], t, c0 + i, c)
            continue
        listed = tuple(texts)
        kept = memory.get(listed, _UNREAD)
        if kept is _UNREAD:
            kept = memory[listed] = reader.keywords(listed)
        if kept is None:
            raise Unusual
        others.append((c0 + i, ids[i], 0, kept if kept[0] else None, 0, 0, None))
        strings += 1 + len(texts)
    return strings
