"""The outcome of a combat or a turn, in the shape of CONTRACT.md sections 2 and 6."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ecs_combat.plugin.phases import Phase


@dataclass(frozen=True)
class StrikeNote:
    """Why a creature did or did not deal damage in a step (for the readable account)."""

    creature: str
    deals: bool
    reason: str


@dataclass
class StepResult:
    """One damage step that took place."""

    name: str
    damage: list[tuple[str, str, int]] = field(default_factory=list)
    life_gained: list[tuple[str, str, int]] = field(default_factory=list)
    died: list[str] = field(default_factory=list)
    strikes: list[StrikeNote] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: What happened after the step's state-based actions, before the next step.
    after: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """The contract's step object."""
        return {
            "name": self.name,
            "damage": [{"source": s, "target": t, "amount": n} for s, t, n in self.damage],
            "life_gained": [
                {"player": p, "source": s, "amount": n} for p, s, n in self.life_gained
            ],
            "died": list(self.died),
        }


@dataclass(frozen=True)
class CreatureOutcome:
    """A creature as it is at the end of combat."""

    alive: bool
    damage: int
    power: int
    toughness: int
    #: Whether it is on the battlefield tapped (attacking taps it unless a keyword says
    #: otherwise, 508.1f); None if the engine doesn't say. Not part of the JSON document.
    tapped: bool | None = None
    #: Whether it could attack in a later combat this turn (on the battlefield, untapped, not
    #: kept from attacking, 508.1a); None if the engine doesn't say. Not in the JSON document.
    may_attack: bool | None = None
    #: Counters on it (as they were when it died, for one that did), kind -> count above 0.
    counters: dict[str, int] = field(default_factory=dict)
    #: The plugins' state shown in the output, by key.
    state: dict[str, Any] = field(default_factory=dict)
    #: Its power plus toughness as it last returned to the battlefield as a new object
    #: (400.7: persist, undying), for decisions' material; None if it never did. Not in the
    #: JSON document.
    returned: int | None = None


@dataclass(frozen=True)
class PlayerOutcome:
    """A player's final life and whether they lost."""

    life: int
    lost: bool
    #: The plugins' state shown in the output (``poison``), by key.
    state: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SkippedEvent:
    """An event whose point of the combat never came."""

    index: int
    at: str
    action: str
    reason: str


@dataclass
class CombatResult:
    """Everything `resolve --json` prints, plus the notes for the readable account."""

    steps: list[StepResult] = field(default_factory=list)
    creatures: dict[str, CreatureOutcome] = field(default_factory=dict)
    players: dict[str, PlayerOutcome] = field(default_factory=dict)
    skipped_events: list[SkippedEvent] = field(default_factory=list)
    #: Notes on what happened outside the damage steps, in order (readable account only).
    notes: list[str] = field(default_factory=list)
    #: How many of `notes` came before the blockers were declared (the attack triggers');
    #: None if the engine doesn't say.
    notes_before_blocks: int | None = None
    #: The blocks declared (blocker -> the attackers it blocks), which leave out the listed
    #: blockers that left the battlefield before blocks (RULES 11.3); None if the engine
    #: doesn't say (readable account only).
    blocks: dict[str, tuple[str, ...]] | None = None
    #: Whether the engine recorded the readable account's sentences (notes, which creatures
    #: may attack again): the batched engine does not (docs/output.md).
    worded: bool = True

    def to_json(self) -> dict[str, Any]:
        """The contract's JSON document."""
        return {
            "steps": [s.to_json() for s in self.steps],
            "creatures": {
                cid: {
                    "alive": c.alive,
                    "damage": c.damage,
                    "power": c.power,
                    "toughness": c.toughness,
                    "counters": dict(c.counters),
                    **c.state,
                }
                for cid, c in self.creatures.items()
            },
            "players": {
                pid: {"life": p.life, "lost": p.lost, **p.state} for pid, p in self.players.items()
            },
            "skipped_events": [
                {"event": e.index, "at": e.at, "action": e.action, "reason": e.reason}
                for e in self.skipped_events
            ],
        }


@dataclass
class CombatPhaseResult:
    """One combat phase of a turn: its attacking player and what happened in it."""

    player: str
    steps: list[StepResult] = field(default_factory=list)
    skipped_events: list[SkippedEvent] = field(default_factory=list)
    #: Notes on what happened outside the damage steps, in order (readable account only).
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """The `combats` entry of CONTRACT section 6."""
        return {
            "player": self.player,
            "steps": [s.to_json() for s in self.steps],
            "skipped_events": [
                {"event": e.index, "at": e.at, "action": e.action, "reason": e.reason}
                for e in self.skipped_events
            ],
        }


@dataclass
class SkippedPhase:
    """A phase of the turn's schedule that did not happen (RULES 2 and 8)."""

    #: Its place in the schedule computed as the turn began (0-based).
    index: int
    phase: Phase
    #: Why, for people.
    reason: str

    def to_json(self) -> dict[str, str]:
        """A `skipped_phases` entry (CONTRACT section 8)."""
        return {**self.phase.to_json(), "reason": self.reason}


@dataclass
class TurnResult:
    """Everything `resolve --json` prints for a turn file (CONTRACT sections 6 and 8)."""

    #: The phases that happened, in order.
    phases: list[Phase] = field(default_factory=list)
    #: One entry per combat phase that happened.
    combats: list[CombatPhaseResult] = field(default_factory=list)
    #: As at the end of the turn's last combat phase.
    creatures: dict[str, CreatureOutcome] = field(default_factory=dict)
    players: dict[str, PlayerOutcome] = field(default_factory=dict)
    #: Notes on the main phases (spells cast in them), in order (readable account only).
    notes: list[str] = field(default_factory=list)
    #: The phases of the schedule that did not happen, in order.
    skipped_phases: list[SkippedPhase] = field(default_factory=list)
    #: Whether the engine recorded the readable account's sentences (as for a combat).
    worded: bool = True

    def to_json(self) -> dict[str, Any]:
        """The contract's JSON document for a turn."""
        last = CombatResult(creatures=self.creatures, players=self.players).to_json()
        return {
            "phases": [p.to_json() for p in self.phases],
            "combats": [c.to_json() for c in self.combats],
            "creatures": last["creatures"],
            "players": last["players"],
            "skipped_phases": [p.to_json() for p in self.skipped_phases],
        }
