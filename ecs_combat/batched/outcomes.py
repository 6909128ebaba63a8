"""The final state of the battles built: each creature's and player's outcome, read from a
run's arrays (what ``resolve`` prints after the steps)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ecs_combat.batched.arrays import IntArray
from ecs_combat.batched.keyword_rows import KeywordRows
from ecs_combat.batched.state import CreatureRows, Frame, PlayerRows
from ecs_combat.rules.result import CreatureOutcome, PlayerOutcome

I64 = np.int64


class Outcomes:
    """The creatures' and players' outcomes of some battles of a run, in the order chosen."""

    def __init__(
        self,
        frame: Frame,
        creatures: CreatureRows,
        kw: KeywordRows,
        players: PlayerRows,
        chosen: Sequence[int],
        cids: list[str],
        pids: list[str],
    ) -> None:
        self.cids, self.pids = cids, pids
        # the creature and player rows of the chosen battles, in order (`*_at[i]`: the first
        # of battle i's among them)
        ids = np.asarray(chosen, I64)
        edges = np.arange(frame.nb + 1)
        crow, self.c_at = _rows_of(creatures.battle.searchsorted(edges), ids)
        prow, self.p_at = _rows_of(players.battle.searchsorted(edges), ids)
        self.c_rows, self.p_rows = crow.tolist(), prow.tolist()
        self.alive, self.marked = creatures.on_bf[crow].tolist(), creatures.marked[crow].tolist()
        self.returned = creatures.returned[crow].tolist()
        self.tapped = (creatures.on_bf[crow] & creatures.tapped[crow]).tolist()
        self.power, self.toughness = (
            creatures.power[crow].tolist(),
            creatures.toughness[crow].tolist(),
        )
        self.entered = creatures.entered[crow].tolist()
        self.life, self.lost = players.life[prow].tolist(), players.lost[prow].tolist()
        self.counter_names = frame.batch.counter_names
        counts = kw.counts
        #: Each row's counts of every kind, or None for a row without counters.
        self.counts: list[list[int] | None] | None = None
        if counts is not None:
            held: list[list[int]] = counts.at(crow).tolist()
            self.counts = [row if max(row, default=0) > 0 else None for row in held]
        reg = frame.schedule.registry
        self.c_shown = {
            k: creatures.states[k][crow].tolist()
            for k, f in reg.state_fields("creature").items()
            if f.output
        }
        self.p_shown = {
            k: players.states[k][prow].tolist()
            for k, f in reg.state_fields("player").items()
            if f.output
        }

    def creatures(self, i: int) -> dict[str, CreatureOutcome]:
        """The outcome of each creature of the i-th battle chosen that entered it."""
        out: dict[str, CreatureOutcome] = {}
        counts, returned = self.counts, self.returned
        for j in range(self.c_at[i], self.c_at[i + 1]):
            if self.entered[j]:
                out[self.cids[self.c_rows[j]]] = CreatureOutcome(
                    alive=self.alive[j],
                    damage=self.marked[j],
                    power=self.power[j],
                    toughness=self.toughness[j],
                    tapped=self.tapped[j],
                    counters=self._counters(None if counts is None else counts[j]),
                    state={k: v[j] for k, v in self.c_shown.items()},
                    returned=None if returned[j] < 0 else int(returned[j]),
                )
        return out

    def _counters(self, counts: list[int] | None) -> dict[str, int]:
        """A creature's counters by kind (those it has)."""
        if counts is None:
            return {}
        return {k: n for k, n in zip(self.counter_names, counts, strict=True) if n > 0}

    def players(self, i: int) -> dict[str, PlayerOutcome]:
        """The outcome of each player of the i-th battle chosen."""
        return {
            self.pids[self.p_rows[j]]: PlayerOutcome(
                life=self.life[j],
                lost=self.lost[j],
                state={k: v[j] for k, v in self.p_shown.items()},
            )
            for j in range(self.p_at[i], self.p_at[i + 1])
        }


def _rows_of(start: IntArray, battles: IntArray) -> tuple[IntArray, list[int]]:
    """The rows of some battles (battle b's are ``start[b]:start[b + 1]``), in order, and
    where each battle's begin among them (one more place: the end)."""
    count = start[battles + 1] - start[battles]
    at = np.zeros(len(battles) + 1, I64)
    np.cumsum(count, out=at[1:])
    rows = np.arange(int(at[-1]), dtype=I64) + (start[battles] - at[:-1]).repeat(count)
    return rows, at.tolist()
