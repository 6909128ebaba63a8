"""The columns of the common shape's lines (:class:`LineRows`), as the row reader
(:class:`~ecs_combat.scenario.quick_rows.RowReader`) gathers them and checks them over arrays:
that every number is an integer in range, every life above 0, every toughness above 0 with
damage below it, every id more than spaces (:func:`checked_rows`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ecs_combat.plugin.definitions import CARD_TYPES, COLORS, color_mask, type_mask
from ecs_combat.scenario.checks import LIMIT
from ecs_combat.scenario.instances import Parameter

IntArray = npt.NDArray[np.int64]
#: How many players, creatures, others, attacks and blocks the columns hold.
Marks = tuple[int, int, int, int, int]
I64 = np.int64
#: A creature's keyword instances: their names and parameters.
Keywords = tuple[tuple[str, ...], tuple[Parameter, ...]]


@dataclass
class LineRows:
    """The rows of the lines :meth:`RowReader.read` took, battle i being the i-th: players and
    creatures in each line's order; rows are numbered from 0 over all the lines."""

    n_battles: int
    player_battle: IntArray
    player_ids: list[str]
    life: IntArray
    battle: IntArray
    creature_ids: list[str]
    creature_names: list[str]
    controller: IntArray  #: player row
    power: IntArray
    toughness: IntArray
    damage: IntArray
    #: Each creature's keyword instances, or None for none.
    keywords: list[Keywords | None]
    colors: IntArray
    types: IntArray
    attacking: IntArray  #: the player row it attacks, or -1
    #: Blocks grouped by attacker in attack order, each attacker's blockers in declaration
    #: order: creature rows.
    block_blocker: IntArray
    block_attacker: IntArray
    #: The attackers in the order each line declares them: creature rows.
    attack_order: IntArray
    #: Each block's place among the blocks in the order the lines declare them.
    block_order: IntArray
    #: The creatures given a ``value``: creature row -> value.
    values: dict[int, int]


class Columns:
    """The lines read so far, as lists (rows numbered over all the lines)."""

    def __init__(self) -> None:
        self.n_players: list[int] = []
        self.n_creatures: list[int] = []
        self.player_ids: list[str] = []
        self.life: list[Any] = []
        self.creature_ids: list[str] = []
        self.controller: list[int] = []
        self.power: list[Any] = []
        self.toughness: list[Any] = []
        #: (creature row, name, damage, keywords, colors, types, value) of the creatures with
        #: keys beyond controller, power and toughness.
        self.others: list[tuple[int, str, Any, Keywords | None, int, int, int | None]] = []
        #: Attacks: the creature row, the player row attacked.
        self.attack_row: list[int] = []
        self.attack_player: list[int] = []
        #: Blocks in declaration order: the attacker's place among every line's attackers,
        #: the blocker's row, the attacker's row.
        self.block_order: list[int] = []
        self.block_blocker: list[int] = []
        self.block_attacker: list[int] = []

    def marks(self) -> Marks:
        """How many players, creatures, others, attacks and blocks are read so far."""
        return (
            len(self.life),
            len(self.power),
            len(self.others),
            len(self.attack_row),
            len(self.block_order),
        )

    def cut(self, marks: Marks) -> None:
        """Drop what a line that turned out unusual added (its ids, counts and places are
        added only once it is known to be usual)."""
        players, creatures, others, attacks, blocks = marks
        del self.life[players:], self.controller[creatures:], self.power[creatures:]
        del self.toughness[creatures:], self.others[others:]
        del self.attack_row[attacks:], self.attack_player[attacks:]
        del self.block_order[blocks:], self.block_blocker[blocks:], self.block_attacker[blocks:]


def checked_rows(c: Columns) -> tuple[LineRows | None, set[int]]:
    """The rows, when every line's numbers and ids are right (integers in range, life and
    toughness above 0, damage below toughness, ids more than spaces); else the lines (their
    places among those read) that are not."""
    nb, n_creatures = len(c.n_players), len(c.creature_ids)
    pbattle = np.repeat(np.arange(nb, dtype=I64), c.n_players)
    cbattle = np.repeat(np.arange(nb, dtype=I64), c.n_creatures)
    bad: set[int] = set()
    life = _integers(c.life, pbattle, bad)
    power = _integers(c.power, cbattle, bad)
    toughness = _integers(c.toughness, cbattle, bad)
    damage = np.zeros(n_creatures, I64)
    names: list[str] = c.creature_ids
    keywords: list[Keywords | None] = [None] * n_creatures
    colors = np.zeros(n_creatures, I64)
    types = np.zeros(n_creatures, I64)
    values: dict[int, int] = {}
    if c.others:  # their columns put in place over arrays
        rows_at, named, given_damage, found, color, kind, value = zip(*c.others, strict=True)
        rows = np.array(rows_at, I64)
        names = _placed(c.creature_ids, rows, named).tolist()
        keywords = _placed([None] * n_creatures, rows, found).tolist()
        colors[rows], types[rows] = color, kind
        values = {r: v for r, v in zip(rows_at, value, strict=True) if v is not None}
        given = _integers(list(given_damage), cbattle[rows], bad)
        if given is not None:
            damage[rows] = given
    if not all(map(str.strip, c.player_ids)):
        bad.update(pbattle[[not p.strip() for p in c.player_ids]].tolist())
    if not all(map(str.strip, c.creature_ids)):
        bad.update(cbattle[[not x.strip() for x in c.creature_ids]].tolist())
    if life is not None:
        bad.update(pbattle[life <= 0].tolist())
    if toughness is not None:
        bad.update(cbattle[(damage < 0) | (damage >= toughness)].tolist())
    if bad or life is None or power is None or toughness is None:
        return None, bad
    attacking = np.full(n_creatures, -1, I64)
    attack_order = np.array(c.attack_row, I64)
    attacking[attack_order] = np.array(c.attack_player, I64)
    order = np.argsort(np.array(c.block_order, I64), kind="stable")  # by attacker, as declared
    return LineRows(
        n_battles=nb,
        player_battle=pbattle,
        player_ids=c.player_ids,
        life=life,
        battle=cbattle,
        creature_ids=c.creature_ids,
        creature_names=names,
        controller=np.array(c.controller, I64),
        power=power,
        toughness=toughness,
        damage=damage,
        keywords=keywords,
        colors=colors,
        types=types,
        attacking=attacking,
        block_blocker=np.array(c.block_blocker, I64)[order],
        block_attacker=np.array(c.block_attacker, I64)[order],
        attack_order=attack_order,
        block_order=order,
        values=values,
    ), bad


def _placed(column: list[Any], rows: IntArray, values: tuple[Any, ...]) -> npt.NDArray[np.object_]:
    """A column of objects with `values` put at `rows`."""
    out = np.fromiter(column, object, len(column))
    out[rows] = np.fromiter(values, object, len(values))
    return out


def _integers(values: list[Any], battle: IntArray, bad: set[int]) -> IntArray | None:
    """Values that must be integers within the limit, as an array; the lines of others are
    added to `bad` (None: some are not)."""
    if set(map(type, values)) - {int}:
        bad.update(battle[[type(v) is not int for v in values]].tolist())
        return None
    try:
        found = np.array(values, I64)
    except OverflowError:
        bad.update(battle[[abs(v) > LIMIT for v in values]].tolist())
        return None
    out = np.abs(found) > LIMIT
    if out.any():
        bad.update(battle[out].tolist())
        return None
    return found


def list_mask(listed: tuple[Any, ...], allowed: tuple[str, ...]) -> int | None:
    """The bit mask of colors or card types written as the full reader keeps them (each once,
    in `allowed` order), or None."""
    if list(listed) != [n for n in allowed if n in listed]:
        return None
    return color_mask(listed) if allowed is COLORS else type_mask(listed)


def mask_names(mask: int, allowed: tuple[str, ...]) -> tuple[str, ...]:
    """The names of a mask's bits, in `allowed` order."""
    return _NAMES[allowed][mask] if mask else ()


#: The names of each mask of colors and of card types.
_NAMES: dict[tuple[str, ...], list[tuple[str, ...]]] = {
    allowed: [
        tuple(n for i, n in enumerate(allowed) if m >> i & 1) for m in range(1 << len(allowed))
    ]
    for allowed in (COLORS, CARD_TYPES)
}
