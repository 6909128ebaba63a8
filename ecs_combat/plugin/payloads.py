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

from ecs_combat.plugin.context import BatchContext, BoolArray, CombatContext, IntArray


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
class Assignment:
    """How one creature will assign its damage in a step (reference engine)."""

    source: int
    #: The creatures it assigns damage among, in the order the default division uses.
    recipients: list[int]
    #: The player it attacks, for an attacker; None for a blocker.
    defender: int | None
    #: Damage beyond lethal may go to the defender (and all of it, with no recipient left):
    #: the keyword that allows it (:meth:`allow_excess`), or None.
    player_gets_excess: str | None = None
    #: Any nonzero amount from this source is lethal damage: the keyword that makes it so
    #: (:meth:`make_one_lethal`), or None.
    one_is_lethal: str | None = None

    def allow_excess(self, keyword: str) -> None:
        """Let this attacker assign damage beyond lethal to the player it attacks (702.19b),
        as :meth:`BatchDamageAssignment.allow_excess` does for rows; nothing for a blocker.
        `keyword` names the rule for the account and errors."""
        if self.defender is not None:
            self.player_gets_excess = keyword

    def make_one_lethal(self, keyword: str) -> None:
        """Make any nonzero amount from this source lethal damage (702.2c), as
        :meth:`BatchDamageAssignment.make_one_lethal` does for rows."""
        self.one_is_lethal = keyword


@dataclass
class DamageAssignment:
    """``assign-damage`` (reference): every creature that assigns damage in the step. Switch
    rules on through each :class:`Assignment`'s methods, as the batched payload's do for a
    row mask."""

    step: str
    assignments: list[Assignment]


@dataclass
class BatchDamageAssignment:
    """``assign-damage`` (batched): row masks over sources, switched on through the methods,
    which also record the keyword for the account and errors."""

    step: str
    #: Row mask of the creatures that deal damage in this step.
    dealers: BoolArray
    #: Attackers whose damage beyond lethal may go to the player they attack.
    player_gets_excess: BoolArray
    #: Sources for which any nonzero amount is lethal damage.
    one_is_lethal: BoolArray
    excess_by: list[tuple[str, BoolArray]] = field(default_factory=list)
    lethal_by: list[tuple[str, BoolArray]] = field(default_factory=list)

    def allow_excess(self, rows: BoolArray, keyword: str) -> None:
        """Let these attackers assign damage beyond lethal to the player (row mask)."""
        self.player_gets_excess |= rows
        self.excess_by.append((keyword, rows))

    def make_one_lethal(self, rows: BoolArray, keyword: str) -> None:
        """Make any nonzero amount from these sources lethal damage (row mask)."""
        self.one_is_lethal |= rows
        self.lethal_by.append((keyword, rows))


@dataclass
class Dealt:
    """One amount of combat damage from a source to a recipient (reference engine)."""

    source: int
    #: A creature or player entity.
    recipient: int
    to_player: bool
    amount: int
    #: For a creature: the damage is marked on it (a replacement may turn it into counters).
    marked: bool = True
    #: For a player: they lose that much life (a replacement may turn it into counters).
    loses_life: bool = True


@dataclass
class DamageEvent:
    """``deal-damage`` (reference): all combat damage of a step, dealt at once (510.2).

    Set an amount to 0 to prevent it. Life changes added to `life` (player entity -> change)
    happen together with the damage's life loss; `life_gained` lists (player, source, amount)
    for the output.
    """

    step: str
    dealt: list[Dealt]
    life: dict[int, int] = field(default_factory=dict)
    life_gained: list[tuple[int, int, int]] = field(default_factory=list)


@dataclass
class BatchDamageEvent:
    """``deal-damage`` (batched): all combat damage of a step as parallel arrays.

    ``recipient`` is a creature row, or ``-1 - player_row`` for a player. Set an amount to
    0 to prevent it. Systems append life gains as (player rows, source rows, amounts) to
    `gains`; the engine applies them with the damage.
    """

    step: str
    source: IntArray
    recipient: IntArray
    amount: IntArray
    #: Per entry: marked as damage (creatures) / lost as life (players).
    marked: BoolArray
    loses_life: BoolArray
    gains: list[tuple[IntArray, IntArray, IntArray]] = field(default_factory=list)


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
