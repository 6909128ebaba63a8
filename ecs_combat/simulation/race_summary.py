"""The summary of bulk races (a SPEC with ``[race]``): per matchup, the races won, lost and
drawn by the attacking side of the drawn board (player A, who moves first), each as a rate with
its 95% Wilson interval, and the mean turns to win; as JSON data and as a table."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from ecs_combat.simulation.generate import Generator
from ecs_combat.simulation.intervals import rate_and_interval
from ecs_combat.simulation.races import RACE_COLUMNS
from ecs_combat.simulation.simulate import Run
from ecs_combat.simulation.spec import BattleSpec

#: Each rate of a row, and the count it is of.
RATES = (("win", "race_wins"), ("loss", "race_losses"), ("draw", "race_draws"))


def race_row(counts: npt.NDArray[np.int64]) -> dict[str, Any]:
    """A summary row of races: the counts, each of wins, losses and draws as a rate with its
    95% Wilson interval, and the mean turns of the races won and of those lost (None when
    there are none)."""
    names = RACE_COLUMNS[:4]
    row: dict[str, Any] = {n: int(v) for n, v in zip(names, counts.tolist(), strict=False)}
    for name, column in RATES:
        rate, interval = rate_and_interval(row[column], row["races"])
        row[f"race_{name}_rate"] = rate
        row[f"race_{name}_rate_ci95"] = interval
    wins, losses = int(counts[1]), int(counts[2])
    row["mean_turns_to_win"] = round(int(counts[4]) / wins, 4) if wins else None
    row["mean_turns_to_lose"] = round(int(counts[5]) / losses, 4) if losses else None
    return row


def race_summary(generator: Generator, spec: BattleSpec, seed: int, run: Run) -> dict[str, Any]:
    """The machine-readable summary of races; ``run`` also counts the combat phases played and
    the candidate combats the searches resolved to decide them."""
    tally = run.tally
    keys = sorted(tally.counts, key=lambda k: (generator.sort_key(k[0]), generator.sort_key(k[1])))
    total = np.zeros(len(RACE_COLUMNS), dtype=np.int64)
    for counts in tally.counts.values():
        total += counts
    doc: dict[str, Any] = {
        "simulation": "races",
        "seed": seed,
        "battles": int(total[0]),
        "creatures": tally.creatures,
        "spec": spec.describe(),
        "totals": race_row(total),
        "matchups": [
            {
                "attacker": generator.label(a),
                "blocker": generator.label(b),
                **race_row(tally.counts[(a, b)]),
            }
            for a, b in keys
        ],
        "run": run.describe(),
    }
    played, resolved = (0, 0) if tally.combats is None else tally.combats.tolist()
    doc["run"]["combats_played"] = played
    doc["run"]["combats_resolved_by_search"] = resolved
    return doc


__all__ = ["race_row", "race_summary"]
