"""The creatures of a combat as attackers and as blockers are declared (RULES 4), as an engine
plays them: :class:`Declared`, and the engine the rules core asks (:class:`DeclarationPlayer`).

The rules core never imports an engine: its caller names the player, asked only where the
plugins' ``before_blocks`` parts can't say what happens before blocks
(:mod:`ecs_combat.rules.before_blocks`). The scenario reader and the decisions name the
batched engine's (:func:`ecs_combat.batched.play_declarations`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from ecs_combat.plugin.registry import Registry
    from ecs_combat.rules.requirements import MadeRequirement
    from ecs_combat.rules.sides import KeywordSide
    from ecs_combat.scenario.model import Scenario


@dataclass(frozen=True)
class Declared:
    """The creatures of a scenario as attackers and as blockers are declared."""

    attacking: dict[str, KeywordSide]
    blocking: dict[str, KeywordSide]
    #: The ids of the creatures tapped as blockers are declared: those tapped as the combat
    #: begins and the attackers that tapped (508.1f), less any an attack trigger untapped.
    tapped: set[str]
    #: Requirements the attack triggers made: (blocker, attacker, keyword) ids.
    made: list[MadeRequirement] = field(default_factory=list)
    #: The ids of the creatures that left before blockers are declared (an attack trigger,
    #: the state-based actions after it): off the battlefield, returned as new objects
    #: (400.7), or attackers no longer attacking. None of them blocks or is blocked (RULES
    #: 11.3).
    gone: set[str] = field(default_factory=set)


class DeclarationPlayer(Protocol):
    """An engine playing a one-combat scenario to the declaration of blockers: the combat
    begins (static abilities, counters), the scenario's attackers are declared and the
    declare-attackers step's systems run (attack triggers such as exalted). Without
    `attackers_tapped` the caller reads only whether the defending player's creatures are
    tapped, not which attackers tapped. Raises :class:`~ecs_combat.errors.InputError` for a
    creature with lethal damage as the combat begins (704.5g)."""

    def __call__(
        self, scenario: Scenario, registry: Registry, attackers_tapped: bool
    ) -> Declared: ...
