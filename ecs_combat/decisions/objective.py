"""The score of a combat's outcome for decisions (RULES section 9): terms compared in order.

Every term is seen from the attacking player's side: the attacking player maximises the score,
the defending player minimises it. The core's terms are ``game``, ``material`` and ``life``;
plugins add terms (:class:`ecs_combat.plugin.definitions.ScoreTerm`, e.g. ``poison``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ecs_combat.batched import (
    STRIDED_FROM,
    BatchOutcome,
    BoolArray,
    CombatBatch,
    IntArray,
    as_slice,
)
from ecs_combat.errors import InputError
from ecs_combat.plugin.registry import CORE_SCORE_TERMS, Registry
from ecs_combat.suggest import did_you_mean

I64 = np.int64

#: What each core term measures, for people (docs, --help, the readable output).
CORE_TERM_SUMMARIES = {
    "game": "+1 if the defending player lost the game, -1 if the attacking player lost, else 0",
    "material": "value of the defending player's creatures that died minus the attacking player's",
    "life": "life the defending player lost minus life the attacking player lost",
}


@dataclass(frozen=True)
class Objective:
    """The score's terms, in the order they are compared."""

    terms: tuple[str, ...]
    #: For plugin terms: the player state key whose growth the term counts.
    player_keys: dict[str, str]

    @staticmethod
    def default(registry: Registry) -> Objective:
        """The core's terms, then the plugins' in plugin order."""
        return Objective.of((*CORE_SCORE_TERMS, *registry.score_terms), registry, "objective")

    @staticmethod
    def of(names: Sequence[str], registry: Registry, where: str) -> Objective:
        """The terms `names`; an unknown or repeated one is an :class:`InputError` at `where`."""
        known = [*CORE_SCORE_TERMS, *registry.score_terms]
        seen: list[str] = []
        for name in names:
            if name not in known:
                raise InputError(
                    where,
                    "",
                    f"unknown score term {name!r}{did_you_mean(name, known)} "
                    f"(the terms: {', '.join(known)})",
                )
            if name in seen:
                raise InputError(where, "", f"score term {name!r} is named twice")
            seen.append(name)
        if not seen:
            raise InputError(
                where, "", f"name at least one score term (the terms: {', '.join(known)})"
            )
        keys = {n: registry.score_terms[n].player_key for n in seen if n in registry.score_terms}
        return Objective(tuple(seen), keys)

    @staticmethod
    def parse(text: str, registry: Registry, where: str = "objective") -> Objective:
        """Terms written as ``life,game,material``; a mistake is an :class:`InputError` at
        `where` (the command line names its flag)."""
        return Objective.of([t.strip() for t in text.split(",") if t.strip()], registry, where)

    def summaries(self, registry: Registry) -> dict[str, str]:
        """What each term measures."""
        return {
            t: CORE_TERM_SUMMARIES[t]
            if t in CORE_TERM_SUMMARIES
            else registry.score_terms[t].summary
            for t in self.terms
        }


@dataclass(frozen=True)
class Sides:
    """Each battle's attacking and defending player rows, and each creature row's value."""

    attacking_player: IntArray  #: [n_battles]
    defending_player: IntArray  #: [n_battles]
    value: IntArray  #: [N] per creature row
    #: [N] whether a row's value is its `value` key (else power plus toughness); None: none is.
    keyed: BoolArray | None = None


def score(
    objective: Objective, batch: CombatBatch, outcome: BatchOutcome, sides: Sides
) -> IntArray:
    """[n_battles, len(terms)] the score of each battle's outcome."""
    nb = batch.n_battles
    out = np.empty((nb, len(objective.terms)), I64)
    a: IntArray | slice = sides.attacking_player
    d: IntArray | slice = sides.defending_player
    if nb >= STRIDED_FROM:  # strided views when evenly spaced (one-on-one battles): no gathers
        a = as_slice(sides.attacking_player) or a
        d = as_slice(sides.defending_player) or d
    for i, term in enumerate(objective.terms):
        if term == "game":
            games = outcome.lost.view(np.int8)  # bytes subtract faster than booleans cast
            np.subtract(games[d], games[a], out=out[:, i], casting="unsafe")
        elif term == "material":
            entered = batch.present if outcome.entered is None else outcome.entered
            # products by masks, not np.where: numpy's where is slow on unpredictable masks
            if outcome.returned is None:  # what is on the battlefield is worth its value
                lost = sides.value * (entered & ~outcome.alive)
            else:
                kept = worth(sides, outcome) * outcome.alive
                lost = (sides.value - kept) * entered
            # the defending player's loss minus the others': per player, then per battle
            by_player = np.bincount(batch.controller, weights=lost, minlength=len(batch.life))
            if len(batch.life) == 2 * nb:  # two players each (a combat has at least two)
                np.subtract(by_player[d], by_player[a], out=out[:, i], casting="unsafe")
            else:
                total = np.bincount(batch.player_battle, weights=by_player, minlength=nb)
                out[:, i] = (2 * by_player[d] - total).astype(I64)
        elif term == "life":
            lost_life = batch.life - outcome.life
            np.subtract(lost_life[d], lost_life[a], out=out[:, i])
        else:
            key = objective.player_keys[term]
            assert outcome.player_state is not None
            after, before, column = outcome.player_state[key], batch.player_state[key], out[:, i]
            np.subtract(after[d], after[a], out=column, dtype=I64)
            column -= before[d]
            column += before[a]
    return out


def worth(sides: Sides, outcome: BatchOutcome) -> IntArray:
    """[N] the value of what is on the battlefield at the end, per creature row (RULES 9): the
    creature's value, or for one that died and returned as a new object (persist, undying) the
    value of what returned: its `value` key, else its power plus toughness as it returned.
    Material lost is a creature's value minus this while it is on the battlefield."""
    if outcome.returned is None:
        return sides.value
    back = outcome.returned >= 0
    if sides.keyed is not None:
        back &= ~sides.keyed
    out: IntArray = sides.value + (outcome.returned - sides.value) * back  # where `back`
    return out


#: Up to this many rows, :func:`lexicographic_ranks` finds each term's lowest and highest
#: value with one call over the whole array (faster for few rows; column by column for many).
SMALL_SCORES = 256


def lexicographic_ranks(scores: IntArray) -> IntArray:
    """A number per row of `scores` ordered as the rows compared term by term: equal rows get
    equal numbers, a lower row a lower one."""
    if len(scores) == 0:
        return np.zeros(0, I64)
    columns = [scores[:, t] for t in range(scores.shape[1])]
    if len(scores) <= SMALL_SCORES:  # two calls over the whole array
        lows = scores.min(axis=0)
        low = lows.tolist()
        span = (scores.max(axis=0) - lows + 1).tolist()
    else:  # term by term: numpy reduces a few columns of many rows along the rows slowly
        low = [int(c.min()) for c in columns]
        span = [int(c.max()) - lo + 1 for c, lo in zip(columns, low, strict=True)]
    if math.prod(map(float, span)) < 2.0**62:
        # mixed radix, term by term (an integer matrix product is much slower)
        out: IntArray = columns[0] - low[0]
        for t in range(1, len(span)):
            out *= span[t]
            out += columns[t]
            out -= low[t]
        return out
    _, inverse = np.unique(scores, axis=0, return_inverse=True)
    return inverse.reshape(-1).astype(I64)
