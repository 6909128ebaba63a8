"""The Python API's battles from arrays (:func:`ecs_combat.api.battles`) checked as a scenario
file is (RULES 11.2): what a file refuses, the arrays refuse, with the file's message.

The problems are found over whole arrays; the first one's message is the scenario loader's
own, for that battle written as a scenario document (creature ids ``row<i>``, the row of the
arrays), placed at the array and row (``toughness[3]``, ``blocks[4]``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from ecs_combat.errors import InputError
from ecs_combat.plugin.definitions import COLORS, FROM_WORDS
from ecs_combat.plugin.registry import Registry
from ecs_combat.scenario.loader import parse_scenario

if TYPE_CHECKING:
    from ecs_combat.api_arrays import Creatures

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
#: The players of every battle from arrays: A attacks B.
PLAYERS = ("A", "B")


def row_id(row: int) -> str:
    """A creature's id in the messages: its row of the arrays."""
    return f"row{row}"


def check_arrays(
    battle: IntArray,
    side: IntArray,
    power: IntArray,
    toughness: IntArray,
    blocks: IntArray,
    creatures: Creatures,
    attacks: BoolArray,
    declared: BoolArray,
    life: int,
    registry: Registry,
) -> None:
    """Raise the loader's :class:`InputError` for the first problem a file would have: a
    player at 0 or less life (704.5a), a creature at toughness 0 or less (704.5f), a block the
    rules forbid (509.1a-b: a flyer blocked by a creature without flying or reach, a menace
    attacker blocked by one creature). `attacks` is, per row, whether it attacks (a creature
    of A that can't, such as one with defender, stays back); `declared`, whether its block (if
    any) was kept as legal."""
    columns = Columns(battle, side, power, toughness, blocks, creatures, attacks, life)
    if life <= 0:
        columns.refuse(0, "life", registry)
    bad = np.flatnonzero(toughness <= 0)
    if bad.size:
        columns.refuse(int(bad[0]), "toughness", registry)
    kinds = registry.counter_kinds
    starting = toughness.copy()
    for kind, counts in creatures.counters.items():
        if kind in kinds:
            starting += kinds[kind].toughness * counts
    bad = np.flatnonzero(starting <= 0)
    if bad.size:
        columns.refuse(int(bad[0]), "counters", registry)
    dropped = np.flatnonzero((blocks >= 0) & ~declared)
    if dropped.size:
        columns.refuse(int(dropped[0]), "blocks", registry)


@dataclass(frozen=True)
class Columns:
    """The arrays of :func:`ecs_combat.api.battles`, as checked."""

    battle: IntArray
    side: IntArray
    power: IntArray
    toughness: IntArray
    blocks: IntArray
    creatures: Creatures
    attacks: BoolArray
    life: int

    def refuse(self, row: int, array: str, registry: Registry) -> None:
        """Raise the loader's error for the battle of `row`, placed at ``array[row]``."""
        rows = np.flatnonzero(self.battle == self.battle[row]).tolist()
        try:
            parse_scenario(self.document(rows), registry, "arrays")
        except InputError as exc:
            where = "life" if array == "life" else f"{array}[{row}]"
            raise InputError(None, where, exc.message) from None
        raise AssertionError(f"battle {int(self.battle[row])} passed the loader's checks")

    def creature(self, r: int) -> dict[str, Any]:
        """One row as a creature table: keywords with their parameters, colors, counters."""
        given = self.creatures
        keywords = []
        for name, has in zip(given.names, given.has, strict=True):
            p = given.parameters.get(name)
            if p is None:
                keywords += [name] if has[r] else []
            elif p[r] >= 0:
                value = int(p[r])
                keywords.append(
                    f"{name} from {FROM_WORDS[value]}"
                    if name in given.qualities
                    else f"{name} {value}"
                )
        table: dict[str, Any] = {
            "controller": PLAYERS[int(self.side[r])],
            "power": int(self.power[r]),
            "toughness": int(self.toughness[r]),
            "keywords": keywords,
        }
        if given.colors is not None:
            table["colors"] = [c for i, c in enumerate(COLORS) if int(given.colors[r]) >> i & 1]
        counters = {k: int(v[r]) for k, v in given.counters.items() if v[r] > 0}
        if counters:
            table["counters"] = counters
        return table

    def document(self, rows: list[int]) -> dict[str, Any]:
        """One battle of the arrays as a scenario document."""
        creatures = {row_id(r): self.creature(r) for r in rows}
        blocks = self.blocks
        return {
            "players": {p: {"life": self.life} for p in PLAYERS},
            "creatures": creatures,
            "combat": {
                "attackers": {row_id(r): "B" for r in rows if self.attacks[r]},
                "blockers": {row_id(r): row_id(int(blocks[r])) for r in rows if blocks[r] >= 0},
            },
        }
