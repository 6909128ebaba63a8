"""Which of the plugins' systems apply to one combat (or turn) in the reference engine."""

from __future__ import annotations

from collections.abc import Iterable

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
