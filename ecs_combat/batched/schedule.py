"""How a run begins: the keywords a batch uses (refusing what the batched engine can't
resolve), the systems and static-keyword hooks that apply to it (made once per keyword layout
and keywords used), and its state read from the batch."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ecs_combat.batched.arrays import ACTION_CODE, CombatBatch, IntArray
from ecs_combat.batched.context import BatchedContext
from ecs_combat.batched.keyword_rows import KeywordRows
from ecs_combat.batched.log import Log
from ecs_combat.batched.masks import KeywordMasks
from ecs_combat.batched.numeric import bits_of, distinct_values, mask_type, rows_per_battle
from ecs_combat.batched.state import (
    ONE_COMBAT,
    CombatRows,
    CreatureRows,
    Errors,
    Frame,
    PlayerRows,
    Policy,
    Records,
    Schedule,
    State,
)
from ecs_combat.errors import RefusedError
from ecs_combat.plugin.registry import Registry, ScheduledSystem
from ecs_combat.plugin.schedule import POINT_NAMES
from ecs_combat.rules.pipeline import StepPlan


class Schedules:
    """The keyword masks, systems and static hooks of an engine's runs, made once for each
    keyword bit layout and keywords used."""

    def __init__(self, registry: Registry, plans: list[StepPlan]) -> None:
        self.registry = registry
        self.plans = plans
        self.masks: dict[tuple[str, ...], KeywordMasks] = {}
        self.reasons: dict[tuple[str, ...], dict[tuple[int, int, int, int], str]] = {}
        self.scheduled: dict[tuple[tuple[str, ...], int], Schedule] = {}

    def masks_of(self, names: tuple[str, ...]) -> KeywordMasks:
        """The keyword masks for a batch's keyword bits."""
        found = self.masks.get(names)
        if found is None:
            found = self.masks[names] = KeywordMasks.build(self.registry, self.plans, names)
        return found

    def of(self, batches: Sequence[CombatBatch], cards: IntArray | None = None) -> Schedule:
        """The schedule of a run over some batches sharing one keyword layout (a turn's
        phases), and cards (indices into `card_names`) it may cast besides its events'."""
        masks = self.masks_of(tuple(batches[0].keyword_names))
        used = 0
        for batch in batches:
            used |= keywords_used(self.registry, masks, batch)
        if cards is not None and cards.size:
            used |= card_bits(self.registry, masks, batches[0].card_names, cards)
        key = (masks.names, used)
        found = self.scheduled.get(key)
        if found is None:
            found = self.scheduled[key] = Schedule(
                self.registry,
                self.plans,
                masks,
                mask_type(len(masks.names)),
                systems(self.registry, masks, used),
                static_hook(self.registry, masks, used),
                self.reasons.setdefault(masks.names, {}),
            )
        return found


def keywords_used(registry: Registry, masks: KeywordMasks, batch: CombatBatch) -> int:
    """The keywords a batch uses (printed, counters, events, cards) as a mask; refuses a
    batch using a keyword or card the batched engine can't resolve."""
    b = batch
    used = int(np.bitwise_or.reduce(b.keywords)) if b.keywords.size else 0
    if b.event_keywords.size:
        used |= int(np.bitwise_or.reduce(b.event_keywords))
    for counters in (b.counters, b.event_counters):
        if counters is not None and counters.size:
            some = np.any(counters[:, : len(masks.names)] > 0, axis=0, keepdims=True)
            used |= int(bits_of(some)[0])
    if b.event_card.size:
        cast = b.event_card[b.event_action == ACTION_CODE["cast"]]
        used |= card_bits(registry, masks, b.card_names, cast)
    if registry.event_actions and b.event_action.size:
        used |= action_bits(registry, masks, b.event_action)
    for name, why in masks.refused.items():
        if used & masks.bit[name]:
            raise RefusedError(why)
    return used


def action_bits(registry: Registry, masks: KeywordMasks, actions: IntArray) -> int:
    """The bits of the keywords the plugins' event actions among some action codes belong
    to; an action whose keyword the batch can't hold is refused."""
    used = 0
    names = list(registry.event_actions)
    added = actions[actions >= len(ACTION_CODE)]
    for code in distinct_values(added) if added.size else ():
        keyword = registry.event_actions[names[code - len(ACTION_CODE)]].keyword
        if keyword not in masks.bit:
            raise RefusedError(f"event action of {keyword!r}, which has no bit in the batch")
        used |= masks.bit[keyword]
    return used


def card_bits(
    registry: Registry, masks: KeywordMasks, names: Sequence[str], card_indices: IntArray
) -> int:
    """The bits of the keywords some cards (indices into `names`) may grant; a card or
    keyword the batch can't hold is refused."""
    used = 0
    for ci in distinct_values(card_indices):
        card = registry.card(names[ci])
        if card is None:
            raise RefusedError(f"no card {names[ci]!r} in the card library")
        for kw in card.keywords:
            if kw not in masks.bit:
                raise RefusedError(f"{card.name} gives {kw!r}, which has no bit in the batch")
            used |= masks.bit[kw]
    return used


def systems(registry: Registry, masks: KeywordMasks, used: int) -> dict[str, list[ScheduledSystem]]:
    """The plugins' systems that apply to a batch using keywords `used`, per point."""
    return {
        point: [
            s
            for s in registry.systems_at(point)
            if not s.system.keywords or any(used & masks.bit.get(k, 0) for k in s.system.keywords)
        ]
        for point in POINT_NAMES
    }


def static_hook(registry: Registry, masks: KeywordMasks, used: int) -> Any:
    """The static-keyword hooks to call: those of the plugins whose keywords the batch uses
    (a static ability belongs to a keyword). None if there are none."""
    hook = "static_keywords_batch"
    plugins = registry.plugins_implementing(hook)
    owned: dict[str, int] = {}
    for keyword, plugin in registry.keyword_plugin.items():
        owned[plugin] = owned.get(plugin, 0) | masks.bit.get(keyword, 0)
    idle = [p for p in plugins if not used & owned.get(p, 0)]
    if len(idle) == len(plugins):
        return None
    manager = registry.manager
    return manager.subset_hook_caller(hook, [manager.get_plugin(p) for p in idle])


def start(
    schedule: Schedule, batch: CombatBatch, record: bool, policy: Policy = ONE_COMBAT
) -> State:
    """The state of a batch about to be played, as the batch gives it, its combat read from
    the batch; the plugins' context over it."""
    static = schedule.static_hook is not None
    k = len(schedule.masks.names)
    keywords = KeywordRows.of(batch, schedule.kt, k, schedule.registry, static)
    gives = keywords.gives() if len(batch.counter_names) > k else None
    n_steps = len(schedule.plans)
    n, nb = batch.n_creatures, batch.n_battles
    frame = Frame(schedule, batch, n, nb, n_steps, rows_per_battle(batch.battle, nb), policy)
    state = State(
        frame,
        CreatureRows.of(batch, gives),
        keywords,
        CombatRows.of(batch, n_steps, record),
        PlayerRows.of(batch),
        Errors(),
        Records(Log() if record else None),
    )
    state.context = BatchedContext(state)
    return state
