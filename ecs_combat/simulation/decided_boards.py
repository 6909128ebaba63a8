"""Decided one-on-one battles, each distinct board decided and resolved once
(``decisions = "optimal"``, RULES section 9).

A battle of a generator's one-on-one blocks (:class:`~.generate.OneOnOne`: the keyword
tournament) is decided by what was drawn for it alone: both creatures' keyword code, power and
toughness, everything else (life, the players, the rows' layout) being the generator's, the
same for every battle. Its decided attack and blocks (a pure function of the board: the search
of a battle reads no other battle's rows) and so its outcome are then a function of those six
draws. Each generator keeps, per engine, every drawn board's outcome once found
(:class:`BoardOutcomes`): a chunk's battles are numbered by board over arrays, the boards not
seen yet decided and resolved together (one battle each), and every battle tallied from its
board's outcome, with no per-battle Python.

The store is bounded: a generator whose boards number more than :data:`KEPT_BOARDS` keeps none,
and its battles are decided as drawn (as with a card pool, tables asked for, or turns).
"""

from __future__ import annotations

import dataclasses
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import numpy as np

from ecs_combat.batched import IntArray
from ecs_combat.simulation.assemble import Array
from ecs_combat.simulation.deciding import decided
from ecs_combat.simulation.generate import Generator, OneOnOne
from ecs_combat.simulation.outcomes import outcome_codes
from ecs_combat.simulation.seeded_blocks import block_draws

I64 = np.int64
_T = TypeVar("_T")
#: The most boards a generator keeps outcomes for (1,048,576: 7 int32 and a flag each, 30 MB).
KEPT_BOARDS = 1 << 20


@dataclass(frozen=True)
class BoardTally:
    """What the tally reads of a chunk's battles (:meth:`Tally.of`'s first arguments): per
    battle the matchup codes, the outcome code and the summed columns (damage to players,
    attackers died, blockers died); and the creatures."""

    columns: tuple[IntArray, IntArray, IntArray, tuple[IntArray, IntArray, IntArray]]
    creatures: int
    #: Seconds spent deciding and resolving the boards not seen before.
    seconds: float


class BoardOutcomes:
    """The outcome of every decided one-on-one board seen so far, by board number (both
    sides' keyword code, power and toughness, as one dense index)."""

    def __init__(self, shape: OneOnOne, engine: object) -> None:
        (p_lo, p_hi), (t_lo, t_hi) = shape.ranges
        assert shape.build is not None
        # the generator's methods, held weakly: the store must not keep its generator alive
        self._draw, self._build = _weakly(shape.draw), _weakly(shape.build)
        self.shape = dataclasses.replace(shape, draw=_no_draw, build=None)
        self.engine = engine
        self._low = (p_lo, t_lo)
        self._span = (p_hi - p_lo + 1, t_hi - t_lo + 1)
        self.per_side = shape.codes * self._span[0] * self._span[1]
        size = self.boards = self.per_side * self.per_side
        self.known = np.zeros(size, np.bool_)
        # per board: matchup codes, outcome code, damage to players, deaths, creatures
        self.columns = np.zeros((7, size), np.int32)

    def renewed(self, engine: object) -> BoardOutcomes:
        """An empty store of the same boards, for another engine."""
        draw, build = self._draw(), self._build()
        assert draw is not None and build is not None  # the generator asking is alive
        return BoardOutcomes(dataclasses.replace(self.shape, draw=draw, build=build), engine)

    def draw(self, rng: np.random.Generator, n: int) -> tuple[Array, Array, Array]:
        """The generator's draws of a block: keyword codes, power, toughness."""
        draw = self._draw()
        assert draw is not None  # the generator asking is alive
        return draw(rng, n)

    @staticmethod
    def boards_of(shape: OneOnOne) -> int:
        """How many boards a generator's one-on-one blocks can draw."""
        (p_lo, p_hi), (t_lo, t_hi) = shape.ranges
        per_side = shape.codes * (p_hi - p_lo + 1) * (t_hi - t_lo + 1)
        return per_side * per_side

    def numbers(self, keyword: Array, power: Array, toughness: Array) -> IntArray:
        """[n] each battle's board number, from its draws ([n, 2] each: attacker, blocker)."""
        side = keyword.astype(I64) * self._span[0] + (power.astype(I64) - self._low[0])
        side = side * self._span[1] + (toughness.astype(I64) - self._low[1])
        out: IntArray = side[:, 0] * self.per_side + side[:, 1]
        return out

    def learn(
        self, generator: Generator, number: IntArray, draws: tuple[Array, Array, Array]
    ) -> None:
        """Decide and resolve the boards of `number` not known yet (one battle each, `draws`
        the chunk's) and keep their outcomes."""
        build = self._build()
        assert build is not None  # the generator asking is alive
        new = np.flatnonzero(~self.known[number])
        if not len(new):
            return
        boards, first = np.unique(number[new], return_index=True)
        take = new[first]
        drawn = build(*(column[take] for column in draws))
        drawn, known = decided(generator, drawn, self.engine, distinct=True)
        outcome = known if known is not None else self.engine.resolve_batch(drawn.batch)  # type: ignore[attr-defined]
        code, att_died, blk_died = outcome_codes(drawn, outcome)
        creatures = np.bincount(drawn.batch.battle, minlength=drawn.batch.n_battles)
        found = (
            drawn.attacker_code,
            drawn.blocker_code,
            code,
            outcome.damage_to_players,
            att_died,
            blk_died,
            creatures,
        )
        for row, values in enumerate(found):
            self.columns[row, boards] = values
        self.known[boards] = True


def _weakly(method: Callable[..., _T]) -> Callable[[], Callable[..., _T] | None]:
    """A reference to a bound method that does not keep its object alive (a plain function:
    itself)."""
    if hasattr(method, "__self__"):
        return weakref.WeakMethod(method)
    return lambda: method


def _no_draw(rng: np.random.Generator, n: int) -> tuple[Array, Array, Array]:
    """A placeholder for the generator's draw (the store holds it weakly)."""
    raise AssertionError("the store's generator draws")


#: Per generator: its kept outcomes (None: it keeps none).
_kept: weakref.WeakKeyDictionary[Generator, BoardOutcomes | None] = weakref.WeakKeyDictionary()


def kept_for(generator: Generator, engine: object) -> BoardOutcomes | None:
    """The generator's kept outcomes with `engine` (made at its first chunk; another engine
    starts them again), or None when its battles are not decided one-on-one boards or their
    boards are more than :data:`KEPT_BOARDS`."""
    if generator.spec.decisions != "optimal" or generator.pool is not None:
        return None
    if generator in _kept:
        kept = _kept[generator]
        if kept is None or kept.engine is engine:
            return kept
        kept = _kept[generator] = kept.renewed(engine)
        return kept
    shape = generator.compiled_blocks()
    usable = shape is not None and shape.build is not None
    if shape is None or not usable or BoardOutcomes.boards_of(shape) > KEPT_BOARDS:
        _kept[generator] = None
        return None
    kept = _kept[generator] = BoardOutcomes(shape, engine)
    return kept


def board_tally(
    generator: Generator, engine: object, seed: int, start: int, stop: int
) -> BoardTally | None:
    """Battles ``start`` to ``stop - 1`` of the run with `seed`, decided, as the tally reads
    them, from their boards' kept outcomes (those not seen yet decided and resolved first);
    None when the generator keeps none (:func:`kept_for`)."""
    kept = kept_for(generator, engine)
    if kept is None:
        return None
    parts = [
        tuple(c[lo:hi] for c in columns)
        for columns, lo, hi in block_draws(kept.draw, generator.spec, seed, start, stop)
    ]
    draws = tuple(np.concatenate([p[i] for p in parts]) for i in range(3))
    number = kept.numbers(*draws)
    began = time.perf_counter()
    kept.learn(generator, number, (draws[0], draws[1], draws[2]))
    seconds = time.perf_counter() - began
    found = kept.columns[:, number].astype(I64)
    acode, bcode, code, damage, att_died, blk_died, creatures = found
    tallied = (acode, bcode, code, (damage, att_died, blk_died))
    return BoardTally(tallied, int(creatures.sum()), seconds)
