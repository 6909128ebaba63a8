"""The flags of `ecs-combat simulate` as given, and checked against each other and the SPEC
before anything runs."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from ecs_combat.errors import InputError
from ecs_combat.simulation.outfiles import check_out_path, check_writable
from ecs_combat.simulation.spec import BattleSpec, Spec
from ecs_combat.simulation.tasks import PluginOptions


@dataclasses.dataclass(frozen=True)
class RunFlags:
    """What `ecs-combat simulate` was asked for, as its flags gave it."""

    spec_file: str | None
    battles: int
    seed: int | None
    engine_name: str
    as_json: bool
    out: str | None = None
    plot: str | None = None
    chunk_size: int | None = None
    workers: int = 1
    scheduler: str | None = None
    resume: bool = False
    plugins: PluginOptions | None = None
    decisions: str | None = None


def checked_flags(spec: Spec, flags: RunFlags) -> str | None:
    """The flags checked against each other and the spec before anything runs; what --out
    names (:func:`check_out_path`), None without it."""
    if isinstance(spec, BattleSpec) and spec.turn is not None and flags.engine_name != "batched":
        raise InputError(
            "--engine", flags.engine_name, "a SPEC with [turn] resolves on the batched engine only"
        )
    races = isinstance(spec, BattleSpec) and spec.race is not None
    kind = check_out_path(flags.out) if flags.out is not None else None
    if races and kind == "checkpoints":
        raise InputError(
            "--out",
            str(flags.out),
            "a SPEC with [race] keeps no checkpoints: --out FILE.csv or "
            "FILE.parquet writes one row per race",
        )
    if flags.resume and kind != "checkpoints":
        raise InputError("--resume", "", "needs --out DIR, the directory of the run to resume")
    if flags.scheduler is not None and flags.workers > 1:
        raise InputError(
            "--workers", str(flags.workers), "the Dask cluster decides the workers: drop --workers"
        )
    plot = flags.plot
    if plot is not None:
        if Path(plot).suffix.lower() != ".png":
            raise InputError(
                "--plot", plot, "the chart is written as PNG: the file must end in .png"
            )
        check_writable(plot, "--plot")
    return kind
