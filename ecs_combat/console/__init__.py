"""Output for people: Rich tables on a terminal, a plain layout in pipes and files.

On a terminal the commands draw Rich tables and panels, fitted to its width and colored. When
standard output is not a terminal (a pipe, a file), they print a plain layout instead: one row
per line, columns padded and separated by two spaces, no box characters, no colors, nothing
truncated or wrapped, so ``grep`` and ``cut`` see whole names. Rich decides what a terminal is
(``FORCE_COLOR`` or ``TTY_COMPATIBLE=1`` make it draw tables anyway).

User text (names, ids, paths, keywords of plugins, notes) is never read as Rich markup: it is
wrapped in :class:`rich.text.Text` or passed through :func:`shown`, which also escapes control
characters and elides the middle of very long text.

Rich is imported when it draws: a command whose output goes to a pipe or a file prints its
plain lines through :class:`PlainOutput`, without loading Rich (docs/performance.md,
"Start-up").
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import IO, TYPE_CHECKING, TypeAlias

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    #: Where a command prints for people: a Rich console, or the plain layout without Rich.
    Output: TypeAlias = "Console | PlainOutput"

#: User text longer than this many characters is shown with its middle elided (JSON is exact).
SHOWN_LENGTH = 120
#: What stands for the elided middle of long user text.
ELISION = "…"


def shown(text: str, limit: int = SHOWN_LENGTH) -> str:
    """User text as people see it: at most `limit` characters, the middle elided, and control
    characters, lone surrogates and other unprintable characters written as escapes (``\\n``)."""
    if len(text) > limit:
        head = (limit - len(ELISION) + 1) // 2
        tail = limit - len(ELISION) - head
        text = f"{text[:head]}{ELISION}{text[len(text) - tail :]}"
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in text)


#: Characters Rich's :class:`~rich.text.Text` removes (bell, backspace, vertical tab, form
#: feed, carriage return) or lays out (tab, newline): lines with any are printed by Rich.
_RICH_HANDLES = frozenset("\x07\x08\x0b\x0c\r\t\n")
#: Variables with which Rich may take a pipe for a terminal (https://force-color.org/).
_TERMINAL_VARIABLES = ("FORCE_COLOR", "TTY_COMPATIBLE")


class PlainOutput:
    """Standard output in the plain layout, written without Rich: each line as Rich's
    console prints a :class:`~rich.text.Text` with ``soft_wrap=True`` to a pipe (the same
    bytes, flushed after each line); a line Rich would change (tabs, newlines, control
    characters) is printed by a Rich console made then."""

    is_terminal = False

    def __init__(self) -> None:
        self._rich: Console | None = None

    def line(self, text: str) -> None:
        """Print one line of text."""
        if _RICH_HANDLES.isdisjoint(text):
            out = sys.stdout
            out.write(text + "\n")
            out.flush()
            return
        from rich.text import Text

        self.rich().print(Text(text), soft_wrap=True)

    def rich(self) -> Console:
        """The Rich console that prints what this one does not (made on first use)."""
        if self._rich is None:
            from rich.console import Console

            self._rich = Console(highlight=False)
        return self._rich


def output() -> Output:
    """Standard output for people: :class:`PlainOutput` when it is plainly not a terminal (no
    variable asks Rich to draw), else a Rich console (which decides, as it always did)."""
    isatty = getattr(sys.stdout, "isatty", None)
    if isatty is not None and not isatty() and not any(map(os.environ.get, _TERMINAL_VARIABLES)):
        return PlainOutput()
    from rich.console import Console

    return Console(highlight=False)


def is_plain(console: Output) -> bool:
    """Whether `console` gets the plain layout: it is not a terminal."""
    return not console.is_terminal


def plain_lines(
    headers: Sequence[str], rows: Sequence[Sequence[str]], right: Sequence[bool] = ()
) -> list[str]:
    """A table as lines of text: a header line, then one line per row; each column padded to its
    widest cell (right-aligned where `right` says so) and separated by two spaces."""
    table = [list(headers), *(list(r) for r in rows)]
    widths = [max(len(r[i]) for r in table) for i in range(len(headers))]
    aligned = list(right) + [False] * (len(headers) - len(right))
    lines = []
    for row in table:
        cells = [
            cell.rjust(width) if align else cell.ljust(width)
            for cell, width, align in zip(row, widths, aligned, strict=True)
        ]
        lines.append("  ".join(cells).rstrip())
    return lines


def print_line(console: Output, text: str | Text, style: str | None = None) -> None:
    """Print one line of text, never read as markup; unwrapped in the plain layout."""
    if isinstance(console, PlainOutput):
        if isinstance(text, str):
            console.line(text)
            return
        console = console.rich()
    from rich.text import Text

    line = text if isinstance(text, Text) else Text(text)
    if style is not None:
        line.stylize(style)
    if is_plain(console):
        console.print(line, soft_wrap=True)
    else:
        console.print(line)


def print_plain_table(
    console: Output,
    headers: Sequence[str],
    rows: Sequence[Sequence[str]],
    right: Sequence[bool] = (),
    title: str | None = None,
) -> None:
    """Print a table in the plain layout, after its title if any."""
    if title is not None:
        print_line(console, title)
    for line in plain_lines(headers, rows, right):
        print_line(console, line)


def summary_table(title: str, caption: Text | None = None) -> Table:
    """An empty Rich table in the layout of the summaries: title on the left, a rule under
    the headings, no outer edge, one space between columns."""
    from rich import box
    from rich.table import Table
    from rich.text import Text

    return Table(
        title=Text(title),
        title_justify="left",
        box=box.SIMPLE_HEAD,
        show_edge=False,
        pad_edge=False,
        padding=(0, 1),
        collapse_padding=True,
        caption=caption,
        caption_justify="left",
    )


def print_table(console: Output, headers: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
    """A table: Rich on a terminal (long cells folded, never cut), the plain layout in a pipe."""
    if isinstance(console, PlainOutput) or is_plain(console):
        print_plain_table(console, headers, rows)
        return
    from rich.table import Table
    from rich.text import Text

    table = Table()
    for heading in headers:
        table.add_column(heading, overflow="fold")
    for row in rows:
        table.add_row(*(Text(cell) for cell in row))
    console.print(table)


def text_console(file: IO[str], width: int) -> Console:
    """A console writing plain text to `file`, `width` characters wide: no colors, nothing
    highlighted (the layout a pipe gets)."""
    from rich.console import Console

    return Console(file=file, width=width, highlight=False, color_system=None)
