"""The plugins' systems of one combat (or turn) in the reference engine, and calling a plugin."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ecs_combat.errors import EcsCombatError, PluginError
from ecs_combat.plugin.context import CombatContext
from ecs_combat.plugin.registry import Registry, ScheduledSystem
from ecs_combat.plugin.schedule import POINT_NAMES


class Systems:
    """The registered systems that apply to a combat, per point, in schedule order: a system
    runs only if the combat uses one of its keywords, or if it names none."""

    def __init__(self, registry: Registry, keywords: Iterable[str]) -> None:
        self.reg = registry
        self.used: frozenset[str] = frozenset()
        #: The systems per point.
        self.at: dict[str, list[ScheduledSystem]] = {}
        self.use(keywords)

    def use(self, keywords: Iterable[str]) -> None:
        """Let systems of these keywords run too (a turn's later combat phases, its cards)."""
        self.used = self.used | frozenset(keywords)
        self.at = {
            point: [
                s
                for s in self.reg.systems_at(point)
                if not s.system.keywords or s.system.keywords & self.used
            ]
            for point in POINT_NAMES
        }

    def run(self, point: str, payload: Any, context: CombatContext) -> None:
        """Run the systems at a point, in schedule order. A trigger a system puts on the stack
        is its plugin's, and of its keyword when the system names just one."""
        triggers = getattr(payload, "triggers", None)
        for scheduled in self.at[point]:
            before = len(triggers) if triggers is not None else 0
            call_plugin(
                scheduled.plugin,
                f"system {scheduled.system.name!r} at {point}",
                scheduled.system.reference,
                context,
                payload,
            )
            named = scheduled.system.keywords
            for t in triggers[before:] if triggers is not None else ():
                t.plugin = scheduled.plugin
                if not t.keyword and len(named) == 1:
                    t.keyword = next(iter(named))


def call_plugin(plugin: str, what: str, function: Any, *args: Any) -> None:
    """Call a plugin's function; an exception from it is the plugin's, reported by name."""
    try:
        result = function(*args)
    except EcsCombatError:
        raise
    except Exception as exc:
        raise PluginError(f"plugin {plugin!r}: {what} raised {type(exc).__name__}: {exc}") from exc
    if result is not None:
        raise PluginError(
            f"plugin {plugin!r}: {what} returned {result!r}; it should change what it is given "
            "and return nothing"
        )
