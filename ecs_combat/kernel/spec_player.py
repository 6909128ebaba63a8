"""Blocks of a SPEC's battles drawn, played and tallied in the kernel (:class:`SpecPlayer`):
each block drawn by :func:`.spec_draw.draw_block` straight into the kernel's arrays, made
once at the largest block's size, played by the kernel's ``resolve_range`` and tallied by
:func:`.spec_draw.tally_block`; no batch, no outcome, and no array made per block."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from ecs_combat.batched import IntArray, Schedule
from ecs_combat.kernel import spec_draw
from ecs_combat.kernel.blocks import TALLY_COLUMNS, replaced, writable_arrays
from ecs_combat.kernel.runner import Kernel, card_parts, entry_of
from ecs_combat.kernel.spec_shape import SpecBlocks

AnyArray = npt.NDArray[Any]
I64 = np.int64


def spec_player(kernel: Kernel, schedule: Schedule, shape: SpecBlocks) -> SpecPlayer | None:
    """A player of a SPEC's blocks in `kernel` (`schedule`: the probe's), compiled or read
    from numba's cache; None when the kernel can't resolve them."""
    if kernel.refusal(schedule, shape.probe) or kernel.plan(schedule).parameters:
        return None  # (a drawn creature's keyword parameters are not drawn into columns)
    kernel.compile()
    player = SpecPlayer(kernel, schedule, shape)
    rng = np.random.default_rng(0)
    player.play(0, 0, rng, player.counts())  # compiled, or read from the cache
    player.use_entries()
    return player


class SpecPlayer:
    """Draws, plays and tallies blocks of a SPEC's battles (:class:`SpecBlocks`)."""

    def __init__(self, kernel: Kernel, schedule: Schedule, shape: SpecBlocks) -> None:
        self.shape = shape
        self.codes = shape.codes
        batch = shape.batch
        rows, n = batch.n_creatures, shape.battles
        casts = len(shape.cast_cards)
        parts, rules = card_parts(kernel.module, kernel.source, kernel.registry, shape.cast_cards)
        self._casts = np.array(
            [
                [kind, part, rule]
                for kind, part, rule in zip(shape.cast_kinds, parts, rules, strict=True)
            ],
            I64,
        ).reshape(casts, 3)
        # What the draw writes, and the kernel reads (read-only views where it only reads).
        self._core = np.zeros((5, rows), I64)
        self._attacking = np.zeros(rows, np.bool_)
        self._keywords = np.zeros(rows, np.uint64)
        self._info = np.zeros((6, rows), I64)
        self._starts = np.zeros((3, n + 1), I64)
        self._blocks = np.zeros((2, rows), I64)
        self._events = np.zeros((4, rows * casts), I64)
        self._drawn = np.zeros((shape.chance_limits.shape[1], rows), np.bool_)
        self._player_drawn = np.zeros((len(shape.player_states), 2 * n), np.bool_)
        self._copies: list[tuple[AnyArray, AnyArray]] = []
        arguments = self._wired(kernel, kernel._arguments(batch, kernel.plan(schedule)))
        self._image(arguments, rows)
        self._resolve: Callable[..., None] = kernel.module.resolve_range
        self._draw: Callable[..., int] = spec_draw.draw_block
        self._tally: Callable[..., None] = spec_draw.tally_block
        self._reset: Callable[..., None] = spec_draw.reset

    def use_entries(self) -> None:
        """Call the compiled functions through their entry points from now on."""
        self._resolve = entry_of(self._resolve)
        self._draw = entry_of(self._draw)  # type: ignore[assignment]
        self._tally = entry_of(self._tally)
        self._reset = entry_of(self._reset)

    def counts(self) -> IntArray:
        """An empty tally: [codes * codes + 1, :data:`TALLY_COLUMNS`], the last row's first
        column counting creatures."""
        return np.zeros((self.codes * self.codes + 1, TALLY_COLUMNS), I64)

    def play(self, lo: int, hi: int, drawn: Any, counts: IntArray) -> None:
        """Battles `lo` to `hi - 1` of the block whose generator is `drawn` (the whole
        block is drawn, as the numpy path draws it), played and added to `counts`."""
        s = self.shape
        total = self._draw(
            s.battles, *s.numbers(drawn, s.battles), s.keyword_limits, s.keyword_bits,
            s.chance_limits, s.player_chances, s.tables, s.legal, self._casts, self._core,
            self._attacking, self._keywords, self._info, self._starts, self._blocks,
            self._events, self._drawn, self._player_drawn,
        )  # fmt: skip
        if total < 0:
            raise AssertionError("a drawn block does not fit the kernel's arrays")
        self._reset(self._words, self._fresh, self._segments, total)
        for column, values in self._copies:  # plugins' number columns from drawn states
            column[: values.shape[0]] = values
        self._resolve(lo, hi, *self._arguments)
        self._tally(
            lo, hi, self._starts[0], self._info[0], self._info[3], self._alive,
            self._to_players, self.codes, counts,
        )  # fmt: skip

    def _wired(self, kernel: Kernel, arguments: tuple[Any, ...]) -> tuple[Any, ...]:
        """The kernel's arguments reading what the draw writes."""
        core, starts, blocks, events = self._core, self._starts, self._blocks, self._events
        out = []
        for value in arguments:
            kind = type(value).__name__
            if kind == "Core":
                value = value._replace(
                    battle=_read_only(core[0]), controller=_read_only(core[1]),
                    attacked=_read_only(core[2]), power=core[3], toughness=core[4],
                    attacking=self._attacking,
                )  # fmt: skip
                self._alive = value.on_battlefield
            elif kind == "State":
                value = value._replace(kw=self._keywords)
            elif kind == "Battles":
                value = value._replace(rows=_read_only(starts[0]), blocks=_read_only(starts[1]))
                self._to_players = value.to_players
            elif kind == "Blocks":
                value = value._replace(
                    blocker=_read_only(blocks[0]), attacker=_read_only(blocks[1])
                )
            elif kind == "Events":
                value = value._replace(
                    start=_read_only(starts[2]), **{
                        name: _read_only(events[i])
                        for i, name in enumerate(("target", "caster", "part", "rule"))
                    },
                )  # fmt: skip
            elif kind == "tuple" and len(value) == len(kernel.source.owns):
                value = tuple(
                    self._own(own, columns)
                    for own, (_, columns) in zip(value, kernel.source.owns, strict=True)
                )
            out.append(value)
        return tuple(out)

    def _own(self, own: Any, columns: Any) -> Any:
        """A plugin's own columns, those of drawn states reading the draw's."""
        if not columns:
            return own
        changes = {}
        for column, values in zip(columns, own, strict=True):
            drawn = None
            if column.owner == "creature" and column.state in self.shape.creature_states:
                drawn = self._drawn[self.shape.creature_states.index(column.state)]
            elif column.owner == "player" and column.state in self.shape.player_states:
                drawn = self._player_drawn[self.shape.player_states.index(column.state)]
            if drawn is None:
                continue
            if values.dtype == np.bool_:
                changes[column.name] = drawn
            else:
                self._copies.append((values, drawn))
        return own._replace(**changes)

    def _image(self, arguments: tuple[Any, ...], rows: int) -> None:
        """The kernel's state columns as views into one byte buffer, with a fresh copy of it
        to reset them from before each block (a creature column's drawn rows only; one of a
        single word repeated filled with it)."""
        st = arguments[1]
        n = self.shape.battles
        drawn = (self._core, self._attacking, self._keywords, self._drawn, self._player_drawn)
        writable = {
            key: array
            for key, array in writable_arrays(arguments, st.a_start.base).items()
            if not any(np.shares_memory(array, d) for d in drawn)
        }
        size = sum(-(-a.nbytes // 8) * 8 for a in writable.values())
        self._work = np.zeros(size, np.uint8)
        views: dict[int, AnyArray] = {}
        segments = []
        offset = 0
        for key, array in writable.items():
            view = self._work[offset : offset + array.nbytes].view(array.dtype)
            view = view.reshape(array.shape)
            view[...] = array
            views[key] = view
            by_row = array.ndim == 1 and array.shape[0] == rows and rows not in (n, n + 1, 2 * n)
            per_row = array.itemsize if by_row else 0  # else copied whole (players, battles)
            segments.append((offset // 8, -(-array.nbytes // 8), per_row))
            offset += -(-array.nbytes // 8) * 8
        self._fresh = self._work.view(np.uint64).copy()
        self._segments = np.array(
            [(*segment, _repeated(self._fresh, *segment[:2])) for segment in segments], I64
        ).reshape(-1, 4)
        self._arguments = replaced(arguments, views)
        self._alive = views.get(id(self._alive), self._alive)
        self._to_players = views.get(id(self._to_players), self._to_players)
        self._copies = [(views.get(id(a), a), v) for a, v in self._copies]
        self._words = self._work.view(np.uint64)


def _repeated(words: AnyArray, start: int, size: int) -> int:
    """1 if the `size` words of `words` from `start` are one word repeated, else 0."""
    segment = words[start : start + size]
    return int(size > 0 and bool(np.all(segment == segment[0])))


def _read_only(values: AnyArray) -> AnyArray:
    """A view of `values` the kernel may only read (its compiled signature's type)."""
    out = values.view()
    out.flags.writeable = False
    return out
