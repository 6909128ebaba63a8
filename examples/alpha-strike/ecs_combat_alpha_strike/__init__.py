"""Alpha strike (Unfinity), an example third-party keyword plugin for ecs-combat.

"This creature has first strike as long as it is blocking or blocked by a creature whose name
comes later alphabetically (numbers before letters; spaces and punctuation ignored)."

Alpha strike switches on no mechanism of its own: it gives the ``first strike`` keyword (the
bundled first-strike plugin) through the ``static_keywords`` hooks, so both engines then treat
the creature exactly as a first striker. How names compare (the plugin's decisions):

- Only letters and digits count; case and accents are ignored ("Goblin-A" reads "goblina").
- Names compare character by character, as in a dictionary, and a digit comes before any
  letter: "Goblin 10" < "Goblin 2" < "Goblin-A" (read "goblin10", "goblin2", "goblina").
- Equal names (after the above) give nothing: neither name comes later.
- Blocking or blocked by several creatures: one whose name comes later is enough.
- Only blocks still in effect count: a blocker that died or was removed from combat no
  longer gives first strike.
- An effect that removed first strike this turn wins: static abilities don't give a keyword
  back (613.7; the engines see to it).
- Without the first-strike plugin alpha strike is unavailable (``Keyword.requires``): a
  scenario using it is an input error that names both keywords.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from ecs_combat import BatchView, CombatView, Keyword, hookimpl

ALPHA_STRIKE = "alpha strike"
#: The keyword alpha strike gives; provided by the bundled ``first_strike`` plugin.
FIRST_STRIKE = "first strike"

RankArray = npt.NDArray[np.intp]
BoolArray = npt.NDArray[np.bool_]


def name_key(name: str) -> str:
    """A name as alpha strike reads it: letters and decimal digits only, case and accents folded.

    Plain string order on these keys is alpha strike's order: digits ("0"-"9") come before
    letters.
    """
    out = []
    for ch in unicodedata.normalize("NFKD", name.casefold()):
        if ch.isdecimal():
            out.append(str(unicodedata.decimal(ch)))
        elif ch.isalpha():
            out.append(ch)
    return "".join(out)


def name_ranks(names: Sequence[str]) -> RankArray:
    """Each name's place in alpha strike's order, one integer per name; equal keys, equal ranks.

    Keys are read once per distinct name; rows are mapped to ranks at C speed.
    """
    distinct = dict.fromkeys(names)
    keys = {name: name_key(str(name)) for name in distinct}
    place = {key: rank for rank, key in enumerate(sorted(set(keys.values())))}
    rank_of = {name: place[key] for name, key in keys.items()}
    return np.fromiter(map(rank_of.__getitem__, names), dtype=np.intp, count=len(names))


@hookimpl
def register_keywords() -> list[Keyword]:
    """Alpha strike: it needs the first strike keyword it gives."""
    return [
        Keyword(
            ALPHA_STRIKE,
            rule="Unfinity (alpha strike)",
            requires=frozenset({FIRST_STRIKE}),
            summary="first strike while blocking or blocked by a creature whose name comes later "
            "alphabetically",
        )
    ]


@hookimpl
def static_keywords(combat: CombatView) -> dict[str, set[str]]:
    """First strike for each creature with alpha strike facing a later name (reference engine)."""
    given: dict[str, set[str]] = {}
    for creature in combat.creatures_with(ALPHA_STRIKE):
        own = name_key(combat.name(creature))
        facing = [*combat.blocking(creature), *combat.blocked_by(creature)]
        if any(name_key(combat.name(other)) > own for other in facing):
            given[creature] = {FIRST_STRIKE}
    return given


@hookimpl
def static_keywords_batch(batch: BatchView) -> dict[str, BoolArray]:
    """The same over every block pair of a batch at once (batched engine)."""
    blockers, attackers = batch.block_pairs()
    alpha = batch.has(ALPHA_STRIKE)
    if blockers.size == 0 or not alpha.any():
        return {}
    rank = name_ranks(batch.name_keys())
    blocker_later = rank[blockers] > rank[attackers]
    attacker_later = rank[attackers] > rank[blockers]
    first_strike = np.zeros(batch.rows, dtype=np.bool_)
    first_strike[attackers[blocker_later & alpha[attackers]]] = True
    first_strike[blockers[attacker_later & alpha[blockers]]] = True
    return {FIRST_STRIKE: first_strike}
