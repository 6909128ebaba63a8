"""What plugins and cards see of a combat: one protocol per engine shape.

The reference engine answers with single values; the batched engine with numpy arrays, one
element per creature row. Card effects use :class:`EffectTarget`, whose methods accept either,
so one card definition serves both engines.
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

BoolArray = npt.NDArray[np.bool_]
IntArray = npt.NDArray[np.int64]


class CombatView(Protocol):
    """A read-only view of one combat (reference engine)."""

    def creatures_with(self, keyword: str) -> list[str]:
        """Creatures on the battlefield whose own keywords (no static ones) include `keyword`."""
        ...

    def name(self, creature: str) -> str:
        """A creature's name."""
        ...

    def blocking(self, creature: str) -> list[str]:
        """The attackers a creature blocks that are still in combat."""
        ...

    def blocked_by(self, creature: str) -> list[str]:
        """The creatures still blocking an attacker, in declaration order."""
        ...


class BatchView(Protocol):
    """A read-only view of many combats at once (batched engine): one row per creature."""

    def has(self, keyword: str) -> BoolArray:
        """Row mask: creatures whose own keywords (no static ones) include `keyword`."""
        ...

    def name_keys(self) -> list[str]:
        """Each row's creature name, for plugins that compare names (computed once a batch)."""
        ...

    def block_pairs(self) -> tuple[IntArray, IntArray]:
        """(blocker rows, attacker rows) of every block still in effect."""
        ...

    @property
    def rows(self) -> int:
        """The number of creature rows."""
        ...


class EffectTarget(Protocol):
    """The target of a resolving card, and the card's caster.

    In the reference engine the queries return `bool`; in the batched engine, one boolean per
    resolving card. `where` restricts an effect to the targets where it is true.
    """

    def has_hat(self) -> Any:
        """Whether the target creature has a hat."""
        ...

    def caster_has_hat(self) -> Any:
        """Whether the card's caster has a hat."""
        ...

    def paired_with(self) -> Any:
        """Whether the target is paired with another creature (soulbond)."""
        ...

    def pump(self, power: int, toughness: int, where: Any = True, partner: bool = False) -> None:
        """+power/+toughness until end of turn (to its soulbond partner if `partner`)."""
        ...

    def grant(self, keyword: str, where: Any = True) -> None:
        """The target gains `keyword` until end of turn."""
        ...

    def note(self, text: str, where: Any = True) -> None:
        """Say why the card did what it did (readable account)."""
        ...
