"""The phases of a turn in the order they happen (500.8; RULES.md section 8).

The turn's own phases are a precombat main phase, a combat phase and a postcombat main phase.
As each phase ends, every plugin :class:`~ecs_combat.plugin.phases.PhaseRule` says which phases
it adds directly after it; they are placed as :mod:`ecs_combat.plugin.phases` describes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from ecs_combat.errors import PluginError
from ecs_combat.plugin.phases import COMBAT, MAIN, CastInMain, Phase, PhaseRule, TurnView

if TYPE_CHECKING:
    from ecs_combat.scenario.model import CreatureSpec

#: More phases than this in one turn means phase rules keep adding phases to each other.
MAX_PHASES = 256


def schedule(
    turn_order: Sequence[str],
    active: str,
    creatures: Mapping[str, CreatureSpec],
    casts: Sequence[CastInMain],
    rules: Sequence[PhaseRule],
) -> list[Phase]:
    """The turn's main and combat phases in the order they happen."""
    order = tuple(turn_order)
    seat = {p: (i - order.index(active)) % len(order) for i, p in enumerate(order)}
    pending: list[Phase] = [Phase(MAIN, active), Phase(COMBAT, active), Phase(MAIN, active)]
    happened: list[Phase] = []
    mains = 0
    while pending:
        phase = pending.pop(0)
        happened.append(phase)
        if len(happened) > MAX_PHASES:
            raise PluginError(
                f"the phase rules added more than {MAX_PHASES} phases to one turn: "
                f"{', '.join(sorted({r.name for r in rules}))} keep adding phases"
            )
        in_main: tuple[CastInMain, ...] = ()
        if phase.kind == MAIN:
            mains += 1
            in_main = tuple(c for c in casts if c.main == mains)
        view = TurnView(order, active, creatures, tuple(happened), in_main)
        groups: list[list[Phase]] = []
        for rule in rules:
            try:
                added = list(rule.after(view))
            except Exception as exc:
                raise PluginError(
                    f"phase rule {rule.name!r} raised {type(exc).__name__}: {exc}"
                ) from exc
            for p in added:
                if not isinstance(p, Phase) or p.kind not in (MAIN, COMBAT) or p.player not in seat:
                    raise PluginError(
                        f"phase rule {rule.name!r} added {p!r}: a Phase of a player in the game "
                        "is expected"
                    )
            groups += effects(added)
        # turn order from the active player; one player's most recently created first (500.8);
        # stable: what was created together keeps the rules' order
        groups.sort(key=lambda g: (seat[g[0].player], -g[0].created))
        follows = len(happened) - 1
        pending[:0] = [replace(p, follows=follows) for g in groups for p in g]
    return happened


def effects(added: Sequence[Phase]) -> list[list[Phase]]:
    """The phases one rule adds after one phase, split into the effects that add them: runs
    of phases with the same player and the same creation number, in the rule's order."""
    groups: list[list[Phase]] = []
    for p in added:
        last = groups[-1][-1] if groups else None
        if last is not None and (last.player, last.created) == (p.player, p.created):
            groups[-1].append(p)
        else:
            groups.append([p])
    return groups


def main_phase_count(phases: Sequence[Phase]) -> int:
    """How many main phases the turn has."""
    return sum(p.kind == MAIN for p in phases)


def combat_phases(phases: Sequence[Phase]) -> list[Phase]:
    """The turn's combat phases, in order."""
    return [p for p in phases if p.kind == COMBAT]


def seat_order(turn_order: list[str], first: str) -> list[str]:
    """The players in turn order starting from `first` (APNAP order when `first` is active,
    101.4)."""
    i = turn_order.index(first)
    return turn_order[i:] + turn_order[:i]
