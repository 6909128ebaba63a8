"""The readable account of a battle of many creatures, summarised (``resolve`` without
``--json`` for a battle of :data:`SUMMARISED` creatures or more): who attacks and blocks, counted;
each damage step's strikers, damage, life gained and deaths, counted, with its largest damage;
the players at the end; and how to get every event (``--json``).
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from ecs_combat.console import plain_lines, print_line, shown
from ecs_combat.console.account import labeller, render
from ecs_combat.rules.result import CombatResult
from ecs_combat.scenario.model import Scenario

if TYPE_CHECKING:
    from ecs_combat.console import Output

#: Creatures from which the readable account of a battle is summarised.
SUMMARISED = 1_000
#: The largest damage entries shown for each step.
LARGEST = 5


def render_account(scenario: Scenario, result: CombatResult, console: Output) -> None:
    """The readable account of one battle: in full, or summarised from :data:`SUMMARISED`
    creatures."""
    if len(scenario.creatures) >= SUMMARISED:
        render_summary(scenario, result, console)
    else:
        render(scenario, result, console)


def render_summary(scenario: Scenario, result: CombatResult, console: Output) -> None:
    """Print the summary of one battle's account."""
    names = {cid: spec.name for cid, spec in scenario.creatures.items()}
    label = labeller(names)
    blocked = {a for attacked in scenario.blockers.values() for a in attacked}
    print_line(
        console,
        f"{len(scenario.creatures):,} creatures: {len(scenario.attackers):,} attacking, "
        f"{len(blocked):,} of them blocked by {len(scenario.blockers):,} blockers",
        "bold",
    )
    if not result.steps:
        print_line(console, "No combat damage steps took place.")
    for step in result.steps:
        print_line(console, f"{shown(step.name)} damage step", "bold")
        strikers = sum(s.deals for s in step.strikes)
        to_players = sum(n for _, target, n in step.damage if target in result.players)
        print_line(
            console,
            f"  {strikers:,} creatures strike; {len(step.damage):,} damage entries, "
            f"{sum(n for *_, n in step.damage):,} damage in all ({to_players:,} to players); "
            f"{len(step.died):,} creatures die",
        )
        gained = Counter[str]()
        for player, _, amount in step.life_gained:
            gained[player] += amount
        for player, amount in gained.items():
            print_line(console, f"  {shown(player)} gains {amount:,} life")
        largest = sorted(step.damage, key=lambda d: -d[2])[:LARGEST]
        if largest:
            print_line(console, f"  the largest damage ({len(largest)} of {len(step.damage):,}):")
            rows = [
                (label(src), shown(dst) if dst in result.players else label(dst), str(n))
                for src, dst, n in largest
            ]
            for line in plain_lines(("source", "target", "damage"), rows, (False, False, True)):
                print_line(console, f"    {line}")
    alive = sum(c.alive for c in result.creatures.values())
    print_line(
        console,
        f"End of combat: {alive:,} creatures alive, {len(result.creatures) - alive:,} died",
        "bold",
    )
    players = [
        (shown(pid), f"{p.life:,}", "yes" if p.lost else "no") for pid, p in result.players.items()
    ]
    for line in plain_lines(("player", "life", "lost"), players, (False, True, False)):
        print_line(console, f"  {line}")
    print_line(
        console,
        f"The account of a battle of {SUMMARISED:,} creatures or more is summarised: "
        f"`ecs-combat resolve {shown(scenario.file)} --json` prints every damage entry and "
        "every creature.",
        "dim",
    )
