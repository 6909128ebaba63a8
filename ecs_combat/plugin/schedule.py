"""The schedule: the named points of a combat where plugins' systems run, in order.

A combat phase goes through these points in this order (damage-step points once per damage
step that takes place). A plugin adds behaviour by returning :class:`System` objects from its
``register_systems`` hook (:mod:`ecs_combat.plugin.hookspecs`), each naming the point it runs at.

Each system has a reference form, called with the combat's
:class:`~ecs_combat.plugin.context.CombatContext` and the point's payload, and a batched form,
called with a :class:`~ecs_combat.plugin.context.BatchContext` and the point's array payload.
Both engines call a system only when the combat (or batch) uses one of its ``keywords``
(always, if it names none): a creature has it printed, as counters, or may gain it from an
event, a card or a static ability. The batched engine calls it once per point per batch,
never per creature.

**Order within a point** (the way Bevy orders systems): a system belongs to the sets it names
(``sets``), to one set per keyword it names (``keywords``: a lifelink system is in the set
``lifelink``) and to the set named after its plugin; it runs after every system of the sets in
its ``after`` and before those of its ``before`` (names no loaded plugin uses are ignored).
Some points have standard sets that run in a fixed order (:data:`SET_ORDER`). The registry
sorts each point's systems once, as it is built; among systems no constraint orders, the
plugin's name, then the system's, decides. A cycle is a plugin error naming the plugins in it;
so are two systems of different plugins, neither ordered before the other, that write the
same payload field (``writes``), unless one declares the other (or a set it is in) in
``ambiguous_with``.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar, overload

import numpy as np

from ecs_combat.plugin.context import BatchContext, BoolArray, CombatContext, IntArray
from ecs_combat.plugin.definitions import normalize_keyword

#: The name of a point of a combat.
Point = Literal[
    "declare-attackers",
    "declare-blockers",
    "assign-damage",
    "deal-damage",
    "state-based-actions",
    "destroy",
    "dies",
    "end-of-combat",
    "event-damage",
]

#: The points of a combat phase, in the order they happen. See docs/plugins.md for each
#: point's payload in both engines.
POINTS: tuple[tuple[str, str], ...] = (
    (
        "declare-attackers",
        "attackers have been declared (508.1): which of them tap, attack triggers "
        "(until-end-of-turn bonuses, delayed triggers)",
    ),
    (
        "declare-blockers",
        "blockers have been declared (509.1): block triggers, before the scenario's "
        "declare-blockers events",
    ),
    (
        "assign-damage",
        "as a damage step's damage is assigned (510.1): what is lethal, which attackers may "
        "assign excess damage to the player they attack",
    ),
    (
        "deal-damage",
        "as a damage step's damage is dealt, all at once (510.2): prevent it, replace it "
        "(counters instead of marked damage or instead of life loss), add to it (life gained)",
    ),
    (
        "state-based-actions",
        "state-based actions are checked (704.3): add conditions under which creatures are "
        "destroyed, die or players lose; exempt creatures from destruction",
    ),
    (
        "destroy",
        "creatures would be destroyed, by state-based actions or an effect (701.8): exempt "
        "some of them",
    ),
    (
        "dies",
        "creatures have died (700.4), by state-based actions or a destroy event: "
        "triggers on dying, which may return them to the battlefield as new objects (400.7)",
    ),
    (
        "end-of-combat",
        "the end of combat step (511): delayed triggers set up during the combat",
    ),
    (
        "event-damage",
        "whenever a scenario `damage` event deals noncombat damage (120.3), at any point of "
        "the combat: prevent it",
    ),
)

POINT_NAMES: tuple[str, ...] = tuple(name for name, _ in POINTS)

#: Standard sets of some points, in the order they run: at ``deal-damage``, prevention
#: (615), then replacements (614), then what reacts to the damage as dealt (life gained,
#: marks for later triggers); at ``state-based-actions``, the conditions (704.5), then what
#: reads their outcome (triggers resolving after the check).
SET_ORDER: dict[str, tuple[str, ...]] = {
    "deal-damage": ("prevention", "replacement", "reaction"),
    "state-based-actions": ("conditions", "reaction"),
}

P = TypeVar("P")
#: A system's reference form: ``(combat, payload) -> None``.
ReferenceSystem = Callable[[CombatContext, P], None]
#: A system's batched form: ``(batch, payload) -> None``.
BatchedSystem = Callable[[BatchContext, P], None]


def _names(values: Collection[str]) -> frozenset[str]:
    if isinstance(values, str):
        return frozenset({values})
    return frozenset(values)


@dataclass(frozen=True, init=False)
class System:
    """Behaviour a plugin adds at one point of every combat.

    `reference` is called as ``reference(combat, payload)`` by the reference engine;
    `batched` as ``batched(batch, payload)`` by the batched engine, over whole arrays. A system
    without a batched form makes the batched engine refuse scenarios that use its keywords.
    `keywords` limits the system to combats that use one of them (by name). `sets`, `before`,
    `after`, `writes` and `ambiguous_with` order it among the point's systems (module
    docstring).
    """

    point: str
    name: str
    reference: ReferenceSystem[Any] = field(compare=False)
    batched: BatchedSystem[Any] | None = field(default=None, compare=False)
    keywords: frozenset[str] = frozenset()
    #: The named sets it belongs to (besides its plugin's).
    sets: frozenset[str] = frozenset()
    #: Systems or sets it runs before / after (at the same point).
    before: frozenset[str] = frozenset()
    after: frozenset[str] = frozenset()
    #: The payload fields it changes (``amount``, ``taps``, ``loses``).
    writes: frozenset[str] = frozenset()
    #: Systems or sets it may run before or after, although both write a field.
    ambiguous_with: frozenset[str] = frozenset()

    @overload
    def __init__(
        self,
        point: Literal["declare-attackers"],
        name: str,
        reference: ReferenceSystem[AttackDeclaration],
        batched: BatchedSystem[BatchAttackDeclaration] | None = None,
        keywords: Collection[str] = (),
        *,
        sets: Collection[str] = (),
        before: Collection[str] = (),
        after: Collection[str] = (),
        writes: Collection[str] = (),
        ambiguous_with: Collection[str] = (),
    ) -> None: ...
    @overload
    def __init__(
        self,
        point: Literal["declare-blockers"],
        name: str,
        reference: ReferenceSystem[BlockDeclaration],
        batched: BatchedSystem[BatchBlockDeclaration] | None = None,
        keywords: Collection[str] = (),
        *,
        sets: Collection[str] = (),
        before: Collection[str] = (),
        after: Collection[str] = (),
        writes: Collection[str] = (),
        ambiguous_with: Collection[str] = (),
    ) -> None: ...
    @overload
    def __init__(
        self,
        point: Literal["assign-damage"],
        name: str,
        reference: ReferenceSystem[DamageAssignment],
        batched: BatchedSystem[BatchDamageAssignment] | None = None,
        keywords: Collection[str] = (),
        *,
        sets: Collection[str] = (),
        before: Collection[str] = (),
        after: Collection[str] = (),
        writes: Collection[str] = (),
        ambiguous_with: Collection[str] = (),
    ) -> None: ...
    @overload
    def __init__(
        self,
        point: Literal["deal-damage"],
        name: str,
        reference: ReferenceSystem[DamageEvent],
        batched: BatchedSystem[BatchDamageEvent] | None = None,
        keywords: Collection[str] = (),
        *,
        sets: Collection[str] = (),
        before: Collection[str] = (),
        after: Collection[str] = (),
        writes: Collection[str] = (),
        ambiguous_with: Collection[str] = (),
    ) -> None: ...
    @overload
    def __init__(
        self,
        point: Literal["state-based-actions"],
        name: str,
        reference: ReferenceSystem[StateCheck],
        batched: BatchedSystem[BatchStateCheck] | None = None,
        keywords: Collection[str] = (),
        *,
        sets: Collection[str] = (),
        before: Collection[str] = (),
        after: Collection[str] = (),
        writes: Collection[str] = (),
        ambiguous_with: Collection[str] = (),
    ) -> None: ...
    @overload
    def __init__(
        self,
        point: Literal["destroy"],
        name: str,
        reference: ReferenceSystem[Destruction],
        batched: BatchedSystem[BatchDestruction] | None = None,
        keywords: Collection[str] = (),
        *,
        sets: Collection[str] = (),
        before: Collection[str] = (),
        after: Collection[str] = (),
        writes: Collection[str] = (),
        ambiguous_with: Collection[str] = (),
    ) -> None: ...
    @overload
    def __init__(
        self,
        point: Literal["dies"],
        name: str,
        reference: ReferenceSystem[Deaths],
        batched: BatchedSystem[BatchDeaths] | None = None,
        keywords: Collection[str] = (),
        *,
        sets: Collection[str] = (),
        before: Collection[str] = (),
        after: Collection[str] = (),
        writes: Collection[str] = (),
        ambiguous_with: Collection[str] = (),
    ) -> None: ...
    @overload
    def __init__(
        self,
        point: Literal["event-damage"],
        name: str,
        reference: ReferenceSystem[EventDamage],
        batched: BatchedSystem[BatchEventDamage] | None = None,
        keywords: Collection[str] = (),
        *,
        sets: Collection[str] = (),
        before: Collection[str] = (),
        after: Collection[str] = (),
        writes: Collection[str] = (),
        ambiguous_with: Collection[str] = (),
    ) -> None: ...
    @overload
    def __init__(
        self,
        point: Literal["end-of-combat"],
        name: str,
        reference: ReferenceSystem[None],
        batched: BatchedSystem[BatchEndOfCombat] | None = None,
        keywords: Collection[str] = (),
        *,
        sets: Collection[str] = (),
        before: Collection[str] = (),
        after: Collection[str] = (),
        writes: Collection[str] = (),
        ambiguous_with: Collection[str] = (),
    ) -> None: ...
    def __init__(
        self,
        point: str,
        name: str,
        reference: ReferenceSystem[Any],
        batched: BatchedSystem[Any] | None = None,
        keywords: Collection[str] = (),
        *,
        sets: Collection[str] = (),
        before: Collection[str] = (),
        after: Collection[str] = (),
        writes: Collection[str] = (),
        ambiguous_with: Collection[str] = (),
    ) -> None:
        setattr_ = object.__setattr__
        setattr_(self, "point", point)
        setattr_(self, "name", name)
        setattr_(self, "reference", reference)
        setattr_(self, "batched", batched)
        setattr_(self, "keywords", frozenset(normalize_keyword(k) for k in _names(keywords)))
        setattr_(self, "sets", _names(sets))
        setattr_(self, "before", _names(before))
        setattr_(self, "after", _names(after))
        setattr_(self, "writes", _names(writes))
        setattr_(self, "ambiguous_with", _names(ambiguous_with))


# -- payloads: what a system gets at each point ----------------------------------------------
#
# The reference engine passes the dataclasses below, holding esper entities; the batched
# engine the ``Batch*`` ones, holding numpy arrays over the batch's creature rows (a row mask
# is a boolean array with one element per creature row). A system changes the payload in
# place; the engine applies it after the point's last system.


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
        for e in self.attackers if creatures is None else creatures:
            for i, n in enumerate(combat.instances(e, keyword)):
                self.triggers.append(Trigger(e, resolve, i, {"n": n if isinstance(n, int) else 0}))


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
        creatures: list[int],
        keyword: str,
        resolve: Callable[[CombatContext, Trigger], None],
    ) -> None:
        """One trigger per instance of `keyword` on each of `creatures`, with the instance's
        number as ``data["n"]`` (0 without one)."""
        for e in creatures:
            for i, n in enumerate(combat.instances(e, keyword)):
                self.triggers.append(
                    Trigger(e, resolve, i, {"n": n if isinstance(n, int) else 0}, keyword=keyword)
                )


@dataclass
class BatchTriggers:
    """Triggered abilities of one kind waiting to resolve (batched engine), one element per
    trigger: its source row, instance and data columns. `resolve(batch, triggers)` is called
    with the ones resolving together (at most one per battle), also those whose sources have
    left the battlefield (113.7a; the engine's ``pump`` skips rows off the battlefield)."""

    resolve: Callable[[BatchContext, BatchTriggers], None]
    source: IntArray
    instance: IntArray
    data: dict[str, IntArray] = field(default_factory=dict)
    #: The plugin whose system put them there (set by the engine, for error messages).
    plugin: str = ""
    #: The keyword whose instances triggered (see :attr:`Trigger.keyword`).
    keyword: str = ""

    def take(self, index: IntArray) -> BatchTriggers:
        """The triggers at some positions."""
        return BatchTriggers(
            self.resolve,
            self.source[index],
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
        rows: BoolArray,
        keyword: str,
        resolve: Callable[[BatchContext, BatchTriggers], None],
    ) -> None:
        """One trigger per instance of `keyword` on the rows of a row mask, with the instance's
        number as ``data["n"]`` (0 without one)."""
        _each_instance(self.triggers, batch, rows, keyword, resolve)


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
        triggers.append(BatchTriggers(resolve, found, nth, {"n": params}, keyword=keyword))


@dataclass
class Assignment:
    """How one creature will assign its damage in a step (reference engine)."""

    source: int
    #: The creatures it assigns damage among, in the order the default division uses.
    recipients: list[int]
    #: The player it attacks, for an attacker; None for a blocker.
    defender: int | None
    #: Set by a system: damage beyond lethal may go to the defender (and all of it, with no
    #: recipient left); the value names the keyword, for the account and errors.
    player_gets_excess: str | None = None
    #: Set by a system: any nonzero amount from this source is lethal damage (its name).
    one_is_lethal: str | None = None


@dataclass
class DamageAssignment:
    """``assign-damage`` (reference): every creature that assigns damage in the step."""

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
    they died (keywords, counters) can still be read (603.10a)."""

    creatures: list[int]


@dataclass
class BatchDeaths:
    """``dies`` (batched): row mask of the creatures that just died, in the battles being
    checked."""

    creatures: BoolArray


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
