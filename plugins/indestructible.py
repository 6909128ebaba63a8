"""Indestructible (702.12): lethal damage, deathtouch and destroy effects don't destroy it.

A system at ``destroy`` exempts it. It still dies to toughness 0 or less (704.5f), which is
not destruction.
"""

from __future__ import annotations

from typing import Any

from ecs_combat import (
    BatchContext,
    BatchDestruction,
    CombatContext,
    Destruction,
    KernelPart,
    Keyword,
    System,
    hookimpl,
)

INDESTRUCTIBLE = "indestructible"


def exempt(combat: CombatContext, destruction: Destruction) -> None:
    for e in list(destruction.creatures):
        if combat.has(e, INDESTRUCTIBLE):
            destruction.creatures.discard(e)
            destruction.kept[e] = INDESTRUCTIBLE


def exempt_batched(batch: BatchContext, destruction: BatchDestruction) -> None:
    destruction.creatures &= ~batch.has(INDESTRUCTIBLE)


@hookimpl
def register_keywords() -> list[Keyword]:
    return [Keyword(INDESTRUCTIBLE, rule="702.12", counter=True)]


@hookimpl
def register_systems() -> list[System]:
    return [
        System(
            "destroy",
            "not destroyed",
            exempt,
            exempt_batched,
            {INDESTRUCTIBLE},
            writes={"creatures"},
        )
    ]


# -- kernel form (docs/plugins.md, "Kernel parts") ------------------------------------------


def exempt_kernel(row: int, c: Any, own: Any) -> bool:
    """A creature with indestructible is not destroyed."""
    return False


@hookimpl
def register_kernel_parts() -> list[KernelPart]:
    return [KernelPart("destroy", "not destroyed", exempt_kernel)]
