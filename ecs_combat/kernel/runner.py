"""Resolving a batch in a plugin set's kernel: which batches it can resolve, their arrays in
and the outcome out, battles split over threads (the kernel releases the GIL)."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from itertools import pairwise
from types import ModuleType
from typing import Any

import numpy as np
import numpy.typing as npt

from ecs_combat.batched import BatchOutcome, CombatBatch, IntArray, Schedule
from ecs_combat.kernel import cache
from ecs_combat.kernel.generate import KernelSource, generate
from ecs_combat.kernel.threads import thread_limit
from ecs_combat.plugin.kernels import KERNEL_POINTS, KernelColumn
from ecs_combat.plugin.registry import Registry

I64 = np.int64
U64 = np.uint64
AnyArray = npt.NDArray[Any]
#: A thread gets at least this many battles.
BATTLES_A_THREAD = 4096


class Kernel:
    """A plugin set's compiled kernel: generated when made, compiled (or read from numba's
    cache) at its first batch."""

    def __init__(self, registry: Registry) -> None:
        self.registry = registry
        self.source: KernelSource = generate(registry)
        self._module: ModuleType | None = None
        self._pool: ThreadPoolExecutor | None = None

    @property
    def module(self) -> ModuleType:
        """The generated module, imported."""
        if self._module is None:
            self._module = cache.load(self.source)
        return self._module

    def refusal(self, schedule: Schedule, batch: CombatBatch) -> str:
        """Why the kernel can't resolve a batch with this schedule, or ``""``."""
        if schedule.static_hook is not None:
            return "a static ability may give keywords"
        for point, systems in schedule.systems.items():
            for s in systems:
                if point == "event-damage" and not batch.event_battle.size:
                    continue  # no event deals damage
                if point not in KERNEL_POINTS or not self.source.covers(s.plugin, s.system.name):
                    return f"system {s.system.name!r} of plugin {s.plugin!r} has no kernel part"
        b = batch
        for what, rows in (
            ("events", b.event_battle),
            ("explicit divisions", b.division_step),
            ("targets", b.target_source),
        ):
            if rows.size:
                return f"the batch has {what}"
        if b.instance_row.size and bool((b.instance_parameter >= 0).any()):
            return "the batch has keyword instances with parameters"  # parts see none
        if b.counters is not None and b.counters.size and bool(b.counters.any()):
            return "the batch has counters"
        if not bool(np.asarray(b.present).all()):
            return "creatures enter the battlefield later"
        damage = np.asarray(b.damage)
        if damage.size and bool(damage.any()):
            toughness = np.asarray(b.toughness)
            if bool(((damage >= toughness) & (toughness > 0)).any()):
                return "a creature begins with lethal damage marked"
        if b.n_battles and int(np.bincount(b.player_battle, minlength=b.n_battles).min()) < 2:
            return "a battle has fewer than two players"
        return ""

    def compile(self) -> None:
        """Compile the kernel, or read it from numba's cache: one process at a time (a lock
        beside the module), so that processes starting at once compile it once."""
        with cache.locked(self.source):
            none = np.zeros(0, I64)
            empty = CombatBatch(
                0, (), none, none, none, none, none, none, none, np.zeros(0, U64), none, none,
                np.zeros(0, np.bool_), none, none, none,
            )  # fmt: skip
            args = self._arguments(empty, np.zeros(0, np.bool_), (), (), {})
            self.module.resolve_range(0, 0, *args)

    def resolve(self, schedule: Schedule, batch: CombatBatch) -> BatchOutcome:
        """Resolve every battle of a batch the kernel can resolve (:meth:`refusal`)."""
        if self._module is None:
            self.compile()
        masks = schedule.masks
        default = np.array([p.step.default for p in schedule.plans], np.bool_)
        args = self._arguments(batch, default, masks.strike, masks.withhold, masks.bit)
        c, st, bt, *_, owns = args
        self._run(self.module.resolve_range, batch.n_battles, args)
        player_state = {key: v.copy() for key, v in batch.player_state.items()}
        for own, (_, columns) in zip(owns, self.source.owns, strict=True):
            for i, col in enumerate(columns):
                if col.owner == "player" and col.state is not None:
                    dtype = player_state[col.state].dtype if col.state in player_state else I64
                    player_state[col.state] = own[i].astype(dtype)
        return BatchOutcome(
            alive=c.on_battlefield,
            damage=c.marked,
            power=c.power,
            toughness=c.toughness,
            life=c.life,
            lost=c.lost,
            died_in_step=st.died,
            damage_to_players=bt.to_players,
            dealt_to_players=st.to_players,
            life_gained=c.life_gained,
            entered=np.asarray(batch.present, np.bool_),
            steps_taken=bt.steps_taken,
            player_state=player_state,
            returned=np.full(batch.n_creatures, -1, I64),
        )

    def _arguments(
        self,
        b: CombatBatch,
        default: npt.NDArray[np.bool_],
        strike: tuple[int, ...],
        withhold: tuple[int, ...],
        bit: dict[str, int],
    ) -> tuple[Any, ...]:
        """The kernel's arguments for a batch: its arrays in, the state and scratch arrays;
        the step table (`default`, `strike`, `withhold`) and the keyword bits of the batch's
        schedule."""
        m = self.module
        n, nb, np_ = b.n_creatures, b.n_battles, b.n_players
        attacking = np.asarray(b.attacking, I64)
        c = m.Core(
            _read(b.battle, I64),
            _read(b.controller, I64),
            _read(b.power, I64),
            _read(b.toughness, I64),
            np.array(b.damage, I64),
            _read(b.colors, I64),
            np.ones(n, np.bool_),
            attacking >= 0,
            np.zeros(n, np.bool_),
            _read(attacking, I64),
            np.zeros(n, I64),
            np.array(b.life, I64),
            np.zeros(np_, np.bool_),
            _read(b.player_battle, I64),
        )
        st = m.State(
            _read(b.keywords, U64),
            *(np.zeros(n, np.bool_) for _ in range(4)),
            np.zeros(n, I64),
            np.zeros(n, np.bool_),
            np.empty(n, I64),  # each attacker's first block: set as its blocks are counted
            np.zeros(n, I64),
        )
        bb, ba, rank = (
            np.asarray(x, I64) for x in (b.block_blocker, b.block_attacker, b.block_rank)
        )
        if ba.size > 1 and bool((ba[1:] < ba[:-1]).any()):  # grouped, attackers ascending
            order = np.argsort(ba, kind="stable")
            bb, ba, rank = bb[order], ba[order], rank[order]
        bl = m.Blocks(_read(bb, I64), _read(ba, I64), _read(rank, I64), np.empty(len(bb), I64))
        bt = m.Battles(
            _starts(b.battle, nb),
            _starts(b.player_battle, nb),
            _starts(np.asarray(b.battle)[ba], nb),
            np.zeros(nb, I64),
            np.zeros(nb, np.bool_),
            np.zeros((len(default), nb), np.bool_),
        )
        sp = m.Steps(default, np.array(strike, U64), np.array(withhold, U64))
        room = 2 * (n + len(bb))
        fl = m.Flows(np.empty(room, I64), np.empty(room, I64), np.empty(room, I64))  # scratch
        a = m.Assign(np.zeros(n, np.bool_), np.zeros(n, np.bool_))
        k = m.Check(np.zeros(n, np.bool_), np.zeros(n, np.bool_), np.zeros(np_, np.bool_))
        guards = np.array(
            [sum(bit.get(kw, 0) for kw in p.keywords) for p in self.source.parts] or [0], U64
        )
        owns = tuple(
            () if cls is None else cls(*(self._column(col, b) for col in columns))
            for cls, (_, columns) in zip(m.OWNS, self.source.owns, strict=True)
        )
        return c, st, bt, bl, sp, fl, a, k, guards, owns

    def _column(self, column: KernelColumn, batch: CombatBatch) -> AnyArray:
        """A plugin's own column's first values."""
        rows = batch.n_creatures if column.owner == "creature" else batch.n_players
        dtype = np.bool_ if column.kind == "bool" else I64
        if column.state is not None:
            states = batch.creature_state if column.owner == "creature" else batch.player_state
            if column.state in states:
                return np.array(states[column.state], dtype)
            default = self.registry.state_fields(column.owner)[column.state].default
            return np.full(rows, default or 0, dtype)
        if column.counters is not None and batch.counters is not None:
            names = list(batch.counter_names)
            if column.counters in names:
                return np.array(batch.counters[:, names.index(column.counters)], dtype)
        return np.zeros(rows, dtype)

    def _run(self, kernel: Callable[..., None], nb: int, args: tuple[Any, ...]) -> None:
        """The kernel over every battle: in threads over ranges of battles when many."""
        threads = min(thread_limit(), max(1, nb // BATTLES_A_THREAD))
        if threads <= 1:
            kernel(0, nb, *args)
            return
        if self._pool is None:
            self._pool = ThreadPoolExecutor(thread_limit(), thread_name_prefix="ecs-kernel")
        edges = [nb * t // threads for t in range(threads + 1)]
        jobs = [self._pool.submit(kernel, lo, hi, *args) for lo, hi in pairwise(edges)]
        for job in jobs:
            job.result()


def _read(values: Any, dtype: type[Any]) -> AnyArray:
    """An array the kernel reads, as its type wants it (writable, contiguous: one compiled
    signature), copied only if need be."""
    out: AnyArray = np.ascontiguousarray(values, dtype)
    if not out.flags.writeable:
        out = out.copy()
    return out


def _starts(battle_of: AnyArray, nb: int) -> IntArray:
    """Where each battle's rows begin ([nb + 1]), rows grouped by ascending battle."""
    out = np.zeros(nb + 1, I64)
    np.cumsum(np.bincount(np.asarray(battle_of, I64), minlength=nb), out=out[1:])
    return out
