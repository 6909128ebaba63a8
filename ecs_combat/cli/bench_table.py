"""`ecs-combat bench`'s report for a person: the engines side by side and the targets
(:func:`~ecs_combat.bench.bench.run_bench` measures them)."""

from __future__ import annotations

from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table

from ecs_combat.bench.bench import (
    TARGET_FLOOR_RATIO,
    TARGET_MELEE_CREATURES,
    TARGET_REFERENCE_RATIO,
)
from ecs_combat.console import is_plain, print_plain_table


def _rate(per_second: float) -> str:
    """A rate in a few characters: 950, 12.3 k, 4.56 M."""
    for scale, unit in ((1e6, " M"), (1e3, " k")):
        if per_second >= scale:
            return f"{per_second / scale:.3g}{unit}"
    return f"{per_second:.0f}"


def _ratio_to_reference(rows: list[dict[str, Any]], row: dict[str, Any]) -> str:
    ref = next(r for r in rows if r["workload"] == row["workload"] and r["engine"] == "reference")
    return f"{row['battles_per_second'] / ref['battles_per_second']:,.0f}x"


def render_bench(report: dict[str, Any], console: Console) -> None:
    """Print the side-by-side table and the targets (a Rich table on a terminal, the plain
    layout of :mod:`ecs_combat.console` elsewhere)."""
    title = "ecs-combat bench (best of each; seconds = draw, resolve and tally)"
    left = ("workload", "engine")
    right = ("battles", "seconds", "engine s", "battles/s", "creatures/s", "vs ref.")
    rows = []
    for row in report["rows"]:
        engine_s = row["engine_seconds"]
        rows.append(
            [
                row["workload"],
                row["engine"],
                f"{row['battles']:,}",
                f"{row['seconds']:.3f}",
                f"{engine_s:.3f}" if engine_s is not None else "-",
                _rate(row["battles_per_second"]),
                _rate(row["creatures_per_second"]),
                _ratio_to_reference(report["rows"], row),
            ]
        )
    plain = is_plain(console)
    if plain:
        aligned = [False] * len(left) + [True] * len(right)
        print_plain_table(console, (*left, *right), rows, aligned, title=title)
    else:
        table = Table(
            title=title,
            title_justify="left",
            box=box.SIMPLE_HEAD,
            show_edge=False,
            pad_edge=False,
            padding=0,
        )
        for heading in left:
            table.add_column(heading, no_wrap=True, min_width=len(heading))
        for heading in right:
            table.add_column(heading, justify="right", no_wrap=True, min_width=len(heading))
        for cells in rows:
            table.add_row(*cells)
        console.print(table)
    t = report["targets"]

    def verdict(ok: bool) -> str:
        return "[green]met[/]" if ok else "[red]missed[/]"

    def say(line: str) -> None:
        console.print(line, soft_wrap=plain)

    ratio = t["batched_vs_reference"]
    say(
        f"batched vs reference, tournament: {ratio:,.0f}x the battles/s "
        f"(target ≥ {TARGET_REFERENCE_RATIO:.0f}x) {verdict(ratio >= TARGET_REFERENCE_RATIO)}"
    )
    ratio = t["batched_vs_floor_time"]
    say(
        f"batched vs floor, tournament, in this process: {ratio:.2f}x the floor's time "
        f"(target ≤ {TARGET_FLOOR_RATIO:.0f}x) {verdict(ratio <= TARGET_FLOOR_RATIO)}"
    )
    whole = report.get("whole_process")
    if whole is not None:
        say(
            f"batched vs floor, tournament, whole processes: simulate {whole['simulate']:.2f} s, "
            f"floor {whole['floor']:.2f} s: {whole['ratio']:.2f}x "
            f"(target ≤ {TARGET_FLOOR_RATIO:.0f}x) {verdict(whole['ratio'] <= TARGET_FLOOR_RATIO)}"
        )
    melee = t["melee_creatures_per_second"]
    engine_only = t["melee_engine_creatures_per_second"]
    if engine_only:
        say(
            f"melee, batched: {engine_only:,.0f} creatures resolved/s on one core inside the "
            f"engine (target ≥ {TARGET_MELEE_CREATURES:,}) "
            f"{verdict(engine_only >= TARGET_MELEE_CREATURES)}; {melee:,.0f}/s with drawing "
            "and tallying"
        )
