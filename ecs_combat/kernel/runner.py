"""Resolving a batch in a plugin set's kernel: which batches it can resolve, their arrays in
and the outcome out, battles split over threads (the kernel releases the GIL)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from itertools import pairwise
from types import ModuleType
from typing import Any

import numpy as np
import numpy.typing as npt

from ecs_combat.batched.arrays import (
    ACTION_CODE,
    BatchOutcome,
    CombatBatch,
    StepDivisions,
)
from ecs_combat.batched.state import Schedule
from ecs_combat.kernel import cache
from ecs_combat.kernel.arrays import creature_state, read
from ecs_combat.kernel.arrays import fixed as _fixed
from ecs_combat.kernel.arrays import starts as _starts
from ecs_combat.kernel.columns import column_bits, own_columns, parameter_bits, power_toughness
from ecs_combat.kernel.compiles import numba_missing
from ecs_combat.kernel.dies import dies_keywords, dies_refusal
from ecs_combat.kernel.fights import fight_refusal
from ecs_combat.kernel.generate import KernelSource, generate
from ecs_combat.kernel.threads import thread_limit
from ecs_combat.kernel.trigger_arrays import (
    choosing,
    trigger_columns,
    trigger_refusal,
    trigger_room,
    triggering,
)
from ecs_combat.plugin.kernels import KERNEL_POINTS, KernelColumn
from ecs_combat.plugin.registry import Registry

I64 = np.int64
U64 = np.uint64
AnyArray = npt.NDArray[Any]
#: A thread gets at least this many battles.
BATTLES_A_THREAD = 4096


@dataclass(frozen=True)
class Plan:
    """What the kernel makes of a schedule: why it refuses its batches (``""``: it may
    resolve them), its step table (per step: the default step, the keywords that strike in
    it, those withheld from it) and each part's guard (its keywords' bits)."""

    refusal: str
    #: Why it refuses cards cast (``""``: it may resolve them), and the bits of every
    #: ``cast`` part's grants, in order.
    cast_refusal: str
    cast_bits: npt.NDArray[np.uint64]
    default: npt.NDArray[np.bool_]
    strike: npt.NDArray[np.uint64]
    withhold: npt.NDArray[np.uint64]
    guards: npt.NDArray[np.uint64]
    #: The keywords whose instances trigger parts read (their numbers too), as bits.
    triggering: int = 0
    #: The keywords whose parameters plugins' columns read (``KernelColumn.parameters``),
    #: and those of ``deal-damage`` replacements (which change power and toughness), as bits.
    parameters: int = 0
    replacing: int = 0
    #: The keywords whose trigger parts choose a target among attackers, among any
    #: creature, and those with a target restriction, as bits (:func:`.choosing`).
    targets: tuple[int, int, int] = (0, 0, 0)
    #: The keywords of ``dies`` parts (which may return a creature), as bits.
    dying: int = 0


class Kernel:
    """A plugin set's compiled kernel: generated when made, compiled (or read from numba's
    cache) at its first batch."""

    def __init__(self, registry: Registry) -> None:
        self.registry = registry
        self.source: KernelSource = generate(registry)
        self._module: ModuleType | None = None
        self._pool: ThreadPoolExecutor | None = None
        self._call: Callable[..., None] | None = None
        self._plans: dict[int, tuple[Schedule, Plan]] = {}

    @property
    def module(self) -> ModuleType:
        """The generated module, imported."""
        if self._module is None:
            self._module = cache.load(self.source)
        return self._module

    def refusal(self, schedule: Schedule, batch: CombatBatch, legal: bool = False) -> str:
        """Why the kernel can't resolve a batch with this schedule, or ``""``. With `legal`,
        the batch's explicit divisions are known to be legal (the decision search's): the
        kernel plays them unchecked; else it refuses a batch that has some (the numpy
        engine checks them, 510.1c-d)."""
        why = self.plan(schedule).refusal
        if why:
            return why
        b = batch
        if b.event_battle.size:
            why = self._cast_refusal(schedule, b)
            if why:
                return why
        for what, rows in (
            ("explicit divisions", np.zeros(0) if legal else b.division_step),
            ("targets", b.target_source),
        ):
            if rows.size:
                return f"the batch has {what}"
        plan = self.plan(schedule)
        why = trigger_refusal(b, plan.triggering | plan.parameters, plan.targets) or (
            fight_refusal(b, self.source, plan.guards, legal)
        )
        if why:
            return why
        why = dies_refusal(b, plan.dying)
        if why:
            return why
        if b.counters is not None and b.counters.size:
            keyword_counters = np.asarray(b.counters)[:, : len(b.keyword_names)]
            if bool(keyword_counters.any()):
                return "the batch has keyword counters"
        if not bool(np.asarray(b.present).all()):
            return "creatures enter the battlefield later"
        damage = np.asarray(b.damage)
        if damage.size and bool(damage.any()):
            toughness = np.asarray(b.toughness)
            if bool(((damage >= toughness) & (toughness > 0)).any()):
                return "a creature begins with lethal damage marked"
        if b.n_battles and int(np.bincount(b.player_battle, minlength=b.n_battles).min()) < 2:
            return "a battle has fewer than two players"
        return numba_missing() or cache.unavailable(self.source)  # at the first batch taken

    def _cast_refusal(self, schedule: Schedule, b: CombatBatch) -> str:
        """Why the kernel can't resolve a batch's events, or ``""``: it resolves cards cast
        as blockers are declared whose effect has a ``cast`` part and which target a
        creature no target restriction of the batch's keywords protects."""
        if bool((b.event_point != 0).any()) or bool((b.event_action != ACTION_CODE["cast"]).any()):
            return "the batch has events other than cards cast as blockers are declared"
        if b.event_token is not None and bool((b.event_token >= 0).any()):
            return "a card cast creates a token"
        parts = {p.part.system.casefold() for p in self.source.casts()}
        for i in np.unique(b.event_card).tolist():  # the cards cast
            name = b.card_names[i]
            card = self.registry.card(name)
            if card is None or card.target.kind != "creature" or name.casefold() not in parts:
                return f"card {name!r} has no kernel part"
        plan = self.plan(schedule)
        if plan.cast_refusal:
            return plan.cast_refusal
        return ""

    def plan(self, schedule: Schedule) -> Plan:
        """What the kernel makes of a schedule, once per schedule (a search resolves many
        small batches with the same one)."""
        found = self._plans.get(id(schedule))
        if found is not None and found[0] is schedule:
            return found[1]
        refusal = ""
        if schedule.static_hook is not None:
            refusal = "a static ability may give keywords"
        for point, systems in schedule.systems.items():
            if point == "event-damage":
                continue  # only events deal such damage, and a batch with events is refused
            for s in systems:
                if not refusal and (
                    point not in KERNEL_POINTS or not self.source.covers(s.plugin, s.system.name)
                ):
                    refusal = f"system {s.system.name!r} of plugin {s.plugin!r} has no kernel part"
        masks = schedule.masks
        bit = masks.bit
        cast_refusal = ""
        for r in self.registry.restrictions_of("target"):
            if r.keyword in bit:
                cast_refusal = f"the target restriction of {r.keyword!r} has no kernel form"
        grants = [kw for p in self.source.casts() for kw in p.part.grants]
        if any(kw not in bit for kw in grants) and not cast_refusal:
            cast_refusal = "a card grants a keyword the batch has no bit for"
        plan = Plan(
            refusal,
            cast_refusal,
            _fixed([bit.get(kw, 0) for kw in grants] or [0], U64),
            _fixed([p.step.default for p in schedule.plans], np.bool_),
            _fixed(np.array(masks.strike, U64), U64),
            _fixed(np.array(masks.withhold, U64), U64),
            _fixed(
                [sum(bit.get(kw, 0) for kw in p.keywords) for p in self.source.parts] or [0],
                U64,
            ),
        )
        parameters, replacing = column_bits(self.source, bit)
        plan = replace(
            plan, triggering=triggering(self.source, bit), parameters=parameters,
            replacing=replacing, targets=choosing(self.source, self.registry, bit),
            dying=dies_keywords(self.source, bit),
        )  # fmt: skip
        self._plans[id(schedule)] = (schedule, plan)
        return plan

    def compile(self) -> None:
        """Compile the kernel, or read it from numba's cache: one process at a time (a lock
        beside the module), so that processes starting at once compile it once."""
        with cache.locked(self.source):
            none = np.zeros(0, I64)
            empty = CombatBatch(
                0, (), none, none, none, none, none, none, none, np.zeros(0, U64), none, none,
                np.zeros(0, np.bool_), none, none, none,
            )  # fmt: skip
            none_u = _fixed(np.zeros(0, U64), U64)
            plan = Plan(
                "", "", none_u, _fixed(np.zeros(0, np.bool_), np.bool_), none_u, none_u, none_u
            )
            args = self._arguments(empty, plan)
            self.module.resolve_range(0, 0, *args)

    def resolve(self, schedule: Schedule, batch: CombatBatch) -> BatchOutcome:
        """Resolve every battle of a batch the kernel can resolve (:meth:`refusal`)."""
        return self.play(schedule, batch, divisions=False)[0]

    def play(
        self, schedule: Schedule, batch: CombatBatch, divisions: bool
    ) -> tuple[BatchOutcome, list[StepDivisions]]:
        """:meth:`resolve`, and with `divisions` what the dealers of each damage step taken
        could have divided, as :meth:`BatchedEngine.resolve_batch_with_divisions` gives it
        (a step no battle took has no record; one where nobody could divide may have one,
        which has no divider)."""
        if self._module is None:
            self.compile()
        args = self._arguments(batch, self.plan(schedule), divisions)
        if self._call is None:
            self._call = self._entry()
        self._run(self._call, batch.n_battles, args)
        records = _records(args[2].steps_taken, args[3], args[12]) if divisions else []
        return _outcome(self.source, batch, args), records

    def play_logged(self, schedule: Schedule, batch: CombatBatch, divisions: bool) -> Any:
        """:meth:`play` in one thread, each damage step logged (:mod:`.template_log`): the
        outcome, division records, the template's ``Record`` and the plugins' own columns."""
        if self._module is None:
            self.compile()
        plan = self.plan(schedule)
        rows = len(plan.default) * 4 * (batch.n_creatures + len(batch.block_blocker))
        args = self._arguments(batch, plan, divisions, log=rows + batch.n_creatures + 1)
        if self._call is None:
            self._call = self._entry()
        self._call(0, batch.n_battles, *args)
        records = _records(args[2].steps_taken, args[3], args[12]) if divisions else []
        return _outcome(self.source, batch, args), records, args[12], args[11]

    def _entry(self) -> Callable[..., None]:
        """The compiled `resolve_range` called without numba's dispatcher (which types every
        argument at each call: about 12 us for the kernel's tuples of arrays, as long as a
        small batch takes): every argument is made with the one type it has
        (:meth:`_arguments`), so the kernel has one compiled signature."""
        return entry_of(self.module.resolve_range)

    def _arguments(self, b: CombatBatch, plan: Plan, divisions: bool = False, log: int = 0) -> Any:
        """The kernel's arguments for a batch: its arrays in, the state and scratch arrays,
        its schedule's step table and keyword bits (`plan`), where each step's possible
        divisions are noted (with `divisions`; else blocks of no rows) and a log of `log`
        entries."""
        m = self.module
        n, nb, np_ = b.n_creatures, b.n_battles, b.n_players
        # Few allocations (a small batch's cost is mostly their number): each block's rows
        # are the columns, contiguous like any array.
        flags = np.zeros((11, n), np.bool_)
        flags[0] = True  # on the battlefield
        counts = np.zeros((5, n), I64)
        players = np.zeros((2, np_), np.bool_)
        attacking = np.asarray(b.attacking, I64)
        # casts, triggers, counters and returns pump: power and toughness copied
        casts = len(b.event_battle) > 0 or (plan.triggering | plan.replacing | plan.dying) != 0
        power, toughness = power_toughness(self.registry, b, casts) or (
            read(b.power, I64), read(b.toughness, I64))  # fmt: skip
        c = m.Core(
            _fixed(b.battle, I64),
            _fixed(b.controller, I64),
            power,
            toughness,
            np.array(b.damage, I64),
            _fixed(b.colors, I64),
            flags[0],
            attacking >= 0,
            flags[1],
            _fixed(attacking, I64),
            counts[0],
            np.array(b.life, I64),
            players[0],
            _fixed(b.player_battle, I64),
        )
        bb, ba, rank = (
            np.asarray(x, I64) for x in (b.block_blocker, b.block_attacker, b.block_rank)
        )
        if ba.size > 1 and bool((ba[1:] < ba[:-1]).any()):  # grouped, attackers ascending
            order = np.argsort(ba, kind="stable")
            bb, ba, rank = bb[order], ba[order], rank[order]
        room = 2 * (n + len(bb))
        starts, noted = trigger_room(self.source, b, ba, plan.guards, plan.triggering)
        # scratch, each place written before it is read: each attacker's first block, a
        # blocker's block, a blocker's blocks in order, a step's flows, the triggers noted
        scratch = np.empty(3 * n + len(bb) + 3 * room + noted, I64)
        st = creature_state(m, b, casts, flags, counts, scratch)
        f0 = 3 * n + len(bb)
        bl = m.Blocks(
            _fixed(bb, I64), _fixed(ba, I64), _fixed(rank, I64), scratch[3 * n : f0]
        )  # fmt: skip
        bt = m.Battles(
            _fixed(_starts(b.battle, nb), I64),
            _fixed(_starts(b.player_battle, nb), I64),
            _fixed(_starts(np.asarray(b.battle)[ba], nb), I64),
            np.zeros(nb, I64),
            np.zeros(nb, np.bool_),
            np.zeros((len(plan.default), nb), np.bool_),
            np.zeros(nb, I64),
        )
        sp = m.Steps(plan.default, plan.strike, plan.withhold)
        fl = m.Flows(*(scratch[f0 + i * room : f0 + (i + 1) * room] for i in range(3)))
        a = m.Assign(flags[6], flags[7])
        k = m.Check(flags[8], flags[9], players[1])
        guards = plan.guards
        ev = _events(m, self.source, self.registry, b)
        owns = own_columns(m.OWNS, self.source.owns, self._column, b)
        rc = _record(m, len(plan.default), (n, len(bb)) if divisions else (0, 0), log, n)
        tg = trigger_columns(m, self.source, b, starts, scratch[f0 + 3 * room :])
        tg = tg._replace(bits=_fixed([plan.triggering], U64))
        return (
            c, st, bt, bl, sp, fl, a, k, guards, ev, plan.cast_bits, owns, rc,
            _divisions(m, b), tg,
        )  # fmt: skip

    def _column(self, column: KernelColumn, batch: CombatBatch) -> AnyArray:
        """A plugin's own column's first values."""
        rows = batch.n_creatures if column.owner == "creature" else batch.n_players
        dtype = np.bool_ if column.kind == "bool" else I64
        if column.parameters is not None:
            return parameter_bits(batch, column.parameters)
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


def _outcome(source: KernelSource, batch: CombatBatch, args: tuple[Any, ...]) -> BatchOutcome:
    """A played batch's outcome, from its kernel arguments (`source`: the kernel's)."""
    c, st, bt, owns = args[0], args[1], args[2], args[11]
    player_state = {key: v.copy() for key, v in batch.player_state.items()}
    for own, (_, columns) in zip(owns, source.owns, strict=True):
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
        returned=st.returned,
    )


def _record(m: ModuleType, steps: int, size: tuple[int, int], log: int, n: int) -> Any:
    """Where the kernel notes each step's possible divisions: [steps, rows] and [steps,
    blocks] blocks (`size`; (0, 0): nothing noted), and its log of `log` entries (0:
    nothing logged) over `n` creature rows."""
    rows, blocks = size
    marks = np.zeros((3, steps, rows), np.bool_)
    amounts = np.zeros((2, steps, rows), I64)
    live = np.zeros((steps, blocks), np.bool_)
    entries, logged = np.empty((log, 5), I64), np.zeros(2, I64)  # entries written before read
    dead = np.zeros(n if log else 0, np.bool_)
    return m.Record(
        marks[0], amounts[0], amounts[1], marks[1], marks[2], live, entries, logged, dead
    )


def _divisions(m: ModuleType, b: CombatBatch) -> Any:
    """A batch's explicit divisions by source row, for the kernel."""
    source = np.asarray(b.division_source, I64)
    by_source = np.argsort(source, kind="stable")
    given = (b.division_step, b.division_recipient, b.division_amount)
    return m.Divisions(
        _fixed(_starts(source, b.n_creatures), I64),
        *(_fixed(np.asarray(x, I64)[by_source], I64) for x in given),
    )


def _events(m: ModuleType, source: KernelSource, registry: Registry, b: CombatBatch) -> Any:
    """The kernel's `ev` (template ``Events``): the cards cast, by battle (`source`'s
    ``cast`` parts, `registry`'s cards)."""
    e = len(b.event_battle)
    start = _fixed(_starts(b.event_battle, b.n_battles), I64)
    if not e:
        none = _fixed(np.zeros(0, I64), I64)
        return m.Events(start, none, none, none, none)
    parts, rules = card_parts(m, source, registry, b.card_names)
    cast = np.asarray(b.event_card, I64)
    return m.Events(
        start,
        _fixed(b.event_target, I64),
        _fixed(b.event_player, I64),
        _fixed(np.asarray(parts, I64)[cast], I64),
        _fixed(np.asarray(rules, I64)[cast], I64),
    )


def card_parts(
    m: ModuleType, source: KernelSource, registry: Registry, names: Sequence[str]
) -> tuple[list[int], list[int]]:
    """Per card name: the number of its ``cast`` part in the kernel (-1: none) and its
    target rule as the kernel's bits (``RULE_*``)."""
    number = {p.part.system.casefold(): i for i, p in enumerate(source.casts())}
    rules = []
    parts = []
    for name in names:
        card = registry.card(name)
        if card is None or name.casefold() not in number:  # not cast: refused otherwise
            rules.append(0)
            parts.append(-1)
            continue
        rule = card.target
        rules.append(
            m.RULE_CASTER_CONTROLS * rule.caster_controls
            + m.RULE_BLOCKING_OR_BLOCKED * rule.blocking_or_blocked
            + m.RULE_IN_COMBAT * (rule.in_combat and not rule.blocking_or_blocked)
        )
        parts.append(number[name.casefold()])
    return parts, rules


def _records(taken: AnyArray, bl: Any, rc: Any) -> list[StepDivisions]:
    """Each damage step some battle took, as the kernel noted it (`rc`), in step order."""
    out = []
    for s in np.flatnonzero(np.asarray(taken).any(axis=1)).tolist():
        live = rc.live[s]
        out.append(
            StepDivisions(
                s,
                rc.deals[s],
                rc.power[s],
                rc.remaining[s],
                rc.one_is_lethal[s],
                rc.player_gets_excess[s],
                np.asarray(bl.blocker)[live],
                np.asarray(bl.attacker)[live],
                np.asarray(bl.rank)[live],
            )
        )
    return out


def entry_of(dispatcher: Any) -> Callable[..., None]:
    """A compiled function's entry point, called without numba's dispatcher (see
    :meth:`Kernel._entry`); the dispatcher itself when not compiled once exactly."""
    overloads = list(getattr(dispatcher, "overloads", {}).values())
    if len(overloads) != 1:  # Python (NUMBA_DISABLE_JIT), or compiled more than once
        return dispatcher  # type: ignore[no-any-return]
    return overloads[0].entry_point  # type: ignore[no-any-return]
