"""``resolve`` for turn files and ``phases`` (CONTRACT.md section 6): reading, resolving and
printing turns; errors are raised for the command to report."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence

import click
from rich.console import Console

from ecs_combat.console import is_plain, print_line, shown
from ecs_combat.console.turn_account import render_phases, render_turn
from ecs_combat.errors import InputError
from ecs_combat.plugin.phases import Phase
from ecs_combat.plugin.registry import Registry
from ecs_combat.reference.engine import ReferenceEngine
from ecs_combat.reference.narration import Narrator
from ecs_combat.rules.result import TurnResult
from ecs_combat.rules.turn_schedule import schedule
from ecs_combat.scenario.loader import iter_scenarios
from ecs_combat.scenario.turn_loader import is_turn_file, iter_turns
from ecs_combat.scenario.turns import TurnScenario

#: Turns the batched engine resolves at a time from a file.
TURN_BATCH = 1000


def turn_resolver(
    registry: Registry, engine: str
) -> Callable[[Sequence[TurnScenario]], list[TurnResult]]:
    """The engine's function resolving a batch of turns."""
    if engine == "reference":
        return ReferenceEngine(registry).resolve_turns
    from ecs_combat.batched import BatchedEngine  # only for --engine batched

    return BatchedEngine(registry).resolve_turns


def resolve_turn_file(
    registry: Registry, file: str, engine: str, as_json: bool, console: Console
) -> None:
    """Resolve the turns of a file and print each result as soon as it is known. A turn is
    validated before any engine sees it, so bad input gets the same message on both."""
    resolve = None
    narrator: Narrator | None = None
    batch = TURN_BATCH if engine == "batched" else 1
    turns = iter_turns(file, registry)
    count = 0
    try:
        for chunk in _chunks(turns, batch):
            resolve = resolve or turn_resolver(registry, engine)
            for turn, result in _resolved(chunk, resolve):
                count += 1
                if not (result.worded or as_json):  # the reference engine's words
                    narrator = narrator or Narrator(registry)
                    result = narrator.turn(turn, result)
                _print_turn(turn, result, file, as_json, console)
    except InputError as exc:
        if not count:
            raise
        results, are = ("result", "is") if count == 1 else ("results", "are")
        note = f" (the {count:,} {results} before this one {are} printed)"
        raise InputError(exc.file, exc.path, exc.message + note) from None


def _resolved(
    chunk: list[TurnScenario], resolve: Callable[[Sequence[TurnScenario]], list[TurnResult]]
) -> Iterator[tuple[TurnScenario, TurnResult]]:
    """Each turn of a chunk with its result. When a turn of the chunk is found invalid as it
    is played, the turns are resolved one at a time, so those before it are printed first."""
    try:
        results = resolve(chunk)
    except InputError:
        if len(chunk) == 1:
            raise
    else:
        yield from zip(chunk, results, strict=True)
        return
    for turn in chunk:
        (result,) = resolve([turn])
        yield turn, result


def _print_turn(
    turn: TurnScenario, result: TurnResult, file: str, as_json: bool, console: Console
) -> None:
    if as_json:
        indent = None if file.endswith(".jsonl") else 2
        click.echo(json.dumps(result.to_json(), indent=indent))
        return
    if file.endswith(".jsonl"):
        _separator(console, turn.file)
    render_turn(turn, result, console)


def print_phases(registry: Registry, file: str, as_json: bool, console: Console) -> None:
    """Print the phases of each turn (or of the turn of each combat scenario) in a file."""
    for where, order, active, phases in _schedules(registry, file):
        if as_json:
            doc = [p.to_json() for p in phases]
            click.echo(json.dumps(doc, indent=None if file.endswith(".jsonl") else 2))
            continue
        if file.endswith(".jsonl"):
            _separator(console, where)
        render_phases(order, active, phases, console)


def _schedules(registry: Registry, file: str) -> Iterator[tuple[str, list[str], str, list[Phase]]]:
    """(where, turn order, active player, phases) for each document of a file; a combat
    scenario is the turn of its first player, with no spells cast in main phases. A turn's
    ``[[combats]]`` entries are not read: they don't change the phases."""
    if is_turn_file(file):
        for turn in iter_turns(file, registry, combats=False):
            yield turn.file, list(turn.players), turn.active, turn.phases
        return
    for scenario in iter_scenarios(file, registry):
        order = list(scenario.players)
        phases = schedule(order, order[0], scenario.creatures, [], registry.phase_rules)
        yield scenario.file, order, order[0], phases


def _chunks(items: Iterator[TurnScenario], size: int) -> Iterator[list[TurnScenario]]:
    """The turns `size` at a time; when one is invalid, the valid ones before it come first."""
    chunk: list[TurnScenario] = []
    try:
        for item in items:
            chunk.append(item)
            if len(chunk) == size:
                yield chunk
                chunk = []
    except InputError:
        if chunk:
            yield chunk
        raise
    if chunk:
        yield chunk


def _separator(console: Console, where: str) -> None:
    if is_plain(console):
        print_line(console, f"== {shown(where, 300)} ==")
    else:
        console.rule(shown(where, 300))
