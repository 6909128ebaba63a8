"""What the procedures of a combat phase (:mod:`.declarations`, :mod:`.damage`, :mod:`.events`,
:mod:`.state_based`, :mod:`.returns`, :mod:`.sacrifices`, :mod:`.tokens`) and the plugins'
context read and call of the combat being played: the protocol :class:`.combat.Combat`
meets, so that none of them imports the procedure that calls them (no import circle, type-only
imports included)."""

from __future__ import annotations

from typing import Any, Protocol

from ecs_combat.plugin.context import CombatContext
from ecs_combat.plugin.registry import Registry
from ecs_combat.reference.board import Board
from ecs_combat.reference.state import CombatState
from ecs_combat.reference.systems import Systems


class PlayingContext(CombatContext, Protocol):
    """The plugins' context as the procedures use it besides its contract: the creatures
    stale to the triggers resolving, the counters a state check's systems put, and a
    creature's marks forgotten as it returns as a new object (400.7)."""

    stale: frozenset[int]
    counters_put: list[tuple[int, str, int]] | None

    def forget(self, creature: int) -> None:
        """Forget what the plugins marked on a creature."""
        ...


class Playing(Protocol):
    """One combat phase being played in the current esper world."""

    @property
    def reg(self) -> Registry:
        """The plugins' registry."""
        ...

    @property
    def board(self) -> Board:
        """The players and creatures."""
        ...

    @property
    def now(self) -> CombatState:
        """This combat phase's own state."""
        ...

    @property
    def context(self) -> PlayingContext:
        """What the plugins' systems and triggered abilities see."""
        ...

    @property
    def systems(self) -> Systems:
        """The plugins' systems that apply, per point."""
        ...

    def run_systems(self, point: str, payload: Any) -> None:
        """Run the plugins' systems at a point, in schedule order."""
        ...

    def note(self, text: str) -> None:
        """Add a note to the readable account."""
        ...

    def targets(self, entity: int, keyword: str) -> list[int | None]:
        """A creature's targets for a keyword's instances."""
        ...
