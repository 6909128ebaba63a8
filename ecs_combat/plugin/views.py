"""What plugins and cards see of a combat: one protocol per engine shape.

The reference engine answers with single values; the batched engine with numpy arrays, one
element per creature row. Card effects use :class:`EffectTarget`, whose methods accept either,
so one card definition serves both engines.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from ecs_combat.plugin.context import BoolArray, IntArray, StateArray, StateValue

#: Where a card's effect applies: a yes/no in the reference engine, one per resolving card
#: (a numpy bool array) in the batched engine.
Where = bool | np.bool_ | BoolArray
#: A plugin's state as a card reads it: one value in the reference engine, one per resolving
#: card in the batched engine.
CardState = StateValue | StateArray


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
    resolving card. `where` restricts an effect to the targets where it is true. The target is
    a creature, or for an "any target" card (``TargetRule(kind="any")``) a creature or a
    player; a card of kind ``"none"`` has none, and uses only the caster's methods
    (`caster_state`, `grant_each`). Creature methods (`state`, `related`, `pump`, `grant`) do
    nothing to (and answer False or None for) a player target.
    """

    def state(self, key: str) -> CardState:
        """A plugin's state of the target creature (``hat``), by key."""
        ...

    def caster_state(self, key: str) -> CardState:
        """A plugin's state of the card's caster (a player), by key."""
        ...

    def related(self, key: str) -> Where:
        """Whether the target's creature-reference state `key` (``paired_with``) names a
        creature on the battlefield."""
        ...

    def pump(self, power: int, toughness: int, where: Where = True, via: str | None = None) -> None:
        """+power/+toughness until end of turn; with `via`, to the creature the target's
        state `via` names instead (its soulbond partner: ``via="paired_with"``)."""
        ...

    def grant(self, keyword: str, where: Where = True) -> None:
        """The target gains `keyword` until end of turn."""
        ...

    def damage(self, amount: int, where: Where = True) -> None:
        """The spell deals `amount` noncombat damage to the target: marked on a creature, life
        lost by a player (120.3). State-based actions are checked after the spell, as after
        any event."""
        ...

    def grant_each(self, keyword: str, where: Where = True) -> None:
        """Each creature the caster controls as the spell resolves gains `keyword` until end
        of turn."""
        ...

    def note(self, text: str, where: Where = True) -> None:
        """Say why the card did what it did (readable account)."""
        ...
