"""A turn with several combat phases (CONTRACT section 6): the model both engines resolve."""

from __future__ import annotations

from dataclasses import dataclass, field

from ecs_combat.plugin.phases import COMBAT, MAIN, CastInMain, Phase
from ecs_combat.scenario.model import CreatureSpec, PlayerSpec, Scenario


@dataclass
class TurnScenario:
    """One validated turn: its phases, the spells cast in its main phases, and one combat
    :class:`Scenario` per combat phase (sharing the players and creatures)."""

    file: str
    players: dict[str, PlayerSpec]
    creatures: dict[str, CreatureSpec]
    #: Whose turn it is.
    active: str
    #: Every phase of the turn, in order (:func:`ecs_combat.rules.turn_schedule.schedule`).
    phases: list[Phase]
    #: One scenario per combat phase, in order; a phase without a ``[[combats]]`` entry has
    #: no attackers. Each scenario's `players` and `creatures` are this turn's.
    combats: list[Scenario]
    #: Spells cast during main phases (``turn.casts``), in file order.
    casts: list[CastInMain] = field(default_factory=list)
    #: Creatures the casts create as tokens, by id (not on the battlefield as the turn begins).
    tokens: dict[str, CreatureSpec] = field(default_factory=dict)

    def combat_phases(self) -> list[Phase]:
        """The combat phases, in order (one per entry of `combats`)."""
        return [p for p in self.phases if p.kind == COMBAT]

    def casts_before(self) -> list[list[CastInMain]]:
        """For each combat phase, the main-phase casts since the previous one, in order; a
        final entry holds the casts after the last combat phase."""
        out: list[list[CastInMain]] = [[]]
        main = 0
        for phase in self.phases:
            if phase.kind == COMBAT:
                out.append([])
            elif phase.kind == MAIN:
                main += 1
                out[-1].extend(c for c in self.casts if c.main == main)
        return out
