"""``ecs-combat plugins``: the loaded plugins (distributions, versions, keywords, systems) and
the schedule, the points of a combat in order with the systems that run at each."""

from __future__ import annotations

from typing import Any

from rich.console import Console

from ecs_combat.console import print_line, print_table, shown
from ecs_combat.plugin.definitions import plugin_name_for
from ecs_combat.plugin.registry import Registry
from ecs_combat.plugin.schedule import POINT_NAMES, System

#: How `plugins` writes a keyword that takes a parameter, by the parameter's kind.
PARAMETER_FORMS = {"number": "{} N", "color": "{} from COLOR|QUALITY", "pt": "{} +X/+Y"}


def plugins_json(registry: Registry) -> list[dict[str, Any]]:
    """``plugins --json``: one object per loaded plugin."""
    return [
        {
            "name": p.name,
            "distribution": p.distribution,
            "version": p.version,
            "module": p.module,
            "keywords": list(p.keywords),
            # what each keyword takes: "number" (bushido 2), "color" (protection from red)
            "parameters": {k: registry.keywords[k].parameter or None for k in p.keywords},
            "steps": list(p.steps),
            "cards": list(p.cards),
            "systems": [{"point": point, "name": name} for point, name in p.systems],
            "state": list(p.state),
        }
        for p in registry.plugins
    ]


def print_plugins(registry: Registry, console: Console) -> None:
    """The readable listing: a table of the plugins, the schedule, the damage steps, and the
    plugins blocked or unavailable."""
    headers = ("plugin", "distribution", "version", "keywords", "steps", "cards", "systems")
    rows = [
        [
            shown(p.name),
            shown(p.distribution or "-"),
            shown(p.version or "-"),
            ", ".join(shown(written(registry, k)) for k in p.keywords),
            ", ".join(map(shown, p.steps)),
            ", ".join(map(shown, p.cards)),
            ", ".join(shown(point) for point, _ in p.systems),
        ]
        for p in registry.plugins
    ]
    print_table(console, headers, rows)
    schedule: list[list[str]] = []
    for point in POINT_NAMES:
        at = registry.systems_at(point)
        schedule += [
            [shown(point), shown(s.plugin), shown(s.system.name), sets_of(s.system)] for s in at
        ] or [[shown(point), "-", "-", "-"]]
    print_line(console, "Schedule: the points of a combat in order, and their systems")
    print_table(console, ("point", "plugin", "system", "sets"), schedule)
    print_line(console, f"Damage steps: {' → '.join(map(shown, registry.step_names))}")
    if registry.blocked:
        blocked = sorted({plugin_name_for(n) for n in registry.blocked})
        print_line(console, f"Blocked: {', '.join(map(shown, blocked))}")
    for reason in registry.unavailable.values():
        print_line(console, f"Unavailable: {shown(reason, 1000)}")


def sets_of(system: System) -> str:
    """A system's sets and constraints, for the schedule table."""
    parts = [*sorted(system.sets)]
    parts += [f"before {n}" for n in sorted(system.before)]
    parts += [f"after {n}" for n in sorted(system.after)]
    return shown(", ".join(parts) or "-")


def written(registry: Registry, keyword: str) -> str:
    """A keyword as scenarios write it: ``bushido N``, ``protection from COLOR|QUALITY``,
    ``flying``."""
    kind = registry.keywords[keyword].parameter
    return PARAMETER_FORMS.get(kind, "{}").format(keyword)
