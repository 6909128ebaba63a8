"""A bulk simulation's later combat phases declared as they begin, from drawn intentions
(:class:`~ecs_combat.batched.turn.DrawnPhase`), over whole arrays: the declarations the rules
and the state then allow."""

from __future__ import annotations

import dataclasses

import numpy as np

from ecs_combat.batched.arrays import CombatBatch
from ecs_combat.batched.boards import without_blocks
from ecs_combat.batched.keywords import refresh
from ecs_combat.batched.state import State
from ecs_combat.batched.turn import DrawnPhase
from ecs_combat.batched.views import RowSide, restrictions

I64 = np.int64


def declared(state: State, undeclared: CombatBatch, phase: DrawnPhase) -> CombatBatch:
    """The phase's batch (`undeclared` with its declarations): attackers and blocks from
    the drawn intentions, as the rules and the state now allow them (no events, no
    divisions). The static-keyword hooks run first: the creatures' keywords as they are
    now."""
    refresh(state, None)
    frame, c, kw = state.frame, state.creatures, state.keywords
    n, nb = frame.n, frame.nb
    battle = c.battle
    attacker_of = phase.player[battle]
    ready = c.on_bf & ~c.tapped & ~state.players.game_over[battle]
    att = ready & phase.attack & (c.controller == attacker_of) & (attacker_of >= 0)
    if phase.only is not None:
        att &= phase.only
    rows = np.flatnonzero(att)
    if rows.size:
        side = RowSide(frame, kw, c, rows, np.zeros(rows.size, np.bool_), np.zeros(rows.size, I64))
        ok = np.ones(rows.size, np.bool_)
        for r in restrictions(frame, "attack"):
            ok &= np.asarray(r.test(side), np.bool_)
        rows = rows[ok]
    # defending player: the next one in the battle (two-player battles)
    player_battle = state.players.battle
    player_start = np.searchsorted(player_battle, np.arange(nb))
    seats = np.bincount(player_battle, minlength=nb)
    att_player = np.maximum(phase.player, 0)
    defender = player_start + (att_player - player_start + 1) % seats
    attacking = np.full(n, -1, I64)
    attacking[rows] = defender[battle[rows]]
    # blocks: each willing blocker picks one of its battle's attackers
    count = np.bincount(battle[rows], minlength=nb)
    start = np.zeros(nb, I64)
    np.cumsum(count[:-1], out=start[1:])
    blk = ready & phase.block & (c.controller != attacker_of)
    blk &= count[battle] > 0
    b_rows = np.flatnonzero(blk)
    pick = np.minimum(
        (np.asarray(phase.choice)[b_rows] * count[battle[b_rows]]).astype(I64),
        count[battle[b_rows]] - 1,
    )
    a_rows = rows[start[battle[b_rows]] + pick] if b_rows.size else b_rows
    if b_rows.size:
        legal = np.ones(b_rows.size, np.bool_)
        opp = np.ones(b_rows.size, np.bool_)
        no_color = np.zeros(b_rows.size, I64)
        blocker_side = RowSide(frame, kw, c, b_rows, opp, no_color)
        attacker_side = RowSide(frame, kw, c, a_rows, opp, no_color)
        for r in restrictions(frame, "block"):
            legal &= np.asarray(r.test(blocker_side), np.bool_)
        for r in restrictions(frame, "block-pair"):
            legal &= np.asarray(r.test(attacker_side, blocker_side), np.bool_)
        b_rows, a_rows = b_rows[legal], a_rows[legal]
        need = restrictions(frame, "blockers")
        if need and a_rows.size:
            have = np.bincount(a_rows, minlength=n)
            least = np.ones(a_rows.size, I64)
            side = RowSide(
                frame, kw, c, a_rows, np.ones(a_rows.size, np.bool_), np.zeros(a_rows.size, I64)
            )
            for r in need:
                least = np.maximum(least, np.asarray(r.test(side), I64))
            enough = have[a_rows] >= least
            b_rows, a_rows = b_rows[enough], a_rows[enough]
    order = np.argsort(a_rows, kind="stable")
    return dataclasses.replace(
        undeclared,
        attacking=attacking,
        block_blocker=b_rows[order],
        block_attacker=a_rows[order],
        block_rank=np.zeros(b_rows.size, I64),
    )


def undeclared(first: CombatBatch) -> CombatBatch:
    """A later combat phase's batch before its declarations: the turn's rows, no attackers,
    blocks, divisions or events."""
    empty = np.zeros(0, I64)
    return without_blocks(
        first,
        attacking=np.full(first.n_creatures, -1, I64),
        event_battle=empty,
        event_point=empty,
        event_action=empty,
        event_target=empty,
        event_keywords=np.zeros(0, np.uint64),
        event_counters=None,
        event_instance_event=empty,
        event_instance_keyword=empty,
        event_instance_parameter=empty,
        event_power=empty,
        event_toughness=empty,
        event_amount=empty,
        event_player=empty,
        event_card=empty,
        event_index=None,
    )
