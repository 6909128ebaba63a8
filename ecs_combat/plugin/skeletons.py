"""Shapes many keywords share, written once for both engines (docs/plugins.md, "Shared shapes"):
a trigger that pumps its source (bushido, rampage, frenzy), a trigger that puts a counter on
its source (dethrone, training), the block trigger that fires for the creatures one event of
the declare-blockers step picks (509.2-509.5), and the attack trigger of each attacker that
remembers the player it attacks (annihilator, myriad).

A plugin using them is its keyword, its numbers and its note; the engines' forms of the
trigger come out the same by construction, and so does the kernel form of a block or attack
trigger resolved with a :class:`PumpTrigger` (:func:`pump_kernel`, its numbers written in). A
third-party plugin uses them the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from ecs_combat.plugin.batch_context import BatchContext
from ecs_combat.plugin.before_blocks import BeforeBlocks, Changes, Chooser, each_instance
from ecs_combat.plugin.context import CombatContext
from ecs_combat.plugin.kernels import KernelPart
from ecs_combat.plugin.payloads import (
    AttackDeclaration,
    BatchAttackDeclaration,
    BatchBlockDeclaration,
    BatchTriggers,
    BlockDeclaration,
    Trigger,
)
from ecs_combat.plugin.schedule import System

#: Which creatures' instances a block trigger fires for: those that block or became blocked
#: (bushido), the attackers that became blocked (rampage), the attackers that attack and
#: aren't blocked (frenzy).
BlockEvent = Literal["blocks or becomes blocked", "becomes blocked", "attacks and isn't blocked"]


#: A :class:`PumpTrigger`'s numbers, as :func:`pump_kernel` reads them: each use of the
#: shape writes its own in (``KernelPart.numbers``); these are only the names' defaults.
POWER, TOUGHNESS, PER_BLOCKER = 0, 0, False


def pump_kernel(row: int, n: int, other: int, c: Any, t: Any, own: Any) -> None:
    """A :class:`PumpTrigger` resolving in the compiled kernel: +POWER/+TOUGHNESS times `n`
    (times the blockers beyond the first with PER_BLOCKER), nothing if its source left."""
    if c.on_battlefield[row]:
        times = n * max(t.blockers[row] - 1, 0) if PER_BLOCKER else n
        c.power[row] += POWER * times
        c.toughness[row] += TOUGHNESS * times


#: How each engine resolves a trigger.
Resolve = Callable[[CombatContext, Trigger], None]
ResolveBatched = Callable[[BatchContext, BatchTriggers], None]


@dataclass(frozen=True)
class PumpTrigger:
    """A trigger whose source gets +`power`/+`toughness` until end of turn for each N of the
    instance that triggered (a keyword with a number); with `per_blocker_beyond_first`, that
    many times the creatures blocking it beyond the first, counted as it resolves (rampage).

    `note` is the reference engine's line for the account, formatted with ``keyword``,
    ``n`` (the instance's number), ``id`` (the source's), ``power`` and ``toughness`` (what
    it gets) and ``beyond`` (the blockers beyond the first)."""

    keyword: str
    power: int
    toughness: int
    note: str
    per_blocker_beyond_first: bool = False

    def resolve(self, combat: CombatContext, trigger: Trigger) -> None:
        """The trigger resolving in the reference engine."""
        n = trigger.data["n"]
        beyond = 0
        if self.per_blocker_beyond_first:
            beyond = max(combat.blocker_count(trigger.source) - 1, 0)
        times = n * beyond if self.per_blocker_beyond_first else n
        power, toughness = self.power * times, self.toughness * times
        if power or toughness or not self.per_blocker_beyond_first:
            combat.pump(trigger.source, power, toughness)
        combat.note(
            self.note.format(
                keyword=self.keyword,
                n=trigger.data["n"],
                id=combat.creature_id(trigger.source),
                power=power,
                toughness=toughness,
                beyond=beyond,
            )
        )

    def resolve_batched(self, batch: BatchContext, triggers: BatchTriggers) -> None:
        """The triggers of a batch resolving in the batched engine."""
        times = triggers.data["n"]
        if self.per_blocker_beyond_first:
            times = times * np.maximum(batch.blocker_count()[triggers.source] - 1, 0)
        batch.pump(triggers.source, self.power * times, self.toughness * times)

    def changes(self, source: str, n: int) -> Changes:
        """What one trigger of instance number `n` does before blockers are declared: no
        creature blocks yet, so with `per_blocker_beyond_first` nothing."""
        if self.per_blocker_beyond_first:
            return Changes()
        return Changes(pump={source: (self.power * n, self.toughness * n)})

    def before_blocks(
        self, creatures: Chooser | None = None, reads: Collection[str] = ()
    ) -> BeforeBlocks:
        """The rules core's part of an attack trigger resolving this way: one trigger per
        instance on each attacker (or each of `creatures(board)`, which `reads` what of
        :data:`~ecs_combat.plugin.before_blocks.READABLE`)."""
        return each_instance(self.keyword, self.changes, creatures, frozenset(reads))

    def kernel_part(self, point: str, system: str, event: str) -> KernelPart:
        """Its kernel form for a trigger system at `point` that triggers on `event`."""
        numbers = (
            ("POWER", self.power),
            ("TOUGHNESS", self.toughness),
            ("PER_BLOCKER", self.per_blocker_beyond_first),
        )
        return KernelPart(point, system, pump_kernel, event=event, numbers=numbers)


@dataclass(frozen=True)
class CounterTrigger:
    """A trigger that puts one counter of `kind` (``+1/+1``) on its source; `note` is the
    reference engine's line for the account, formatted with ``keyword`` and ``id``."""

    keyword: str
    kind: str
    note: str

    def resolve(self, combat: CombatContext, trigger: Trigger) -> None:
        """The trigger resolving in the reference engine."""
        combat.add_counters(trigger.source, self.kind, 1)
        combat.note(self.note.format(keyword=self.keyword, id=combat.creature_id(trigger.source)))

    def resolve_batched(self, batch: BatchContext, triggers: BatchTriggers) -> None:
        """The triggers of a batch resolving in the batched engine."""
        batch.add_counters(triggers.source, self.kind, 1)

    def changes(self, source: str, n: int) -> Changes:
        """What one trigger does before blockers are declared: a counter on its source."""
        return Changes(counters={source: {self.kind: 1}})

    def before_blocks(
        self, creatures: Chooser | None = None, reads: Collection[str] = ()
    ) -> BeforeBlocks:
        """The rules core's part of an attack trigger resolving this way: one trigger per
        instance on each attacker (or each of `creatures(board)`, which `reads` what of
        :data:`~ecs_combat.plugin.before_blocks.READABLE`)."""
        return each_instance(self.keyword, self.changes, creatures, frozenset(reads))


def block_trigger(
    keyword: str,
    event: BlockEvent,
    resolve: Resolve,
    resolve_batched: ResolveBatched,
    *,
    defender: bool = False,
) -> System:
    """The declare-blockers system of a block trigger: once per instance of `keyword` on each
    creature `event` picks, its number as ``data["n"]`` (509.2-509.5: in APNAP order, with
    state-based actions after each); with `defender`, also the player each attacks as it
    triggers, ``data["defending_player"]`` (-1 for none: afflict)."""

    def triggers(combat: CombatContext, declaration: BlockDeclaration) -> None:
        if event == "blocks or becomes blocked":
            creatures = declaration.in_blocks()
        elif event == "becomes blocked":
            creatures = declaration.blocked_attackers()
        else:
            blocked = set(declaration.blocked_attackers())
            creatures = [c for c in combat.creatures() if combat.attacking(c) and c not in blocked]
        before = len(declaration.triggers)
        declaration.trigger_each_instance(combat, keyword, resolve, creatures)
        if defender:
            _keep_defending_player(combat, declaration.triggers[before:])

    def triggers_batched(batch: BatchContext, declaration: BatchBlockDeclaration) -> None:
        if event == "blocks or becomes blocked":
            rows = declaration.in_blocks(batch.rows)
        elif event == "becomes blocked":
            rows = declaration.blocked_attackers(batch.rows)
        else:
            rows = batch.attacking() & ~declaration.blocked_attackers(batch.rows)
        before = len(declaration.triggers)
        declaration.trigger_each_instance(batch, keyword, resolve_batched, rows)
        if defender:
            _keep_defending_players(batch, declaration.triggers[before:])

    kernel = _kernel_of(resolve, "declare-blockers", "block trigger", event)
    return System(
        "declare-blockers", "block trigger", triggers, triggers_batched, {keyword}, kernel=kernel
    )


def _kernel_of(resolve: Resolve, point: str, system: str, event: str) -> KernelPart | None:
    """The kernel form of a trigger system resolving with `resolve`: a :class:`PumpTrigger`'s
    if `resolve` is one's, else none (the plugin may register a part of its own)."""
    shape = getattr(resolve, "__self__", None)
    if isinstance(shape, PumpTrigger):
        return shape.kernel_part(point, system, event)
    return None


def _keep_defending_player(combat: CombatContext, triggers: list[Trigger]) -> None:
    """Each trigger's ``data["defending_player"]``: the player its source attacks now, -1
    for none."""
    for t in triggers:
        player = combat.defending_player(t.source)
        t.data["defending_player"] = -1 if player is None else player


def _keep_defending_players(batch: BatchContext, groups: list[BatchTriggers]) -> None:
    """The same for the batched engine's groups of triggers."""
    for group in groups:
        group.data["defending_player"] = np.asarray(
            batch.defending_player()[group.source], np.int64
        )


def attack_trigger(
    keyword: str,
    resolve: Resolve,
    resolve_batched: ResolveBatched,
    *,
    defender: bool = False,
    before_blocks: BeforeBlocks | None = None,
) -> System:
    """The declare-attackers system of an attack trigger: once per instance of `keyword` on
    each attacker (508.2a, 603.2), its number as ``data["n"]``; with `defender`, also the
    player it attacks as it triggers, ``data["defending_player"]`` (-1 for none): what the ability
    needs of its source even if the source leaves before it resolves (113.7a).

    `before_blocks` is what it does before blockers are declared, for the rules core; when
    `resolve` is a :class:`PumpTrigger`'s or :class:`CounterTrigger`'s, theirs by default."""
    if before_blocks is None:
        shape = getattr(resolve, "__self__", None)
        if isinstance(shape, PumpTrigger | CounterTrigger):
            before_blocks = shape.before_blocks()

    def triggers(combat: CombatContext, declaration: AttackDeclaration) -> None:
        before = len(declaration.triggers)
        declaration.trigger_each_instance(combat, keyword, resolve)
        if defender:
            _keep_defending_player(combat, declaration.triggers[before:])

    def triggers_batched(batch: BatchContext, declaration: BatchAttackDeclaration) -> None:
        before = len(declaration.triggers)
        declaration.trigger_each_instance(batch, keyword, resolve_batched)
        if defender:
            _keep_defending_players(batch, declaration.triggers[before:])

    kernel = _kernel_of(resolve, "declare-attackers", "attack trigger", "attacks")
    return System(
        "declare-attackers",
        "attack trigger",
        triggers,
        triggers_batched,
        {keyword},
        before_blocks=before_blocks,
        kernel=kernel,
    )
