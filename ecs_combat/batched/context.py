"""The batched engine's :class:`~ecs_combat.plugin.batch_context.BatchContext`: a thin facade over
the state of a batch being played (:class:`~ecs_combat.batched.state.State`), each query and
action handed to the function that reads or changes the structures it names."""

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
from ecs_combat.batched.state import State
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

    __slots__ = ("_state",)

    def __init__(self, state: State) -> None:
        self._state = state

    def _fresh(self, rows: IntArray) -> BoolArray | None:
        """Which of `rows` are not stale (returned as new objects since the triggers
        resolving now were put on the stack, 400.7), or None if all are."""
        stale = self._state.creatures.stale
        if stale is None:
            return None
        keep: BoolArray = ~stale[np.asarray(rows, np.int64)]
        return None if keep.all() else keep

    @property
    def rows(self) -> int:
        return self._state.frame.n

    @property
    def player_rows(self) -> int:
        return len(self._state.players.life)

    @property
    def battles(self) -> int:
        return self._state.frame.nb

    def battle(self) -> IntArray:
        return read_only(self._state.creatures.battle)

    def player_battle(self) -> IntArray:
        return read_only(self._state.players.battle)

    def creature_id(self, row: int) -> str:
        return self._state.frame.cid(row)

    def player_id(self, row: int) -> str:
        return self._state.frame.pid(row)

    def on_battlefield(self) -> BoolArray:
        return read_only(self._known(self._state.creatures.on_bf))

    def new_objects(self) -> BoolArray:
        stale = self._state.creatures.stale
        return read_only(np.zeros(self._state.frame.n, np.bool_) if stale is None else stale)

    def attacking(self) -> BoolArray:
        return read_only(self._known(self._state.combat.att))

    def blocking(self) -> BoolArray:
        state = self._state
        return read_only(self._known(state.combat.blocking & state.creatures.on_bf))

    def defending_player(self) -> IntArray:
        combat = self._state.combat
        return read_only(np.where(self._known(combat.att), combat.attacking, -1))

    def _known(self, mask: BoolArray) -> BoolArray:
        """A row mask without the stale rows."""
        stale = self._state.creatures.stale
        return mask if stale is None else mask & ~stale

    def blocker_count(self) -> IntArray:
        state = self._state
        return read_only(blockers_of(state.creatures, state.combat, np.arange(state.frame.n)))

    def band(self) -> IntArray:
        band = self._state.combat.batch.band
        return read_only(np.full(self._state.frame.n, -1, np.int64) if band is None else band)

    def controller(self) -> IntArray:
        return read_only(self._state.creatures.controller)

    def has(self, keyword: str) -> BoolArray:
        return has(self._state.frame, self._state.keywords, keyword)

    def instances(self, keyword: str) -> tuple[IntArray, IntArray]:
        return instances(self._state.frame, self._state.keywords, keyword)

    def power(self) -> IntArray:
        return read_only(self._state.creatures.power)

    def toughness(self) -> IntArray:
        return read_only(self._state.creatures.toughness)

    def damage(self) -> IntArray:
        return read_only(self._state.creatures.marked)

    def colors(self) -> IntArray:
        return read_only(np.asarray(self._state.creatures.colors, np.int64))

    def types(self) -> IntArray:
        return read_only(types(self._state.frame))

    def lands(self) -> IntArray:
        return read_only(lands(self._state.frame))

    def tapped(self) -> BoolArray:
        return read_only(self._state.creatures.tapped)

    def counters(self, kind: str) -> IntArray:
        return read_only(counter(self._state.frame, self._state.keywords, kind))

    def has_counters(self, kind: str) -> bool:
        return has_counters(self._state.frame, self._state.keywords, kind)

    def creature_state(self, key: str) -> StateArray:
        return self._state.creatures.states[key]

    def can_target(self, sources: IntArray, targets: IntArray) -> BoolArray:
        state = self._state
        targets = np.asarray(targets, np.int64)
        legal: BoolArray = self._known(state.creatures.on_bf)[targets]
        sources = np.asarray(sources, np.int64)
        return legal & ability_targets(
            state.frame, state.keywords, state.creatures, sources, targets
        )

    def life(self) -> IntArray:
        return read_only(self._state.players.life)

    def lost(self) -> BoolArray:
        return read_only(self._state.players.lost)

    def player_state(self, key: str) -> StateArray:
        return self._state.players.states[key]

    def game_over(self) -> BoolArray:
        return read_only(self._state.players.game_over)

    def pump(self, rows: IntArray, power: IntArray | int, toughness: IntArray | int) -> None:
        keep = self._fresh(rows)
        if keep is not None:
            rows, power, toughness = rows[keep], _kept(power, keep), _kept(toughness, keep)
        pump(self._state.creatures, rows, power, toughness)

    def add_counters(self, rows: IntArray, kind: str, change: IntArray | int) -> None:
        state = self._state
        keep = self._fresh(rows)
        if keep is not None:
            rows, change = rows[keep], _kept(change, keep)
        kw = state.keywords
        add_counters(state.frame, state.creatures, kw, rows, kind, change)
        if kw.put is not None:
            by = np.zeros(len(rows), np.int64)
            by[:] = change
            kw.put.append((np.asarray(rows, np.int64), kind, by))

    def tap(self, rows: IntArray) -> None:
        keep = self._fresh(rows)
        self._state.creatures.tapped[rows if keep is None else rows[keep]] = True

    def untap(self, rows: IntArray) -> None:
        keep = self._fresh(rows)
        self._state.creatures.tapped[rows if keep is None else rows[keep]] = False

    def targets(self, keyword: str) -> tuple[IntArray, IntArray, IntArray]:
        return keywords.targets(self._state.combat, keyword)

    def require_block(self, blockers: IntArray, attackers: IntArray, keyword: str) -> None:
        blockers, attackers = np.asarray(blockers), np.asarray(attackers)
        stale = self._state.creatures.stale
        if stale is not None:
            keep = ~stale[blockers] & ~stale[attackers]
            blockers, attackers = blockers[keep], attackers[keep]
        self._state.combat.required_blocks.append((blockers, attackers, keyword))

    def leave_battlefield(self, rows: IntArray) -> None:
        keep = self._fresh(rows)
        leave(self._state.creatures, self._state.combat, rows if keep is None else rows[keep])

    def lose_life(self, players: IntArray, amount: IntArray | int) -> None:
        lose_life(self._state.players, players, amount)

    def sacrifice(self, rows: IntArray) -> None:
        keep = self._fresh(rows)
        sacrifice(self._state, rows if keep is None else rows[keep])

    def create_token(
        self,
        controllers: IntArray,
        characteristics: IntArray,
        tapped: bool = False,
        attacking: IntArray | None = None,
    ) -> IntArray:
        s = self._state
        made = create_token(
            s.frame,
            s.creatures,
            s.combat,
            s.players,
            controllers,
            characteristics,
            tapped,
            attacking,
        )
        return read_only(made)

    def chosen_sacrifices(self, players: IntArray, n: IntArray) -> IntArray:
        s = self._state
        return read_only(choose_sacrifices(s.creatures, s.combat, s.players, players, n))

    def destroy(self, rows: IntArray) -> BoolArray:
        rows = np.asarray(rows, np.int64)
        keep = self._fresh(rows)
        if keep is None:
            return destroy_rows(self._state, rows)
        out = np.zeros(len(rows), np.bool_)
        out[keep] = destroy_rows(self._state, rows[keep])
        return out

    def remove_from_combat(self, rows: IntArray) -> None:
        keep = self._fresh(rows)
        remove_from_combat(self._state.combat, rows if keep is None else rows[keep])

    def remove_damage(self, rows: IntArray) -> None:
        keep = self._fresh(rows)
        remove_damage(self._state.creatures, rows if keep is None else rows[keep])

    def return_to_battlefield(self, rows: IntArray) -> None:
        keep = self._fresh(rows)
        s = self._state
        rows = rows if keep is None else np.asarray(rows)[keep]
        return_to_battlefield(s.frame, s.creatures, s.keywords, s.combat, s.players, rows)

    def marks(self, name: str, dtype: type[G]) -> npt.NDArray[G]:
        column: npt.NDArray[G] = keywords.column(self._state.creatures, name, dtype)
        return column

    def has_marks(self, name: str) -> bool:
        return name in self._state.creatures.columns


def _kept(value: IntArray | int, keep: BoolArray) -> IntArray | int:
    """An action's per-row value for the rows kept (a number stays as it is)."""
    if np.ndim(value) == 0:
        return value
    kept: IntArray = np.asarray(value)[keep]
    return kept
