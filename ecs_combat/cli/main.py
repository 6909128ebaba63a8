"""The ``ecs-combat`` command line (CONTRACT.md sections 2-4).

Each command imports what it needs when it runs (the engines, numpy, Rich), so that a command
starts quickly: ``ecs-combat --version`` loads click alone (docs/performance.md, "Start-up";
tests/test_startup.py pins what each command may import).
"""

from __future__ import annotations

import io
import itertools
import json
import os
import signal
import sys
from collections.abc import Callable
from types import FrameType
from typing import TYPE_CHECKING, Any, TypeVar

import click

from ecs_combat import __version__
from ecs_combat.cli.common import PLUGIN_OPTION_HELP, State, fail, one_line
from ecs_combat.cli.flags import Commands
from ecs_combat.errors import InputError, PluginError, RefusedError

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

    from rich.console import Console

    from ecs_combat.batched import BatchedEngine
    from ecs_combat.console import Output
    from ecs_combat.plugin.registry import Registry
    from ecs_combat.reference.engine import ReferenceEngine
    from ecs_combat.rules.result import CombatResult
    from ecs_combat.scenario.model import Scenario

F = TypeVar("F", bound=Callable[..., Any])

ENGINES = ("reference", "batched")
#: Paths longer than this are elided in the middle in the readable account.
SHOWN_PATH = 300
#: Commands in modules of their own, imported when they run.
LAZY_COMMANDS = {
    "cards": "ecs_combat.cli.cards:cards",
    "simulate": "ecs_combat.cli.simulate_command:simulate",
    "bench": "ecs_combat.cli.simulate_command:bench",
    "kernels": "ecs_combat.cli.kernels_command:kernels",
}

#: numpy's linear-algebra thread pools, which ecs-combat never uses (its matrix products are of
#: integers): one thread, as its worker processes run (simulation/executors.py), saves the
#: start of a thread per core in every command.
THREAD_POOLS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")

__all__ = ["State", "cli", "fail", "main", "one_line"]


def _console() -> Console:
    from rich.console import Console

    return Console(highlight=False)


@click.group(
    cls=Commands,
    lazy=LAZY_COMMANDS,
    context_settings={"help_option_names": ["-h", "--help"]},
    epilog="On a terminal the output is drawn as tables; in a pipe or a file it is plain "
    "text: one row per line, columns separated by two spaces, nothing truncated, no colors. "
    "--json output is the same everywhere. The pages docs/PAGE.md named in these help texts "
    "are installed with ecs-combat: `ecs-combat docs PAGE` prints one.",
)
@click.option(
    "-p",
    "plugin_options",
    multiple=True,
    metavar="MODULE|no:NAME",
    help=PLUGIN_OPTION_HELP,
)
@click.version_option(__version__, prog_name="ecs-combat")
@click.pass_context
def cli(ctx: click.Context, plugin_options: tuple[str, ...]) -> None:
    """Simulate Magic: The Gathering combat.

    Keyword plugins come from the `ecs_combat` entry points; set
    ECS_COMBAT_DISABLE_PLUGIN_AUTOLOAD=1 to load none.
    """
    ctx.obj = State(plugin_options)


@cli.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option(
    "--engine",
    type=click.Choice(ENGINES),
    # the size is large_battle.LARGE_BATTLE (not imported: --version and --help stay light)
    help="The engine (default: reference; batched for a battle of 1,000 creatures or more, "
    "said on standard error).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the outcome as JSON (docs/output.md).")
@click.pass_obj
def resolve(state: State, file: str, engine: str | None, as_json: bool) -> None:
    """Resolve the combat(s) or turn(s) in FILE (.toml, .json, or .jsonl; format:
    docs/scenarios.md, turns with several combat phases: docs/turns.md).

    Without --json: a readable account, drawn as panels and tables on a terminal and as plain
    lines in a pipe; names longer than 120 characters show with their middle elided (--json
    keeps them exact). A .jsonl file is resolved as it is read, each result printed as soon as
    it is known; when a line is invalid, the message names it, after the results of the lines
    before it. The account of a battle of 1,000 creatures or more is summarised.
    """
    from ecs_combat.cli.large_battle import pick_engine, read_columns, write_json
    from ecs_combat.scenario.documents import file_kind

    registry = state.registry
    if engine != "reference" and not file.endswith(".jsonl"):  # a large battle, quickly
        rows = read_columns(registry, file)
        if rows is not None:
            engine = pick_engine(engine, len(rows.battle), file)
            if engine == "batched" and as_json and write_json(registry, rows, file):
                return
    try:
        kind = file_kind(file)  # the scenario modules are imported as the file needs them
        if kind == "race":
            fail(f"{file}: this is a race ([race]): play it with `ecs-combat race {file}`", 2)
        if kind == "turn":  # a turn with several combat phases (docs/turns.md)
            from ecs_combat.cli.turn_command import resolve_turn_file

            resolve_turn_file(registry, file, engine or "reference", as_json, _console())
            return
    except InputError as exc:
        fail(str(exc), 2)
    except RefusedError as exc:
        fail(f"{file}: the {engine or 'reference'} engine refuses this turn: {exc}", 2)
    _resolve_scenarios(registry, file, engine, as_json)


def _resolve_scenarios(registry: Registry, file: str, engine: str | None, as_json: bool) -> None:
    """resolve FILE of one or more combats: on the engine asked for (or chosen by the first
    battle's size), each result printed as soon as it is known."""
    from ecs_combat.cli.large_battle import pick_engine
    from ecs_combat.cli.stream import BATCH, resolve_stream
    from ecs_combat.reference.engine import ReferenceEngine
    from ecs_combat.scenario.loader import iter_scenarios

    scenarios = iter_scenarios(file, registry)
    if engine is None and not file.endswith(".jsonl"):  # the one battle's size tells
        try:
            opening = next(scenarios)
        except InputError as exc:
            fail(str(exc), 2)
        engine = pick_engine(engine, len(opening.creatures), file)
        scenarios = itertools.chain([opening], scenarios)
    engine = engine or "reference"
    written: Iterator[tuple[Scenario, CombatResult]] | None = None
    if engine == "batched":  # imported here: the other commands don't load the batched engine
        from ecs_combat.batched import BatchedEngine

        batched = BatchedEngine(registry)
        resolver: BatchedEngine | ReferenceEngine = batched
        if as_json and file.endswith(".jsonl"):  # many lines at a time (docs/performance.md)
            from ecs_combat.cli.batched_lines import LineResolver

            written = LineResolver(registry, batched).stream(file, sys.stdout)
    else:
        resolver = ReferenceEngine(registry)
    batch = BATCH if engine == "batched" else 1
    pairs = written or resolve_stream(scenarios, resolver, batch)
    if engine == "batched" and not as_json:  # the same account as the reference engine's
        pairs = _narrated(pairs, registry)
    _print_results(pairs, file, engine, as_json, batch)


def _print_results(
    pairs: Iterable[tuple[Scenario, CombatResult]],
    file: str,
    engine: str,
    as_json: bool,
    batch: int,
) -> None:
    """Print each scenario's result as it comes: its account, or its JSON (a line each for a
    .jsonl file); a bad line or a refused scenario ends it with one line, after the results
    before it."""
    from ecs_combat.cards.notes import result_json
    from ecs_combat.cli.stream import StreamError
    from ecs_combat.cli.summary import render_account as render
    from ecs_combat.console import output

    console = output()  # in a pipe, the plain layout without Rich
    # The first account waits for a second one: rules separate accounts only when there are two.
    first: tuple[Scenario, CombatResult] | None = None
    # a batch's results are known together: they are flushed together
    lines = None
    if as_json and file.endswith(".jsonl"):
        from ecs_combat.cli.json_lines import LineWriter, json_line

        lines = LineWriter(sys.stdout, batch)
    try:
        for i, (scenario, result) in enumerate(pairs):
            if lines is not None:  # the text of json.dumps, made quickly
                lines.write(json_line(result_json(scenario, result)))
                continue
            if as_json:
                from ecs_combat.cli.json_lines import json_document

                click.echo(json_document(result_json(scenario, result)))
                continue
            if i == 0:
                first = (scenario, result)
                continue
            if first is not None:
                _separator(console, first[0].file)
                render(*first, console)
                first = None
            _separator(console, scenario.file)
            render(scenario, result, console)
    except StreamError as exc:
        if lines is not None:
            lines.flush()
        if first is not None:
            _separator(console, first[0].file)
            render(*first, console)
        if isinstance(exc.error, RefusedError):
            fail(
                f"{exc.scenario or file}: the {engine} engine refuses this scenario: "
                f"{exc.error}{exc.resume_note()}",
                2,
            )
        fail(f"{exc.error}{exc.resume_note()}", 2)
    if lines is not None:
        lines.flush()
    if first is not None:
        render(*first, console)


def _narrated(
    pairs: Iterator[tuple[Scenario, CombatResult]], registry: Registry
) -> Iterator[tuple[Scenario, CombatResult]]:
    """The batched engine's results with the reference engine's words (docs/output.md): each
    account below the summarised size is worded by the reference engine, its outcome checked."""
    from ecs_combat.cli.summary import SUMMARISED
    from ecs_combat.reference.narration import Narrator

    narrator = Narrator(registry)
    for scenario, result in pairs:
        if not result.worded and len(scenario.creatures) < SUMMARISED:
            result = narrator.combat(scenario, result)
        yield scenario, result


DECISION_OPTIONS = [
    click.option(
        "--json",
        "as_json",
        is_flag=True,
        help="Print the decision as JSON (one line per scenario for .jsonl).",
    ),
    click.option(
        "--top",
        type=click.IntRange(min=1),
        default=3,
        show_default=True,
        help="How many of the best declarations to show.",
    ),
    click.option(
        "--objective",
        metavar="TERMS",
        help="The score's terms in the order they count, comma-separated "
        "(default: game,material,life, then the plugins' terms).",
    ),
    click.option(
        "--budget",
        type=float,
        metavar="SECONDS",
        help="Stop searching after this many seconds and show the best found "
        "(then marked not optimal).",
    ),
]


def _decision_options(f: F) -> F:
    for option in reversed(DECISION_OPTIONS):
        f = option(f)
    return f


@cli.command()
@click.argument("file", type=click.Path(dir_okay=False))
@_decision_options
@click.pass_obj
def blocks(
    state: State, file: str, as_json: bool, top: int, objective: str | None, budget: float | None
) -> None:
    """The defending player's best blocks against the attackers declared in FILE, each with
    the attacking player's best damage divisions, searched exactly (every legal declaration
    and division).

    FILE is a scenario (.toml, .json, or .jsonl: one answer per line) with combat.attackers
    and without combat.blockers or combat.divide. The score compares, in order: the game,
    the value of creatures that die, life, then the plugins' terms; see `ecs-combat blocks`
    in the README and docs/decisions.md.
    """
    _decide(state, file, "blocks", top, objective, budget, as_json)


@cli.command()
@click.argument("file", type=click.Path(dir_okay=False))
@_decision_options
@click.pass_obj
def attacks(
    state: State, file: str, as_json: bool, top: int, objective: str | None, budget: float | None
) -> None:
    """The attacking player's best attacks with the creatures of FILE, each answered by the
    defending player's best blocks and both players' best divisions, searched exactly.

    FILE is a scenario (.toml, .json, or .jsonl) without [combat]; the first player listed
    attacks the other.
    """
    _decide(state, file, "attacks", top, objective, budget, as_json)


def _decide(
    state: State,
    file: str,
    decision: str,
    top: int,
    objective: str | None,
    budget: float | None,
    as_json: bool,
) -> None:
    from ecs_combat.cli.decide_command import run_decisions

    registry = state.registry
    try:
        run_decisions(registry, file, decision, top, objective, budget, as_json)
    except InputError as exc:
        fail(str(exc), 2)
    except RefusedError as exc:
        fail(
            f"{file}: the batched engine, which the search runs on, refuses this scenario: {exc}", 2
        )


@cli.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the race as JSON (docs/races.md).")
@click.option(
    "--budget",
    type=float,
    metavar="SECONDS",
    help="Stop searching after about this many seconds in all; the decisions made after "
    "that are the best found (then marked not optimal).",
)
@click.option(
    "--engine",
    type=click.Choice(ENGINES),
    default="reference",
    show_default=True,
    help="The engine that plays each turn (the search always runs on the batched one).",
)
@click.pass_obj
def race(state: State, file: str, as_json: bool, budget: float | None, engine: str) -> None:
    """Play the race in FILE: turns alternate until a player loses or the turn limit, each
    combat decided by the race's policy (docs/races.md).

    FILE is a scenario (.toml or .json) with a [race] table in place of [combat]. Without
    --json: each turn's declarations and what happened, as `resolve` shows a turn.
    """
    from ecs_combat.cli.race_command import run_race

    if budget is not None and not budget > 0:
        fail(f"--budget: must be a positive number of seconds, not {budget:g}", 2)
    try:
        run_race(state.registry, file, engine, as_json, budget, _console())
    except InputError as exc:
        fail(str(exc), 2)
    except RefusedError as exc:
        fail(f"{file}: the engine refuses this race: {exc}", 2)


@cli.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the phases as a JSON list.")
@click.pass_obj
def phases(state: State, file: str, as_json: bool) -> None:
    """Print the main and combat phases of the turn in FILE in the order they happen: who is
    active and who attacks in each, and which card created it (docs/turns.md).

    FILE is a turn file or a one-combat scenario (the turn of its first player).
    """
    from ecs_combat.cli.turn_command import print_phases

    try:
        print_phases(state.registry, file, as_json, _console())
    except InputError as exc:
        fail(str(exc), 2)


def _separator(console: Output, file: str) -> None:
    """The line between two scenarios' accounts: a rule on a terminal, plain in a pipe."""
    from ecs_combat.console import PlainOutput, is_plain, print_line, shown

    if isinstance(console, PlainOutput) or is_plain(console):
        print_line(console, f"== {shown(file, SHOWN_PATH)} ==")
    else:
        from rich.text import Text

        console.rule(Text(shown(file, SHOWN_PATH)))


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list.")
@click.pass_obj
def plugins(state: State, as_json: bool) -> None:
    """List the loaded plugins with their distributions, versions, keywords and systems, then
    the points of a combat in order with the systems that run at each (the schedule)."""
    from ecs_combat.cli.plugins_command import plugins_json, print_plugins

    if as_json:
        click.echo(json.dumps(plugins_json(state.registry), indent=2))
    else:
        print_plugins(state.registry, _console())


def _terminated(signum: int, frame: FrameType | None) -> None:
    """SIGTERM handled as Ctrl-C: SIGINT sent to this process, so that the command stops as
    it does on Ctrl-C (a run held back from interruption while it starts its workers is
    interrupted as it ends that step), says what it saved and exits 130."""
    os.kill(os.getpid(), signal.SIGINT)


def main() -> None:
    """Entry point of the console script: errors become messages, never tracebacks.

    Characters the output's encoding lacks (``→`` with ``PYTHONIOENCODING=ascii``) are written
    as escapes rather than failing halfway through the output.
    """
    if isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout.reconfigure(errors="backslashreplace")
    signal.signal(signal.SIGTERM, _terminated)
    for name in THREAD_POOLS:  # before numpy starts a thread per core for BLAS, unused here
        os.environ.setdefault(name, "1")
    try:
        cli(standalone_mode=True)
    except (InputError, PluginError) as exc:  # pragma: no cover - commands catch these
        fail(str(exc), 2 if isinstance(exc, InputError) else 1)
    except Exception as exc:  # an internal error: one line, exit 1
        fail(f"internal error: {type(exc).__name__}: {exc}", 1)


@cli.command(name="docs")
@click.argument("page", required=False)
def docs_command(page: str | None) -> None:
    """Print a documentation page: the docs/PAGE.md that help texts name, installed with
    ecs-combat (PAGE: scenarios, output, simulate, python, ...). Without PAGE, list them."""
    from ecs_combat.cli.docs_command import page_list, page_text

    try:
        click.echo(page_text(page) if page is not None else page_list(), nl=page is None)
    except InputError as exc:
        fail(str(exc), 2)


@cli.command()
@click.argument("kind", type=click.Choice(["scenario"]), default="scenario")
@click.pass_obj
def schema(state: State, kind: str) -> None:
    """Print the JSON Schema of a scenario file, for editors (docs/scenarios.md).

    Keyword, card and damage-step names are those of the loaded plugins.
    """
    from ecs_combat.scenario.json_schema import scenario_schema

    click.echo(json.dumps(scenario_schema(state.registry), indent=2))
