"""``ecs-combat kernels``: the compiled kernels kept in the cache, and ``kernels build``,
which compiles the loaded plugin set's ahead of time (docs/performance.md)."""

from __future__ import annotations

import time
from typing import Any

import click
from rich.console import Console

from ecs_combat.console import print_line, print_table, shown


@click.group(invoke_without_command=True)
@click.pass_context
def kernels(ctx: click.Context) -> None:
    """List the compiled kernels in the cache ($ECS_COMBAT_KERNEL_CACHE, else
    ~/.cache/ecs-combat/kernels): one per plugin set, named by a hash of its parts' source;
    the loaded plugin set's is marked. Bulk runs resolve their batches in the kernel where
    it applies when ECS_COMBAT_KERNELS=1 (the default is the numpy engine)."""
    if ctx.invoked_subcommand is not None:
        return
    from ecs_combat.kernel import cache  # imported when asked for: start-up stays as it was
    from ecs_combat.kernel.generate import generate

    current = cache.module_path(generate(ctx.obj.registry))
    console = Console(highlight=False)
    print_line(console, f"cache: {shown(str(cache.cache_dir()))}")
    rows = [
        [shown(path.name), f"{size:,}", "yes" if path == current else ""]
        for path, size in cache.cached()
    ]
    print_table(console, ("kernel", "compiled bytes", "loaded plugins"), rows)
    if not any(path == current for path, _ in cache.cached()):
        print_line(console, "the loaded plugin set's kernel is not built: ecs-combat kernels build")


@kernels.command()
@click.pass_obj
def build(state: Any) -> None:
    """Compile the loaded plugin set's kernel and a SPEC's drawing now (or read them from the
    cache), so that the first bulk run does not pay for compiling them."""
    from ecs_combat.kernel import cache
    from ecs_combat.kernel.availability import KERNELS_ENV, numba_missing, wanted

    if not wanted():
        raise click.ClickException(f"{KERNELS_ENV} is not 1: kernels are off")
    why = numba_missing()
    if why:
        raise click.ClickException(why)
    from ecs_combat.batched import BatchedEngine
    from ecs_combat.kernel.runner import Kernel
    from ecs_combat.simulation.compiled import compiled_counts
    from ecs_combat.simulation.generators import make_generator
    from ecs_combat.simulation.spec_reader import parse_spec

    kernel = Kernel(state.registry)
    began, cpu = time.perf_counter(), time.process_time()
    kernel.compile()
    # a SPEC's drawing and tally too (compiled functions of their own), by one battle
    spec = parse_spec({"attackers": 1}, state.registry)
    compiled_counts(make_generator(spec, state.registry), BatchedEngine(state.registry), 0, 0, 1)
    wall, cpu = time.perf_counter() - began, time.process_time() - cpu
    click.echo(f"{cache.module_path(kernel.source)}: ready in {wall:.1f} s ({cpu:.1f} s of CPU)")
