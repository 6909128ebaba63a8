"""The kernel form of systems: small functions in numba's subset, one element at a time.

A plugin may give a system a third form beside ``reference`` and ``batched``: a
:class:`KernelPart`, returned by the ``register_kernel_parts`` hook. When the registry loads,
the core writes one compiled kernel for the whole plugin set (:mod:`ecs_combat.kernel`): each
part is called where its system runs, in the schedule's order, guarded by its keywords' bits
(a part of a system without keywords is called for every element), around the core's
per-battle combat. A batch whose systems all have parts, and which uses nothing the kernel
lacks, is resolved in the kernel; any other in the batched engine. Results are identical.

A part's source is copied into the generated module, so it may use only its arguments,
``min``/``max``/``abs`` and the module-level numbers (``int``, ``float``, ``bool``) of its
plugin; it reads and writes columns by attribute, ``c.power[row]``. What each point passes,
in order (every signature is fixed: the generator calls the part exactly so):

``assign-damage``, ``part(row, c, a, own) -> None``
    for each creature assigning combat damage in the step (guard: `row`'s keywords); sets
    ``a.one_is_lethal[row]`` (702.2c) or ``a.player_gets_excess[row]`` (702.19b).
``deal-damage``, ``part(source, recipient, amount, c, own) -> int``
    for each amount a source deals (guard: the source's keywords, or the recipient's with
    ``guard="recipient"``); `recipient` is a creature row, or ``-1 - player row``. Returns the
    amount dealt after the part (prevention). Parts with ``replacement=True`` are called
    after those, only for amounts above 0, with the amount still to be marked on the
    creature (or lost as life by the player), and return what is still to be (0: all of
    it is dealt some other way, counters instead, 120.3); the amount is still dealt. Parts
    with ``reaction=True`` are called after every other, for amounts above 0, with the
    amount dealt, and return nothing.
    All of a step's damage is dealt at once: a part reads no column dealing changes
    (``marked``, ``life``) and writes only its own columns, ``life`` and ``life_gained``; a
    replacement putting counters also ``power`` and ``toughness``, as they give (122.1a).
``state-based-actions``, ``part(row, c, k, own) -> None``
    for each creature row (``per="creature"``, guard: its keywords) or player row
    (``per="player"``) of a battle whose state-based actions are checked; sets
    ``k.destroy[row]``, ``k.dies[row]`` or ``k.loses[player]``. The player parts run first;
    then each creature row in turn (its checks, its parts in order, its destruction), so a
    creature part reads and writes its own row only.
``destroy``, ``part(row, c, own) -> bool``
    for each creature about to be destroyed (guard: its keywords); returns whether it still
    is (False: indestructible, 702.12).
``cast``, ``part(row, caster, c, g, own) -> None``
    a card's effect as it resolves (`system`: the card's name), for each cast of it on a
    legal target creature `row` (the core checks the card's :class:`TargetRule`), by the
    player row `caster`; pumps with ``c.power[row]`` and ``c.toughness[row]``, grants with
    ``g.keywords[row] |= g.bits[i]``, the bit of the part's ``grants[i]`` in the batch.
    State-based actions are checked after each cast (704.3).
``dies``, ``part(row, c, own) -> bool``
    a creature's "dies" trigger resolving (its system names one keyword, 700.4, 603.10a):
    `row` the creature that died in a check of the state-based actions, its keywords and
    counters (the part's columns) as it last existed on the battlefield (704.3: what that
    check's parts changed on it is undone). Returns whether the core returns it to the
    battlefield as a new object (400.7): printed power, toughness and keywords, no damage,
    counters or marks (its plugins' columns zero but for printed state and parameters),
    not in combat. Then the part's ``enters(row, c, own) -> None`` is called on the new
    object, which may put counters (its columns, ``c.power``, ``c.toughness``, 122.1a).
    The triggers of one check resolve in APNAP order (603.3b), then by row; state-based
    actions are checked after each, and triggers of creatures dying then resolve first.
``declare-attackers`` and ``declare-blockers``, ``part(row, n, other, c, t, own) -> None``
    an attack or block trigger resolving (its system names one keyword, and the part its
    `event`: :data:`TRIGGER_EVENTS`): `row` its source, `n` the number of the instance that
    triggered (0 without one), `other` what the event names besides it (the blocker, the
    lone attacker, else the player the source attacks as it triggered, or -1). One trigger
    per instance; they resolve in APNAP order (603.3b), one source's in the order its
    instances are listed, with state-based actions after each; with ``at_once=True`` the
    part acts as the system runs instead (exalted's pump, no trigger); with the event
    ``"attacks, with a target it chooses"``, the part's ``choose(row, c, t, own) -> int``
    names the target as the trigger is put on the stack (-1: none, no trigger), passed
    as `other`. Pumps with
    ``c.power`` and ``c.toughness`` (not a creature that left the battlefield: check
    ``c.on_battlefield``), ``c.life`` for life lost; ``t.blockers[row]`` counts the
    creatures blocking the source as it resolves, ``t.rows[b]`` to ``t.rows[b + 1]`` are
    battle `b`'s creature rows.

A part is called once per element however many times its keyword is listed: give kernel
parts to keywords whose instances are redundant (702.2f, 702.15f, ...), except at the two
trigger points, called once per instance with its number; a batch with keyword parameters
(bushido 2) of a keyword no trigger part reads is resolved by the batched engine.

The core's columns (`c`, :data:`CORE_COLUMNS`) are the creatures' and players' rows of the
whole batch; `a` and `k` are the point's own (:data:`POINT_COLUMNS`); `own` holds the plugin's
:class:`KernelColumn` s (every part of a plugin gets the same `own`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ecs_combat.plugin.registry import Registry

#: The points a kernel part may stand at, with the name of each argument of its signature.
KERNEL_POINTS: dict[str, tuple[str, ...]] = {
    "assign-damage": ("row", "c", "a", "own"),
    "deal-damage": ("source", "recipient", "amount", "c", "own"),
    "state-based-actions": ("row", "c", "k", "own"),
    "destroy": ("row", "c", "own"),
    "cast": ("row", "caster", "c", "g", "own"),
    "dies": ("row", "c", "own"),
    "declare-attackers": ("row", "n", "other", "c", "t", "own"),
    "declare-blockers": ("row", "n", "other", "c", "t", "own"),
}

#: The events of a trigger part, by point: which creatures' instances trigger, and what
#: `other` is (the template's ``EVENT_*`` numbers, in this order).
TRIGGER_EVENTS: dict[str, tuple[str, ...]] = {
    "declare-attackers": (
        "attacks",
        "a creature you control attacks alone",
        "attacks the player with the most life",
        "attacks, with a target it chooses",
    ),
    "declare-blockers": (
        "blocks or becomes blocked",
        "becomes blocked",
        "attacks and isn't blocked",
        "blocked by a creature without it",
    ),
}

#: The signature of a trigger part's `choose` (event ``"attacks, with a target it chooses"``):
#: the target of the trigger of `row` as it is put on the stack (603.3d), or -1 for none.
CHOOSE_ARGUMENTS = ("row", "c", "t", "own")

#: The signature of a ``dies`` part's `enters`: the new object, just returned (400.7).
ENTERS_ARGUMENTS = ("row", "c", "own")

#: The event whose parts choose a target (their `choose`).
CHOOSING = "attacks, with a target it chooses"

#: The core's columns every part reads (`c`): name -> (owner, kind, what it is). Parts may
#: write only those marked writable in the point's description above.
CORE_COLUMNS: dict[str, tuple[str, str, str]] = {
    "battle": ("creature", "int", "the creature's battle"),
    "controller": ("creature", "int", "its controller's player row"),
    "power": ("creature", "int", "its power"),
    "toughness": ("creature", "int", "its toughness"),
    "marked": ("creature", "int", "damage marked on it"),
    "colors": ("creature", "int", "its colors, bit i for COLORS[i]"),
    "on_battlefield": ("creature", "bool", "whether it is on the battlefield"),
    "attacking": ("creature", "bool", "whether it is attacking now"),
    "blocking": ("creature", "bool", "whether it is blocking now"),
    "attacked": ("creature", "int", "the player row it attacks (read where attacking)"),
    "life_gained": ("creature", "int", "life its controller gained from its damage"),
    "life": ("player", "int", "the player's life"),
    "lost": ("player", "bool", "whether the player lost the game"),
    "player_battle": ("player", "int", "the player's battle"),
}

#: The core columns a part may write, by point (any other is refused when the kernel is
#: generated: the kernel's other steps read them as the core left them).
CORE_WRITABLE: dict[str, tuple[str, ...]] = {
    "deal-damage": ("life", "life_gained", "power", "toughness"),
    "cast": ("power", "toughness"),
    "dies": ("power", "toughness"),
    "declare-attackers": ("power", "toughness", "life"),
    "declare-blockers": ("power", "toughness", "life"),
}

#: The columns of a point's own argument, by point: name -> (owner, kind).
POINT_COLUMNS: dict[str, dict[str, tuple[str, str]]] = {
    "assign-damage": {
        "one_is_lethal": ("creature", "bool"),
        "player_gets_excess": ("creature", "bool"),
    },
    "state-based-actions": {
        "destroy": ("creature", "bool"),
        "dies": ("creature", "bool"),
        "loses": ("player", "bool"),
    },
    "cast": {
        "keywords": ("creature", "keywords"),
        "bits": ("part", "keywords"),
    },
    "declare-attackers": {"blockers": ("creature", "int"), "rows": ("battle", "int")},
    "declare-blockers": {"blockers": ("creature", "int"), "rows": ("battle", "int")},
}

#: The kinds of a plugin's own column.
COLUMN_KINDS = ("bool", "int")


@dataclass(frozen=True)
class KernelColumn:
    """A column of a plugin's own, one value per creature or player row of a batch.

    Its values start as the plugin's state `state` (a :class:`StateField` key of the same
    owner, written back to the outcome's player state), as the counters of kind `counters`
    (creatures) or as the parameters of a keyword's instances, `parameters` (creatures, bit
    p for each instance with parameter p: a color or quality's index in ``FROM_WORDS``);
    otherwise as zeros (False): scratch the plugin's parts share, such as the creatures
    dealt damage by deathtouch since state-based actions were last checked. Plugins'
    columns of the same owner, kind and state (or counters) are one array: infect adds to
    the poison the ``poison`` plugin's part reads, wither to the -1/-1 counters
    ``pt_counters`` cancels.
    """

    owner: str
    name: str
    kind: str
    state: str | None = None
    counters: str | None = None
    parameters: str | None = None


@dataclass(frozen=True)
class KernelPart:
    """The kernel form of one of the plugin's systems (`system`: its name, at `point`)."""

    point: str
    system: str
    #: The part: its signature is its point's (module docstring); it returns None, an amount
    #: (``deal-damage``) or whether the creature is still destroyed (``destroy``).
    function: Callable[..., int | bool | None] = field(compare=False)
    #: ``state-based-actions``: called per ``"creature"`` row or per ``"player"`` row.
    per: str = "creature"
    #: ``deal-damage``: whose keywords guard it, the ``"source"``'s or the ``"recipient"``'s.
    guard: str = "source"
    #: ``deal-damage``: a reaction to damage dealt, called after the other parts, for amounts
    #: above 0 only.
    reaction: bool = False
    #: ``deal-damage``: a replacement of marking damage (or losing life), called after the
    #: prevention parts for amounts above 0; returns the amount still marked (or lost).
    replacement: bool = False
    #: ``cast``: the keywords the card's effect may grant, in the order of ``g.bits``.
    grants: tuple[str, ...] = ()
    #: ``declare-attackers``, ``declare-blockers``: which creatures' instances trigger
    #: (:data:`TRIGGER_EVENTS`), and whether the part acts at once, without a trigger.
    event: str = ""
    at_once: bool = False
    #: ``declare-attackers``, event ``"attacks, with a target it chooses"``: the trigger's
    #: target as it is put on the stack, ``choose(row, c, t, own) -> int`` (a creature row,
    #: passed to the part as `other`; -1: none, and nothing triggers).
    choose: Callable[..., int] | None = field(default=None, compare=False)
    #: ``dies``: called on the new object when the part returned the creature to the
    #: battlefield, ``enters(row, c, own) -> None`` (puts its counters; may be None).
    enters: Callable[..., None] | None = field(default=None, compare=False)
    #: Numbers written into the part's source for names it uses, beside its module's
    #: (a shape's, such as :class:`PumpTrigger`'s power and toughness).
    numbers: tuple[tuple[str, int | bool], ...] = ()


def kernel_problem(item: KernelPart | KernelColumn, plugin: str, registry: Registry) -> str:
    """What is wrong with a kernel part or column a plugin registers, or ``""``: checked
    against the systems and state already in the registry."""
    if isinstance(item, KernelColumn):
        if item.owner not in ("creature", "player") or item.kind not in COLUMN_KINDS:
            return (
                f"kernel column {item.name!r}: owner {item.owner!r} and kind {item.kind!r} "
                f"(owners: creature, player; kinds: {', '.join(COLUMN_KINDS)})"
            )
        if not item.name.isidentifier():
            return f"kernel column {item.name!r}: the name must be a Python identifier"
        if item.state is not None and item.state not in registry.state_fields(item.owner):
            return f"kernel column {item.name!r}: no {item.owner} state {item.state!r}"
        if item.counters is not None and (
            item.owner != "creature" or item.counters not in registry.counter_names()
        ):
            return f"kernel column {item.name!r}: no creature counters {item.counters!r}"
        if item.parameters is not None:
            keyword = registry.keywords.get(item.parameters)
            if item.owner != "creature" or item.kind != "int" or keyword is None:
                return (
                    f"kernel column {item.name!r}: parameters of {item.parameters!r} need a "
                    "creature column of kind int and a keyword of that name"
                )
        return ""
    if item.point not in KERNEL_POINTS:
        return (
            f"kernel part of {item.system!r} names point {item.point!r} "
            f"(kernel points: {', '.join(KERNEL_POINTS)})"
        )
    if item.point == "cast":
        card = registry.card(item.system)
        if card is None or card.resolve is None or card.creates is not None:
            return f"kernel part {item.system!r}: no card of that name whose effect resolves"
        if not set(item.grants) <= card.keywords:
            return f"kernel part {item.system!r}: grants keywords the card does not name"
        if not callable(item.function):
            return f"kernel part {item.system!r}: not callable"
        return ""
    found = [s for s in registry.systems_at(item.point) if s.plugin == plugin]
    systems = {s.system.name: s.system for s in found}
    if item.system not in systems:
        return f"kernel part {item.system!r}: the plugin adds no such system at {item.point}"
    if item.point in TRIGGER_EVENTS:
        if item.event not in TRIGGER_EVENTS[item.point]:
            return (
                f"kernel part {item.system!r}: event {item.event!r} (events at {item.point}: "
                f"{', '.join(TRIGGER_EVENTS[item.point])})"
            )
        if len(systems[item.system].keywords) != 1:
            return f"kernel part {item.system!r}: a trigger part's system names one keyword"
    if item.point == "dies" and len(systems[item.system].keywords) != 1:
        return f"kernel part {item.system!r}: a dies part's system names one keyword"
    if item.enters is not None and (item.point != "dies" or not callable(item.enters)):
        return f"kernel part {item.system!r}: `enters` is a callable of a dies part only"
    if (item.event == CHOOSING) != callable(item.choose):
        return f"kernel part {item.system!r}: `choose` is given with event {CHOOSING!r} only"
    if not callable(item.function) or item.per not in ("creature", "player"):
        return f"kernel part {item.system!r}: not callable, or `per` not creature or player"
    if item.guard not in ("source", "recipient"):
        return f"kernel part {item.system!r}: `guard` must be source or recipient"
    if item.replacement and (item.reaction or item.point != "deal-damage"):
        return f"kernel part {item.system!r}: a replacement is a deal-damage part, no reaction"
    return ""
