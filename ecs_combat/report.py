"""The readable account of a combat, for a person (``resolve`` without ``--json``)."""

from __future__ import annotations

from rich.console import Console, Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from ecs_combat.result import CombatResult
from ecs_combat.scenario import Scenario


def render(scenario: Scenario, result: CombatResult, console: Console) -> None:
    """Print what happened, step by step, and why each creature did or did not strike."""
    names = {cid: spec.name for cid, spec in scenario.creatures.items()}
    for ev in scenario.events:
        if ev.creature is not None:
            names[ev.creature.id] = ev.creature.name

    def label(cid: str) -> str:
        name = names.get(cid)
        return f"{name} ({cid})" if name and name != cid else cid

    attacks = ", ".join(f"{label(a)} → {p}" for a, p in scenario.attackers.items()) or "nobody"
    blocks = ", ".join(
        f"{label(b)} blocks {', '.join(label(a) for a in attacked)}"
        for b, attacked in scenario.blockers.items()
    )
    console.print(Text(f"Attacking: {attacks}", style="bold"))
    if blocks:
        console.print(Text(f"Blocking: {blocks}"))
    for note in result.notes:
        console.print(Text(f"· {note}", style="cyan"))
    if not result.steps:
        console.print("No combat damage steps took place.")
    for step in result.steps:
        parts: list[Table | Text] = []
        why = Table(show_header=False, box=None, pad_edge=False)
        why.add_column(width=2)
        why.add_column()
        for strike in step.strikes:
            mark = Text("✔", style="green") if strike.deals else Text("✘", style="red")
            why.add_row(mark, f"{label(strike.creature)}: {strike.reason}")
        parts.append(why)
        if step.damage:
            dealt = Table("source", "target", "damage", box=None, header_style="dim")
            for source, target, amount in step.damage:
                dealt.add_row(label(source), label(target), str(amount))
            parts.append(dealt)
        else:
            parts.append(Text("No combat damage is dealt."))
        for note in step.notes:
            parts.append(Text(f"· {note}", style="cyan"))
        for player, source, amount in step.life_gained:
            parts.append(Text(f"· {player} gains {amount} life from {label(source)}", style="cyan"))
        if step.died:
            parts.append(Text(f"Died: {', '.join(label(c) for c in step.died)}", style="bold red"))
        console.print(Panel(Group(*parts), title=f"{step.name} damage step", title_align="left"))
        for note in step.after:
            console.print(Text(f"· {note}", style="cyan"))
    for skipped in result.skipped_events:
        console.print(
            f"· events[{skipped.index}] ({skipped.action} at {skipped.at}) did not happen: "
            f"{skipped.reason}"
        )
    # Tapped state and whether it could attack again matter once a turn has several combats.
    turn_state = any(c.tapped is not None for c in result.creatures.values())
    extra = ("tapped", "may attack again") if turn_state else ()
    creatures = Table(
        "creature", "alive", "damage", "power/toughness", *extra, title="End of combat"
    )
    for cid, c in result.creatures.items():
        row = [label(cid), _yes(c.alive), str(c.damage), f"{c.power}/{c.toughness}"]
        if turn_state:
            row += [_yes(c.tapped), _yes(c.may_attack)]
        creatures.add_row(*row)
    console.print(creatures)
    players = Table("player", "life", "lost")
    for pid, p in result.players.items():
        players.add_row(pid, str(p.life), "yes" if p.lost else "no")
    console.print(players)


def _yes(value: bool | None) -> str:
    return "-" if value is None else "yes" if value else "no"
