"""Triggered abilities of a run resolving, round by round (603.3b)."""

from __future__ import annotations

import numpy as np

from ecs_combat.batched.actions import state_based_actions
from ecs_combat.batched.arrays import IntArray
from ecs_combat.batched.keywords import keyword_index, listed_at, refresh
from ecs_combat.batched.numeric import mask_of, run_starts
from ecs_combat.batched.state import Run
from ecs_combat.errors import call_plugin
from ecs_combat.plugin.payloads import BatchTriggers

I64 = np.int64


def resolve_triggers(run: Run, groups: list[BatchTriggers]) -> None:
    """Resolve triggered abilities as the reference engine does (APNAP order, 603.3b; one
    source's in the order its keyword instances are listed; state-based actions after
    each): round r resolves the r-th trigger of every battle, one call per kind of
    trigger; a trigger whose source left the battlefield still resolves (113.7a)."""
    groups = [g for g in groups if len(g.source)]
    if not groups:
        return
    c, p = run.creatures, run.players
    source = np.concatenate([np.asarray(g.source, I64) for g in groups])
    instance = np.concatenate([np.asarray(g.instance, I64) for g in groups])
    kind = np.concatenate([np.full(len(g.source), i, I64) for i, g in enumerate(groups)])
    local = np.concatenate([np.arange(len(g.source), dtype=I64) for g in groups])
    keyword = np.concatenate(
        [np.full(len(g.source), keyword_index(run, g.keyword), I64) for g in groups]
    )
    listed = listed_at(run, source, keyword, instance)
    battle = c.battle[source]
    # players per battle (a battle's player rows are contiguous, battles ascending)
    seats = np.searchsorted(p.battle, battle, "right") - np.searchsorted(p.battle, battle)
    rank = (c.controller[source] - p.active_of(battle)) % seats  # from the active player
    order = np.lexsort((local, kind, listed, source, -rank, battle))
    starts = run_starts(battle[order])
    position = np.arange(len(order)) - np.repeat(starts, np.diff(np.append(starts, len(order))))
    c.new_objects = np.zeros(run.n, np.bool_)
    context = run.context
    try:
        for r in range(int(position.max()) + 1):
            now = order[position == r]
            now = now[~p.game_over[battle[now]]]
            if not now.size:
                continue
            context.stale = c.new_objects.copy() if c.new_objects.any() else None
            try:
                for k in np.unique(kind[now]).tolist():
                    _resolve_group(run, groups[k], local[now[kind[now] == k]])
            finally:
                context.stale = None
            battles = mask_of(run.nb, battle[now])
            refresh(run, battles)
            state_based_actions(run, battles)
    finally:
        c.new_objects = None


def _resolve_group(run: Run, group: BatchTriggers, index: IntArray) -> None:
    """Some triggers of one kind resolve (at most one in each battle)."""
    taken = group.take(index)
    call_plugin(group.plugin, "a triggered ability (batched)", group.resolve, run.context, taken)
