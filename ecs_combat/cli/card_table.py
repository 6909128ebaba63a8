"""The summary of a simulation of real cards as a ranked table for a person
(:func:`~ecs_combat.simulation.card_summary.card_summary` makes the summary)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console
from rich.text import Text

from ecs_combat.console import is_plain, print_line, print_plain_table, shown, summary_table
from ecs_combat.simulation.intervals import percent_with_interval


def render_card_summary(doc: dict[str, Any], console: Console, run_line: str) -> None:
    """Print the ranking for a person: a Rich table on a terminal, the plain layout elsewhere."""
    spec_file = doc["run"].get("spec_file")
    name = f" {Path(spec_file).name}" if spec_file else ""
    title = (
        f"Card pool{name}: {doc['battles']:,} battles, {len(doc['cards']):,} cards, "
        f"seed {doc['seed']}"
    )
    headers = [
        "rank", "card", "p/t", "keywords", "battles", "win rate (95%)", "net wins",
        "attacking w/t/l", "blocking w/t/l", "damage per combat",
    ]  # fmt: skip
    rows = []
    for c in doc["cards"]:
        approx = " (approximate)" if c["status"] == "approximate" else ""
        rows.append(
            [
                str(c["rank"]),
                shown(c["card"]) + approx,
                f"{c['power']}/{c['toughness']}",
                shown(", ".join(c["keywords"])) or "-",
                f"{c['battles']:,}",
                percent_with_interval(c["win_rate"], c["win_rate_ci95"]),
                _signed_percent(c["net_wins"]),
                _outcomes(c["as_attacker"]),
                _outcomes(c["as_blocker"]),
                "-" if c["damage_per_battle"] is None else f"{c['damage_per_battle']:.2f}",
            ]
        )
    right = [True, False, True, False] + [True] * 6
    if is_plain(console):
        print_plain_table(console, headers, rows, right, title=title)
    else:
        for drop in NARROW_DROPS:  # a narrow terminal: without the role columns, then counts
            if _fits(headers, rows, console.width):
                break
            keep = [i for i, h in enumerate(headers) if h not in drop]
            headers, right = [headers[i] for i in keep], [right[i] for i in keep]
            rows = [[row[i] for i in keep] for row in rows]
        widths = _text_widths(headers, rows, console.width)
        roles = "attacking w/t/l" in headers
        table = summary_table(
            title,
            Text(CAPTION if roles else CAPTION.split("; attacking")[0], style="dim"),
        )
        for i, (heading, r) in enumerate(zip(headers, right, strict=True)):
            table.add_column(
                heading.replace(" ", "\n", 1) if " " in heading else heading,
                justify="right" if r else "left",
                no_wrap=i not in widths,
                width=widths.get(i),
                overflow="fold",
            )
        for row in rows:
            table.add_row(*(Text(cell) for cell in row))
        console.print(table)
    print_line(console, run_line, "dim")


#: What the table's measures are, under it on a terminal (docs/simulate.md, "Real cards").
CAPTION = (
    "win rate: battles where only the other side lost creatures, with its 95% interval; net "
    "wins: win rate minus loss rate (where only its side lost creatures); damage per combat: "
    "combat damage the card dealt to players, per battle; attacking, blocking w/t/l: the "
    "rates of wins, trades (both sides lost creatures) and losses in that role, in percent "
    "(the rest: nobody died)"
)
#: Columns left out of the terminal table, group by group, while it is too wide for the
#: terminal (the plain layout and the JSON always have them all).
NARROW_DROPS = (("attacking w/t/l", "blocking w/t/l"), ("damage per combat",))


def _signed_percent(rate: float | None) -> str:
    """Net wins as signed percentage points: ``+75.3%``."""
    return "-" if rate is None else f"{100 * rate:+.1f}%"


def _outcomes(role: dict[str, Any]) -> str:
    """A role's win, trade and loss rates in whole percent: ``88/5/0%``."""
    if not role["battles"]:
        return "-"
    shares = (role["win_rate"], role["trade_rate"], role["loss_rate"])
    return "/".join(f"{100 * x:.0f}" for x in shares) + "%"


#: Least widths of the card and keywords columns (they wrap).
CARD_WIDTH, KEYWORDS_WIDTH = 12, 16


def _needs(headers: list[str], rows: list[list[str]]) -> list[int]:
    """Each column's width without wrapping (headings wrap at their first space)."""
    return [
        max([len(w) for w in h.split(" ", 1)] + [len(r[i]) for r in rows])
        for i, h in enumerate(headers)
    ]


def _fits(headers: list[str], rows: list[list[str]], width: int) -> bool:
    need = _needs(headers, rows)
    fixed = sum(need) - need[1] - need[3] + 2 * (len(headers) - 1)
    return fixed + CARD_WIDTH + KEYWORDS_WIDTH <= width


def _text_widths(headers: list[str], rows: list[list[str]], width: int) -> dict[int, int]:
    """Widths of the card and keywords columns (1 and 3): what they need if the table fits in
    `width`, else what is left beside the other columns, shared (at least
    :data:`CARD_WIDTH` and :data:`KEYWORDS_WIDTH`)."""
    need = _needs(headers, rows)
    room = width - (sum(need) - need[1] - need[3]) - 2 * (len(headers) - 1)
    if need[1] + need[3] <= room:
        return {1: need[1], 3: need[3]}
    keywords = max(KEYWORDS_WIDTH, min(need[3], room - min(need[1], room // 2)))
    return {1: max(CARD_WIDTH, room - keywords), 3: keywords}


# ---------------------------------------------------------------------------------------------
# The chart
