"""Creatures that return to the battlefield as new objects (400.7), in the batched engine:
the rows are reset to what the batch put onto the battlefield, over whole arrays. A row keeps
its id; what belonged to the old object goes: its state, damage, counters, effects and marks,
references to it in plugins' state, and what triggers put on the stack before it returned
would do to it (``_Run.new_objects``, read by the context while triggers resolve)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ecs_combat.batched.arrays import IntArray

if TYPE_CHECKING:
    from ecs_combat.batched.engine import _Run

I64 = np.int64


def return_to_battlefield(run: _Run, rows: IntArray) -> None:
    """Rows that died return as new objects: printed power, toughness and keywords, no
    counters, damage, marks or until-end-of-turn effects, untapped, not in combat, summoning
    sick. Tokens (111.8) and rows on the battlefield stay as they are."""
    rows = np.asarray(rows, I64)
    rows = rows[~run.on_bf[rows] & ~run.token[rows]]
    if not rows.size:
        return
    run.on_bf[rows] = True
    run.remove_from_combat(rows)
    run.blocked[rows] = False
    run.tapped[rows] = False
    run.marked[rows] = 0
    run.writable("power")
    run.writable("toughness")
    run.power[rows] = run.born_power[rows]
    run.toughness[rows] = run.born_toughness[rows]
    if run.counts is not None:
        run.counts[rows] = 0
    if run.kw_counter is not None:
        run.kw_counter[rows] = 0
    run.kw_base[rows] = run.born_keywords[rows]
    if run.removed is not None:
        run.removed[rows] = 0
    run.update_own(rows)
    if run.static:
        run.cur[rows] = run.own[rows]
    run.forget_flags()
    gone = np.isin(run.inst_row, rows)
    born = np.isin(run.born_inst_row, rows)
    row = np.concatenate([run.inst_row[~gone], run.born_inst_row[born]])
    order = np.argsort(row, kind="stable")
    run.inst_row = row[order]
    run.inst_kw = np.concatenate([run.inst_kw[~gone], run.born_inst_kw[born]])[order]
    run.inst_param = np.concatenate([run.inst_param[~gone], run.born_inst_param[born]])[order]
    for column in run.columns.values():
        column[rows] = 0
    run.struck[rows] = False
    if run.struck_steps is not None:
        run.struck_steps[rows] = 0
    run.became_sick(rows)
    _forget_state(run, rows)
    if run.new_objects is not None:
        run.new_objects[rows] = True


def _forget_state(run: _Run, rows: IntArray) -> None:
    """The rows' plugin state is the default (printed state stays); creature references to
    the old objects, on any creature or player row, are cleared (-1: a pair is broken on both
    sides)."""
    fields = run.reg.state_fields("creature")
    states = run.creature_states
    for key, f in fields.items():
        if not f.printed and f.default_from is None and key in states:
            states[key][rows] = -1 if f.kind == "creature" else f.default or 0
    for key, f in fields.items():
        if not f.printed and f.default_from is not None and key in states:
            states[key][rows] = states[f.default_from][rows]
    for owner, arrays in (("creature", states), ("player", run.player_states)):
        for key, f in run.reg.state_fields(owner).items():
            if f.kind == "creature" and key in arrays:
                column = arrays[key]
                column[np.isin(column, rows)] = -1
