"""Ordering the systems of one point: named sets, ``before``/``after`` constraints, the
standard sets of :data:`~ecs_combat.plugin.schedule.SET_ORDER`, sorted once as the registry is
built (the rules are in :mod:`ecs_combat.plugin.schedule`)."""

from __future__ import annotations

import heapq
from collections.abc import Sequence

from ecs_combat.errors import PluginError
from ecs_combat.plugin.schedule import SET_ORDER, System


def _label(plugin: str, system: System) -> str:
    return f"plugin {plugin!r} (system {system.name!r})"


def order_systems(point: str, systems: Sequence[tuple[str, System]]) -> list[int]:
    """The positions of `systems` (plugin, system) in the order they run at `point`.

    Raises :class:`PluginError` for a cycle of constraints or an ambiguous pair: two systems
    that write the same payload field with no constraint ordering them.
    """
    n = len(systems)
    sets = [system.sets | system.keywords | {plugin} for plugin, system in systems]
    members: dict[str, list[int]] = {}
    for i, names in enumerate(sets):
        for name in names:
            members.setdefault(name, []).append(i)
    after: list[set[int]] = [set() for _ in range(n)]  # after[j]: the systems j runs after
    for i, (_, system) in enumerate(systems):
        for name in system.before:
            for j in members.get(name, ()):
                if j != i:
                    after[j].add(i)
        for name in system.after:
            for j in members.get(name, ()):
                if j != i:
                    after[i].add(j)
    chain = SET_ORDER.get(point, ())
    for k, earlier in enumerate(chain):
        for later in chain[k + 1 :]:
            for i in members.get(earlier, ()):
                for j in members.get(later, ()):
                    if i != j:
                        after[j].add(i)
    order = _sorted(point, systems, after)
    _check_ambiguities(systems, sets, after)
    return order


def _sorted(point: str, systems: Sequence[tuple[str, System]], after: list[set[int]]) -> list[int]:
    """Kahn's algorithm; among ready systems, plugin name then system name first."""
    n = len(systems)
    waiting = [len(a) for a in after]
    then: list[list[int]] = [[] for _ in range(n)]
    for j, earlier in enumerate(after):
        for i in earlier:
            then[i].append(j)

    def key(i: int) -> tuple[str, str, int]:
        return (systems[i][0], systems[i][1].name, i)

    ready = [key(i) for i in range(n) if not waiting[i]]
    heapq.heapify(ready)
    order: list[int] = []
    while ready:
        i = heapq.heappop(ready)[2]
        order.append(i)
        for j in then[i]:
            waiting[j] -= 1
            if not waiting[j]:
                heapq.heappush(ready, key(j))
    if len(order) < n:
        cycle = _a_cycle({i for i in range(n) if waiting[i]}, after)
        path = " -> ".join(_label(*systems[i]) for i in [*cycle, cycle[0]])
        raise PluginError(f"the systems at {point} must run in a cycle: {path}")
    return order


def _a_cycle(left: set[int], after: list[set[int]]) -> list[int]:
    """One cycle among systems Kahn's algorithm could not place (each waits on another)."""
    start = min(left)
    seen: list[int] = [start]
    while True:
        nxt = min(j for j in after[seen[-1]] if j in left)
        if nxt in seen:
            cycle = seen[seen.index(nxt) :]
            return cycle[::-1]  # in running order: each before the next
        seen.append(nxt)


def _check_ambiguities(
    systems: Sequence[tuple[str, System]], sets: list[frozenset[str]], after: list[set[int]]
) -> None:
    """Two systems writing the same field must be ordered, or declared ambiguous."""
    n = len(systems)
    earlier: list[set[int]] = [set() for _ in range(n)]  # transitively
    for j in range(n):
        todo = list(after[j])
        while todo:
            i = todo.pop()
            if i not in earlier[j]:
                earlier[j].add(i)
                todo.extend(after[i])
    for i in range(n):
        for j in range(i + 1, n):
            (pi, si), (pj, sj) = systems[i], systems[j]
            shared = si.writes & sj.writes
            if not shared or i in earlier[j] or j in earlier[i]:
                continue
            if si.ambiguous_with & sets[j] or sj.ambiguous_with & sets[i]:
                continue
            raise PluginError(
                f"{_label(pi, si)} and {_label(pj, sj)} both write {sorted(shared)} at "
                f"{si.point} and nothing orders them: give one `before` or `after` the other "
                "(or `ambiguous_with` if their order does not matter)"
            )
