"""Creature tokens plugins create in the batched engine (``create_token``: myriad's): rows the
batch reserved for them as it was built (``CombatBatch.token_key``), put onto the
battlefield."""

from __future__ import annotations

import numpy as np

from ecs_combat.batched.arrays import IntArray
from ecs_combat.batched.state import CombatRows, CreatureRows, Frame, PlayerRows
from ecs_combat.errors import RefusedError

I64 = np.int64


def create_token(
    frame: Frame,
    creatures: CreatureRows,
    combat: CombatRows,
    p: PlayerRows,
    controllers: IntArray,
    sources: IntArray,
    tapped: bool,
    attacking: IntArray | None,
) -> IntArray:
    """Token copies of the `sources` rows enter under the `controllers` player rows, one per
    element, attacking the `attacking` player rows (those still in the game, 506.3) if given:
    the reserved rows of (source, `attacking` or controller). Their rows, -1 where the token
    is already there. A token no row was reserved for refuses the batch (it would be
    answered wrongly)."""
    b, c = frame.batch, creatures
    sources, controllers = np.asarray(sources, I64), np.asarray(controllers, I64)
    players = controllers if attacking is None else np.asarray(attacking, I64)
    key = sources * len(p.life) + players
    at = np.searchsorted(b.token_key, key)
    found = at < len(b.token_key)
    found[found] = b.token_key[at[found]] == key[found]
    if not found.all() or not np.array_equal(c.controller[b.token_row[at]], controllers):
        raise RefusedError(
            "a plugin creates a token this batch reserved no row for (its keyword declares "
            "no Keyword.tokens, or the batch was not built from scenarios)"
        )
    rows = b.token_row[at]
    new = ~c.entered[rows]
    made = rows[new]
    if made.size:
        c.writable("entered")
        c.on_bf[made] = c.entered[made] = c.token[made] = True
        c.tapped[made] = tapped
        if attacking is not None:
            combat.writable_attacking()
            player = players[new]
            attacks = ~p.lost[player]
            combat.attacking[made] = np.where(attacks, player, -1)
            combat.att[made] = attacks
            combat.in_combat[made] = attacks
    out: IntArray = np.where(new, rows, -1)
    return out
