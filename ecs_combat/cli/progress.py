"""How far a run of `ecs-combat simulate` is: a progress bar on a terminal, a line now and
then elsewhere."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import click
from rich.console import Console, RenderableType
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)


class DelayedProgress(Progress):
    """A progress bar that stays hidden until the run has lasted `delay` seconds."""

    def __init__(self, *columns: Any, delay: float = 1.0, **kwargs: Any) -> None:
        self._shown_after = time.monotonic() + delay
        super().__init__(*columns, **kwargs)

    def get_renderables(self) -> Iterable[RenderableType]:
        """Nothing before the delay, then the usual bar."""
        if time.monotonic() < self._shown_after:
            return
        yield from super().get_renderables()


#: In a pipe, a run says how far it is on standard error this often (seconds).
PIPE_PROGRESS_EVERY = 30.0


class PipeProgress:
    """Progress where standard error is not a terminal: a line every `every` seconds (none
    for a run that ends sooner): the battles done, their speed, and the time left at that
    speed."""

    def __init__(
        self,
        total: int,
        every: float = PIPE_PROGRESS_EVERY,
        clock: Callable[[], float] = time.monotonic,
        say: Callable[[str], None] = lambda line: click.echo(line, err=True),
    ) -> None:
        self.total = total
        self.every = every
        self.clock = clock
        self.say = say
        self.started = clock()
        self.next_line = self.started + every
        self.done = 0

    def __call__(self, battles: int) -> None:
        """Count a finished chunk's or task's battles; say how far the run is when it's time."""
        self.done += battles
        now = self.clock()
        if now < self.next_line or self.done >= self.total:
            return
        self.next_line = now + self.every
        elapsed = now - self.started
        rate = self.done / elapsed if elapsed > 0 else 0.0
        left = f"about {duration((self.total - self.done) / rate)} left" if rate else "starting"
        self.say(
            f"ecs-combat: {self.done:,} of {self.total:,} battles "
            f"({100 * self.done / self.total:.1f}%) in {duration(elapsed)}, "
            f"{rate:,.0f} a second; {left}"
        )


def duration(seconds: float) -> str:
    """A time span for a person: ``45 s``, ``12 min 5 s``, ``3 h 20 min``, ``46 days``."""
    s = round(seconds)
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60} s"
    if s < 86400 * 2:
        return f"{s // 3600} h {s % 3600 // 60} min"
    days = s / 86400
    return f"{days:,.0f} days" if days < 3650 else f"{days / 365.25:,.0f} years"


@contextlib.contextmanager
def progress_bar(total: int, description: str, enabled: bool) -> Iterator[Callable[[int], None]]:
    """A callback advancing a progress bar on standard error by the battles of each finished
    chunk or task, whichever worker ran it.

    On a terminal the bar (with the time left) is shown when `enabled` and the run lasts
    longer than a second; elsewhere (a pipe, a file, a log) a line says how far the run is
    every :data:`PIPE_PROGRESS_EVERY` seconds (:class:`PipeProgress`), --json or not.
    """
    console = Console(stderr=True)
    if not console.is_terminal:
        yield PipeProgress(total)
        return
    if not enabled:
        yield lambda battles: None
        return
    bar = DelayedProgress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("battles"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=False,
    )
    task = bar.add_task(description, total=total)
    with bar:
        yield lambda battles: bar.advance(task, battles)
