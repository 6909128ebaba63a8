"""The summary of `ecs-combat simulate` for a person: the matchup table, the races' table, or
the ranking of cards by their races (the summaries themselves are made by
:mod:`ecs_combat.simulation`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ecs_combat.console import is_plain, print_line, print_plain_table, shown, summary_table
from ecs_combat.simulation.intervals import percent_with_interval
from ecs_combat.simulation.race_summary import RATES

#: Matchup labels up to this long stay on one line in the table; longer ones fold.
ONE_LINE_LABEL = 16


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "-"


def render_summary(doc: dict[str, Any], console: Console) -> None:
    """Print the summary for a person: one row per matchup, outcomes as shares of its battles,
    win rates with their 95% intervals.

    A Rich table on a terminal; the plain layout of :mod:`ecs_combat.console` elsewhere.
    """
    totals = doc["totals"]
    with_damage = totals["damage_to_players"] > 0
    title = (
        f"{doc['simulation'].capitalize()}{spec_name(doc, ' ')}: {doc['battles']:,} battles, "
        f"{doc['creatures']:,} creatures, seed {doc['seed']}"
    )
    headings = ["attacker\nwins", "blocker\nwins", "trades", "both\nsurvive"]
    if with_damage:
        headings.append("damage to\nplayers")
    rows: list[list[str]] = []
    for row in [*doc["matchups"], {"attacker": "all", "blocker": "all", **totals}]:
        n = row["battles"]
        cells = [
            shown(row["attacker"]),
            shown(row["blocker"]),
            f"{n:,}",
            percent_with_interval(row["attacker_win_rate"], row["attacker_win_rate_ci95"]),
            percent_with_interval(row["blocker_win_rate"], row["blocker_win_rate_ci95"]),
            _percent(row["trades"], n),
            _percent(row["neither_dies"], n),
        ]
        if with_damage:
            cells.append(f"{row['damage_to_players']:,}")
        rows.append(cells)
    if is_plain(console):
        headers = ["attacker", "blocker", "battles", *(h.replace("\n", " ") for h in headings)]
        right = [False, False] + [True] * (len(headers) - 2)
        print_plain_table(console, headers, rows, right, title=title)
    else:
        console.print(_summary_table(title, headings, rows, doc))
    print_line(console, run_line(doc), "dim")


def spec_name(doc: dict[str, Any], before: str = "") -> str:
    """The SPEC file's name (after `before`), or nothing for the tournament."""
    spec_file = doc["run"].get("spec_file")
    return f"{before}{Path(spec_file).name}" if spec_file else ""


def run_line(doc: dict[str, Any]) -> str:
    """How the run was made, in a line: battles resolved in this run and their speed, and
    those read back from checkpoints."""
    run = doc["run"]
    workers = f", {run['workers']} workers" if run["workers"] > 1 else ""
    resolved = run.get("battles_resolved", doc["battles"])
    speed = f", {run['battles_per_second']:,} battles/s" if run["battles_per_second"] else ""
    timed = f" in {run['seconds']:.2f} s{speed}"
    resumed = run.get("battles_resumed", 0)
    if not resumed:
        return f"{run['engine']} engine{workers}: {doc['battles']:,} battles{timed}"
    where = f" from {run['out']}" if run.get("out") else ""
    if not resolved:
        return f"all {doc['battles']:,} battles resumed{where}; 0 resolved in this run"
    return (
        f"{resumed:,} battles resumed{where}; {run['engine']} engine{workers}: "
        f"{resolved:,} resolved in this run{timed}"
    )


def _summary_table(
    title: str, headings: list[str], rows: list[list[str]], doc: dict[str, Any]
) -> Table:
    """The summary as a Rich table: a section per attacker, the totals in bold."""
    table = summary_table(title)
    short = max(len(label) for row in rows for label in row[:2]) <= ONE_LINE_LABEL
    table.add_column("attacker", no_wrap=short, overflow="fold")
    table.add_column("blocker", no_wrap=short, overflow="fold")
    table.add_column("battles", justify="right", no_wrap=True, min_width=len(f"{doc['battles']:,}"))
    for heading in headings:
        table.add_column(heading, justify="right", no_wrap=True, min_width=6)
    if len(headings) > 4:
        table.columns[-1].min_width = len(f"{doc['totals']['damage_to_players']:,}")
    previous = None
    for i, row in enumerate(rows):
        last = i == len(rows) - 1
        if previous is not None and (row[0] != previous or last):
            table.add_section()
        previous = row[0]
        table.add_row(*(Text(cell) for cell in row), style="bold" if last else None)
    return table


def render_race_summary(doc: dict[str, Any], console: Console, run_line: str) -> None:
    """Print the summary of races for a person: one row per matchup, from the attacking
    side's view (it moves first)."""
    title = (
        f"Races: {doc['battles']:,} drawn boards, each raced by its attacking side (A, first) "
        f"against its blocking side (B), seed {doc['seed']}"
    )
    headers = ["attacker", "blocker", "races", "A wins", "B wins", "draws", "turns to win"]
    rows = []
    for row in [*doc["matchups"], {"attacker": "all", "blocker": "all", **doc["totals"]}]:
        turns = row["mean_turns_to_win"]
        rows.append(
            [
                shown(row["attacker"]),
                shown(row["blocker"]),
                f"{row['races']:,}",
                *(
                    percent_with_interval(row[f"race_{name}_rate"], row[f"race_{name}_rate_ci95"])
                    for name, _ in RATES
                ),
                "-" if turns is None else f"{turns:.1f}",
            ]
        )
    print_plain_table(console, headers, rows, [False, False] + [True] * 5, title=title)
    print_line(console, run_line, "dim")


def render_race_card_summary(doc: dict[str, Any], console: Console, run_line: str) -> None:
    """Print the ranking of cards by their races for a person, one row per card."""
    title = (
        f"Races between cards: {doc['battles']:,} drawn pairings, each raced by its attacking "
        f"side (first) against its blocking side, seed {doc['seed']}; each card from its side"
    )
    headers = ["rank", "card", "races", "wins", "losses", "draws", "turns to win"]
    rows = []
    for row in doc["cards"]:
        turns = row["mean_turns_to_win"]
        rows.append(
            [
                str(row["rank"]),
                row["card"],
                f"{row['races']:,}",
                *(
                    percent_with_interval(row[f"race_{name}_rate"], row[f"race_{name}_rate_ci95"])
                    for name, _ in RATES
                ),
                "-" if turns is None else f"{turns:.1f}",
            ]
        )
    print_plain_table(console, headers, rows, [True, False] + [True] * 5, title=title)
    print_line(console, run_line, "dim")
