"""The per-creature table of drawn battles (``simulate --out``, the per-battle files): one row
per creature of each battle, each distinct text made once."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from ecs_combat.batched import BatchOutcome, IntArray
from ecs_combat.simulation.generate import Drawn, Generator

#: Columns of the per-creature table, one row per creature of each battle, in battle order:
#: the battle, the side (``A`` attacks, ``B`` defends), the creature's id in the battle's
#: scenario (``simulate --replay``), its card (empty for a made-up creature), its keywords,
#: its power and toughness as the battle began, and whether it died.
CREATURE_COLUMNS = ("battle", "side", "id", "card", "keywords", "power", "toughness", "died")
#: The sides of the per-creature table: the attacking player's creatures, the defending one's.
SIDES = ("A", "B")


def creature_table(
    generator: Generator, drawn: Drawn, outcome: BatchOutcome, start: int
) -> dict[str, npt.NDArray[Any]]:
    """The per-creature table of drawn battles (:data:`CREATURE_COLUMNS`); text columns are
    object arrays, each distinct text made once."""
    gone = ~outcome.alive if outcome.entered is None else outcome.entered & ~outcome.alive
    return creature_rows(generator, drawn, gone, start)


def creature_rows(
    generator: Generator, drawn: Drawn, died: npt.NDArray[np.bool_], start: int
) -> dict[str, npt.NDArray[Any]]:
    """:func:`creature_table` given which of the drawn creatures died (`died`, per row)."""
    batch = drawn.batch
    n = batch.n_creatures
    first = np.zeros(batch.n_battles, dtype=np.int64)
    np.cumsum(np.bincount(batch.battle, minlength=batch.n_battles)[:-1], out=first[1:])
    local = np.arange(n, dtype=np.int64) - first[batch.battle]
    ids = _texts(local, lambda i: f"c{i}")
    pool = generator.pool
    if pool is not None and drawn.card is not None:
        cards = _texts(drawn.card, lambda c: pool.names[c])
        keywords = _texts(drawn.card, lambda c: ", ".join(str(k) for k in pool.instances[c]))
    else:
        names = batch.keyword_names
        cards = np.full(n, "", dtype=object)
        keywords = _texts(
            batch.keywords.astype(np.int64),
            lambda m: ", ".join(k for i, k in enumerate(names) if m >> i & 1),
        )
    return {
        "battle": batch.battle + start,
        "side": np.array(SIDES, dtype=object)[(~drawn.attacking_side).astype(np.int64)],
        "id": ids,
        "card": cards,
        "keywords": keywords,
        "power": batch.power.astype(np.int64),
        "toughness": batch.toughness.astype(np.int64),
        "died": died,
    }


def _texts(codes: IntArray, text: Callable[[int], str]) -> npt.NDArray[Any]:
    """Codes as texts (an object array), each distinct text made once."""
    distinct, inverse = np.unique(codes, return_inverse=True)
    made = np.array([text(int(c)) for c in distinct.tolist()] + [""], dtype=object)[:-1]
    out: npt.NDArray[Any] = made[inverse.reshape(-1)]
    return out
