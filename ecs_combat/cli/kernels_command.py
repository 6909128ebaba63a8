"""``ecs-combat kernels``: the compiled kernels kept in the cache and their entry points, and
``kernels build``, which compiles every entry point a run of the loaded plugin set can use
ahead of time, and ``kernels clear``, which empties the cache (docs/performance.md)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import click
from rich.console import Console

from ecs_combat.cli.common import fail
from ecs_combat.console import print_line, print_table, shown
from ecs_combat.plugin.registry import Registry


@click.group(invoke_without_command=True)
@click.pass_context
def kernels(ctx: click.Context) -> None:
    """List the compiled kernels in the cache ($ECS_COMBAT_KERNEL_CACHE, else
    ~/.cache/ecs-combat/kernels): one per plugin set, named by a hash of its parts' source;
    the loaded plugin set's is marked, with its entry points and how many compiled
    signatures numba's cache keeps of each. By default, a simulate run of 1,000,000 battles or
    more resolves its batches in the kernel where it applies once `kernels build` built it;
    ECS_COMBAT_KERNELS=1: wherever it applies, compiled first if need be; =0: never."""
    if ctx.invoked_subcommand is not None:
        return
    from ecs_combat.kernel import cache  # imported when asked for: start-up stays as it was
    from ecs_combat.kernel.generate import generate

    current = cache.module_path(generate(ctx.obj.registry))
    console = Console(highlight=False)
    print_line(console, f"cache: {shown(str(cache.cache_dir()))}")
    rows = [
        [
            shown(path.name), f"{size:,}", "yes" if path.with_suffix(".built").exists() else "",
            "yes" if path == current else "",
        ]
        for path, size in cache.cached()
    ]  # fmt: skip
    print_table(console, ("kernel", "compiled bytes", "built", "loaded plugins"), rows)
    from ecs_combat.kernel.availability import numba_missing

    if numba_missing():
        print_line(console, f"{numba_missing()}: runs use the numpy engine")
        return
    entries = [[name, str(n)] for name, n in cached_entries(ctx.obj.registry)]
    print_table(console, ("entry point", "compiled signatures cached"), entries)
    if any(n == 0 for _, n in cached_entries(ctx.obj.registry)):
        print_line(console, "not all of the loaded plugin set's entry points are compiled: "
                   "ecs-combat kernels build")  # fmt: skip


@kernels.command()
@click.pass_obj
def build(state: Any) -> None:
    """Compile every entry point a run of the loaded plugin set can use (the kernel's
    resolve_range for batches and for a SPEC's blocks, one_on_one_range for the keyword
    tournament, a SPEC's drawing and tally), or read them from the cache, so that no bulk
    run pays for compiling them; a line each, with its time. Marks the kernel built: the
    default uses it from then on for simulate runs of 1,000,000 battles or more."""
    from ecs_combat.kernel.availability import numba_missing, quiet_compiles

    why = numba_missing()
    if why:
        raise click.ClickException(why)
    quiet_compiles()
    from ecs_combat.kernel import cache
    from ecs_combat.kernel.runner import Kernel

    kernel = Kernel(state.registry)
    began, cpu = time.perf_counter(), time.process_time()
    for name, step in entry_steps(state.registry, kernel):
        b, c = time.perf_counter(), time.process_time()
        compiled = step()
        how = "compiled" if compiled else "read from the cache"
        wall, spent = time.perf_counter() - b, time.process_time() - c
        click.echo(f"{name}: {how} in {wall:.1f} s ({spent:.1f} s of CPU)")
    cache.mark_built(kernel.source)
    wall, cpu = time.perf_counter() - began, time.process_time() - cpu
    click.echo(f"{cache.module_path(kernel.source)}: ready in {wall:.1f} s ({cpu:.1f} s of CPU)")


@kernels.command()
def clear() -> None:
    """Remove every compiled kernel from the cache (each plugin set's generated module, what
    numba keeps of it, its built mark): the next run that uses a kernel compiles it again,
    or `kernels build` does it ahead. For a cache damaged by hand or by a full disk (a run
    repairs what it can read itself, and says so in one line)."""
    from ecs_combat.kernel import cache

    try:
        removed = cache.clear()
    except OSError as exc:
        fail(f"the kernel cache can't be emptied: {exc}", 1)
    kernels = sum(1 for path in removed if path.suffix == ".py")
    click.echo(f"{cache.cache_dir()}: {kernels} kernel(s) removed ({len(removed)} files)")


def entry_steps(registry: Registry, kernel: Any) -> list[tuple[str, Callable[[], bool]]]:
    """Each entry point a run can use, as a step compiling it (or reading it from numba's
    cache), which says whether it compiled: a kernel's batches, the keyword tournament's
    blocks, a SPEC's blocks (its draw, reset and tally functions, and the kernel's
    ``resolve_range`` for the read-only arrays they write)."""
    import numpy as np

    from ecs_combat.batched import BatchedEngine
    from ecs_combat.kernel import spec_draw
    from ecs_combat.kernel.blocks import OneOnOnePlayer, SeededBlock, seed_words
    from ecs_combat.kernel.one_on_one_draw import seeded_bytes
    from ecs_combat.kernel.spec_player import SpecPlayer
    from ecs_combat.simulation.generators import make_generator
    from ecs_combat.simulation.spec import tournament
    from ecs_combat.simulation.spec_reader import parse_spec

    engine = BatchedEngine(registry, kernels=False)

    def batches() -> bool:
        return misses(kernel.compile, lambda: [kernel.module.resolve_range])

    def tournament_blocks() -> bool:
        shape = make_generator(tournament(registry), registry).compiled_blocks()
        if shape is None:
            return False
        plan = kernel.plan(engine.schedules.of([shape.batch]))
        arguments = kernel._arguments(shape.batch, plan)
        player = OneOnOnePlayer(
            arguments, kernel.module.one_on_one_range, shape.batch, shape.masks, shape.codes,
            shape.ranges, shape.fills,
        )  # fmt: skip
        none = np.zeros((shape.batch.n_battles, 2), np.uint8)

        def play() -> None:
            player.play(0, 0, (none, none, none), player.counts())
            player.play(0, 0, SeededBlock(seed_words(0), 0), player.counts())

        return misses(play, lambda: [kernel.module.one_on_one_range, seeded_bytes])

    def spec_blocks() -> bool:
        generator = make_generator(parse_spec({"attackers": 1}, registry), registry)
        shape = generator.compiled_spec()
        if shape is None:
            return False
        player = SpecPlayer(kernel, engine.schedules.of([shape.probe]), shape)
        return misses(
            lambda: player.play(0, 0, np.random.default_rng(0), player.counts()),
            lambda: [kernel.module.resolve_range, spec_draw.draw_block, spec_draw.reset,
                     spec_draw.tally_block],
        )  # fmt: skip

    return [
        ("resolve_range (batches)", batches),
        ("one_on_one_range (the keyword tournament's blocks)", tournament_blocks),
        ("resolve_range, draw_block, reset, tally_block (a SPEC's blocks)", spec_blocks),
    ]


def misses(step: Callable[[], object], dispatchers: Callable[[], list[Any]]) -> bool:
    """Run `step`; whether any of the `dispatchers` (read after it) compiled something,
    rather than reading it from numba's cache."""
    step()
    return any(sum(d.stats.cache_misses.values()) for d in dispatchers())


def cached_entries(registry: Registry) -> list[tuple[str, int]]:
    """The loaded plugin set's entry points and the compiled signatures numba's cache holds
    for each (the kernel's module is written to the cache if it was not)."""
    from ecs_combat.kernel import cache, cache_repair, one_on_one_draw, spec_draw
    from ecs_combat.kernel.generate import generate

    module = cache.load(generate(registry))
    found = [
        ("resolve_range", module.resolve_range),
        ("one_on_one_range", module.one_on_one_range),
        ("seeded_bytes", one_on_one_draw.seeded_bytes),
        ("draw_block", spec_draw.draw_block),
        ("reset", spec_draw.reset),
        ("tally_block", spec_draw.tally_block),
    ]
    return [(name, cache_repair.signatures(d)) for name, d in found]
