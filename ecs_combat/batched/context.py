"""The batched engine's :class:`~ecs_combat.plugin.context.BatchContext`: a thin facade over
one run of a batch (:class:`~ecs_combat.batched.engine._Run`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

import numpy as np
import numpy.typing as npt

from ecs_combat.batched.views import ability_targets
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

    __slots__ = ("_run", "stale")

    def __init__(self, run: _Run) -> None:
        self._run = run
        #: While triggers resolve: row mask of the creatures that returned as new objects since
        #: the triggers were put on the stack (400.7), or None. To them the rows are gone: not
        #: on the battlefield, and what they would do to them does nothing.
        self.stale: BoolArray | None = None

    def _fresh(self, rows: IntArray) -> BoolArray | None:
        """Which of `rows` are not stale, or None if all are."""
        if self.stale is None:
            return None
        keep: BoolArray = ~self.stale[np.asarray(rows, np.int64)]
        return None if keep.all() else keep

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
        return read_only(self._known(self._run.on_bf))

    def attacking(self) -> BoolArray:
        return read_only(self._known(self._run.att))

    def blocking(self) -> BoolArray:
        run = self._run
        return read_only(self._known(run.blocking & run.on_bf))

    def defending_player(self) -> IntArray:
        run = self._run
        return read_only(np.where(self._known(run.att), run.attacking, -1))

    def _known(self, mask: BoolArray) -> BoolArray:
        """A row mask without the stale rows."""
        return mask if self.stale is None else mask & ~self.stale

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

    def can_target(self, sources: IntArray, targets: IntArray) -> BoolArray:
        targets = np.asarray(targets, np.int64)
        legal: BoolArray = self._known(self._run.on_bf)[targets]
        return legal & ability_targets(self._run, np.asarray(sources, np.int64), targets)

    def life(self) -> IntArray:
        return read_only(self._run.life)

    def lost(self) -> BoolArray:
        return read_only(self._run.lost)

    def player_state(self, key: str) -> StateArray:
        return self._run.player_state(key)

    def game_over(self) -> BoolArray:
        return read_only(self._run.game_over)

    def pump(self, rows: IntArray, power: IntArray | int, toughness: IntArray | int) -> None:
        keep = self._fresh(rows)
        if keep is not None:
            rows, power, toughness = rows[keep], _kept(power, keep), _kept(toughness, keep)
        self._run.pump(rows, power, toughness)

    def add_counters(self, rows: IntArray, kind: str, change: IntArray | int) -> None:
        keep = self._fresh(rows)
        if keep is not None:
            rows, change = rows[keep], _kept(change, keep)
        self._run.add_counters(rows, kind, change)

    def tap(self, rows: IntArray) -> None:
        keep = self._fresh(rows)
        self._run.tapped[rows if keep is None else rows[keep]] = True

    def untap(self, rows: IntArray) -> None:
        keep = self._fresh(rows)
        self._run.tapped[rows if keep is None else rows[keep]] = False

    def targets(self, keyword: str) -> tuple[IntArray, IntArray, IntArray]:
        return self._run.targets(keyword)

    def require_block(self, blockers: IntArray, attackers: IntArray, keyword: str) -> None:
        blockers, attackers = np.asarray(blockers), np.asarray(attackers)
        if self.stale is not None:
            keep = ~self.stale[blockers] & ~self.stale[attackers]
            blockers, attackers = blockers[keep], attackers[keep]
        self._run.required_blocks.append((blockers, attackers, keyword))

    def leave_battlefield(self, rows: IntArray) -> None:
        keep = self._fresh(rows)
        self._run.leave(rows if keep is None else rows[keep])

    def lose_life(self, players: IntArray, amount: IntArray | int) -> None:
        self._run.lose_life(players, amount)

    def sacrifice(self, rows: IntArray) -> None:
        keep = self._fresh(rows)
        self._run.sacrifice(rows if keep is None else rows[keep])

    def return_to_battlefield(self, rows: IntArray) -> None:
        self._run.return_to_battlefield(rows)

    def marks(self, name: str, dtype: type[G]) -> npt.NDArray[G]:
        column: npt.NDArray[G] = self._run.column(name, dtype)
        return column

    def has_marks(self, name: str) -> bool:
        return self._run.has_column(name)


def _kept(value: IntArray | int, keep: BoolArray) -> IntArray | int:
    """An action's per-row value for the rows kept (a number stays as it is)."""
    if np.ndim(value) == 0:
        return value
    kept: IntArray = np.asarray(value)[keep]
    return kept
