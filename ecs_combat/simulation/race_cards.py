"""Races between a card pool's cards (a SPEC with ``[pool]`` and ``[race]``, CONTRACT section 9):
each drawn pairing of cards is raced (:mod:`.races`), and each card's races are counted from
its side: a **win** when its side won the race, a **loss** when the other side did, a **draw**
otherwise (the turn limit came, or both lost), with the turns of the races its side won; in
all, moving first (its side was the drawn attacking side, A) and moving second (B). Cards are
ranked by their race win rate minus their loss rate, then by the mean turns to win (fewest
first), then by name.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from ecs_combat.simulation.pool import CardPool
from ecs_combat.simulation.race_summary import race_row
from ecs_combat.simulation.races import ORDERS, RACE_COLUMNS
from ecs_combat.simulation.simulate import Run
from ecs_combat.simulation.spec import Spec

I64 = np.int64


def _rank_key(card: dict[str, Any]) -> tuple[Any, ...]:
    """Race wins minus losses (highest first), the mean turns to win (fewest first), the name;
    cards in no race last."""
    if not card["races"]:
        return (1, 0.0, 0.0, card["card"].casefold())
    net = (card["race_wins"] - card["race_losses"]) / card["races"]
    turns = card["mean_turns_to_win"]
    return (0, -net, float("inf") if turns is None else turns, card["card"].casefold())


def race_card_rows(pool: CardPool, cards: npt.NDArray[np.int64] | None) -> list[dict[str, Any]]:
    """Per card of the pool: what it is and its races (all, then moving first and second),
    ranked."""
    if cards is None:
        cards = np.zeros((len(pool), len(ORDERS), len(RACE_COLUMNS)), I64)
    out = []
    for i in range(len(pool)):
        row: dict[str, Any] = {**pool.card(i), **race_row(cards[i].sum(axis=0))}
        for o, order in enumerate(ORDERS):
            row[f"moving_{order}"] = race_row(cards[i, o])
        out.append(row)
    out.sort(key=_rank_key)
    return [{"rank": rank, **row} for rank, row in enumerate(out, start=1)]


def race_card_summary(pool: CardPool, spec: Spec, seed: int, run: Run) -> dict[str, Any]:
    """The machine-readable summary of races between a pool's cards: totals from the drawn
    attacking side's view (A, moving first), then per card from its own side; ``run`` also
    counts the combat phases played and the candidate combats the searches resolved."""
    tally = run.tally
    total = np.zeros(len(RACE_COLUMNS), I64)
    for counts in tally.counts.values():
        total += counts
    doc: dict[str, Any] = {
        "simulation": "card pool races",
        "seed": seed,
        "battles": int(total[0]),
        "creatures": tally.creatures,
        "spec": spec.describe(),
        "totals": race_row(total),
        "cards": race_card_rows(pool, tally.cards),
        "run": run.describe(),
    }
    played, resolved = (0, 0) if tally.combats is None else tally.combats.tolist()
    doc["run"]["combats_played"] = played
    doc["run"]["combats_resolved_by_search"] = resolved
    return doc


__all__ = [
    "race_card_rows",
    "race_card_summary",
]
