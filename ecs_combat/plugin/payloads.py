"""The payloads: what a system gets at each point of a combat (:mod:`ecs_combat.plugin.schedule`).

The reference engine passes the dataclasses below, holding esper entities; the batched engine
the ``Batch*`` ones, holding numpy arrays over the batch's creature rows (a row mask is a
boolean array with one element per creature row). A system changes the payload in place; the
engine applies it after the point's last system.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ecs_combat.plugin.batch_context import BatchContext
from ecs_combat.plugin.context import BoolArray, CombatContext, IntArray
from ecs_combat.plugin.damage_payloads import (
    Assignment as Assignment,
)
from ecs_combat.plugin.damage_payloads import (
    BatchDamageAssignment as BatchDamageAssignment,
)
from ecs_combat.plugin.damage_payloads import (
    BatchDamageEvent as BatchDamageEvent,
)
from ecs_combat.plugin.damage_payloads import (
    DamageAssignment as DamageAssignment,
)
from ecs_combat.plugin.damage_payloads import (
    DamageEvent as DamageEvent,
)
from ecs_combat.plugin.damage_payloads import (
    Dealt as Dealt,
)


@dataclass
class AttackDeclaration:
    """``declare-attackers`` (reference): the attackers, in declaration order. Systems put
    attack triggers (508.2) in `triggers`; the engine resolves them once the attackers have
    tapped, as it resolves block triggers (:class:`BlockDeclaration`)."""

    attackers: list[int]
    #: Attackers that become tapped as they attack (508.1f); remove one to keep it untapped.
    taps: set[int]
    triggers: list[Trigger] = field(default_factory=list)

    def trigger_each_instance(
        self,
        combat: CombatContext,
        keyword: str,
        resolve: Callable[[CombatContext, Trigger], None],
        creatures: list[int] | None = None,
    ) -> None:
        """One trigger per instance of `keyword` on each attacker (or each of `creatures`),
        with the instance's number as ``data["n"]`` (0 without one)."""
        _each_instance_of(self.triggers, combat, self.attackers, keyword, resolve, creatures)


@dataclass
class BatchAttackDeclaration:
    """``declare-attackers`` (batched); attack triggers go in `triggers`."""

    #: Row mask of the creatures declared as attackers.
    attackers: BoolArray
    #: Row mask of the attackers that become tapped (508.1f); clear a row to keep it untapped.
    taps: BoolArray
    triggers: list[BatchTriggers] = field(default_factory=list)

    def trigger_each_instance(
        self,
        batch: BatchContext,
        keyword: str,
        resolve: Callable[[BatchContext, BatchTriggers], None],
        rows: BoolArray | None = None,
    ) -> None:
        """One trigger per instance of `keyword` on each attacker (or the rows of a row mask
        of them), with the instance's number as ``data["n"]`` (0 without one)."""
        mask = self.attackers if rows is None else rows
        _each_instance(self.triggers, batch, mask, keyword, resolve)


@dataclass
class Trigger:
    """A triggered ability waiting to resolve (reference engine): `resolve(combat, trigger)`
    is called once it resolves, even if its `source` has left the battlefield (113.7a): what
    it would do to a creature that left does nothing (the engine's ``pump`` skips it)."""

    source: int
    resolve: Callable[[CombatContext, Trigger], None]
    #: The instance of the keyword that triggered (its place among the source's instances).
    instance: int = 0
    #: Whatever the ability needs when it resolves (the blocker it names, its N).
    data: dict[str, int] = field(default_factory=dict)
    #: The plugin whose system put it there (set by the engine, for error messages).
    plugin: str = ""
    #: The keyword whose instance triggered; one creature's triggers resolve in the order
    #: of its keyword instances as listed (RULES 7). Set by ``trigger_each_instance``, else by
    #: the engine from the system's keyword when it names one.
    keyword: str = ""


@dataclass
class BlockDeclaration:
    """``declare-blockers`` (reference): each block as (blocker, attacker), in declaration
    order. Systems put block triggers (509.2-509.5) in `triggers`; the engine resolves them in
    APNAP order (603.3b), the non-active players' first, one player's in the order of their
    sources, with state-based actions after each."""

    blocks: list[tuple[int, int]]
    triggers: list[Trigger] = field(default_factory=list)
    #: Blocks systems added (:meth:`add_block`), in the order added.
    added: list[tuple[int, int]] = field(default_factory=list)

    def add_block(self, blocker: int, attacker: int) -> None:
        """The blocker blocks the attacker too, whatever restrictions say (702.22h: a band
        is blocked as one): the engine records it once the point's systems have run; later
        systems of the point see it in `blocks`. A block already there is left alone."""
        if (blocker, attacker) not in self.blocks:
            self.blocks.append((blocker, attacker))
            self.added.append((blocker, attacker))

    def blocked_attackers(self) -> list[int]:
        """The attackers that became blocked, each once, in declaration order."""
        return list(dict.fromkeys(a for _, a in self.blocks))

    def in_blocks(self) -> list[int]:
        """The creatures that block or became blocked, each once, in declaration order."""
        return list(dict.fromkeys(e for block in self.blocks for e in block))

    def trigger_each_instance(
        self,
        combat: CombatContext,
        keyword: str,
        resolve: Callable[[CombatContext, Trigger], None],
        creatures: list[int] | None = None,
    ) -> None:
        """One trigger per instance of `keyword` on each creature that blocks or became
        blocked (or each of `creatures`), with the instance's number as ``data["n"]`` (0
        without one)."""
        _each_instance_of(self.triggers, combat, self.in_blocks(), keyword, resolve, creatures)


def _each_instance_of(
    triggers: list[Trigger],
    combat: CombatContext,
    default: list[int],
    keyword: str,
    resolve: Callable[[CombatContext, Trigger], None],
    creatures: list[int] | None,
) -> None:
    """One trigger per instance of `keyword` on each of `creatures` (`default` if None)."""
    for e in default if creatures is None else creatures:
        for i, n in enumerate(combat.instances(e, keyword)):
            triggers.append(Trigger(e, resolve, i, {"n": max(n, 0)}, keyword=keyword))


@dataclass
class BatchTriggers:
    """Triggered abilities of one kind waiting to resolve (batched engine), one element per
    trigger: its source row, instance and data columns, in :class:`Trigger`'s order
    (``BatchTriggers(sources, resolve, instances, data)``). `resolve(batch, triggers)` is called
    with the ones resolving together (at most one per battle), also those whose sources have
    left the battlefield (113.7a; the engine's ``pump`` skips rows off the battlefield)."""

    source: IntArray
    resolve: Callable[[BatchContext, BatchTriggers], None]
    instance: IntArray
    data: dict[str, IntArray] = field(default_factory=dict)
    #: The plugin whose system put them there (set by the engine, for error messages).
    plugin: str = ""
    #: The keyword whose instances triggered (see :attr:`Trigger.keyword`).
    keyword: str = ""

    def take(self, index: IntArray) -> BatchTriggers:
        """The triggers at some positions."""
        return BatchTriggers(
            self.source[index],
            self.resolve,
            self.instance[index],
            {k: v[index] for k, v in self.data.items()},
            self.plugin,
            self.keyword,
        )


@dataclass
class BatchBlockDeclaration:
    """``declare-blockers`` (batched): blocker and attacker rows of every block; systems
    append their block triggers to `triggers`, resolved as in the reference engine."""

    blockers: IntArray
    attackers: IntArray
    triggers: list[BatchTriggers] = field(default_factory=list)
    #: Blocks systems added (:meth:`add_blocks`): blocker rows, attacker rows.
    added: list[tuple[IntArray, IntArray]] = field(default_factory=list)

    def add_blocks(self, blockers: IntArray, attackers: IntArray) -> None:
        """Each blocker blocks its attacker too (parallel rows), whatever restrictions say
        (702.22h): as :meth:`BlockDeclaration.add_block`. Blocks already there are left
        alone; a pair given twice is added once."""
        if len(blockers) == 0:
            return
        n = 1 + max(
            int(blockers.max()),
            int(attackers.max()),
            int(self.blockers.max(initial=-1)),
            int(self.attackers.max(initial=-1)),
        )
        have = self.blockers * n + self.attackers
        key, first = np.unique(blockers * n + attackers, return_index=True)
        new = np.sort(first[~np.isin(key, have)])
        if new.size == 0:
            return
        b, a = np.asarray(blockers[new], np.int64), np.asarray(attackers[new], np.int64)
        self.added.append((b, a))
        self.blockers = np.concatenate([self.blockers, b])
        self.attackers = np.concatenate([self.attackers, a])

    def blocked_attackers(self, rows: int) -> BoolArray:
        """Row mask (of `rows` creature rows) of the attackers that became blocked."""
        mask = np.zeros(rows, np.bool_)
        mask[self.attackers] = True
        return mask

    def in_blocks(self, rows: int) -> BoolArray:
        """Row mask of the creatures that block or became blocked."""
        mask = self.blocked_attackers(rows)
        mask[self.blockers] = True
        return mask

    def trigger_each_instance(
        self,
        batch: BatchContext,
        keyword: str,
        resolve: Callable[[BatchContext, BatchTriggers], None],
        rows: BoolArray | None = None,
    ) -> None:
        """One trigger per instance of `keyword` on each creature that blocks or became
        blocked (or the rows of a row mask), with the instance's number as ``data["n"]`` (0
        without one)."""
        mask = self.in_blocks(batch.rows) if rows is None else rows
        _each_instance(self.triggers, batch, mask, keyword, resolve)


def _each_instance(
    triggers: list[BatchTriggers],
    batch: BatchContext,
    rows: BoolArray,
    keyword: str,
    resolve: Callable[[BatchContext, BatchTriggers], None],
) -> None:
    """One trigger per instance of `keyword` on the rows of a row mask (``data["n"]``)."""
    found, params = batch.instances(keyword)
    keep = rows[found]
    found, params = found[keep], np.maximum(params[keep], 0)
    if found.size:
        nth = np.arange(len(found)) - np.searchsorted(found, found)  # 0, 1, ... per row
        triggers.append(BatchTriggers(found, resolve, nth, {"n": params}, keyword=keyword))


@dataclass
class StateCheck:
    """``state-based-actions`` (reference): what the core found, for systems to add to.

    `destroy` holds creatures to destroy (lethal damage, 704.5g), `dies` creatures put into
    the graveyard whatever protects them from destruction (toughness 0 or less, 704.5f),
    `loses` players who lose the game (0 or less life, 704.5a). Add to them; the reasons go
    into `why` (entity -> words) for the account.
    """

    destroy: set[int]
    dies: set[int]
    loses: set[int]
    why: dict[int, str] = field(default_factory=dict)


@dataclass
class BatchStateCheck:
    """``state-based-actions`` (batched): row masks over creature rows, and over player rows
    for `loses`, in the battles being checked (`battles`, a battle mask)."""

    battles: BoolArray
    destroy: BoolArray
    dies: BoolArray
    loses: BoolArray


@dataclass
class Destruction:
    """``destroy`` (reference): creatures about to be destroyed; remove one to exempt it and
    say why in `kept` (entity -> words)."""

    creatures: set[int]
    kept: dict[int, str] = field(default_factory=dict)


@dataclass
class BatchDestruction:
    """``destroy`` (batched): row mask of the creatures about to be destroyed; clear a row
    to exempt it."""

    creatures: BoolArray


@dataclass
class Deaths:
    """``dies`` (reference): the creatures that just died (put into a graveyard from the
    battlefield, 700.4), in scenario order. They are off the battlefield; what they had as
    they died (keywords, counters) can still be read (603.10a). Systems put "dies" triggers
    in `triggers`; the engine resolves them as block triggers (:class:`BlockDeclaration`,
    RULES 11.5): APNAP, sources in scenario order, one source's in the order of its keyword
    instances, state-based actions after each."""

    creatures: list[int]
    triggers: list[Trigger] = field(default_factory=list)

    def trigger_each_instance(
        self,
        combat: CombatContext,
        keyword: str,
        resolve: Callable[[CombatContext, Trigger], None],
        creatures: list[int] | None = None,
    ) -> None:
        """One trigger per instance of `keyword` on each creature that died (or each of
        `creatures`), as it last existed, with the instance's number as ``data["n"]``."""
        _each_instance_of(self.triggers, combat, self.creatures, keyword, resolve, creatures)


@dataclass
class BatchDeaths:
    """``dies`` (batched): row mask of the creatures that just died, in the battles being
    checked; "dies" triggers go in `triggers`, resolved as in the reference engine."""

    creatures: BoolArray
    triggers: list[BatchTriggers] = field(default_factory=list)

    def trigger_each_instance(
        self,
        batch: BatchContext,
        keyword: str,
        resolve: Callable[[BatchContext, BatchTriggers], None],
        rows: BoolArray | None = None,
    ) -> None:
        """One trigger per instance of `keyword` on each creature that died (or the rows of a
        row mask of them), with the instance's number as ``data["n"]`` (0 without one)."""
        mask = self.creatures if rows is None else rows
        _each_instance(self.triggers, batch, mask, keyword, resolve)


@dataclass
class BatchEndOfCombat:
    """``end-of-combat`` (batched): the battles whose combat reaches its end (a battle mask).
    The reference engine passes None."""

    battles: BoolArray


@dataclass
class EventDamage:
    """``event-damage`` (reference): a scenario ``damage`` event's noncombat damage (120.3),
    which has no source. Set `amount` to 0 (or lower it) to prevent it; the engine then marks
    the rest on the creature, or the player loses that much life."""

    #: A creature (on the battlefield) or player entity.
    recipient: int
    to_player: bool
    amount: int


@dataclass
class BatchEventDamage:
    """``event-damage`` (batched): the damage events of one round, one per battle at most, as
    parallel arrays. ``recipient`` is a creature row (on the battlefield), or ``-1 -
    player_row`` for a player. Lower an amount to prevent damage."""

    recipient: IntArray
    amount: IntArray
