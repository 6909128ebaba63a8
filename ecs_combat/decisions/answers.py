"""What decisions answer (CONTRACT section 8): each declaration chosen, and the decision."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ecs_combat.scenario.model import Scenario


@dataclass(frozen=True)
class Choice:
    """One declaration with the best replies to it, its score and its outcome."""

    #: ``combat.attackers`` (attacks decisions), else None.
    attackers: dict[str, str] | None
    #: ``combat.blockers``: blocker id -> attacker id (a list when it blocks several).
    blockers: dict[str, str | list[str]]
    #: ``combat.divide`` entries of the best line that differ from the default division.
    divide: list[dict[str, Any]]
    score: dict[str, int]
    #: The outcome as ``ecs-combat resolve --json`` prints it.
    outcome: dict[str, Any]
    #: The scenario with the declaration and divisions written in.
    scenario: Scenario = field(compare=False, repr=False)
    #: The declaration's root node in the search (:class:`~.tree.Tree`).
    declaration: int = field(default=-1, compare=False, repr=False)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {} if self.attackers is None else {"attackers": self.attackers}
        out.update(blockers=self.blockers, divide=self.divide, score=self.score)
        out["outcome"] = self.outcome
        return out


@dataclass(frozen=True)
class Decision:
    """The answer of :func:`best_blocks` or :func:`best_attacks` (CONTRACT section 8)."""

    decision: str  #: "blocks" or "attacks"
    attacking_player: str
    defending_player: str
    objective: tuple[str, ...]
    #: Proven optimal; False only when the time budget ran out.
    optimal: bool
    #: Legal declarations compared.
    declarations: int
    #: How many share the best score.
    optimal_count: int
    best: list[Choice]
    #: What was left unsearched, when not optimal.
    reason: str | None
    seconds: float
    #: Candidate combats resolved.
    combats_resolved: int

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "decision": self.decision,
            "attacking_player": self.attacking_player,
            "defending_player": self.defending_player,
            "objective": list(self.objective),
            "optimal": self.optimal,
            "declarations": self.declarations,
            "optimal_count": self.optimal_count,
            "best": [c.to_json() for c in self.best],
        }
        if self.reason is not None:
            out["reason"] = self.reason
        out["run"] = {"seconds": round(self.seconds, 6), "combats_resolved": self.combats_resolved}
        return out
