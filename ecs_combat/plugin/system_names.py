"""Checks of the names a system gives as the registry is built: `before` and `after` must name
something a plugin could mean, `sets` no standard set of another point, and `writes` fields
of the point's payload. A break is a :class:`PluginError` naming the plugin and the name."""

from __future__ import annotations

import dataclasses
from collections.abc import Collection

from ecs_combat.errors import PluginError
from ecs_combat.plugin import payloads
from ecs_combat.plugin.definitions import normalize_keyword, plugin_name_for
from ecs_combat.plugin.registry import ScheduledSystem
from ecs_combat.plugin.schedule import SET_ORDER
from ecs_combat.suggest import did_you_mean

#: Each point's payload classes, reference and batched, with the classes of their items.
PAYLOADS: dict[str, tuple[type, ...]] = {
    "declare-attackers": (payloads.AttackDeclaration, payloads.BatchAttackDeclaration),
    "declare-blockers": (payloads.BlockDeclaration, payloads.BatchBlockDeclaration),
    "assign-damage": (
        payloads.DamageAssignment,
        payloads.Assignment,
        payloads.BatchDamageAssignment,
    ),
    "deal-damage": (payloads.DamageEvent, payloads.Dealt, payloads.BatchDamageEvent),
    "state-based-actions": (payloads.StateCheck, payloads.BatchStateCheck),
    "destroy": (payloads.Destruction, payloads.BatchDestruction),
    "dies": (payloads.Deaths, payloads.BatchDeaths),
    "end-of-combat": (payloads.BatchEndOfCombat,),
    "event-damage": (payloads.EventDamage, payloads.BatchEventDamage),
}


def payload_fields(point: str) -> frozenset[str]:
    """The fields a system at `point` may write: those of its payloads and their items."""
    return frozenset(f.name for c in PAYLOADS.get(point, ()) for f in dataclasses.fields(c))


def check_system_names(systems: dict[str, list[ScheduledSystem]], known: Collection[str]) -> None:
    """Raise :class:`PluginError` for a system whose `before`/`after`/`ambiguous_with` names
    nothing known (a standard set, a keyword, a plugin, a set or system of some system, in
    `known` or at any point), whose `sets` names another point's standard set, or whose `writes` names no field
    of its point's payload."""
    names = set(known) | {n for chain in SET_ORDER.values() for n in chain}
    for scheduled in systems.values():
        for s in scheduled:
            names |= s.system.sets | s.system.keywords | {s.plugin, s.system.name}
    spellings = {_spelling(n) for n in names}
    for point, scheduled in systems.items():
        fields = payload_fields(point)
        own_sets = set(SET_ORDER.get(point, ()))
        for s in scheduled:
            system = s.system
            where = f"plugin {s.plugin!r}: system {system.name!r} at {point}"
            for kind, given in (
                ("before", system.before),
                ("after", system.after),
                ("ambiguous_with", system.ambiguous_with),
            ):
                for name in sorted(given):
                    if _spelling(name) not in spellings:
                        raise PluginError(
                            f"{where}: `{kind}` names {name!r}, which no plugin, keyword, set "
                            f"or system is called{did_you_mean(name, names)}"
                        )
            for name in sorted(system.sets):
                other = [p for p, chain in SET_ORDER.items() if name in chain and p != point]
                if other and name not in own_sets:
                    raise PluginError(
                        f"{where}: `sets` names {name!r}, a standard set of "
                        f"{', '.join(other)}, not of {point}"
                        + (f" (its sets: {', '.join(sorted(own_sets))})" if own_sets else "")
                    )
            for name in sorted(system.writes - fields):
                raise PluginError(
                    f"{where}: `writes` names {name!r}, which is no field of its payload "
                    f"(fields: {', '.join(sorted(fields))}){did_you_mean(name, fields)}"
                )


def _spelling(name: str) -> str:
    """A name as compared: a keyword's or a plugin's spelling (``first strike``,
    ``first_strike``)."""
    return plugin_name_for(normalize_keyword(name))
