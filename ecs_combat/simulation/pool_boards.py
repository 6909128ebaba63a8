"""Drawn one-on-one battles of a card pool, each distinct board resolved once.

A battle of a card pool's one-on-one blocks (:class:`~.card_draw.CardGenerator` with one
attacker, one blocker, no casts and no drawn state) is decided by the two cards drawn for it
alone: the generator draws nothing else per battle (a block's draws are the ``side`` card
indices and the constant two creatures), and builds every other column (life, the players,
which blocks the rules allow, each card's power, toughness, keywords, colors and instances)
from those two cards. The engines read nothing random, and a battle's outcome nothing of
another battle's rows. So each generator keeps, per engine, the outcome of every card pair
drawn so far (:class:`PoolOutcomes`): a chunk's battles are numbered by their pair over arrays,
the pairs not seen yet built and resolved together (one battle for each pair of card classes:
cards the engines can't tell apart give the same battle), and the per-card tally
counted from each pair's outcome times how often the chunk drew it, with no per-battle Python.

The store is bounded: a pool of more than :data:`KEPT_BOARDS` pairs keeps none. Battles that
are decided (``decisions = "optimal"``: :mod:`.decided_boards`), turns, races, and runs asking
for the per-battle tables are resolved as drawn.
"""

from __future__ import annotations

import time
import weakref
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ecs_combat.batched import IntArray
from ecs_combat.simulation.card_draw import CARD_COLUMNS, totals_of
from ecs_combat.simulation.generate import Draws, Generator
from ecs_combat.simulation.outcomes import outcome_codes
from ecs_combat.simulation.pool import CardPool
from ecs_combat.simulation.seeded_blocks import block_draws
from ecs_combat.simulation.spec import BattleSpec

I64 = np.int64
#: The most card pairs a pool keeps outcomes for (524,288: a 724-card pool; 14 int32 and a
#: flag each, 30 MB; as much again at most for the pairs of classes).
KEPT_BOARDS = 1 << 19
#: The most new battles built and resolved in one batch (a batch's arrays stay small: a
#: compiled kernel's of a whole pool's pairs, over 4 MB, may wait on huge pages).
RESOLVED_AT_ONCE = 8192
#: Which outcome code (simulate.OUTCOME_NAMES) each role sees as neither dies, a win, a loss,
#: a trade.
_SEEN_FROM = ((0, 1, 2, 3), (0, 2, 1, 3))
#: What a one-on-one block of a card pool draws per battle; a generator drawing more keeps no
#: outcomes (its battles would not be decided by their cards alone).
_DRAWN = frozenset({"creatures", "side"})


@dataclass(frozen=True)
class PoolTally:
    """A chunk's per-card tally (:func:`~.card_draw.card_counts`), its creatures, and the
    seconds spent building and resolving the pairs not seen before."""

    cards: IntArray
    creatures: int
    seconds: float

    def totals(self) -> IntArray:
        """The chunk's matchup row (:func:`~.card_draw.totals_of`)."""
        return totals_of(self.cards)


class PoolOutcomes:
    """The outcome of every card pair (attacker's card, blocker's card) resolved so far, by
    pair number ``attacker * cards + blocker``, as each side's card counts it: per pair,
    whether the battle was each outcome seen from that side (neither dies, won, lost,
    traded: :data:`~.card_draw.CARD_COLUMNS`' order), the damage to players, and what the
    side's creature dealt to players and gained its controller."""

    def __init__(self, pool: CardPool, engine: object, classes: IntArray) -> None:
        self.engine = engine
        self.pool = pool
        #: Per card its class (:meth:`~.card_draw.CardGenerator.card_classes`): a pair of
        #: classes is one battle, resolved once for every pair of their cards.
        self.classes = classes
        self.n_classes = k = int(classes.max()) + 1 if len(classes) else 0
        self.n_cards = n = len(pool)
        self.known = np.zeros(n * n, np.bool_)
        #: Which pairs of classes (``attacker's * classes + blocker's``) were resolved, and
        #: how many the sides can draw that were not yet.
        self.known_classes = np.zeros(k * k, np.bool_)
        self.unknown = len(np.unique(classes[pool.attacker])) * len(
            np.unique(classes[pool.blocker])
        )
        self.attacker = np.zeros((7, n * n), np.int32)
        self.blocker = np.zeros((7, n * n), np.int32)
        #: Whether each side lists a card once (so every pair of the sides is a distinct pair).
        self._distinct = all(len(np.unique(s)) == len(s) for s in (pool.attacker, pool.blocker))
        #: The same per pair of classes.
        self.class_outcomes = np.zeros((2, 7, k * k), np.int32)

    def numbers(self, side: IntArray) -> IntArray:
        """[n] each battle's pair number, from its drawn side indices ([n, 2])."""
        pool = self.pool
        a = pool.attacker[side[:, 0]]
        b = pool.blocker[side[:, 1]]
        out: IntArray = a * self.n_cards + b
        return out

    def learn(self, generator: Generator, number: IntArray, side: IntArray) -> None:
        """Keep the outcomes of the pairs of `number` not known yet (`side` the chunk's
        draws), from their pairs of classes, building and resolving one battle for each pair
        of classes not resolved yet; every pair not known yet once the pairs of classes not
        resolved are no more than the chunk's battles (no more work than resolving the
        chunk, and no small batches of new pairs in every chunk after)."""
        new = np.flatnonzero(~self.known[number])
        if not len(new):
            return
        if self.unknown <= len(number):
            side = self._every_pair()
            number = self.numbers(side)
            new = np.flatnonzero(~self.known[number])
            if self._distinct:  # each pair once already
                pairs, take = number[new], side[new]
            else:
                pairs, first = np.unique(number[new], return_index=True)
                take = side[new[first]]
        else:
            pairs, first = np.unique(number[new], return_index=True)
            take = side[new[first]]
        kind = self._resolve_classes(generator, take)
        for role, kept in enumerate((self.attacker, self.blocker)):
            kept[:, pairs] = self.class_outcomes[role][:, kind]
        self.known[pairs] = True

    def learn_classes(self, generator: Generator, side: IntArray, battles: int) -> None:
        """Resolve the pairs of classes of `side`'s battles ([n, 2] side indices) not
        resolved yet, building one battle for each; every pair of classes not resolved yet
        once they are no more than `battles` (the chunk's, as :meth:`learn`)."""
        if self.unknown <= battles:
            side = self._every_pair()
        self._resolve_classes(generator, side)

    def _resolve_classes(self, generator: Generator, side: IntArray) -> IntArray:
        """The pair of classes of each of `side`'s battles ([n, 2] side indices), those not
        resolved yet resolved first (a battle each)."""
        pool = self.pool
        kind: IntArray = self.classes[pool.attacker[side[:, 0]]] * self.n_classes
        kind += self.classes[pool.blocker[side[:, 1]]]
        unseen = np.flatnonzero(~self.known_classes[kind])
        if len(unseen):
            self._resolve(generator, kind[unseen], side[unseen])
        return kind

    def class_rows(self) -> npt.NDArray[np.int32] | None:
        """Per pair of classes resolved, its battle as :func:`~ecs_combat.kernel.pool_draw.
        add_battle` adds it: the outcome each side saw (an index of the four), the damage to
        players, what each side's creature dealt to players and gained its controller; None
        when a battle resolved was not exactly one of the four outcomes from each side."""
        out = np.zeros((self.n_classes**2, 8), np.int32)
        if not self.known_classes.any():
            return out
        for role, kept in enumerate(self.class_outcomes):
            flags = kept[:4]
            if np.any(flags.sum(axis=0)[self.known_classes] != 1):
                return None
            out[:, role] = flags.argmax(axis=0)
            out[:, 3 + role] = kept[5]
            out[:, 5 + role] = kept[6]
        out[:, 2] = self.class_outcomes[0, 4]
        return out

    def _every_pair(self) -> IntArray:
        """[pairs, 2] the side indices of every pair the sides can draw."""
        a, b = len(self.pool.attacker), len(self.pool.blocker)
        side = np.empty((a * b, 2), I64)
        side[:, 0] = np.repeat(np.arange(a, dtype=I64), b)
        side[:, 1] = np.tile(np.arange(b, dtype=I64), a)
        return side

    def _resolve(self, generator: Generator, kind: IntArray, take: IntArray) -> None:
        """Build and resolve one battle for each pair of classes in `kind` (`take`: the side
        indices of a battle of each), :data:`RESOLVED_AT_ONCE` at a time, and keep their
        outcomes."""
        kinds, one = np.unique(kind, return_index=True)
        take = take[one]
        self.unknown -= len(take)
        for lo in range(0, len(take), RESOLVED_AT_ONCE):
            hi = min(lo + RESOLVED_AT_ONCE, len(take))
            self._keep(generator, kinds[lo:hi], take[lo:hi])

    def _keep(self, generator: Generator, kinds: IntArray, take: IntArray) -> None:
        """Build and resolve one battle a pair of classes, and keep their outcomes."""
        n = len(take)
        drawn = generator.build(Draws({"creatures": np.full(n, 2, I64), "side": take}))
        outcome = self.engine.resolve_batch(drawn.batch)  # type: ignore[attr-defined]
        code, _, _ = outcome_codes(drawn, outcome)
        rows = np.zeros(2 * n, I64)
        dealt = rows if outcome.dealt_to_players is None else outcome.dealt_to_players
        gained = rows if outcome.life_gained is None else outcome.life_gained
        for role, kept in enumerate(self.class_outcomes):
            for seen in range(4):  # the blocker wins when the attacker loses (code 2)
                kept[seen, kinds] = code == _SEEN_FROM[role][seen]
            kept[4, kinds] = outcome.damage_to_players
            kept[5, kinds] = dealt[role::2]
            kept[6, kinds] = gained[role::2]
        self.known_classes[kinds] = True

    def tally(self, number: IntArray) -> IntArray:
        """The per-card tally of battles of pair numbers `number`, all known
        ([card, role, :data:`~.card_draw.CARD_COLUMNS`])."""
        n = self.n_cards
        times = np.bincount(number, minlength=n * n).reshape(n, n)
        out = np.zeros((n, 2, len(CARD_COLUMNS)), I64)
        for role, kept in enumerate((self.attacker, self.blocker)):
            # each card's sums over the cards it met, every pair counted as often as drawn
            summed = (kept.reshape(7, n, n) * times).sum(axis=2 - role, dtype=I64)
            card_columns(summed, out[:, role])
        return out


def card_columns(summed: npt.NDArray[np.integer], out: npt.NDArray[np.integer]) -> None:
    """`out` ([rows, :data:`~.card_draw.CARD_COLUMNS`]) the tally's columns from the kept
    outcomes' rows `summed` ([7, rows]: each outcome seen, damage, dealt, gained)."""
    out[:, 0] = summed[:4].sum(axis=0)
    out[:, 1:4] = summed[1:4].T
    out[:, 4] = summed[0]
    out[:, 5] = summed[4]
    out[:, 6] = summed[2] + summed[3]
    out[:, 7] = summed[5]
    out[:, 8] = summed[6]


def keeps_outcomes(generator: Generator) -> bool:
    """Whether the generator's battles are one-on-one battles of a card pool decided by their
    cards alone, with no more than :data:`KEPT_BOARDS` card pairs."""
    spec = generator.spec
    pool = generator.pool
    return (
        pool is not None
        and generator.pairs_alone()
        and isinstance(spec, BattleSpec)
        and spec.decisions != "optimal"
        and spec.turn is None
        and spec.race is None
        and len(pool) ** 2 <= KEPT_BOARDS
    )


#: Per generator: its kept outcomes (None: it keeps none).
_kept: weakref.WeakKeyDictionary[Generator, PoolOutcomes | None] = weakref.WeakKeyDictionary()


def kept_for(generator: Generator, engine: object) -> PoolOutcomes | None:
    """The generator's kept outcomes with `engine` (made at its first chunk; another engine
    starts them again), or None when it keeps none (:func:`keeps_outcomes`)."""
    if generator in _kept:
        kept = _kept[generator]
    else:
        kept = None
        if keeps_outcomes(generator):
            assert generator.pool is not None
            kept = PoolOutcomes(generator.pool, engine, generator.card_classes())
        _kept[generator] = kept
    if kept is not None and kept.engine is not engine:
        kept = _kept[generator] = PoolOutcomes(kept.pool, engine, kept.classes)
    return kept


def pool_tally(
    generator: Generator, engine: object, seed: int, start: int, stop: int
) -> PoolTally | None:
    """Battles ``start`` to ``stop - 1`` of the run with `seed`, tallied per card from their
    card pairs' kept outcomes (those not seen yet resolved first); None when the generator
    keeps none (:func:`kept_for`) or a block draws more than the two cards."""
    kept = kept_for(generator, engine)
    if kept is None:
        return None
    parts = []
    for draws, lo, hi in block_draws(generator.draw, generator.spec, seed, start, stop):
        if set(draws.battle_cols) != _DRAWN or draws.creature_cols:
            return None
        parts.append(draws.battle_cols["side"][lo:hi])
    side = np.concatenate(parts)
    number = kept.numbers(side)
    began = time.perf_counter()
    kept.learn(generator, number, side)
    seconds = time.perf_counter() - began
    return PoolTally(kept.tally(number), 2 * len(number), seconds)
