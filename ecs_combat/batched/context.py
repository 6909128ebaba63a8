"""The batched engine's :class:`~ecs_combat.plugin.batch_context.BatchContext`: a thin facade over
one run of a batch (:class:`~ecs_combat.batched.state.Run`)."""

from __future__ import annotations

from typing import TypeVar

import numpy as np
import numpy.typing as npt

from ecs_combat.batched import keywords
from ecs_combat.batched.actions import (
    blockers_of,
    destroy_rows,
    leave,
    lose_life,
    remove_damage,
    remove_from_combat,
    sacrifice,
)
from ecs_combat.batched.keywords import (
    add_counters,
    counter,
    has,
    has_counters,
    instances,
    lands,
    pump,
    types,
)
from ecs_combat.batched.returns import return_to_battlefield
from ecs_combat.batched.sacrifices import choose_sacrifices
from ecs_combat.batched.state import Run
from ecs_combat.batched.tokens import create_token
from ecs_combat.batched.views import ability_targets
from ecs_combat.plugin.context import BoolArray, G, IntArray, StateArray

T = TypeVar("T", bound=np.generic)


def read_only(array: npt.NDArray[T]) -> npt.NDArray[T]:
    """A view of an array that raises on writing."""
    view = array.view()
    view.flags.writeable = False
    return view


class BatchedContext:
    """What the systems and triggered abilities of one batch see (docs/plugins.md)."""

    __slots__ = ("_run", "counters_put", "stale")

    def __init__(self, run: Run) -> None:
        self._run = run
        #: While triggers resolve: row mask of the creatures that returned as new objects since
        #: the triggers were put on the stack (400.7), or None. To them the rows are gone: not
        #: on the battlefield, and what they would do to them does nothing.
        self.stale: BoolArray | None = None
        #: While the state-based actions' systems run: the counters they put or removed,
        #: (rows, kind, change per row), so that a creature leaving in that same check leaves
        #: with the counters it had (704.3: the actions happen at once). None otherwise.
        self.counters_put: list[tuple[IntArray, str, IntArray]] | None = None

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
        return len(self._run.players.life)

    @property
    def battles(self) -> int:
        return self._run.nb

    def battle(self) -> IntArray:
        return read_only(self._run.creatures.battle)

    def player_battle(self) -> IntArray:
        return read_only(self._run.players.battle)

    def creature_id(self, row: int) -> str:
        return self._run.cid(row)

    def player_id(self, row: int) -> str:
        return self._run.pid(row)

    def on_battlefield(self) -> BoolArray:
        return read_only(self._known(self._run.creatures.on_bf))

    def new_objects(self) -> BoolArray:
        stale = np.zeros(self._run.n, np.bool_) if self.stale is None else self.stale
        return read_only(stale)

    def attacking(self) -> BoolArray:
        return read_only(self._known(self._run.combat.att))

    def blocking(self) -> BoolArray:
        run = self._run
        return read_only(self._known(run.combat.blocking & run.creatures.on_bf))

    def defending_player(self) -> IntArray:
        run = self._run
        return read_only(np.where(self._known(run.combat.att), run.combat.attacking, -1))

    def _known(self, mask: BoolArray) -> BoolArray:
        """A row mask without the stale rows."""
        return mask if self.stale is None else mask & ~self.stale

    def blocker_count(self) -> IntArray:
        run = self._run
        return read_only(blockers_of(run, np.arange(run.n)))

    def band(self) -> IntArray:
        band = self._run.batch.band
        return read_only(np.full(self._run.n, -1, np.int64) if band is None else band)

    def controller(self) -> IntArray:
        return read_only(self._run.creatures.controller)

    def has(self, keyword: str) -> BoolArray:
        return has(self._run, keyword)

    def instances(self, keyword: str) -> tuple[IntArray, IntArray]:
        return instances(self._run, keyword)

    def power(self) -> IntArray:
        return read_only(self._run.creatures.power)

    def toughness(self) -> IntArray:
        return read_only(self._run.creatures.toughness)

    def damage(self) -> IntArray:
        return read_only(self._run.creatures.marked)

    def colors(self) -> IntArray:
        return read_only(np.asarray(self._run.creatures.colors, np.int64))

    def types(self) -> IntArray:
        return read_only(types(self._run))

    def lands(self) -> IntArray:
        return read_only(lands(self._run))

    def tapped(self) -> BoolArray:
        return read_only(self._run.creatures.tapped)

    def counters(self, kind: str) -> IntArray:
        return read_only(counter(self._run, kind))

    def has_counters(self, kind: str) -> bool:
        return has_counters(self._run, kind)

    def creature_state(self, key: str) -> StateArray:
        return self._run.creatures.states[key]

    def can_target(self, sources: IntArray, targets: IntArray) -> BoolArray:
        targets = np.asarray(targets, np.int64)
        legal: BoolArray = self._known(self._run.creatures.on_bf)[targets]
        return legal & ability_targets(self._run, np.asarray(sources, np.int64), targets)

    def life(self) -> IntArray:
        return read_only(self._run.players.life)

    def lost(self) -> BoolArray:
        return read_only(self._run.players.lost)

    def player_state(self, key: str) -> StateArray:
        return self._run.players.states[key]

    def game_over(self) -> BoolArray:
        return read_only(self._run.players.game_over)

    def pump(self, rows: IntArray, power: IntArray | int, toughness: IntArray | int) -> None:
        keep = self._fresh(rows)
        if keep is not None:
            rows, power, toughness = rows[keep], _kept(power, keep), _kept(toughness, keep)
        pump(self._run, rows, power, toughness)

    def add_counters(self, rows: IntArray, kind: str, change: IntArray | int) -> None:
        keep = self._fresh(rows)
        if keep is not None:
            rows, change = rows[keep], _kept(change, keep)
        add_counters(self._run, rows, kind, change)
        if self.counters_put is not None:
            by = np.zeros(len(rows), np.int64)
            by[:] = change
            self.counters_put.append((np.asarray(rows, np.int64), kind, by))

    def tap(self, rows: IntArray) -> None:
        keep = self._fresh(rows)
        self._run.creatures.tapped[rows if keep is None else rows[keep]] = True

    def untap(self, rows: IntArray) -> None:
        keep = self._fresh(rows)
        self._run.creatures.tapped[rows if keep is None else rows[keep]] = False

    def targets(self, keyword: str) -> tuple[IntArray, IntArray, IntArray]:
        return keywords.targets(self._run, keyword)

    def require_block(self, blockers: IntArray, attackers: IntArray, keyword: str) -> None:
        blockers, attackers = np.asarray(blockers), np.asarray(attackers)
        if self.stale is not None:
            keep = ~self.stale[blockers] & ~self.stale[attackers]
            blockers, attackers = blockers[keep], attackers[keep]
        self._run.combat.required_blocks.append((blockers, attackers, keyword))

    def leave_battlefield(self, rows: IntArray) -> None:
        keep = self._fresh(rows)
        leave(self._run, rows if keep is None else rows[keep])

    def lose_life(self, players: IntArray, amount: IntArray | int) -> None:
        lose_life(self._run, players, amount)

    def sacrifice(self, rows: IntArray) -> None:
        keep = self._fresh(rows)
        sacrifice(self._run, rows if keep is None else rows[keep])

    def create_token(
        self,
        controllers: IntArray,
        characteristics: IntArray,
        tapped: bool = False,
        attacking: IntArray | None = None,
    ) -> IntArray:
        return read_only(create_token(self._run, controllers, characteristics, tapped, attacking))

    def chosen_sacrifices(self, players: IntArray, n: IntArray) -> IntArray:
        return read_only(choose_sacrifices(self._run, players, n))

    def destroy(self, rows: IntArray) -> BoolArray:
        rows = np.asarray(rows, np.int64)
        keep = self._fresh(rows)
        if keep is None:
            return destroy_rows(self._run, rows)
        out = np.zeros(len(rows), np.bool_)
        out[keep] = destroy_rows(self._run, rows[keep])
        return out

    def remove_from_combat(self, rows: IntArray) -> None:
        keep = self._fresh(rows)
        remove_from_combat(self._run, rows if keep is None else rows[keep])

    def remove_damage(self, rows: IntArray) -> None:
        keep = self._fresh(rows)
        remove_damage(self._run, rows if keep is None else rows[keep])

    def return_to_battlefield(self, rows: IntArray) -> None:
        keep = self._fresh(rows)
        return_to_battlefield(self._run, rows if keep is None else np.asarray(rows)[keep])

    def marks(self, name: str, dtype: type[G]) -> npt.NDArray[G]:
        column: npt.NDArray[G] = keywords.column(self._run, name, dtype)
        return column

    def has_marks(self, name: str) -> bool:
        return name in self._run.columns


def _kept(value: IntArray | int, keep: BoolArray) -> IntArray | int:
    """An action's per-row value for the rows kept (a number stays as it is)."""
    if np.ndim(value) == 0:
        return value
    kept: IntArray = np.asarray(value)[keep]
    return kept
