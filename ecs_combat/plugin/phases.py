"""The phases of a turn, and the rules plugins give for adding phases to it (500.8).

A turn has a precombat main phase, a combat phase and a postcombat main phase. Effects add
phases *directly after* a phase: after each phase ends, every :class:`PhaseRule` is asked what
it adds after it. The core places them (:func:`ecs_combat.rules.turn_schedule.schedule`):

- phases one rule adds after one phase keep the rule's order (a combat phase, then a main
  phase);
- the phases added after one phase form groups, one per effect: a run of phases a rule adds
  with the same player and the same `created` number. Groups come in turn order starting from
  the active player (the group's player decides, whatever order the file lists players,
  creatures or casts in); one player's groups come most recently created first (500.8: a
  larger `created` first), groups created together keep the rules' order;
- a phase added after phase P comes right after P, before phases added after earlier phases
  (additions nest: depth first).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ecs_combat.scenario.model import CreatureSpec

MAIN = "main"
COMBAT = "combat"
#: `created_by` of the turn's own phases.
TURN = "turn"


@dataclass(frozen=True)
class Phase:
    """One main or combat phase of the turn."""

    #: ``"main"`` or ``"combat"``.
    kind: str
    #: The active player of a main phase; the attacking (and active) player of a combat phase.
    player: str
    #: ``"turn"`` for the turn's own phases, else the card name and, in parentheses, the id
    #: of the creature whose ability or of the player whose spell created it.
    created_by: str = TURN
    #: The only creatures that may attack in this combat phase, or None: any creature of
    #: the attacking player.
    only_attackers: frozenset[str] | None = None
    #: The creature whose ability creates this phase, or None. Such a phase happens only if,
    #: as the phase it follows ends, that creature is on the battlefield under the phase's
    #: player's control and that player is in the game (113.6, 800.4a).
    source: str | None = None
    #: Creation order among the phases one rule adds after one phase (successive spells:
    #: 0, 1, ... in the order they were cast); one player's later-created ones come first.
    created: int = 0
    #: Set by the schedule: the index in the turn's phases of the phase this one was added
    #: directly after, or -1 for the turn's own phases. A phase that would follow a phase that
    #: did not happen does not happen either.
    follows: int = -1

    def to_json(self) -> dict[str, str]:
        """The `phases` entry of CONTRACT section 6."""
        return {"phase": self.kind, "player": self.player, "created_by": self.created_by}


@dataclass(frozen=True)
class CastInMain:
    """A spell cast during a main phase (``turn.casts``)."""

    card: str
    caster: str
    #: The n-th main phase of the turn (1 = precombat main).
    main: int
    target: str | None = None
    token: str | None = None
    path: str = ""


@dataclass(frozen=True)
class TurnView:
    """What a :class:`PhaseRule` sees as a phase ends: the turn so far and the creatures."""

    #: The players in turn order, as the scenario lists them.
    turn_order: tuple[str, ...]
    #: Whose turn it is.
    active: str
    #: The creatures as the turn begins, by id (``spec.card`` names the card it is).
    creatures: Mapping[str, CreatureSpec]
    #: The phases so far; the last one is the phase that just ended.
    happened: tuple[Phase, ...]
    #: The spells cast during the phase that just ended, if it was a main phase.
    casts: tuple[CastInMain, ...] = ()

    @property
    def ended(self) -> Phase:
        """The phase that just ended."""
        return self.happened[-1]

    def opponents(self, player: str) -> tuple[str, ...]:
        """Every other player (the game is a free-for-all: 102.3)."""
        return tuple(p for p in self.turn_order if p != player)

    def first_combat_of(self, player: str) -> bool:
        """Whether the phase that just ended is the first combat phase of the turn in which
        `player` is the attacking player."""
        if self.ended.kind != COMBAT or self.ended.player != player:
            return False
        return not any(p.kind == COMBAT and p.player == player for p in self.happened[:-1])

    def creatures_of_card(self, card: str) -> list[CreatureSpec]:
        """The creatures that are the card named `card` (case-insensitive), in scenario order."""
        folded = card.casefold()
        return [c for c in self.creatures.values() if (c.card or "").casefold() == folded]


@dataclass(frozen=True)
class PhaseRule:
    """A plugin's rule for adding phases to the turn (500.8).

    `after` is called as each phase ends and returns the phases to add directly after it, in
    order (usually none).
    """

    name: str
    after: Callable[[TurnView], Sequence[Phase]] = field(compare=False)
    rule: str = ""
