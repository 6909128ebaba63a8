"""The schedule: the named points of a combat where plugins' systems run, in order.

A combat phase goes through these points in this order (damage-step points once per damage
step that takes place). A plugin adds behaviour by returning :class:`System` objects from its
``register_systems`` hook (:mod:`ecs_combat.plugin.hookspecs`), each naming the point it runs at.

Each system has a reference form, called with the combat's
:class:`~ecs_combat.plugin.context.CombatContext` and the point's payload, and a batched form,
called with a :class:`~ecs_combat.plugin.batch_context.BatchContext` and the point's array payload.
The payloads are in :mod:`ecs_combat.plugin.payloads`.
Both engines call a system only when the combat (or batch) uses one of its ``keywords``
(always, if it names none): a creature has it printed, as counters, or may gain it from an
event, a card or a static ability. The batched engine calls it once per point per batch,
never per creature.

**Order within a point** (the way Bevy orders systems): a system belongs to the sets it names
(``sets``), to one set per keyword it names (``keywords``: a lifelink system is in the set
``lifelink``) and to the set named after its plugin; it runs after every system of the sets in
its ``after`` and before those of its ``before``. A name there (or in ``ambiguous_with``)
must be one a plugin could
mean (a standard set, an installed or blocked plugin or keyword, a set or system of some
system; one not loaded now orders nothing), and ``sets`` no other point's standard set; both,
and a ``writes`` naming no field of the point's payloads, are plugin errors
(:mod:`ecs_combat.plugin.system_names`).
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
from typing import Literal, TypeVar, overload

from ecs_combat.plugin.batch_context import BatchContext
from ecs_combat.plugin.before_blocks import BeforeBlocks
from ecs_combat.plugin.context import CombatContext
from ecs_combat.plugin.definitions import normalize_keyword
from ecs_combat.plugin.kernels import KernelPart
from ecs_combat.plugin.payloads import (
    AttackDeclaration,
    BatchAttackDeclaration,
    BatchBlockDeclaration,
    BatchDamageAssignment,
    BatchDamageEvent,
    BatchDeaths,
    BatchDestruction,
    BatchEndOfCombat,
    BatchEventDamage,
    BatchStateCheck,
    BlockDeclaration,
    DamageAssignment,
    DamageEvent,
    Deaths,
    Destruction,
    EventDamage,
    StateCheck,
)

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
#: The reference form of a system at any point (each point's payload: the overloads of
#: :class:`System` pair them).
ReferenceForm = (
    ReferenceSystem[AttackDeclaration]
    | ReferenceSystem[BlockDeclaration]
    | ReferenceSystem[DamageAssignment]
    | ReferenceSystem[DamageEvent]
    | ReferenceSystem[StateCheck]
    | ReferenceSystem[Destruction]
    | ReferenceSystem[Deaths]
    | ReferenceSystem[EventDamage]
    | ReferenceSystem[None]
)
#: The batched form of a system at any point.
BatchedForm = (
    BatchedSystem[BatchAttackDeclaration]
    | BatchedSystem[BatchBlockDeclaration]
    | BatchedSystem[BatchDamageAssignment]
    | BatchedSystem[BatchDamageEvent]
    | BatchedSystem[BatchStateCheck]
    | BatchedSystem[BatchDestruction]
    | BatchedSystem[BatchDeaths]
    | BatchedSystem[BatchEventDamage]
    | BatchedSystem[BatchEndOfCombat]
)


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
    reference: ReferenceForm = field(compare=False)
    batched: BatchedForm | None = field(default=None, compare=False)
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
    #: True: it changes nothing but the payload fields it `writes` (notes aside), so what
    #: reads none of them may skip it (which attackers tap changes nobody's characteristics:
    #: the decisions' block options skip a declare-attackers system writing only ``taps``).
    only_writes: bool = False
    #: A ``declare-attackers`` system's changes to the creatures before blockers are
    #: declared, as the rules core reads them (:mod:`ecs_combat.plugin.before_blocks`);
    #: None: an engine plays the declaration to learn them.
    before_blocks: BeforeBlocks | None = field(default=None, compare=False)
    #: Its kernel form, when the shape that made it writes one (:mod:`.skeletons`): a
    #: plugin registering a part of its own for the system replaces it.
    kernel: KernelPart | None = field(default=None, compare=False)

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
        only_writes: bool = False,
        before_blocks: BeforeBlocks | None = None,
        kernel: KernelPart | None = None,
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
        only_writes: bool = False,
        kernel: KernelPart | None = None,
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
        only_writes: bool = False,
        kernel: KernelPart | None = None,
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
        only_writes: bool = False,
        kernel: KernelPart | None = None,
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
        only_writes: bool = False,
        kernel: KernelPart | None = None,
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
        only_writes: bool = False,
        kernel: KernelPart | None = None,
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
        only_writes: bool = False,
        kernel: KernelPart | None = None,
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
        only_writes: bool = False,
        kernel: KernelPart | None = None,
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
        only_writes: bool = False,
        kernel: KernelPart | None = None,
    ) -> None: ...
    def __init__(
        self,
        point: str,
        name: str,
        reference: ReferenceForm,
        batched: BatchedForm | None = None,
        keywords: Collection[str] = (),
        *,
        sets: Collection[str] = (),
        before: Collection[str] = (),
        after: Collection[str] = (),
        writes: Collection[str] = (),
        ambiguous_with: Collection[str] = (),
        only_writes: bool = False,
        before_blocks: BeforeBlocks | None = None,
        kernel: KernelPart | None = None,
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
        setattr_(self, "only_writes", only_writes)
        setattr_(self, "before_blocks", before_blocks)
        setattr_(self, "kernel", kernel)
