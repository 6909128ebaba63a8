"""Resolving the scenarios of a file as they are read, so that memory stays bounded.

`ecs-combat resolve FILE.jsonl` prints each result as soon as its batch is resolved. When line N
is invalid (or refused), the results of the lines before it have been printed already; the error
names ``FILE.jsonl:N`` and says so, so a user can fix the line and resume from it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Protocol

from ecs_combat.errors import InputError, RefusedError
from ecs_combat.rules.result import CombatResult
from ecs_combat.scenario.model import Scenario

#: Scenarios the batched engine resolves at a time from a stream.
BATCH = 1000


class Engine(Protocol):
    """What streaming needs of an engine."""

    def resolve_many(self, scenarios: Sequence[Scenario]) -> list[CombatResult]: ...


class StreamError(Exception):
    """A scenario of a stream failed after `done` results were given: `error` says why,
    `scenario` is where it is (``FILE`` or ``FILE:LINE``)."""

    def __init__(self, error: InputError | RefusedError, scenario: str | None, done: int) -> None:
        self.error = error
        self.scenario = scenario
        self.done = done
        super().__init__(str(error))

    def resume_note(self) -> str:
        """Which results came before the failure, for the end of the message."""
        if not self.done:
            return ""
        results, are = ("result", "is") if self.done == 1 else ("results", "are")
        return f" (the {self.done:,} {results} before this line {are} printed)"


def resolve_stream(
    scenarios: Iterable[Scenario], engine: Engine, batch: int = 1
) -> Iterator[tuple[Scenario, CombatResult]]:
    """Resolve scenarios `batch` at a time, in order, yielding each with its result.

    Raises :class:`StreamError` for the first invalid or refused scenario, after yielding the
    results of every scenario before it. A batch the engine refuses is resolved one scenario at
    a time, to find the one refused (or none: a batch can be refused for what its scenarios
    hold together, such as more keywords than the batched engine's masks have bits).
    """
    done = 0
    source = iter(scenarios)
    while True:
        pending: list[Scenario] = []
        failure: InputError | None = None
        try:
            for scenario in source:
                pending.append(scenario)
                if len(pending) == batch:
                    break
        except InputError as exc:
            failure = exc
        for scenario, result in _resolve(pending, engine, done):
            done += 1
            yield scenario, result
        if failure is not None:
            raise StreamError(failure, failure.file, done)
        if len(pending) < batch:
            return


def _resolve(
    scenarios: list[Scenario], engine: Engine, done: int
) -> Iterator[tuple[Scenario, CombatResult]]:
    """The results of `scenarios`, after `done` others. When the engine refuses the batch or
    finds one invalid (an illegal division), they are resolved one at a time up to that one."""
    if not scenarios:
        return
    try:
        results = engine.resolve_many(scenarios)
    except (InputError, RefusedError) as exc:
        if len(scenarios) == 1:
            raise StreamError(exc, scenarios[0].file, done) from None
    else:
        yield from zip(scenarios, results, strict=True)
        return
    for n, scenario in enumerate(scenarios):
        try:
            (result,) = engine.resolve_many([scenario])
        except (InputError, RefusedError) as exc:
            raise StreamError(exc, scenario.file, done + n) from None
        yield scenario, result
