"""Creatures that return to the battlefield as new objects (400.7), in the batched engine:
the rows are reset to what the batch put onto the battlefield, over whole arrays. A row keeps
its id; what belonged to the old object goes: its state, damage, counters, effects and marks,
references to it in plugins' state, and what triggers put on the stack before it returned
would do to it (``CreatureRows.new_objects``, read by the context while triggers resolve)."""

from __future__ import annotations

import numpy as np

from ecs_combat.batched.actions import remove_from_combat
from ecs_combat.batched.arrays import IntArray
from ecs_combat.batched.keyword_rows import KeywordRows
from ecs_combat.batched.keywords import forget_flags, update_own
from ecs_combat.batched.numeric import mask_of
from ecs_combat.batched.state import CombatRows, CreatureRows, Frame, PlayerRows

I64 = np.int64


def return_to_battlefield(
    frame: Frame,
    creatures: CreatureRows,
    kw: KeywordRows,
    combat: CombatRows,
    players: PlayerRows,
    rows: IntArray,
) -> None:
    """Rows that died return as new objects: printed power, toughness and keywords, no
    counters, damage, marks or until-end-of-turn effects, untapped, not in combat, summoning
    sick. Tokens (111.8) and rows on the battlefield stay as they are."""
    c = creatures
    rows = np.asarray(rows, I64)
    rows = rows[~c.on_bf[rows] & ~c.token[rows]]
    if not rows.size:
        return
    c.on_bf[rows] = True
    remove_from_combat(combat, rows)
    combat.blocked[rows] = False
    if combat.returned is None:
        combat.returned = np.zeros(frame.n, np.bool_)
    combat.returned[rows] = True
    c.tapped[rows] = False
    c.marked[rows] = 0
    c.writable("power")
    c.writable("toughness")
    c.power[rows] = c.born_power[rows]
    c.toughness[rows] = c.born_toughness[rows]
    if kw.counts is not None:
        kw.counts.clear(rows)
    if kw.counter is not None:
        kw.counter[rows] = 0
    kw.base[rows] = kw.born[rows]
    if kw.removed is not None:
        kw.removed[rows] = 0
    update_own(kw, rows)
    if kw.static:  # else `cur` is `own`, and update_own forgot the rows' flags
        kw.cur[rows] = kw.own[rows]
        forget_flags(kw, rows)
    if not (
        kw.inst_row is kw.born_inst_row
        and kw.inst_kw is kw.born_inst_kw
        and kw.inst_param is kw.born_inst_param
    ):  # else the rows' instances are the ones they were born with already
        returning = mask_of(frame.n, rows)
        gone = returning[kw.inst_row]
        born = returning[kw.born_inst_row]
        row = np.concatenate([kw.inst_row[~gone], kw.born_inst_row[born]])
        order = np.argsort(row, kind="stable")
        kw.inst_row = row[order]
        kw.inst_kw = np.concatenate([kw.inst_kw[~gone], kw.born_inst_kw[born]])[order]
        kw.inst_param = np.concatenate([kw.inst_param[~gone], kw.born_inst_param[born]])[order]
    for column in creatures.columns.values():
        column[rows] = 0
    combat.struck[rows] = False
    if combat.struck_steps is not None:
        combat.struck_steps[rows] = 0
    if frame.policy.became_sick is not None:
        frame.policy.became_sick(rows)
    _forget_state(frame, creatures, players, rows)
    if c.new_objects is not None:
        c.new_objects[rows] = True


def _forget_state(
    frame: Frame, creatures: CreatureRows, players: PlayerRows, rows: IntArray
) -> None:
    """The rows' plugin state is the default (printed state stays); creature references to
    the old objects, on any creature or player row, are cleared (-1: a pair is broken on both
    sides)."""
    registry = frame.schedule.registry
    fields = registry.state_fields("creature")
    states = creatures.states
    for key, f in fields.items():
        if not f.printed and f.default_from is None and key in states:
            states[key][rows] = -1 if f.kind == "creature" else f.default or 0
    for key, f in fields.items():
        if not f.printed and f.default_from is not None and key in states:
            states[key][rows] = states[f.default_from][rows]
    returning = mask_of(creatures.on_bf.size, rows)
    for owner, arrays in (("creature", states), ("player", players.states)):
        for key, f in registry.state_fields(owner).items():
            if f.kind == "creature" and key in arrays:
                column = arrays[key]
                refs = np.flatnonzero(column >= 0)  # few rows refer to a creature
                column[refs[returning[column[refs]]]] = -1
