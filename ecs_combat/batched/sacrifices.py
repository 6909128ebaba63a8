"""Which creature rows players sacrifice when an effect makes them choose (annihilator's
trigger, RULES 13), for many battles at once: the batch's ``sacrifice_*`` rows first, then
the least valuable (as :mod:`ecs_combat.reference.sacrifices` says for one combat)."""

from __future__ import annotations

import numpy as np

from ecs_combat.batched.arrays import BoolArray, IntArray
from ecs_combat.batched.state import CombatRows, CreatureRows, PlayerRows

I64 = np.int64


def choose_sacrifices(
    creatures: CreatureRows, combat: CombatRows, p: PlayerRows, players: IntArray, n: IntArray
) -> IntArray:
    """The rows distinct player rows `players` choose to sacrifice now, `n[i]` for
    ``players[i]``: each takes the next `n` of its named rows still on the battlefield under
    its control, then the least valuable of its others (value, then the last row first),
    rows named for later sacrifices last."""
    c, b = creatures, combat.batch
    players, n = np.asarray(players, I64), np.asarray(n, I64)
    want = np.zeros(len(p.life), I64)
    want[players] = n
    if combat.sacrifices_taken is None:
        combat.sacrifices_taken = np.zeros(len(want), I64)
    taken = combat.sacrifices_taken
    mine: BoolArray = c.on_bf & (want[c.controller] > 0)
    named = np.zeros(0, I64)
    later = np.zeros(c.on_bf.shape, np.bool_)
    sp, sr = b.sacrifice_player, b.sacrifice_row
    if sp.size:
        rank = np.arange(len(sp)) - np.searchsorted(sp, sp)  # place in its player's list
        first, last = taken[sp], taken[sp] + want[sp]
        now = (want[sp] > 0) & (rank >= first) & (rank < last)
        named = sr[now]
        named = named[mine[named] & (c.controller[named] == sp[now])]
        later[sr[(want[sp] > 0) & (rank >= last)]] = True
    taken[players] += n
    need = want.copy()
    np.subtract.at(need, c.controller[named], 1)
    mine[named] = False
    rows = np.flatnonzero(mine)
    if not rows.size:
        return named
    value = np.asarray(b.power, I64)[rows] + np.asarray(b.toughness, I64)[rows]
    if b.value_row.size:
        given, has = np.zeros(c.on_bf.shape, I64), np.zeros(c.on_bf.shape, np.bool_)
        given[b.value_row], has[b.value_row] = b.value, True
        value = np.where(has[rows], given[rows], value)
    owner = c.controller[rows]
    order = np.lexsort((-rows, value, later[rows], owner))
    rows, owner = rows[order], owner[order]
    place = np.arange(len(rows)) - np.searchsorted(owner, owner)
    out: IntArray = np.concatenate([named, rows[place < need[owner]]])
    return out
