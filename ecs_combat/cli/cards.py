"""``ecs-combat cards``: find cards of the library (CONTRACT.md section 7, docs/cards.md)."""

from __future__ import annotations

import json
import sys
from typing import Any

import click
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ecs_combat.cards.listing import (
    APPROXIMATE,
    EXACT,
    CardEntry,
    CardQuery,
    counts,
    find_entries,
    keyword_filter,
    library_entries,
)
from ecs_combat.console import is_plain, print_line, print_plain_table, shown
from ecs_combat.plugin.definitions import COLORS, normalize_keyword
from ecs_combat.scenario.instances import Instance
from ecs_combat.suggest import closest, did_you_mean

#: Rows the readable form shows unless --limit says otherwise.
SHOWN_ROWS = 50
HEADERS = ("name", "cost", "mv", "colors", "p/t", "keywords", "status", "set", "source")


@click.command()
@click.argument("query", required=False, default="")
@click.option("--keyword", "-k", "keywords", multiple=True, metavar="K",
              help="Has this keyword (a name: any number or quality; with a number or quality:"
              " exactly that instance). Repeatable.")  # fmt: skip
@click.option("--mana-value", type=float, metavar="N", help="Has this mana value.")
@click.option("--color", "-c", "colors", multiple=True,
              type=click.Choice([*COLORS, "colorless"], case_sensitive=False),
              help="Is this color (colorless: none). Repeatable: all of them.")  # fmt: skip
@click.option("--set", "set_code", metavar="S", help="First printed in this set (its code).")
@click.option("--exact", "status", flag_value=EXACT,
              help="Only cards the loaded plugins model exactly.")  # fmt: skip
@click.option("--approximate", "status", flag_value=APPROXIMATE,
              help="Only cards with rules text no loaded plugin models.")  # fmt: skip
@click.option("--plugin-only", is_flag=True, help="Only the plugins' cards.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list of the cards.")
@click.option("--limit", type=click.IntRange(min=0), metavar="N",
              help=f"Show at most N cards (default: {SHOWN_ROWS} in the readable form, all with "
              "--json; 0: all).")  # fmt: skip
@click.pass_obj
def cards(
    state: Any,
    query: str,
    keywords: tuple[str, ...],
    mana_value: float | None,
    colors: tuple[str, ...],
    set_code: str | None,
    status: str | None,
    plugin_only: bool,
    as_json: bool,
    limit: int | None,
) -> None:
    """List the cards of the library whose name contains QUERY (any case): the bundled
    database's creature cards and the loaded plugins' cards, with how exactly the plugins model
    each (exact: every line of its rules text is a keyword they model; approximate: some text is
    ignored). The readable form ends with how many exact and approximate cards matched
    (docs/cards.md)."""
    registry = state.registry
    wanted: list[Instance | str] = []
    for k in keywords:
        try:
            wanted.append(keyword_filter(k, registry))
        except ValueError as exc:
            click.echo(f"ecs-combat: --keyword: {exc}", err=True)
            sys.exit(2)
    q = CardQuery(
        text=query,
        keywords=tuple(wanted),
        mana_value=mana_value,
        colors=tuple(normalize_keyword(c) for c in colors),
        set=set_code,
        status=status,
        plugin_only=plugin_only,
    )
    everything = library_entries(registry)
    if set_code is not None:
        known_sets = {e.set.casefold(): e.set for e in everything if e.set}
        if set_code.casefold() not in known_sets:
            hint = did_you_mean(set_code.upper(), sorted(known_sets.values()))
            click.echo(
                f"ecs-combat: --set {set_code}: no card of the library was first printed in a "
                f"set with this code{hint}",
                err=True,
            )
            sys.exit(2)
    found = find_entries(q, everything)
    if as_json:
        shown_entries = found if not limit else found[:limit]
        click.echo(json.dumps([e.to_json() for e in shown_entries], indent=2, ensure_ascii=False))
        return
    rows_shown = found if limit == 0 else found[: limit or SHOWN_ROWS]
    console = Console(highlight=False)
    if rows_shown:
        _print_table(console, [_row(e) for e in rows_shown])
    else:
        match = closest(query, {e.name for e in everything}) if query else None
        print_line(
            console, f"No card matches; did you mean {match!r}?" if match else "No card matches."
        )
    exact, approximate = counts(found)
    all_exact, all_approximate = counts(everything)
    print_line(
        console,
        f"{len(found):,} {'card' if len(found) == 1 else 'cards'} matched: {exact:,} exact, "
        f"{approximate:,} approximate "
        f"(the library: {len(everything):,} cards, {all_exact:,} exact, "
        f"{all_approximate:,} approximate).",
        "bold",
    )
    if len(rows_shown) < len(found):
        print_line(console, f"Showing the first {len(rows_shown):,}; --limit 0 shows all.")


def _row(entry: CardEntry) -> list[str]:
    pt = "" if entry.creature is None else f"{entry.creature.power}/{entry.creature.toughness}"
    value = int(entry.mana_value) if float(entry.mana_value).is_integer() else entry.mana_value
    name = entry.name
    if entry.faces:
        name += f" ({' / '.join(f'{f.name} {f.mana_cost}' for f in entry.faces)})"
    return [
        shown(name),
        shown(entry.mana_cost),
        str(value),
        ", ".join(entry.colors) or "colorless",
        pt,
        ", ".join(entry.keywords),
        entry.status,
        shown(entry.set or "-"),
        shown(entry.source),
    ]


def _print_table(console: Console, rows: list[list[str]]) -> None:
    if is_plain(console):
        print_plain_table(console, HEADERS, rows)
        return
    table = Table()
    for heading in HEADERS:
        table.add_column(heading, overflow="fold")
    status = HEADERS.index("status")
    for row in rows:
        cells = [Text(cell) for cell in row]
        cells[status].stylize("green" if row[status] == EXACT else "yellow")
        table.add_row(*cells)
    console.print(table)
