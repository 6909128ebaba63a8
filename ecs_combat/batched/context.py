"""The batched engine's :class:`~ecs_combat.plugin.context.BatchContext`: a thin facade over
one run of a batch (:class:`~ecs_combat.batched.engine._Run`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

import numpy as np
import numpy.typing as npt

from ecs_combat.plugin.context import BoolArray, G, IntArray, StateArray

if TYPE_CHECKING:
    from ecs_combat.batched.engine import _Run

T = TypeVar("T", bound=np.generic)


def read_only(array: npt.NDArray[T]) -> npt.NDArray[T]:
    """A view of an array that raises on writing."""
    view = array.view()
    view.flags.writeable = False
    return view


class BatchedContext:
    """What the systems and triggered abilities of one batch see (docs/plugins.md)."""

    __slots__ = ("_run",)

    def __init__(self, run: _Run) -> None:
        self._run = run

    @property
    def rows(self) -> int:
        return self._run.n

    @property
    def player_rows(self) -> int:
        return len(self._run.life)

    @property
    def battles(self) -> int:
        return self._run.nb

    def battle(self) -> IntArray:
        return read_only(self._run.battle)

    def player_battle(self) -> IntArray:
        return read_only(self._run.player_battle)

    def creature_id(self, row: int) -> str:
        return self._run.cid(row)

    def player_id(self, row: int) -> str:
        return self._run.pid(row)

    def on_battlefield(self) -> BoolArray:
        return read_only(self._run.on_bf)

    def attacking(self) -> BoolArray:
        return read_only(self._run.att)

    def blocking(self) -> BoolArray:
        run = self._run
        return read_only(run.blocking & run.on_bf)

    def defending_player(self) -> IntArray:
        run = self._run
        return read_only(np.where(run.att, run.attacking, -1))

    def blocker_count(self) -> IntArray:
        run = self._run
        return read_only(run.blockers_of(np.arange(run.n)))

    def controller(self) -> IntArray:
        return read_only(self._run.controller)

    def has(self, keyword: str) -> BoolArray:
        return self._run.has(keyword)

    def instances(self, keyword: str) -> tuple[IntArray, IntArray]:
        return self._run.instances(keyword)

    def power(self) -> IntArray:
        return read_only(self._run.power)

    def toughness(self) -> IntArray:
        return read_only(self._run.toughness)

    def damage(self) -> IntArray:
        return read_only(self._run.marked)

    def colors(self) -> IntArray:
        return read_only(np.asarray(self._run.colors, np.int64))

    def types(self) -> IntArray:
        return read_only(self._run.types())

    def lands(self) -> IntArray:
        return read_only(self._run.lands())

    def tapped(self) -> BoolArray:
        return read_only(self._run.tapped)

    def counters(self, kind: str) -> IntArray:
        return read_only(self._run.counter(kind))

    def creature_state(self, key: str) -> StateArray:
        return self._run.creature_state(key)

    def life(self) -> IntArray:
        return read_only(self._run.life)

    def lost(self) -> BoolArray:
        return read_only(self._run.lost)

    def player_state(self, key: str) -> StateArray:
        return self._run.player_state(key)

    def game_over(self) -> BoolArray:
        return read_only(self._run.game_over)

    def pump(self, rows: IntArray, power: IntArray | int, toughness: IntArray | int) -> None:
        self._run.pump(rows, power, toughness)

    def add_counters(self, rows: IntArray, kind: str, change: IntArray | int) -> None:
        self._run.add_counters(rows, kind, change)

    def tap(self, rows: IntArray) -> None:
        self._run.tapped[rows] = True

    def untap(self, rows: IntArray) -> None:
        self._run.tapped[rows] = False

    def targets(self, keyword: str) -> tuple[IntArray, IntArray, IntArray]:
        return self._run.targets(keyword)

    def require_block(self, blockers: IntArray, attackers: IntArray, keyword: str) -> None:
        self._run.required_blocks.append((np.asarray(blockers), np.asarray(attackers), keyword))

    def leave_battlefield(self, rows: IntArray) -> None:
        self._run.leave(rows)

    def lose_life(self, players: IntArray, amount: IntArray | int) -> None:
        self._run.lose_life(players, amount)

    def sacrifice(self, rows: IntArray) -> None:
        self._run.sacrifice(rows)

    def return_to_battlefield(self, rows: IntArray) -> None:
        self._run.return_to_battlefield(rows)

    def marks(self, name: str, dtype: type[G]) -> npt.NDArray[G]:
        column: npt.NDArray[G] = self._run.column(name, dtype)
        return column

    def has_marks(self, name: str) -> bool:
        return self._run.has_column(name)
