"""The ``ecs-combat`` command line (CONTRACT.md sections 2-4)."""

from __future__ import annotations

import functools
import io
import json
import sys
from collections.abc import Callable, Iterator
from typing import Any, NoReturn, TypeVar, cast

import click
from rich.console import Console
from rich.text import Text

from ecs_combat.cards.notes import result_json
from ecs_combat.cli.cards import cards
from ecs_combat.cli.json_lines import LineWriter, json_line
from ecs_combat.cli.plugins_command import plugins_json, print_plugins
from ecs_combat.cli.report import render
from ecs_combat.cli.stream import BATCH, StreamError, resolve_stream
from ecs_combat.cli.turn_command import print_phases, resolve_turn_file
from ecs_combat.console import is_plain, print_line, shown
from ecs_combat.errors import InputError, PluginError, RefusedError
from ecs_combat.plugin.loading import check_plugin_options, load_registry, parse_plugin_options
from ecs_combat.plugin.registry import Registry
from ecs_combat.reference.engine import ReferenceEngine
from ecs_combat.rules.result import CombatResult
from ecs_combat.scenario.loader import iter_scenarios
from ecs_combat.scenario.model import Scenario
from ecs_combat.scenario.race import is_race_file
from ecs_combat.scenario.turn_loader import is_turn_file

F = TypeVar("F", bound=Callable[..., Any])

ENGINES = ("reference", "batched")
#: Paths longer than this are elided in the middle in the readable account.
SHOWN_PATH = 300


def fail(message: str, status: int) -> NoReturn:
    """Print one message on standard error, on one line, and exit."""
    click.echo(f"ecs-combat: {one_line(message)}", err=True)
    sys.exit(status)


def one_line(message: str) -> str:
    """A message with newlines and other unprintable characters written as escapes."""
    if message.isprintable():
        return message
    return "".join(c if c.isprintable() else c.encode("unicode_escape").decode() for c in message)


class State:
    """What the ``-p`` options give the commands: how to load plugins."""

    def __init__(self, plugin_options: tuple[str, ...]) -> None:
        self.plugin_options: list[str] = list(plugin_options)
        self._registry: Registry | None = None

    def add(self, plugin_options: tuple[str, ...]) -> None:
        """Take more ``-p`` values (given after the command)."""
        self.plugin_options += plugin_options

    @property
    def load(self) -> list[str]:
        """Modules to load explicitly."""
        return parse_plugin_options(self.plugin_options)[0]

    @property
    def block(self) -> set[str]:
        """Plugin names to block, in both spellings."""
        return parse_plugin_options(self.plugin_options)[1]

    @property
    def registry(self) -> Registry:
        """The plugin registry, loaded on first use; a ``no:NAME`` naming no plugin exits 2,
        plugin failures exit 1, with a message."""
        if self._registry is None:
            try:
                check_plugin_options(self.plugin_options)
                self._registry = load_registry(load=self.load, block=self.block)
            except InputError as exc:
                fail(str(exc), 2)
            except PluginError as exc:
                fail(str(exc), 1)
        return self._registry


PLUGIN_OPTION_HELP = (
    "Load a plugin module explicitly, or block a plugin by name with no:NAME "
    "(the name of docs/plugins.md or `ecs-combat plugins`). Repeatable; before or after the "
    "command."
)


def _more_plugin_options(ctx: click.Context, _: click.Parameter, value: tuple[str, ...]) -> None:
    state = ctx.find_object(State)
    if state is None:  # the command invoked on its own, without the group
        ctx.obj = state = State(())
    state.add(value)


@click.group(
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
@click.version_option(package_name="ecs-combat")
@click.pass_context
def cli(ctx: click.Context, plugin_options: tuple[str, ...]) -> None:
    """Simulate Magic: The Gathering combat.

    Keyword plugins come from the `ecs_combat` entry points; set
    ECS_COMBAT_DISABLE_PLUGIN_AUTOLOAD=1 to load none.
    """
    ctx.obj = State(plugin_options)


@cli.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--engine", type=click.Choice(ENGINES), default="reference", show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print the outcome as JSON (docs/output.md).")
@click.pass_obj
def resolve(state: State, file: str, engine: str, as_json: bool) -> None:
    """Resolve the combat(s) or turn(s) in FILE (.toml, .json, or .jsonl; format:
    docs/scenarios.md, turns with several combat phases: docs/turns.md).

    Without --json: a readable account, drawn as panels and tables on a terminal and as plain
    lines in a pipe; names longer than 120 characters show with their middle elided (--json
    keeps them exact). A .jsonl file is resolved as it is read, each result printed as soon as
    it is known; when a line is invalid, the message names it, after the results of the lines
    before it.
    """
    registry = state.registry
    try:
        if is_race_file(file):
            fail(f"{file}: this is a race ([race]): play it with `ecs-combat race {file}`", 2)
        if is_turn_file(file):  # a turn with several combat phases (docs/turns.md)
            resolve_turn_file(registry, file, engine, as_json, Console(highlight=False))
            return
    except InputError as exc:
        fail(str(exc), 2)
    except RefusedError as exc:
        fail(f"{file}: the {engine} engine refuses this turn: {exc}", 2)
    written: Iterator[tuple[Scenario, CombatResult]] | None = None
    if engine == "batched":  # imported here: the other commands don't load the batched engine
        from ecs_combat.batched.engine import BatchedEngine

        batched = BatchedEngine(registry)
        resolver: BatchedEngine | ReferenceEngine = batched
        if as_json and file.endswith(".jsonl"):  # many lines at a time (docs/performance.md)
            from ecs_combat.cli.batched_lines import LineResolver

            written = LineResolver(registry, batched).stream(file, sys.stdout)
    else:
        resolver = ReferenceEngine(registry)
    batch = BATCH if engine == "batched" else 1
    pairs = written or resolve_stream(iter_scenarios(file, registry), resolver, batch)
    console = Console(highlight=False)
    # The first account waits for a second one: rules separate accounts only when there are two.
    first: tuple[Scenario, CombatResult] | None = None
    # a batch's results are known together: they are flushed together
    lines = LineWriter(sys.stdout, batch) if as_json and file.endswith(".jsonl") else None
    try:
        for i, (scenario, result) in enumerate(pairs):
            if lines is not None:  # the text of json.dumps, made quickly
                lines.write(json_line(result_json(scenario, result)))
                continue
            if as_json:
                click.echo(json.dumps(result_json(scenario, result), indent=2))
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


def _ctrl_c_exits_130(f: F) -> F:
    """Ctrl-C, whenever it comes while the command runs, ends it with one line and exit status
    130 (docs/simulate.md), rather than click's ``Aborted!`` and 1. (A run interrupted once
    built says what its checkpoints hold: :class:`~ecs_combat.simulation.command.Interrupted`.)"""

    @functools.wraps(f)
    def command(*args: Any, **kwargs: Any) -> Any:
        try:
            return f(*args, **kwargs)
        except KeyboardInterrupt:
            fail("interrupted", 130)

    return cast(F, command)


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
@_ctrl_c_exits_130
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
        run_race(state.registry, file, engine, as_json, budget, Console(highlight=False))
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
    try:
        print_phases(state.registry, file, as_json, Console(highlight=False))
    except InputError as exc:
        fail(str(exc), 2)


def _separator(console: Console, file: str) -> None:
    """The line between two scenarios' accounts: a rule on a terminal, plain in a pipe."""
    if is_plain(console):
        print_line(console, f"== {shown(file, SHOWN_PATH)} ==")
    else:
        console.rule(Text(shown(file, SHOWN_PATH)))


@cli.command()
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list.")
@click.pass_obj
def plugins(state: State, as_json: bool) -> None:
    """List the loaded plugins with their distributions, versions, keywords and systems, then
    the points of a combat in order with the systems that run at each (the schedule)."""
    if as_json:
        click.echo(json.dumps(plugins_json(state.registry), indent=2))
    else:
        print_plugins(state.registry, Console(highlight=False))


@cli.command()
@click.argument("spec", required=False, type=click.Path(dir_okay=False))
@click.option("--battles", "-n", type=click.IntRange(min=1), default=100_000, show_default=True)
@click.option(
    "--seed",
    type=click.IntRange(min=0),
    help="Seed of the battles (default: a random one, printed in the summary).",
)
@click.option("--engine", type=click.Choice(("batched", "reference")), default="batched",
              show_default=True)  # fmt: skip
@click.option("--json", "as_json", is_flag=True, help="Print the machine-readable summary only.")
@click.option("--out", type=click.Path(),
              help="Write per-battle results to this .csv or .parquet file, or checkpoints of "
              "finished tasks to this directory (docs/distributed.md).")  # fmt: skip
@click.option("--resume", is_flag=True,
              help="Finish the run checkpointed in the --out directory (it must hold one): "
              "skip its tasks saved there that verify.")  # fmt: skip
@click.option("--plot", type=click.Path(dir_okay=False),
              help="Draw the matchup heatmap (for a card pool: a bar chart of the best and "
                   "worst cards) to this .png file.")  # fmt: skip
@click.option("--chunk-size", type=click.IntRange(min=1),
              help="Battles per chunk (memory and progress; at most about 2,097,152 "
              "creatures' worth); results do not depend on it.")  # fmt: skip
@click.option("--workers", "-w", type=click.IntRange(min=1), default=1, show_default=True,
              help="Run the battles on this many local processes.")  # fmt: skip
@click.option("--scheduler", metavar="ADDRESS",
              help="Run the battles on the Dask cluster with this scheduler (tcp://host:8786).")  # fmt: skip
@click.option("--decisions", type=click.Choice(("drawn", "optimal")),
              help="Blocks as drawn, or the defending player's best, as `blocks` chooses; "
              "default: the SPEC's decisions key, else drawn.")  # fmt: skip
@click.option("--replay", type=click.IntRange(min=0), metavar="K",
              help="Print battle K of the run (give its --seed) as a scenario file for "
              "`ecs-combat resolve` (a turn file for a SPEC with [turn]), instead of running "
              "it.")  # fmt: skip
@click.pass_obj
@_ctrl_c_exits_130
def simulate(
    state: State,
    spec: str | None,
    battles: int,
    seed: int | None,
    engine: str,
    as_json: bool,
    out: str | None,
    resume: bool,
    plot: str | None,
    chunk_size: int | None,
    workers: int,
    scheduler: str | None,
    decisions: str | None,
    replay: int | None,
) -> None:
    """Resolve many random battles in bulk and tally the outcomes per matchup.

    Without SPEC: the keyword tournament, one attacker against one blocker, each with a strike
    keyword drawn from none and every installed strike keyword. SPEC is a TOML file describing
    other battles (docs/simulate.md). --workers and --scheduler spread the battles over local
    processes or a Dask cluster, with the same results; --out DIR keeps finished tasks and
    --resume finishes an interrupted run (docs/distributed.md). --decisions optimal chooses
    each battle's blocks as the defending player's best (docs/simulate.md).
    """
    from ecs_combat.simulation.command import Interrupted, OutputFailed, run_command
    from ecs_combat.simulation.distribute import TaskFailed, WorkerDied
    from ecs_combat.simulation.tasks import PluginOptions

    registry = state.registry
    plugins = PluginOptions.current(state.load, sorted(state.block))
    if replay is not None:
        _replay(registry, spec, battles, seed, replay, decisions, out=out, plot=plot,
                json=as_json, resume=resume, workers=workers > 1, scheduler=scheduler)  # fmt: skip
        return
    try:
        run_command(
            registry, spec, battles, seed, engine, as_json, out, plot, chunk_size,
            workers=workers, scheduler=scheduler, resume=resume, plugins=plugins,
            decisions=decisions,
        )  # fmt: skip
    except InputError as exc:
        fail(str(exc), 2)
    except RefusedError as exc:
        fail(f"the {engine} engine refuses these battles: {exc}", 2)
    except (WorkerDied, TaskFailed, PluginError, OutputFailed) as exc:
        fail(str(exc), 1)
    except Interrupted as exc:
        fail(str(exc), 130)


def _replay(
    registry: Registry,
    spec: str | None,
    battles: int,
    seed: int | None,
    battle: int,
    decisions: str | None,
    **others: object,
) -> None:
    """simulate --replay: one battle printed; options of a run are refused, by name."""
    from ecs_combat.simulation.command import replay_command

    given = [name for name, value in others.items() if value]
    if given:
        fail(f"--replay prints one battle and runs nothing: drop --{given[0]}", 2)
    try:
        replay_command(registry, spec, battles, seed, battle, decisions)
    except InputError as exc:
        fail(str(exc), 2)


@cli.command()
@click.option("--battles", "-n", type=click.IntRange(min=1), default=1_000_000, show_default=True,
              help="Tournament battles for the batched engine and the floor.")  # fmt: skip
@click.option("--reference-battles", type=click.IntRange(min=10), default=10_000,
              show_default=True, help="Tournament battles for the reference engine "
              "(a tenth of them for its melee).")  # fmt: skip
@click.option("--melee-battles", type=click.IntRange(min=1), default=100_000, show_default=True,
              help="Melee battles (5 attackers, 0-3 blockers each) for the batched engine.")  # fmt: skip
@click.option("--seed", type=click.IntRange(min=0), default=1, show_default=True)
@click.option("--repeat", type=click.IntRange(min=1), default=3, show_default=True,
              help="Runs per measurement; the best is kept.")  # fmt: skip
@click.option("--whole-process/--in-process", default=True, show_default=True,
              help="Also time the tournament as whole processes: simulate against the floor.")  # fmt: skip
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
@click.option("--check", is_flag=True,
              help="Exit 1 if a target of docs/performance.md is missed, naming it.")  # fmt: skip
@click.pass_obj
def bench(
    state: State,
    battles: int,
    reference_battles: int,
    melee_battles: int,
    seed: int,
    repeat: int,
    whole_process: bool,
    as_json: bool,
    check: bool,
) -> None:
    """Measure the engines side by side on this machine (docs/performance.md)."""
    from ecs_combat.bench.bench import missed_targets, render_bench, run_bench

    report = run_bench(
        state.registry, battles, reference_battles, melee_battles, seed, repeat, whole_process
    )
    if as_json:
        click.echo(json.dumps(report, indent=2))
    else:
        render_bench(report, Console(highlight=False))
    if check:
        missed = missed_targets(report)
        for line in missed:
            click.echo(f"missed: {line}", err=True)
        if missed:
            sys.exit(1)


cli.add_command(cards)

for _command in cli.commands.values():  # -p is accepted after the command too
    _command.params.append(
        click.Option(
            ["-p", "plugin_options"],
            multiple=True,
            metavar="MODULE|no:NAME",
            help=PLUGIN_OPTION_HELP,
            expose_value=False,
            callback=_more_plugin_options,
        )
    )


def main() -> None:
    """Entry point of the console script: errors become messages, never tracebacks.

    Characters the output's encoding lacks (``→`` with ``PYTHONIOENCODING=ascii``) are written
    as escapes rather than failing halfway through the output.
    """
    if isinstance(sys.stdout, io.TextIOWrapper):
        sys.stdout.reconfigure(errors="backslashreplace")
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
    from ecs_combat.scenario.schema import scenario_schema

    click.echo(json.dumps(scenario_schema(state.registry), indent=2))
