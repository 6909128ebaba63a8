"""The registries and engines the kit's checks use."""

from __future__ import annotations

from collections.abc import Sequence
from importlib import metadata

from ecs_combat.batched import BatchedEngine
from ecs_combat.plugin.loading import load_registry
from ecs_combat.plugin.registry import Registry
from ecs_combat.reference.engine import ReferenceEngine


def bundled_plugins() -> dict[str, str]:
    """The plugins bundled with ecs-combat: entry-point name -> module."""
    return {
        ep.name: ep.value
        for ep in metadata.distribution("ecs-combat").entry_points
        if ep.group == "ecs_combat"
    }


def registry_with(*modules: str, extra: Sequence[object] = ()) -> Registry:
    """A registry of exactly the bundled plugins plus the named modules (and plugin objects
    `extra`): no other installed plugin, whatever the environment says."""
    bundled = [m for _, m in sorted(bundled_plugins().items())]
    return load_registry(load=[*bundled, *modules], autoload=False, extra=extra)


_engines: list[tuple[Registry, ReferenceEngine, BatchedEngine]] = []


def engines_for(registry: Registry) -> tuple[ReferenceEngine, BatchedEngine]:
    """The reference and the batched engine of a registry (the last registry's are kept)."""
    for known, reference, batched in _engines:
        if known is registry:
            return reference, batched
    _engines[:] = [(registry, ReferenceEngine(registry), BatchedEngine(registry))]
    return _engines[0][1], _engines[0][2]
