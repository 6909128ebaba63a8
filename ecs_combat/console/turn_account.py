"""The readable account of a turn (``resolve TURN_FILE`` without ``--json``) and of its phases
(``phases FILE``).

The account walks the turn's phases in order: who is active and who attacks in each, which
card created it, the spells cast in each main phase and what they did, and each combat phase
as the account of one combat draws it (:func:`ecs_combat.console.account.render_steps`); after the
last combat phase, the creatures and players as it ends (the turn's outcome).
"""

from __future__ import annotations

from collections.abc import Iterable

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ecs_combat.console import is_plain, print_line, print_plain_table, shown
from ecs_combat.console.account import NOTE_LENGTH, labeller, print_end_of_combat, render_steps
from ecs_combat.plugin.phases import COMBAT, MAIN, TURN, Phase
from ecs_combat.reference.turn import main_phase_prefix
from ecs_combat.rules.result import CombatResult, TurnResult
from ecs_combat.scenario.turns import TurnScenario

#: The title of the table of creatures and players the turn's JSON document gives.
OUTCOME = "The outcome: creatures and players as the last combat phase ends"
#: Said in a main phase after the last combat phase where spells are cast.
AFTER_THE_OUTCOME = "(after the last combat phase: the outcome above doesn't count these spells)"
PHASE_HEADERS = ("#", "phase", "active player", "attacks", "who may attack", "created by")


def phase_rows(phases: list[Phase]) -> list[list[str]]:
    """One row per phase: its number, kind, active and attacking player, who may attack in
    it, and what created it."""
    rows = []
    for i, p in enumerate(phases, 1):
        if p.kind == COMBAT:
            may = (
                f"any creature of {shown(p.player)}"
                if p.only_attackers is None
                else f"only {', '.join(shown(c) for c in sorted(p.only_attackers))}"
            )
            rows.append([str(i), "combat", shown(p.player), shown(p.player), may])
        else:
            rows.append([str(i), "main", shown(p.player), "-", "-"])
        rows[-1].append("the turn itself" if p.created_by == TURN else shown(p.created_by))
    return rows


def render_phases(
    turn_order: Iterable[str], active: str, phases: list[Phase], console: Console
) -> None:
    """A turn's phases as a numbered table, under a line saying whose turn it is."""
    order = ", ".join(shown(p) for p in turn_order)
    combats = sum(p.kind == COMBAT for p in phases)
    title = (
        f"{shown(active)}'s turn (turn order {order}): {len(phases)} phases, "
        f"{combats} of them combat phases"
    )
    _table(console, title, PHASE_HEADERS, phase_rows(phases))


def render_turn(turn: TurnScenario, result: TurnResult, console: Console) -> None:
    """Print what happened in the turn, phase by phase."""
    names = {cid: spec.name for cid, spec in turn.creatures.items()}
    names.update({cid: spec.name for cid, spec in turn.tokens.items()})
    for scenario in turn.combats:
        for ev in scenario.events:
            if ev.creature is not None:
                names[ev.creature.id] = ev.creature.name
    label = labeller(names)

    render_phases(turn.players, turn.active, turn.phases, console)
    skipped = {p.index: p.reason for p in result.skipped_phases}
    mains = combats = played = 0
    for i, phase in enumerate(turn.phases, 1):
        if phase.kind == MAIN:
            mains += 1
            title = f"Phase {i}: main phase {mains} of {shown(phase.player)}'s turn"
        else:
            combats += 1
            made = (
                "the turn's own" if phase.created_by == TURN else f"created by {phase.created_by}"
            )
            allowed = (
                ""
                if phase.only_attackers is None
                else f"; only {', '.join(label(c) for c in sorted(phase.only_attackers))} "
                "may attack"
            )
            title = (
                f"Phase {i}: combat phase {combats}, {shown(phase.player)} attacks "
                f"({shown(made)}{allowed})"
            )
        _heading(console, title)
        if i - 1 in skipped:
            print_line(console, f"It does not happen: {shown(skipped[i - 1], NOTE_LENGTH)}", "dim")
            continue
        if phase.kind == MAIN:
            casts = [c for c in turn.casts if c.main == mains]
            if not casts:
                print_line(console, "No spells are cast.")
            for cast in casts:
                what = f"{shown(cast.caster)} casts {shown(cast.card)}"
                if cast.target is not None:
                    what += f" targeting {label(cast.target)}"
                print_line(console, what, "bold")
            if casts and played == len(result.combats):
                print_line(console, AFTER_THE_OUTCOME, "dim")
            prefix = main_phase_prefix(mains)
            for text in result.notes:
                if text.startswith(prefix):
                    print_line(
                        console, f"· {shown(text.removeprefix(prefix), NOTE_LENGTH)}", "cyan"
                    )
            continue
        done = result.combats[played]
        outcome = CombatResult(
            steps=done.steps, skipped_events=done.skipped_events, notes=done.notes
        )
        render_steps(turn.combats[combats - 1], outcome, console)
        played += 1
        if played == len(result.combats):
            end = CombatResult(creatures=result.creatures, players=result.players)
            print_end_of_combat(console, end, label, OUTCOME)


def _heading(console: Console, text: str) -> None:
    if is_plain(console):
        print_line(console, f"-- {text} --")
    else:
        console.rule(Text(text), align="left")


def _table(console: Console, title: str, headers: tuple[str, ...], rows: list[list[str]]) -> None:
    if is_plain(console):
        print_plain_table(console, headers, rows, right=(True,), title=title)
        return
    table = Table(title=Text(title))
    for heading in headers:
        table.add_column(heading, overflow="fold")
    for row in rows:
        table.add_row(*(Text(cell) for cell in row))
    console.print(table)
