"""Blocks of one-on-one battles drawn, played and tallied in the kernel at once
(:class:`OneOnOnePlayer`): the state of a block's battles is made once and reset between
blocks, so no array is made per block, and no outcome array at all."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from typing import Any, NamedTuple, Protocol

import numpy as np
import numpy.typing as npt

from ecs_combat.batched import CombatBatch, IntArray, MaskArray, Schedule
from ecs_combat.kernel import cache
from ecs_combat.kernel.runner import Kernel, entry_of

AnyArray = npt.NDArray[Any]
#: The summary's columns a block adds to, per matchup (the template's ``one_on_one_range``).
TALLY_COLUMNS = 8
#: The most drawn battles whose outcomes a player keeps (8 bytes each).
MEMO_LIMIT = 1 << 20
#: The least and greatest power drawn, and toughness.
Ranges = tuple[tuple[int, int], tuple[int, int]]
#: A block's draws as ``integers`` calls: (least, greatest, bytes) (:class:`.OneOnOne`).
Fills = tuple[tuple[int, int, int], ...]


class SeededBlock(NamedTuple):
    """A block to draw from ``PCG64(SeedSequence(seed, spawn_key=(block,)))``: the seed's
    words (:func:`seed_words`) and the block's number (below 2**32)."""

    entropy: AnyArray
    block: int


@lru_cache(maxsize=8)
def seed_words(seed: int) -> AnyArray:
    """`seed`'s 32-bit words, low first, padded with zeros to four: how ``SeedSequence``
    assembles a seed's entropy before a spawn key (`seed` at least 0)."""
    words = [seed & 0xFFFFFFFF]
    while seed > 0xFFFFFFFF:
        seed >>= 32
        words.append(seed & 0xFFFFFFFF)
    out = np.array(words + [0] * (4 - len(words)), np.uint32)
    out.flags.writeable = False
    return out


def one_on_one_player(
    kernel: Kernel,
    schedule: Schedule,
    batch: CombatBatch,
    masks: MaskArray,
    codes: int,
    ranges: Ranges | None = None,
    fills: Fills | None = None,
) -> OneOnOnePlayer | None:
    """A player of blocks shaped like `batch` (`masks`: each keyword code's bits, `codes` of
    them per side) in `kernel`, compiled (or read from numba's cache); None when the kernel
    can't resolve `batch`. With `ranges` (the power and toughness drawn), it keeps each
    drawn battle's outcome and plays a battle drawn again no more; with `fills`, it draws a
    block from its seed itself (:meth:`OneOnOnePlayer.play`)."""
    if kernel.refusal(schedule, batch) or kernel.plan(schedule).parameters:
        return None  # (a drawn creature's keyword parameters are not drawn into columns)
    arguments = kernel._arguments(batch, kernel.plan(schedule))  # the kernel's own
    dispatcher = kernel.module.one_on_one_range
    player = OneOnOnePlayer(arguments, dispatcher, batch, masks, codes, ranges, fills)
    none = np.zeros((batch.n_battles, 2), np.uint8)
    with cache.locked(kernel.source):  # compiled (its entry point only), or read from the cache
        player.play(0, 0, (none, none, none), player.counts())
        if fills is not None:
            player.play(0, 0, SeededBlock(seed_words(0), 0), player.counts())
    player.use_entry(entry_of(dispatcher))
    return player


class OneOnOnePlayer:
    """Plays blocks of battles shaped like `batch` (one attacker against one blocker per
    battle, rows 2b and 2b + 1) whose creatures differ only in power, toughness and
    keywords, in a kernel that can resolve `batch`."""

    def __init__(
        self,
        arguments: tuple[Any, ...],
        entry: Callable[..., None],
        batch: CombatBatch,
        masks: MaskArray,
        codes: int,
        ranges: Ranges | None = None,
        fills: Fills | None = None,
    ) -> None:
        c, st, *rest = arguments
        st = st._replace(kw=np.zeros(batch.n_creatures, np.uint64))  # written per block
        scratch = st.a_start.base  # written before read: not reset
        writable = writable_arrays((c, st, *rest), scratch)
        size = sum(-(-a.nbytes // 8) * 8 for a in writable.values())
        self._work = np.zeros(size, np.uint8)
        views: dict[int, AnyArray] = {}
        offset = 0
        for key, array in writable.items():
            view = self._work[offset : offset + array.nbytes].view(array.dtype)
            view = view.reshape(array.shape)
            view[...] = array
            views[key] = view
            offset += -(-array.nbytes // 8) * 8
        self._arguments = replaced((c, st, *rest), views)
        self._fresh = self._work.copy()
        self._fresh.flags.writeable = False
        self._masks = np.ascontiguousarray(masks, np.uint64)
        self._entry = entry
        self.battles = batch.n_battles
        self.codes = codes
        (p0, p1), (t0, t1) = ranges or ((0, -1), (0, -1))
        self._ranges = np.array([p0, p1 - p0 + 1, t0, t1 - t0 + 1], np.int64)
        size = codes * codes * (p1 - p0 + 1) ** 2 * (t1 - t0 + 1) ** 2
        #: Each drawn battle's outcome once played (the template's ``one_on_one_range``).
        self._memo = np.full(size if 0 < size <= MEMO_LIMIT else 0, -1, np.int64)
        self._fills = np.array(fills or (), np.int64).reshape(-1, 3)
        n = self.battles
        self._bytes = np.zeros(6 * n, np.uint8)  # a block's draws: keyword, power, toughness
        self._drawn = tuple(
            self._bytes[2 * n * i : 2 * n * (i + 1)].reshape(n, 2) for i in range(3)
        )
        if fills is not None and int(self._fills[:, 2].sum()) != 6 * n:
            raise ValueError("a block's fills make keyword codes, power and toughness per battle")
        from ecs_combat.kernel.one_on_one_draw import seeded_bytes

        self._seeded: Callable[..., None] = seeded_bytes

    def use_entry(self, entry: Callable[..., None]) -> None:
        """Call the kernel through `entry` from now on (its compiled entry point), and the
        draw through its own."""
        self._entry = entry
        self._seeded = entry_of(self._seeded)

    def counts(self) -> IntArray:
        """An empty tally to add blocks to: [codes * codes + 1, :data:`TALLY_COLUMNS`], the
        last row's first column counting creatures."""
        return np.zeros((self.codes * self.codes + 1, TALLY_COLUMNS), np.int64)

    def play(
        self,
        lo: int,
        hi: int,
        drawn: tuple[AnyArray, AnyArray, AnyArray] | SeededBlock,
        counts: IntArray,
    ) -> None:
        """Battles `lo` to `hi - 1` of a block drawn as (keyword codes, power, toughness),
        each [battles, 2] bytes, or drawn here from its seed (:class:`SeededBlock`; with
        `fills`, the same bytes), played and added to `counts`."""
        if isinstance(drawn, SeededBlock):
            self._seeded(drawn.entropy, drawn.block, self._fills, self._bytes)
            keyword, power, toughness = self._drawn
        else:
            keyword, power, toughness = (np.ascontiguousarray(x, np.uint8) for x in drawn)
        self._entry(
            lo, hi, keyword, power, toughness, self._masks, self._work, self._fresh, counts,
            self.codes, self._memo, self._ranges, *self._arguments,
        )  # fmt: skip
        counts[-1, 0] += 2 * (hi - lo)


def writable_arrays(value: Any, scratch: object) -> dict[int, AnyArray]:
    """Every writable array of the kernel's arguments but the scratch, by identity."""
    found: dict[int, AnyArray] = {}
    if isinstance(value, np.ndarray):
        if value.flags.writeable and value.base is not scratch:
            found[id(value)] = value
    elif isinstance(value, tuple):
        for item in value:
            found.update(writable_arrays(item, scratch))
    return found


def replaced(value: Any, views: dict[int, AnyArray]) -> Any:
    """The arguments with each array in `views` replaced by its view."""
    if isinstance(value, np.ndarray):
        return views.get(id(value), value)
    if isinstance(value, tuple):
        items = [replaced(item, views) for item in value]
        return type(value)(*items) if hasattr(value, "_fields") else tuple(items)
    return value


#: A block as played: its index, and the range of its battles played.
Block = tuple[int, int, int]


class BlockPlayer(Protocol):
    """Plays drawn blocks in a kernel, adding them to a tally (one a thread)."""

    def counts(self) -> IntArray:
        """An empty tally."""
        ...

    def play(self, lo: int, hi: int, drawn: Any, counts: IntArray) -> None:
        """Battles `lo` to `hi - 1` of a block (`drawn`: what its draw gave) added to
        `counts`."""
        ...


#: A thread gets at least this many blocks.
BLOCKS_A_THREAD = 4
_pool: ThreadPoolExecutor | None = None


def play_blocks(
    players: Sequence[BlockPlayer], blocks: Sequence[Block], draw: Callable[[int], Any]
) -> IntArray:
    """Blocks drawn (`draw` of a block's index) and played, the tally of all: in threads
    over consecutive runs of blocks when many, a player each (the kernel and numpy's
    drawing release the GIL)."""
    threads = min(len(players), max(1, len(blocks) // BLOCKS_A_THREAD))
    if threads <= 1:
        return _play(players[0], blocks, draw)
    global _pool
    if _pool is None:
        _pool = ThreadPoolExecutor(len(players), thread_name_prefix="ecs-kernel-blocks")
    edges = [len(blocks) * t // threads for t in range(threads + 1)]
    jobs = [
        _pool.submit(_play, players[t], blocks[edges[t] : edges[t + 1]], draw)
        for t in range(threads)
    ]
    counts: IntArray = sum((job.result() for job in jobs), players[0].counts())
    return counts


def _play(player: BlockPlayer, blocks: Sequence[Block], draw: Callable[[int], Any]) -> IntArray:
    """Blocks drawn and played by one player: their tally."""
    counts = player.counts()
    for block, lo, hi in blocks:
        player.play(lo, hi, draw(block), counts)
    return counts
