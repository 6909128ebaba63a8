"""The readable account of a combat, for a person (``resolve`` without ``--json``).

Both engines' results are drawn by the same code, the batched engine's worded by the reference
engine (:mod:`ecs_combat.reference.narration`). On a terminal it is drawn with Rich panels and
tables; elsewhere (a pipe, a file) in the plain layout of :mod:`ecs_combat.console`. Names, ids
and notes are user text: never read as markup, long ones elided in the middle (:func:`shown`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ecs_combat.cards.notes import ignored_text_lines, scenario_creatures
from ecs_combat.console import PlainOutput, is_plain, plain_lines, print_line, shown
from ecs_combat.rules.result import CombatResult, StepResult
from ecs_combat.scenario.model import Scenario

if TYPE_CHECKING:
    from rich.console import Console, RenderableType

    from ecs_combat.console import Output

#: Notes and reasons (engine sentences that quote ids) longer than this are elided in the middle.
NOTE_LENGTH = 1000
#: How a creature id or a note is written in the account.
_Label = Callable[[str], str]


@dataclass
class _StepLines:
    """One damage step, as lines and tables for either layout."""

    title: str
    strikes: list[tuple[bool, str]] = field(default_factory=list)
    damage: list[tuple[str, str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    died: str | None = None
    after: list[str] = field(default_factory=list)


def render(scenario: Scenario, result: CombatResult, console: Output) -> None:
    """Print what happened, step by step, and why each creature did or did not strike."""
    label = render_steps(scenario, result, console)
    print_end_of_combat(console, result, label)


def labeller(names: dict[str, str]) -> _Label:
    """How the account names creatures: ``Name (id)``, or the id alone when it is the name."""

    def label(cid: str) -> str:
        name = names.get(cid)
        return f"{shown(name)} ({shown(cid)})" if name and name != cid else shown(cid)

    return label


def render_steps(scenario: Scenario, result: CombatResult, console: Output) -> _Label:
    """Print the declarations, notes, damage steps and skipped events of one combat; return
    how creatures are labelled."""
    names = {cid: spec.name for cid, spec in scenario.creatures.items()}
    for ev in scenario.events:
        if ev.creature is not None:
            names[ev.creature.id] = ev.creature.name
    label = labeller(names)

    def note(text: str) -> str:
        return shown(text, NOTE_LENGTH)

    attacks = (
        ", ".join(f"{label(a)} → {shown(p)}" for a, p in scenario.attackers.items()) or "nobody"
    )
    declared = scenario.blockers if result.blocks is None else result.blocks
    blocks = ", ".join(
        f"{label(b)} blocks {', '.join(label(a) for a in attacked)}"
        for b, attacked in declared.items()
    )
    print_line(console, f"Attacking: {attacks}", "bold")
    before = result.notes_before_blocks or 0  # the attack triggers' notes come first
    for text in result.notes[:before]:
        print_line(console, f"· {note(text)}", "cyan")
    if blocks:
        print_line(console, f"Blocking: {blocks}")
    for text in ignored_text_lines(scenario_creatures(scenario)):
        print_line(console, f"· {note(text)}", "yellow")
    for text in result.notes[before:]:
        print_line(console, f"· {note(text)}", "cyan")
    if not result.steps:
        print_line(console, "No combat damage steps took place.")
    for step in result.steps:
        lines = _step_lines(step, label, note)
        if isinstance(console, PlainOutput) or is_plain(console):
            _print_plain_step(console, lines)
        else:
            _print_step_panel(console, lines)
        for text in lines.after:
            print_line(console, f"· {text}", "cyan")
    for skipped in result.skipped_events:
        print_line(
            console,
            f"· events[{skipped.index}] ({shown(skipped.action)} at {shown(skipped.at)}) did not "
            f"happen: {note(skipped.reason)}",
        )
    return label


def _step_lines(step: StepResult, label: _Label, note: _Label) -> _StepLines:
    lines = _StepLines(f"{shown(step.name)} damage step")
    lines.strikes = [(s.deals, f"{label(s.creature)}: {note(s.reason)}") for s in step.strikes]
    lines.damage = [(label(src), label(dst), str(n)) for src, dst, n in step.damage]
    lines.notes = [note(n) for n in step.notes]
    lines.notes += [
        f"{shown(player)} gains {amount} life from {label(source)}"
        for player, source, amount in step.life_gained
    ]
    if step.died:
        lines.died = f"Died: {', '.join(label(c) for c in step.died)}"
    lines.after = [note(n) for n in step.after]
    return lines


def _print_step_panel(console: Console, lines: _StepLines) -> None:
    from rich.console import Group
    from rich.panel import Panel
    from rich.table import Table
    from rich.text import Text

    parts: list[RenderableType] = []
    why = Table(show_header=False, box=None, pad_edge=False)
    why.add_column(width=2)
    why.add_column()
    for deals, text in lines.strikes:
        mark = Text("✔", style="green") if deals else Text("✘", style="red")
        why.add_row(mark, Text(text))
    parts.append(why)
    if lines.damage:
        dealt = Table("source", "target", "damage", box=None, header_style="dim")
        for row in lines.damage:
            dealt.add_row(*(Text(cell) for cell in row))
        parts.append(dealt)
    else:
        parts.append(Text("No combat damage is dealt."))
    parts += [Text(f"· {text}", style="cyan") for text in lines.notes]
    if lines.died is not None:
        parts.append(Text(lines.died, style="bold red"))
    console.print(Panel(Group(*parts), title=Text(lines.title), title_align="left"))


def _print_plain_step(console: Output, lines: _StepLines) -> None:
    print_line(console, lines.title)
    for deals, text in lines.strikes:
        print_line(console, f"  {'✔' if deals else '✘'} {text}")
    if lines.damage:
        for line in plain_lines(("source", "target", "damage"), lines.damage):
            print_line(console, f"  {line}")
    else:
        print_line(console, "  No combat damage is dealt.")
    for text in lines.notes:
        print_line(console, f"  · {text}")
    if lines.died is not None:
        print_line(console, f"  {lines.died}")


def print_end_of_combat(
    console: Output, result: CombatResult, label: _Label, title: str = "End of combat"
) -> None:
    """The creatures and players as they are at the end (of combat, or of a turn)."""
    # Tapped state and whether it could attack again matter once a turn has several combats.
    tapped = any(c.tapped is not None for c in result.creatures.values())
    may_attack = any(c.may_attack is not None for c in result.creatures.values())
    extra = ["tapped"] * tapped + ["may attack again"] * may_attack
    # Counters (keyword counters, +1/+1, -1/-1) in a column of their own when any has some.
    counters = any(c.counters for c in result.creatures.values())
    creature_headers = [
        "creature", "alive", "damage", "power/toughness", *(["counters"] if counters else []),
        *extra,
    ]  # fmt: skip
    creature_rows = []
    for cid, c in result.creatures.items():
        row = [label(cid), _yes(c.alive), str(c.damage), f"{c.power}/{c.toughness}"]
        if counters:
            row.append(", ".join(f"{shown(k)}: {n}" for k, n in c.counters.items()) or "-")
        if tapped:
            row.append(_yes(c.tapped))
        if may_attack:
            row.append(_yes(c.may_attack))
        creature_rows.append(row)
    # The plugins' player state shown in the output, one column per key.
    state_keys = list(dict.fromkeys(k for p in result.players.values() for k in p.state))
    player_headers = ["player", "life", "lost", *state_keys]
    player_rows = [
        [shown(pid), str(p.life), "yes" if p.lost else "no"]
        + [str(p.state.get(k, "")) for k in state_keys]
        for pid, p in result.players.items()
    ]
    if isinstance(console, PlainOutput) or is_plain(console):
        print_line(console, title)
        for line in plain_lines(creature_headers, creature_rows):
            print_line(console, line)
        for line in plain_lines(player_headers, player_rows):
            print_line(console, line)
    else:
        from rich.table import Table
        from rich.text import Text

        creatures = Table(*creature_headers, title=title)
        for row in creature_rows:
            creatures.add_row(*(Text(cell) for cell in row))
        console.print(creatures)
        players = Table(*player_headers)
        for row in player_rows:
            players.add_row(*(Text(cell) for cell in row))
        console.print(players)


def _yes(value: bool | None) -> str:
    return "-" if value is None else "yes" if value else "no"
