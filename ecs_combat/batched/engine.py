"""The batched engine: many combats at once, as numpy structure-of-arrays.

It plays exactly the reference engine's combat (:mod:`ecs_combat.reference.engine`), but every system
runs over whole arrays: one row per creature, player, block, division or event of every battle.
The only Python loops are over the registry's damage steps and, at each point of the combat,
over the events' places in file order (the n-th event of every battle at that point at once).
Keywords are bits of a 64-bit mask; what they do is read from the :class:`Keyword` fields and
step plans as precomputed masks, so no keyword is known by name here. Plugin hooks are called
once per step or event round, cards once per card and event round, with arrays.
"""

from __future__ import annotations

import dataclasses
import gc
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ecs_combat.batched.arrays import (
    ACTION_CODE,
    EVENT_ACTIONS,
    NO_RECIPIENT,
    BatchOutcome,
    BoolArray,
    CombatBatch,
    IntArray,
    MaskArray,
)
from ecs_combat.batched.from_scenarios import scenarios_to_batch
from ecs_combat.errors import EcsCombatError, InputError, PluginError, RefusedError
from ecs_combat.plugin.definitions import Keyword, color_mask, normalize_keyword
from ecs_combat.plugin.registry import Registry
from ecs_combat.plugin.schedule import (
    POINT_NAMES,
    BatchAttackDeclaration,
    BatchBlockDeclaration,
    BatchDamageAssignment,
    BatchDamageEvent,
    BatchDestruction,
    BatchEndOfCombat,
    BatchStateCheck,
    BatchTriggers,
)
from ecs_combat.rules.pipeline import StepPlan, plan_steps
from ecs_combat.rules.result import (
    CombatResult,
    CreatureOutcome,
    PlayerOutcome,
    SkippedEvent,
    StepResult,
    StrikeNote,
)
from ecs_combat.scenario.loader import DECLARE_BLOCKERS, Scenario

I64 = np.int64
U64 = np.uint64
SmallArray = npt.NDArray[np.int8]
AnyArray = npt.NDArray[Any]

#: Keyword fields this engine reads, or knows need nothing at resolution (the loader checks
#: declarations; names, rules and summaries are words). A keyword switching on any other field
#: makes the batched engine refuse scenarios that use it rather than answer wrongly.
UNDERSTOOD_FIELDS = frozenset(
    {
        "name",
        "rule",
        "counter",
        "strikes_in",
        "withholds_from",
        "requires",
        "summary",
        "parameter",
    }
)

# Why an event did not happen (``skipped_events``), as codes.
HAPPENED, NO_ATTACKERS, GAME_ENDED, NO_STEP = 0, 1, 2, 3
_NO_ATTACKERS_REASON = "no creatures attacked, so the combat had no such point (508.8)"
_GAME_ENDED_REASON = "the game ended before it"


def segmented_exclusive_cumsum(values: IntArray, groups: RowGroups) -> IntArray:
    """For each row, the sum of the values of the rows before it in its group."""
    before: IntArray = np.cumsum(values)
    before -= values
    before -= before[groups.start][groups.row_group]
    return before


def divide_in_order(
    power: IntArray, owed: IntArray, groups: RowGroups
) -> tuple[IntArray, IntArray]:
    """The default division (RULES.md section 3) of each group's power over its rows in order.

    `power` is each row's group's power. Each row, in order, gets what it is `owed` (the damage
    lethal to it; 0 for a row that is no recipient) while its group's power lasts. Returns the
    amount per row and each group's leftover power (never negative), which goes to the player
    or the first recipient.
    """
    before = segmented_exclusive_cumsum(owed, groups)
    leftover: IntArray = power[groups.start] - before[groups.last] - owed[groups.last]
    np.maximum(leftover, 0, out=leftover)
    amount: IntArray = np.subtract(power, before, out=before)
    np.maximum(amount, 0, out=amount)
    np.minimum(amount, owed, out=amount)
    return amount, leftover


def _bits_of(columns: BoolArray) -> MaskArray:
    """[R, K] booleans as R 64-bit masks (bit k for column k)."""
    if columns.shape[1] == 0:
        return np.zeros(columns.shape[0], U64)
    weights = (np.ones(columns.shape[1], U64) << np.arange(columns.shape[1], dtype=U64)).astype(U64)
    out: MaskArray = (columns.astype(U64) * weights).sum(axis=1, dtype=U64)
    return out


@dataclass(frozen=True)
class KeywordMasks:
    """The registry's keyword fields as bitmasks over one batch's keyword bits."""

    names: tuple[str, ...]
    bit: dict[str, int]
    #: Per step (registry order): keywords that strike in it, keywords that sit it out.
    strike: tuple[int, ...]
    withhold: tuple[int, ...]
    #: Keywords the batched engine can't resolve, with the reason.
    refused: dict[str, str]

    @classmethod
    def build(
        cls, registry: Registry, plans: Sequence[StepPlan], names: Sequence[str]
    ) -> KeywordMasks:
        """Masks for a batch whose bit ``i`` is keyword ``names[i]``."""
        if len(names) > 64:
            raise RefusedError(f"{len(names)} keyword bits; the batched engine's masks hold 64")
        bit = {name: 1 << i for i, name in enumerate(names)}
        defs: dict[str, Keyword] = {}
        refused: dict[str, str] = {}
        for name in names:
            kw = registry.keywords.get(name)
            if kw is None:
                refused[name] = f"keyword {name!r} is not in the plugin registry"
                continue
            defs[name] = kw
            for f in dataclasses.fields(kw):  # a subclass's fields too
                if f.name not in UNDERSTOOD_FIELDS and getattr(kw, f.name) != f.default:
                    refused[name] = (
                        f"keyword {name!r} sets {f.name}, which the batched engine doesn't model"
                    )
        for name, owner in registry.without_batched_form().items():
            if name in bit:
                refused[name] = (
                    f"plugin {owner!r} (keyword {name!r}) adds a system without a batched form"
                )
        static_only = set(registry.plugins_implementing("static_keywords")) - set(
            registry.plugins_implementing("static_keywords_batch")
        )
        for name in names:
            plugin = registry.keyword_plugin.get(name)
            if plugin in static_only:
                refused[name] = (
                    f"plugin {plugin!r} (keyword {name!r}) implements static_keywords but not "
                    "static_keywords_batch"
                )

        def having(flag: Callable[[Keyword], object]) -> int:
            return sum(bit[n] for n, kw in defs.items() if flag(kw))

        return cls(
            names=tuple(names),
            bit=bit,
            strike=tuple(sum(bit[k] for k in p.strike_keywords if k in bit) for p in plans),
            withhold=tuple(sum(bit[k] for k in p.withhold_keywords if k in bit) for p in plans),
            refused=refused,
        )

    def decode(self, mask: int) -> set[str]:
        """The keyword names of a mask."""
        return {name for name, b in self.bit.items() if mask & b}


class BatchedEngine:
    """Resolves many combats at once with numpy, with the reference engine's results."""

    name = "batched"

    def __init__(self, registry: Registry) -> None:
        self.registry = registry
        self.plans = plan_steps(registry)
        self._masks: dict[tuple[str, ...], KeywordMasks] = {}

    def masks(self, names: tuple[str, ...]) -> KeywordMasks:
        """The keyword masks for a batch's keyword bits (computed once per bit layout)."""
        if names not in self._masks:
            self._masks[names] = KeywordMasks.build(self.registry, self.plans, names)
        return self._masks[names]

    def resolve_batch(self, batch: CombatBatch) -> BatchOutcome:
        """Resolve every battle of the batch; the final state as arrays.

        An explicit division that turns out illegal raises the :class:`InputError` of the
        first battle (in battle order) that has one; a batch the engine can't resolve raises
        :class:`RefusedError`. Arrays of the outcome that nothing changed (power, toughness,
        `entered`) may be the batch's own.
        """
        run = _Run(self, batch, record=False)
        run.play()
        run.raise_error()
        return run.outcome()

    def resolve(self, scenario: Scenario) -> CombatResult:
        """Resolve one combat."""
        return self.resolve_many([scenario])[0]

    def resolve_many(self, scenarios: Sequence[Scenario]) -> list[CombatResult]:
        """Resolve scenarios as one batch; results identical to the reference engine's."""
        if not scenarios:
            return []
        with _collector_paused():  # many small acyclic objects: nothing for it to find
            batch = scenarios_to_batch(scenarios, self.registry)
            run = _Run(self, batch, record=True)
            run.play()
            run.raise_error()
            return run.results()


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector, which would otherwise rescan every object
    made so far each time enough new ones are made."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


@dataclass(frozen=True)
class _Explicit:
    """The explicit divisions used in a step: their amounts above 0, one row each."""

    source: IntArray
    #: Creature row, or ``-1 - player_row``.
    recipient: IntArray
    amount: IntArray
    #: The division row (its place among the source's recipients).
    row: IntArray
    #: Row mask of the sources dividing explicitly (their default division is dropped).
    sources: BoolArray


@dataclass
class _Log:
    """What ``resolve`` prints beyond the final state, gathered step by step as arrays."""

    #: Damage dealt: step, source row, recipient (creature row or -1 - player row), amount,
    #: and the place among the source's recipients.
    damage: list[tuple[int, IntArray, IntArray, IntArray, IntArray]] = dataclasses.field(
        default_factory=list
    )
    #: Life gained: step, player row, source row, amount.
    gains: list[tuple[int, IntArray, IntArray, IntArray]] = dataclasses.field(default_factory=list)
    #: Creatures that died in a step's state-based actions.
    died: list[tuple[int, IntArray]] = dataclasses.field(default_factory=list)
    #: Combatants of a step: rows, whether each deals damage, its keywords, the steps it struck
    #: in before (bit per step), its power.
    strikes: list[tuple[int, AnyArray, AnyArray, AnyArray, AnyArray, AnyArray]] = dataclasses.field(
        default_factory=list
    )


class _Run:
    """One batch being played through: the state arrays and the systems over them."""

    def __init__(self, engine: BatchedEngine, batch: CombatBatch, record: bool) -> None:
        self.reg = engine.registry
        self.plans = engine.plans
        self.batch = batch
        self.m = engine.masks(tuple(batch.keyword_names))
        n, nb = batch.n_creatures, batch.n_battles
        self.n, self.nb, self.n_steps = n, nb, len(self.plans)
        #: Keyword masks use the narrowest unsigned integers that hold every keyword bit.
        self.kt: type[np.unsignedinteger[Any]] = _mask_type(len(self.m.names))
        used = self._keywords_used()
        self.static_hook = self._static_hook(used)
        #: The plugins' systems that apply to this batch, per point.
        self.systems = {
            point: [
                s
                for s in self.reg.systems_at(point)
                if not s.system.keywords
                or any(used & self.m.bit.get(k, 0) for k in s.system.keywords)
            ]
            for point in POINT_NAMES
        }
        #: Plugins' per-creature columns (:meth:`column`).
        self.columns: dict[str, AnyArray] = {}
        self.log = _Log() if record else None
        self.error: tuple[int, InputError] | None = None

        # creatures
        self.battle = batch.battle
        self.controller = batch.controller
        #: Arrays still shared with the batch, copied before their first change.
        self._shared = {"power", "toughness", "attacking", "entered"}
        self.power = np.asarray(batch.power, I64)
        self.toughness = np.asarray(batch.toughness, I64)
        self.marked = batch.damage.astype(I64, copy=True)
        self.counts = None if batch.counters is None else batch.counters.astype(I64, copy=True)
        #: Power and toughness each kind of counter gives (counter columns).
        k = len(self.m.names)
        extra = batch.counter_names[k:]
        self.counter_pt = np.asarray(
            [[0, 0]] * k
            + [
                [self.reg.counter_kinds[c].power, self.reg.counter_kinds[c].toughness]
                for c in extra
            ],
            I64,
        ).reshape(-1, 2)
        self.kw_base = batch.keywords.astype(self.kt)  # printed and granted
        self.kw_counter: MaskArray | None = None  # from keyword counters, once there are any
        self.own = self.kw_base  # printed, granted and counters: the same while no counters
        self.static = self.static_hook is not None
        if self.counts is not None:
            self._counters_begin()
            assert self.kw_counter is not None
            self.kw_counter |= _bits_of(self.counts[:, :k] > 0).astype(self.kt)
            self.own |= self.kw_counter
            if extra:
                gives = self.counts @ self.counter_pt
                self.power = self.power + gives[:, 0]
                self.toughness = self.toughness + gives[:, 1]
                self._shared -= {"power", "toughness"}
        #: Keyword instances with their parameters (printed, then granted), by row.
        self.inst_row = batch.instance_row
        self.inst_kw = batch.instance_keyword
        self.inst_param = batch.instance_parameter
        self.colors = batch.colors
        self.creature_states = {k: v.copy() for k, v in batch.creature_state.items()}
        self.player_states = {k: v.copy() for k, v in batch.player_state.items()}
        #: The keywords creatures have now (own plus static), as of the last refresh.
        self.cur = self.own.copy() if self.static else self.own
        self.removed: MaskArray | None = None  # keywords an effect removed, once one did
        self._flags: dict[int, BoolArray] = {}  # keyword mask -> who has it now
        self._power_positive: BoolArray | None = None  # cached `power > 0`
        self.on_bf = batch.present.astype(np.bool_, copy=True)
        self.entered = np.asarray(batch.present, np.bool_)
        self.attacking = np.asarray(batch.attacking, I64)  # player row attacked (see `att`)
        self.att = self.attacking >= 0
        self.blocking = np.zeros(n, np.bool_)
        self.blocked = np.zeros(n, np.bool_)
        self.in_combat = np.zeros(n, np.bool_)
        self.struck = np.zeros(n, np.bool_)
        self.struck_steps = np.zeros(n, U64) if record else None
        self.tapped = np.zeros(n, np.bool_)
        self.died = np.zeros(n, np.bool_)
        self._mark = np.zeros(n, np.bool_)  # scratch, all False between uses
        # players and battles
        self.player_battle = batch.player_battle
        self.life = batch.life.astype(I64, copy=True)
        self.lost = np.zeros(batch.n_players, np.bool_)
        self.remaining: IntArray | None = None  # players still in each battle, once one lost
        self.game_over = np.zeros(nb, np.bool_)
        self.has_attack = np.zeros(nb, np.bool_)
        self.to_players = np.zeros(nb, I64)
        self.steps_taken = np.zeros((self.n_steps, nb), np.bool_)
        self.blocks_declared = False
        self._names: list[str] | None = None

        self._index_blocks()
        self._index_divisions()
        self._index_events()

    # -- set-up -------------------------------------------------------------------------------

    def _keywords_used(self) -> int:
        """The keywords the batch uses (printed, counters, events, cards) as a mask; refuses
        a batch using a keyword or card the batched engine can't resolve."""
        b = self.batch
        used = int(np.bitwise_or.reduce(b.keywords)) if b.keywords.size else 0
        if b.event_keywords.size:
            used |= int(np.bitwise_or.reduce(b.event_keywords))
        for counters in (b.counters, b.event_counters):
            if counters is not None and counters.size:
                some = np.any(counters[:, : len(self.m.names)] > 0, axis=0, keepdims=True)
                used |= int(_bits_of(some)[0])
        cast = b.event_action == ACTION_CODE["cast"]
        for ci in np.unique(b.event_card[cast]).tolist():
            card = self.reg.card(b.card_names[ci])
            if card is None:
                raise RefusedError(f"no card {b.card_names[ci]!r} in the card library")
            for kw in card.keywords:
                if kw not in self.m.bit:
                    raise RefusedError(f"{card.name} gives {kw!r}, which has no bit in the batch")
                used |= self.m.bit[kw]
        for name, why in self.m.refused.items():
            if used & self.m.bit[name]:
                raise RefusedError(why)
        return used

    def _static_hook(self, used: int) -> Any:
        """The static-keyword hooks to call: those of the plugins whose keywords the batch
        uses (a static ability belongs to a keyword). None if there are none."""
        hook = "static_keywords_batch"
        plugins = self.reg.plugins_implementing(hook)
        owned: dict[str, int] = {}
        for keyword, plugin in self.reg.keyword_plugin.items():
            owned[plugin] = owned.get(plugin, 0) | self.m.bit.get(keyword, 0)
        idle = [p for p in plugins if not used & owned.get(p, 0)]
        if len(idle) == len(plugins):
            return None
        manager = self.reg.manager
        return manager.subset_hook_caller(hook, [manager.get_plugin(p) for p in idle])

    def _index_blocks(self) -> None:
        """Blocks grouped by attacker (declaration order kept), plus the blockers' own view."""
        b = self.batch
        bb, ba, rank = b.block_blocker, b.block_attacker, b.block_rank
        self.nblocks = len(bb)
        self.bb, self.ba = np.asarray(bb, I64), np.asarray(ba, I64)
        self.rank = np.asarray(rank, I64)
        if self.nblocks == 0:
            return
        starts = _run_starts(ba)
        if not _distinct_runs(self.ba, starts, self.n):  # group them, keeping declared order
            order = np.argsort(ba, kind="stable")
            self.bb, self.ba, self.rank = self.bb[order], self.ba[order], self.rank[order]
            starts = _run_starts(self.ba)
        self.blocked[self.ba] = True
        self.one_blocker_each = len(starts) == self.nblocks
        blockers = _run_starts(self.bb)
        self.multi_block = not (
            len(blockers) == self.nblocks and _distinct_runs(self.bb, blockers, self.n)
        )
        if self.multi_block:  # the blockers' view: grouped by blocker, in their declared order
            self.q = np.lexsort((self.rank, self.bb))

    def _index_divisions(self) -> None:
        """Division rows per step, grouped by source with the scenario's recipient order."""
        b = self.batch
        self.div_rows: list[IntArray] = []
        self.div_start: list[IntArray] = []
        if b.division_step.size == 0:
            return
        order = np.argsort(b.division_step * max(self.n, 1) + b.division_source, kind="stable")
        for s in range(self.n_steps):
            rows = order[b.division_step[order] == s]
            self.div_rows.append(rows)
            self.div_start.append(_run_starts(b.division_source[rows]))
        self.pair_keys = np.sort(self.bb * max(self.n, 1) + self.ba)

    def _index_events(self) -> None:
        """Event rows per point, in rounds: the k-th event of every battle at that point."""
        b = self.batch
        e = len(b.event_battle)
        self.ev_skip = np.zeros(e, np.int8)
        self.rounds: list[list[IntArray]] = [[] for _ in range(self.n_steps + 1)]
        if e == 0:
            return
        key = b.event_battle * (self.n_steps + 1) + b.event_point
        order = np.argsort(key, kind="stable")
        starts = _run_starts(key[order])
        place = np.arange(e) - starts[np.cumsum(_starts_mask(e, starts)) - 1]
        point = b.event_point[order]
        for p in range(self.n_steps + 1):
            at = point == p
            if not at.any():
                continue
            for k in range(int(place[at].max()) + 1):
                self.rounds[p].append(order[at & (place == k)])

    # -- helpers ------------------------------------------------------------------------------

    def _rows(self, battles: BoolArray | None) -> BoolArray | None:
        """Row mask of the creatures of some battles (None: every battle)."""
        if battles is None or battles.all():
            return None
        out: BoolArray = battles[self.battle]
        return out

    def _has(self, mask: int) -> BoolArray:
        """Whether each creature has any keyword of `mask` now. Read-only: it is cached until
        keywords change."""
        found = self._flags.get(mask)
        if found is None:
            found = ((self.cur & self.kt(mask)) != 0) if mask else np.zeros(self.n, np.bool_)
            found.flags.writeable = False
            self._flags[mask] = found
        return found

    def _has_at(self, mask: int, rows: IntArray) -> BoolArray:
        """Whether some creatures have any keyword of `mask` now."""
        out: BoolArray = (self.cur[rows] & self.kt(mask)) != 0
        return out

    def _battles_with(self, creatures: BoolArray) -> BoolArray:
        """Battles with at least one of some creatures (a row mask)."""
        out = np.zeros(self.nb, np.bool_)
        out[self.battle[np.flatnonzero(creatures)]] = True
        return out

    def _battles(self, rows: IntArray, of: IntArray) -> BoolArray:
        """Battle mask of some rows of an array of battle numbers."""
        out = np.zeros(self.nb, np.bool_)
        out[of[rows]] = True
        return out

    def cid(self, row: int) -> str:
        """A creature's id."""
        ids = self.batch.creature_ids
        return ids[row] if ids is not None else f"creature row {row}"

    def pid(self, row: int) -> str:
        """A player's id."""
        ids = self.batch.player_ids
        return ids[row] if ids is not None else f"player row {row}"

    def recipient_id(self, code: int) -> str:
        """A creature row's or (``-1 - row``) a player row's id."""
        return self.pid(-1 - code) if code < 0 else self.cid(code)

    def names(self) -> list[str]:
        """Each row's creature name (its id if the batch has no names)."""
        if self._names is None:
            b = self.batch
            names = b.creature_names if b.creature_names is not None else b.creature_ids
            if names is None:
                raise RefusedError("a plugin compares creature names, and the batch has none")
            self._names = list(names)
        return self._names

    def fail(self, battle: int, error: InputError) -> None:
        """Record an input error found in a battle; the first battle's error is raised."""
        if self.error is None or battle < self.error[0]:
            self.error = (battle, error)

    def raise_error(self) -> None:
        """Raise the input error of the first battle that has one."""
        if self.error is not None:
            raise self.error[1]

    # -- keywords -----------------------------------------------------------------------------

    def writable(self, name: str) -> None:
        """Copy a state array still shared with the batch before it changes."""
        if name in self._shared:
            self._shared.discard(name)
            setattr(self, name, getattr(self, name).copy())
        if name == "power":
            self._power_positive = None

    def _counters_begin(self) -> None:
        """Give keyword counters their own mask: own keywords are no longer the printed and
        granted ones alone."""
        self.kw_counter = np.zeros(self.n, self.kt)
        self.own = self.kw_base.copy()
        if not self.static:
            self.cur = self.own

    def update_own(self, rows: IntArray) -> None:
        """Recompute own keywords (printed, granted, counters) of some rows."""
        if self.kw_counter is not None:
            self.own[rows] = self.kw_base[rows] | self.kw_counter[rows]
        if not self.static:  # `cur` is `own`
            self._flags.clear()

    def refresh(self, battles: BoolArray | None) -> None:
        """Recompute the keywords creatures have (own plus static) in some battles."""
        if self.static_hook is None:
            return  # `cur` is `own`
        given = np.zeros(self.n, self.kt)
        for result in self.static_hook(batch=_View(self)):
            for keyword, rows in result.items():
                name = normalize_keyword(keyword)
                bit = self.m.bit.get(name)
                if bit is None:
                    if name in self.reg.keywords:
                        raise RefusedError(f"a static ability gives {name!r}, which has no bit")
                    continue
                given[np.asarray(rows, dtype=np.bool_)] |= self.kt(bit)
        now = self.own | (given if self.removed is None else given & ~self.removed)
        rows_mask = self._rows(battles)
        if rows_mask is None:
            self.cur[:] = now
        else:
            np.copyto(self.cur, now, where=rows_mask)
        self._flags.clear()

    # -- what systems use (docs/plugins.md) -----------------------------------------------------

    def has(self, keyword: str) -> BoolArray:
        """Row mask (read-only): creatures that have a keyword now."""
        bit = self.m.bit.get(normalize_keyword(keyword))
        if bit is None:
            return np.zeros(self.n, np.bool_)
        view = self._has(bit).view()
        view.flags.writeable = False
        return view

    def column(self, name: str, dtype: Any) -> AnyArray:
        """A plugin's per-creature column, zeros until first written; kept for the batch."""
        col = self.columns.get(name)
        if col is None:
            col = self.columns[name] = np.zeros(self.n, dtype)
        return col

    def instances(self, keyword: str) -> tuple[IntArray, IntArray]:
        """(rows, parameters) of the instances of a keyword creatures have now, in row order
        then printed, granted, counter order; a parameter is a number, a color index
        (``COLORS``) or -1. A keyword a row has with no listed instance (a static ability's,
        or a bulk simulation's one bit) counts once, with -1."""
        bit = self.m.bit.get(normalize_keyword(keyword))
        if bit is None:
            return np.zeros(0, I64), np.zeros(0, I64)
        index = bit.bit_length() - 1
        sel = np.flatnonzero(self.inst_kw == index)
        rows, params = self.inst_row[sel], self.inst_param[sel]
        listed = np.zeros(self.n, np.bool_)
        listed[rows] = True
        has = self._has(bit)
        keep = has[rows]
        rows, params = rows[keep], params[keep]
        base = (self.kw_base & self.kt(bit)) != 0
        single = np.flatnonzero(has & ~(listed & base))
        counter = (
            np.zeros(0, I64)
            if self.kw_counter is None
            else np.flatnonzero(((self.kw_counter & self.kt(bit)) != 0) & listed & base)
        )
        all_rows = np.concatenate([rows, single, counter])
        all_params = np.concatenate([params, np.full(len(single) + len(counter), -1, I64)])
        order = np.argsort(all_rows, kind="stable")
        return all_rows[order], all_params[order]

    def counter(self, kind: str) -> IntArray:
        """Each row's count of a kind of counter (read-only)."""
        names = self.batch.counter_names
        if self.counts is None or kind not in names:
            return np.zeros(self.n, I64)
        out: IntArray = self.counts[:, names.index(kind)]
        return out

    def add_counters(self, rows: IntArray, kind: str, change: IntArray | int) -> None:
        """Put (positive) or remove (negative) counters of a kind on some rows (once each)."""
        names = self.batch.counter_names
        if kind not in names:
            raise RefusedError(f"counters of kind {kind!r} have no column in the batch")
        delta = np.zeros((len(rows), len(names)), I64)
        delta[:, names.index(kind)] = change
        self.change_counters(rows, delta)

    def blockers_of(self, attackers: IntArray) -> IntArray:
        """How many creatures still block each of some attacker rows (509.1h: blocks in effect)."""
        if not self.nblocks:
            return np.zeros(len(attackers), I64)
        in_effect = self.blocking[self.bb] & self.on_bf[self.bb]
        count = np.bincount(self.ba[in_effect], minlength=self.n)
        out: IntArray = count[attackers]
        return out

    def lose_life(self, players: IntArray, amount: IntArray | int) -> None:
        """Players (rows, may repeat) lose life (not damage, 119.3)."""
        np.subtract.at(self.life, players, amount)

    def creature_state(self, key: str) -> AnyArray:
        """A plugin's state of every creature row (a creature reference: row or -1)."""
        return self.creature_states[key]

    def player_state(self, key: str) -> AnyArray:
        """A plugin's state of every player row."""
        return self.player_states[key]

    def has_column(self, name: str) -> bool:
        """Whether a plugin's column exists yet."""
        return name in self.columns

    def pump(self, rows: IntArray, power: IntArray | int, toughness: IntArray | int) -> None:
        """+power/+toughness until end of turn for some rows."""
        self.writable("power")
        self.writable("toughness")
        self.power[rows] += power
        self.toughness[rows] += toughness
        self._power_positive = None

    def run_systems(self, point: str, payload: Any) -> None:
        """Run the batch's systems at a point, once each over the whole batch."""
        triggers = getattr(payload, "triggers", None)
        for scheduled in self.systems[point]:
            batched = scheduled.system.batched
            assert batched is not None  # refused when the run began
            before = len(triggers) if triggers is not None else 0
            try:
                result = batched(self, payload)
                for group in triggers[before:] if triggers is not None else ():
                    group.plugin = scheduled.plugin
            except EcsCombatError:
                raise
            except Exception as exc:  # a plugin's bug, reported by name
                raise PluginError(
                    f"plugin {scheduled.plugin!r}: system {scheduled.system.name!r} at "
                    f"{point} (batched) raised {type(exc).__name__}: {exc}"
                ) from exc
            if result is not None:
                raise PluginError(
                    f"plugin {scheduled.plugin!r}: system {scheduled.system.name!r} at {point} "
                    f"(batched) returned {result!r}; it should change what it is given and "
                    "return nothing"
                )

    # -- the combat ---------------------------------------------------------------------------

    def play(self) -> None:
        """Play every combat through (the reference engine's `run`)."""
        self.declare()
        ha = self.has_attack
        self.state_based_actions(ha)
        if self.rounds[0]:
            self.events_at(0, np.where(ha, HAPPENED, NO_ATTACKERS).astype(np.int8))
        for s, plan in enumerate(self.plans):
            act = ha & ~self.game_over
            happen = np.zeros(self.nb, np.bool_)
            if act.any():
                self.refresh(act)
                happen = act if plan.step.default else act & self.step_exists(s)
                if happen.any():
                    self.damage_step(s, happen)
            self.steps_taken[s] = happen
            if self.rounds[s + 1]:  # why an event after the step would not happen
                why = np.where(ha, np.where(act, HAPPENED, GAME_ENDED), NO_ATTACKERS)
                why = np.where(act & ~happen, NO_STEP, why)
                self.events_at(s + 1, why.astype(np.int8))
        self.end_of_combat(ha & ~self.game_over)

    def declare(self) -> None:
        """Declare attackers and blockers (508, 509)."""
        self._check_marked_damage()
        att = self.att.copy()
        self.has_attack = self._battles_with(att)
        self.in_combat |= att
        self.refresh(None)
        declaration = BatchAttackDeclaration(att, att.copy())
        self.run_systems("declare-attackers", declaration)
        self.tapped = declaration.taps
        if self.nblocks:
            self.blocking[self.bb] = True
            self.in_combat[self.bb] = True
        self.blocks_declared = True
        self.refresh(None)
        if self.has_attack.any():
            blocking = BatchBlockDeclaration(self.bb, self.ba)
            self.run_systems("declare-blockers", blocking)
            self.resolve_triggers(blocking.triggers)

    def resolve_triggers(self, groups: list[BatchTriggers]) -> None:
        """Resolve triggered abilities as the reference engine does (APNAP order, 603.3b;
        state-based actions after each): round r resolves the r-th trigger of every battle, one
        call per kind of trigger; a trigger whose source left the battlefield does nothing."""
        groups = [g for g in groups if len(g.source)]
        if not groups:
            return
        source = np.concatenate([np.asarray(g.source, I64) for g in groups])
        instance = np.concatenate([np.asarray(g.instance, I64) for g in groups])
        kind = np.concatenate([np.full(len(g.source), i, I64) for i, g in enumerate(groups)])
        local = np.concatenate([np.arange(len(g.source), dtype=I64) for g in groups])
        battle = self.battle[source]
        rank = self.controller[source] - np.searchsorted(self.player_battle, battle)
        order = np.lexsort((local, kind, instance, source, -rank, battle))
        starts = _run_starts(battle[order])
        position = np.arange(len(order)) - np.repeat(starts, np.diff(np.append(starts, len(order))))
        for r in range(int(position.max()) + 1):
            now = order[position == r]
            now = now[~self.game_over[battle[now]]]
            if not now.size:
                continue
            go = now[self.on_bf[source[now]]]
            for k in np.unique(kind[go]).tolist():
                group = groups[k]
                taken = group.take(local[go[kind[go] == k]])
                try:
                    group.resolve(self, taken)
                except EcsCombatError:
                    raise
                except Exception as exc:  # a plugin's bug, reported by name
                    raise PluginError(
                        f"plugin {group.plugin!r}: a triggered ability (batched) raised "
                        f"{type(exc).__name__}: {exc}"
                    ) from exc
            battles = self._battles_with_rows(battle[now])
            self.refresh(battles)
            self.state_based_actions(battles)

    def _battles_with_rows(self, battles_of: IntArray) -> BoolArray:
        """Battle mask of some battle numbers."""
        out = np.zeros(self.nb, np.bool_)
        out[battles_of] = True
        return out

    def _check_marked_damage(self) -> None:
        """A creature can't start the combat with lethal damage marked unless nothing
        destroys it (704.5g): an input error, as the reference engine says it."""
        printed = np.asarray(self.batch.toughness, I64)  # as the scenario gives it
        lethal = self.entered & (self.marked >= printed)
        if not lethal.any():
            return
        b = self.batch
        for row in np.flatnonzero(self.destroy(lethal)).tolist():
            battle = int(self.battle[row])
            file = b.battle_files[battle] if b.battle_files is not None else f"battle {battle}"
            damage, toughness = int(self.marked[row]), int(printed[row])
            message = (
                f"{damage} damage on a creature with toughness {toughness} "
                "would already have destroyed it (704.5g)"
            )
            self.fail(battle, InputError(file, f"creatures.{self.cid(row)}.damage", message))

    def step_exists(self, s: int) -> BoolArray:
        """Battles in which some attacking or blocking creature strikes in step `s`."""
        if not self.m.strike[s]:
            return np.zeros(self.nb, np.bool_)
        return self._battles_with(self.in_combat & self._has(self.m.strike[s]))

    def damage_step(self, s: int, happen: BoolArray) -> None:
        """One combat damage step in some battles: who deals damage, assignment, dealing,
        state-based actions (510, RULES.md section 2)."""
        plan = self.plans[s]
        # Creatures in combat are in battles with attackers; a striker's battle has the step.
        # So only battles whose game is over need leaving out.
        rows_mask = self._rows(~self.game_over) if self.game_over.any() else None
        combat = self.in_combat if rows_mask is None else self.in_combat & rows_mask
        striker = combat & self._has(self.m.strike[s])
        if plan.step.default:
            stays = combat & ~self.struck
            if self.m.withhold[s]:
                stays &= ~self._has(self.m.withhold[s])
            deals = (striker | stays) & self._positive()
        else:
            deals = striker & self._positive()  # a new array: `striker` stays as it is
        if self.log is not None and self.struck_steps is not None:
            rows = np.flatnonzero(combat & happen[self.battle])
            self.log.strikes.append(
                (s, rows, deals[rows], self.cur[rows], self.struck_steps[rows], self.power[rows])
            )
            self.struck_steps[striker] |= U64(1 << s)
        self.struck |= striker
        self.assign_and_deal(s, deals)
        died = self.state_based_actions(happen)
        self.died[died] = True
        if self.log is not None:
            self.log.died.append((s, np.unique(died)))

    def _positive(self) -> BoolArray:
        """Whether each creature's power is above 0 (cached until power changes)."""
        if self._power_positive is None:
            self._power_positive = self.power > 0
        return self._power_positive

    def assign_and_deal(self, s: int, deals: BoolArray) -> None:
        """Each dealer assigns its damage (510.1) and all of it is dealt at once (510.2)."""
        plan = BatchDamageAssignment(
            self.plans[s].name, deals, np.zeros(self.n, np.bool_), np.zeros(self.n, np.bool_)
        )
        self.run_systems("assign-damage", plan)
        excess = plan.player_gets_excess if plan.player_gets_excess.any() else None
        destroys = plan.one_is_lethal if plan.one_is_lethal.any() else None
        self._excess_by = plan.excess_by
        deals_a, deals_b = deals & self.att, deals & self.blocking
        unblocked = np.flatnonzero(deals_a & ~self.blocked)
        to_player = [_Flow(unblocked, -1 - self.attacking[unblocked], self.power[unblocked], 0)]
        to_creature: list[_Flow] = []
        if self.nblocks:
            bb, ba = self.bb, self.ba
            # attackers: the blocks, in declaration order, whose attacker deals and whose
            # blocker is still blocking
            rows = np.flatnonzero(deals_a[ba])
            blk = bb[rows]
            still = np.flatnonzero(self.blocking[blk])
            rows, blk = rows[still], blk[still]
            blockers, players = self._attackers_divide(rows, blk, ba[rows], destroys, excess)
            to_creature.append(blockers)
            to_player.append(players)
            if excess is not None:  # no blocker left: all of it to the player (702.19e)
                alone = np.flatnonzero(deals_a & self.blocked & excess)
                self._mark[blockers.source] = True
                alone = alone[np.flatnonzero(~self._mark[alone])]
                self._mark[blockers.source] = False
                to_player.append(
                    _Flow(alone, -1 - self.attacking[alone], self.power[alone], 1 << 40)
                )
            # blockers: the blocks whose blocker deals and whose attacker is still attacking
            order = self.q if self.multi_block else None
            rows = np.flatnonzero(deals_b[bb if order is None else bb[order]])
            if order is not None:
                rows = order[rows]
            att = ba[rows]
            still = np.flatnonzero(self.att[att])
            rows, att = rows[still], att[still]
            to_creature.append(self._blockers_divide(rows, bb[rows], att, destroys))
        explicit = self._explicit(s, deals_a, deals_b, excess)
        if explicit is not None:  # sources dividing as the scenario says drop the default
            to_player = [f.without(explicit.sources) for f in to_player]
            to_creature = [f.without(explicit.sources) for f in to_creature]
            e = explicit
            c = e.recipient >= 0
            to_creature.append(_Flow(e.source[c], e.recipient[c], e.amount[c], e.row[c]))
            to_player.append(_Flow(e.source[~c], e.recipient[~c], e.amount[~c], e.row[~c]))

        if explicit is not None:
            hot = np.zeros(0, I64)
            if destroys is not None:
                hot = _concat(
                    [
                        f.recipient[np.flatnonzero(destroys[f.source] & (f.amount > 0))]
                        for f in to_creature
                    ]
                )
            incoming = np.zeros(self.n, I64)
            for f in to_creature:
                np.add.at(incoming, f.recipient, f.amount)
            self._check_excess(s, explicit, incoming, hot, destroys, excess)
        self.deal(s, [*to_creature, *to_player])

    def deal(self, s: int, flows: list[_Flow]) -> None:
        """Deal a step's damage at once, through the ``deal-damage`` systems (510.2): marked
        on creatures, lost by players, with life gained at the same time."""
        event = BatchDamageEvent(
            self.plans[s].name,
            _concat([f.source for f in flows]),
            _concat([f.recipient for f in flows]),
            _concat([f.amount for f in flows]),
            np.ones(0, np.bool_),
            np.ones(0, np.bool_),
        )
        event.marked = np.ones(len(event.amount), np.bool_)
        event.loses_life = event.marked.copy()
        self.run_systems("deal-damage", event)
        amount, recipient = event.amount, event.recipient
        some = amount > 0
        creature = recipient >= 0
        marks = np.flatnonzero(creature & event.marked & some)
        np.add.at(self.marked, recipient[marks], amount[marks])
        player = np.flatnonzero(~creature & some)
        np.add.at(self.to_players, self.battle[event.source[player]], amount[player])
        loses = player[event.loses_life[player]]
        np.add.at(self.life, -1 - recipient[loses], -amount[loses])
        for players, sources, gained in event.gains:
            np.add.at(self.life, players, gained)
            if self.log is not None:
                self.log.gains.append((s, players, sources, gained))
        if self.log is not None:
            places = _concat([f.places() for f in flows])
            self.log.damage.append(
                (s, event.source[some], recipient[some], amount[some], places[some])
            )

    def _attackers_divide(
        self,
        rows: IntArray,
        bb: IntArray,
        ba: IntArray,
        destroys: BoolArray | None,
        excess: BoolArray | None,
    ) -> tuple[_Flow, _Flow]:
        """Blocked attackers' default division over their blockers (RULES.md section 3).

        `rows` are the block rows that receive damage, grouped by attacker in declaration
        order, `bb` and `ba` their blockers and attackers. Returns the damage to the blockers,
        and the excess that goes to the players (702.19b-d).
        """
        power = self.power[ba]
        groups = None if self.one_blocker_each else RowGroups.of(ba)
        if groups is None or groups.size == len(rows):  # one blocker each: all of it, or
            # lethal and the rest
            if excess is None:
                return _Flow(ba, bb, power, rows), _Flow.empty()
            amount = power.copy()
            sends = np.flatnonzero(excess[ba])
            lethal = self._lethal(bb[sends], destroys, ba[sends])
            amount[sends] = np.minimum(power[sends], lethal)
            leftover = power[sends] - amount[sends]
            owner = ba[sends]
        else:
            lethal = self._lethal(bb, destroys, ba)
            amount, leftover = divide_in_order(power, lethal, groups)
            ex = np.zeros(groups.size, np.bool_) if excess is None else excess[groups.owner]
            amount[groups.start] += np.where(ex, 0, leftover)  # to the first blocker left
            leftover = np.where(ex, leftover, 0)
            owner = groups.owner
        sends = np.flatnonzero(leftover)
        to_players = _Flow(
            owner[sends], -1 - self.attacking[owner[sends]], leftover[sends], 1 << 40
        )
        return _Flow(ba, bb, amount, rows), to_players

    def _lethal(self, rows: IntArray, destroys: BoolArray | None, sources: IntArray) -> IntArray:
        """Damage lethal to some creatures from some sources (702.19b; 1 from a destroying
        source, 702.2c), never below 0."""
        lethal: IntArray = self.toughness[rows]
        lethal -= self.marked[rows]
        np.maximum(lethal, 0, out=lethal)
        if destroys is not None:
            np.minimum(lethal, 1, out=lethal, where=destroys[sources])
        return lethal

    def _blockers_divide(
        self, rows: IntArray, bb: IntArray, ba: IntArray, destroys: BoolArray | None
    ) -> _Flow:
        """Blockers' default division over the attackers they block, in the order they
        declared them (510.1d; a blocker sends no excess to a player, 702.19a). `rows` are the
        block rows that receive damage, grouped by blocker in that order, `bb` and `ba` their
        blockers and attackers."""
        amount = self.power[bb]
        if self.multi_block:
            groups = RowGroups.of(bb)
            if groups.size < len(rows):
                lethal = self._lethal(ba, destroys, bb)
                amount, leftover = divide_in_order(amount, lethal, groups)
                amount[groups.start] += leftover  # to the first attacker left
        return _Flow(bb, ba, amount, rows if self.log is None else self.rank[rows])

    # -- explicit divisions ---------------------------------------------------------------------

    def _explicit(
        self, s: int, deals_a: BoolArray, deals_b: BoolArray, excess: BoolArray | None
    ) -> _Explicit | None:
        """The scenario's divisions for step `s` whose source assigns damage, checked (510.1);
        None if no division is used in this step."""
        if not self.div_rows:
            return None
        rows, starts = self.div_rows[s], self.div_start[s]
        if rows.size == 0:
            return None
        b = self.batch
        src = b.division_source[rows]
        g_src = src[starts]
        used = self._assigns(g_src, deals_a, deals_b, excess)
        if not used.any():
            return None
        rec = b.division_recipient[rows]
        amt = b.division_amount[rows]
        row_group = np.cumsum(_starts_mask(len(rows), starts)) - 1
        active = used[row_group]
        valid = self._options_contain(src, rec, excess)
        bad_row = active & ~valid
        totals = np.add.reduceat(amt, starts)
        bad = used & (
            (np.add.reduceat(bad_row.astype(I64), starts) > 0) | (totals != self.power[g_src])
        )
        if bad.any():
            self._division_error(s, rows, starts, g_src, bad, valid, totals, excess)
        sources = np.zeros(self.n, np.bool_)
        sources[g_src[used]] = True
        keep = active & (amt > 0) & (rec != NO_RECIPIENT)
        return _Explicit(src[keep], rec[keep], amt[keep], rows[keep], sources)

    def _assigns(
        self, sources: IntArray, deals_a: BoolArray, deals_b: BoolArray, excess: BoolArray | None
    ) -> BoolArray:
        """Whether each of some dealers assigns damage at all: an unblocked attacker does; a
        blocked one if a blocker remains or it has a keyword sending excess to the player
        (510.1c, 702.19e); a blocker if an attacker it blocks remains."""
        out: BoolArray = deals_a[sources] & ~self.blocked[sources]
        if self.nblocks:
            in_effect = self.blocking[self.bb] & self.att[self.ba]
            has_blocker = np.zeros(self.n, np.bool_)
            has_blocker[self.ba[in_effect]] = True
            if excess is not None:
                has_blocker |= excess
            has_attacker = np.zeros(self.n, np.bool_)
            has_attacker[self.bb[in_effect]] = True
            out |= deals_a[sources] & self.blocked[sources] & has_blocker[sources]
            out |= deals_b[sources] & has_attacker[sources]
        return out

    def _options_contain(self, src: IntArray, rec: IntArray, excess: BoolArray | None) -> BoolArray:
        """Whether each recipient is one the source may assign damage to now (510.1)."""
        attacking = self.att[src]
        player = (rec < 0) & (rec != NO_RECIPIENT)
        ex = excess[src] if excess is not None else np.zeros(len(src), np.bool_)
        ok_player = (
            player & attacking & (~self.blocked[src] | ex) & (-1 - rec == self.attacking[src])
        )
        creature = rec >= 0
        c = np.where(creature, rec, 0)
        blocker = np.where(attacking, c, src)
        attacker = np.where(attacking, src, c)
        key = blocker * max(self.n, 1) + attacker
        declared = np.zeros(len(src), np.bool_)
        if len(self.pair_keys):
            pos = np.minimum(np.searchsorted(self.pair_keys, key), len(self.pair_keys) - 1)
            declared = self.pair_keys[pos] == key
        in_effect = self.blocking[blocker] & self.att[attacker]
        out: BoolArray = (rec == NO_RECIPIENT) | ok_player | (creature & declared & in_effect)
        return out

    def _options(self, source: int, excess: BoolArray | None) -> list[str]:
        """Whom a dealer may assign damage to now, in the reference engine's order."""
        if self.att[source]:
            defender = self.pid(int(self.attacking[source]))
            if not self.blocked[source]:
                return [defender]
            rows = np.flatnonzero((self.ba == source) & self.blocking[self.bb])
            out = [self.cid(int(r)) for r in self.bb[rows]]
            if excess is not None and excess[source]:
                out.append(defender)
            return out
        rows = np.flatnonzero((self.bb == source) & self.att[self.ba])
        rows = rows[np.argsort(self.rank[rows], kind="stable")]
        return [self.cid(int(r)) for r in self.ba[rows]]

    def _where(self, battle: int, row: int) -> tuple[str | None, str]:
        """File and key path of a division row."""
        b = self.batch
        file = b.battle_files[battle] if b.battle_files is not None else f"battle {battle}"
        index = int(b.division_index[row]) if b.division_index is not None else row
        return file, f"combat.divide[{index}]"

    def _division_error(
        self,
        s: int,
        rows: IntArray,
        starts: IntArray,
        g_src: IntArray,
        bad: BoolArray,
        valid: BoolArray,
        totals: IntArray,
        excess: BoolArray | None,
    ) -> None:
        """The error of the first bad division (first battle, then first dealer)."""
        groups = np.flatnonzero(bad)
        battles = self.battle[g_src[groups]]
        battle = int(battles.min())
        if self.error is not None and battle >= self.error[0]:
            return
        mine = groups[battles == battle]
        g = int(mine[np.argmin(g_src[mine])])
        start = int(starts[g])
        end = int(starts[g + 1]) if g + 1 < len(starts) else len(rows)
        source = int(g_src[g])
        step = self.plans[s].name
        for i in range(start, end):
            if not valid[i]:
                row = int(rows[i])
                file, path = self._where(battle, row)
                rid = self.recipient_id(int(self.batch.division_recipient[row]))
                options = ", ".join(self._options(source, excess)) or "nobody"
                message = (
                    f"{self.cid(source)} can't assign damage to {rid!r} in the {step} step "
                    f"(it can to: {options})"
                )
                self.fail(battle, InputError(file, f"{path}.amounts.{rid}", message))
                return
        file, path = self._where(battle, int(rows[start]))
        power = int(self.power[source])
        message = (
            f"amounts total {int(totals[g])}, but {self.cid(source)} has power {power} in the "
            f"{step} step (510.1)"
        )
        self.fail(battle, InputError(file, f"{path}.amounts", message))

    def _check_excess(
        self,
        s: int,
        explicit: _Explicit,
        incoming: IntArray,
        hot: IntArray,
        destroys: BoolArray | None,
        excess: BoolArray | None,
    ) -> None:
        """The excess rule for explicit divisions (702.19b): damage may go to the player only
        if each blocker is assigned lethal damage, counting damage already marked and what the
        other creatures assign it in this step; any from a destroying source is lethal."""
        if excess is None or not self.nblocks:
            return
        checked = np.zeros(self.n, np.bool_)
        checked[explicit.source[explicit.recipient < 0]] = True
        checked &= self.blocked & excess & self.att
        if not checked.any():
            return
        bb, ba = self.bb, self.ba
        rows = np.flatnonzero(checked[ba] & self.blocking[bb])
        lethal = self._lethal(bb[rows], destroys, ba[rows])
        self._mark[hot] = True
        short = (incoming[bb[rows]] < lethal) & ~self._mark[bb[rows]]
        self._mark[hot] = False
        if not short.any():
            return
        rows = rows[short]
        battles = self.battle[ba[rows]]
        battle = int(battles.min())
        if self.error is not None and battle >= self.error[0]:
            return
        rows = rows[battles == battle]
        row = int(rows[np.argmin(ba[rows] * max(self.nblocks, 1) + rows)])
        source, blocker = int(ba[row]), int(bb[row])
        div_rows = self.div_rows[s]
        first = div_rows[self.batch.division_source[div_rows] == source][0]
        file, path = self._where(battle, int(first))
        keyword = min(k for k, rows in self._excess_by if rows[source])
        rule = self.reg.keywords[keyword].rule
        player = self.pid(int(self.attacking[source]))
        message = (
            f"{self.cid(source)} assigns damage to {player} before assigning lethal damage to "
            f"{self.cid(blocker)}, counting damage already marked and damage other creatures "
            f"assign it in this step ({keyword}, {rule})"
        )
        self.fail(battle, InputError(file, f"{path}.amounts", message))

    # -- state-based actions and leaving --------------------------------------------------------

    def state_based_actions(self, battles: BoolArray | None) -> IntArray:
        """704.5a, f, g and the plugins' conditions, in some battles (all if None): creatures
        die, players lose. Returns who died."""
        rows_mask = self._rows(battles)
        in_play = self.on_bf if rows_mask is None else self.on_bf & rows_mask
        dies = in_play & (self.toughness <= 0)
        destroy = in_play & ~dies & (self.marked >= self.toughness)
        loses = ~self.lost & (self.life <= 0)
        if battles is not None:
            loses &= battles[self.player_battle]
        checked = battles if battles is not None else np.ones(self.nb, np.bool_)
        check = BatchStateCheck(checked, destroy, dies, loses)
        self.run_systems("state-based-actions", check)
        destroy = check.destroy & ~check.dies
        if destroy.any():
            destroy = self.destroy(destroy)
        dead = np.flatnonzero((destroy | check.dies) & self.on_bf)
        if dead.size:
            self.leave(dead)
        losing = np.flatnonzero(check.loses & ~self.lost)
        if losing.size:
            self.players_lose(losing)
        return dead

    def destroy(self, creatures: BoolArray) -> BoolArray:
        """Row mask of creatures about to be destroyed, less those a system exempts (701.8)."""
        destruction = BatchDestruction(creatures)
        self.run_systems("destroy", destruction)
        kept: BoolArray = destruction.creatures
        return kept

    def players_lose(self, losing: IntArray) -> None:
        """Players lose (704.5a); unless the game is over, they leave with their creatures and
        creatures attacking them are removed from combat (800.4a)."""
        self.lost[losing] = True
        if self.remaining is None:
            self.remaining = np.bincount(self.player_battle[~self.lost], minlength=self.nb)
        else:
            np.subtract.at(self.remaining, self.player_battle[losing], 1)
        self.game_over = self.remaining < 2
        leaving = losing[~self.game_over[self.player_battle[losing]]]
        if not leaving.size:
            return
        gone = np.zeros(len(self.life), np.bool_)
        gone[leaving] = True
        self.leave(np.flatnonzero(self.on_bf & gone[self.controller]))
        attackers = np.flatnonzero(self.att)
        hit = attackers[gone[self.attacking[attackers]]]
        self.att[hit] = False
        self.in_combat[hit] = self.blocking[hit]

    def leave(self, rows: IntArray) -> None:
        """Creatures leave the battlefield, and so combat (506.4)."""
        self.on_bf[rows] = False
        self.remove_from_combat(rows)

    def remove_from_combat(self, rows: IntArray) -> None:
        """No longer attacking or blocking (506.4); a blocked attacker stays blocked.
        (`attacking` keeps the player it attacked: it is read only where `att` holds.)"""
        self.att[rows] = False
        self.blocking[rows] = False
        self.in_combat[rows] = False

    def end_of_combat(self, battles: BoolArray) -> None:
        """The end of combat step (511): the plugins' delayed triggers."""
        self.run_systems("end-of-combat", BatchEndOfCombat(battles))

    # -- events ---------------------------------------------------------------------------------

    def events_at(self, point: int, why: SmallArray) -> None:
        """The events at a point, round by round; state-based actions after each."""
        b = self.batch
        for rows in self.rounds[point]:
            battle = b.event_battle[rows]
            skip = why[battle]
            skip = np.where((skip == HAPPENED) & self.game_over[battle], GAME_ENDED, skip)
            self.ev_skip[rows] = skip
            go = rows[skip == HAPPENED]
            if go.size:
                self.apply_events(go)
                battles = self._battles(go, b.event_battle)
                self.refresh(battles)
                self.state_based_actions(battles)

    def apply_events(self, rows: IntArray) -> None:
        """Apply one event in each of some battles (CONTRACT.md section 1)."""
        b = self.batch
        action = b.event_action[rows]
        target = b.event_target[rows]
        code = ACTION_CODE
        enter = action == code["enter"]
        if enter.any():
            t = target[enter]
            self.writable("entered")
            self.writable("attacking")
            self.on_bf[t] = True
            self.entered[t] = True
            # 506.3b-c: it attacks only if the attacking player controls it and the player it
            # would attack is still in the game.
            player = b.event_player[rows[enter]]
            active = np.searchsorted(self.player_battle, self.battle[t])
            attacks = (self.controller[t] == active) & ~self.lost[player]
            self.attacking[t] = np.where(attacks, player, -1)
            self.att[t] = attacks
            self.in_combat[t] = attacks
        to_player = (action == code["damage"]) & (target < 0)
        if to_player.any():
            self.life[-1 - target[to_player]] -= b.event_amount[rows[to_player]]
        cast = action == code["cast"]
        if cast.any():
            self.cast(rows[cast])
        creature = ~enter & ~to_player & ~cast
        creature &= self.on_bf[np.where(creature, target, 0)]
        if not creature.any():
            return
        for name in (
            "grant",
            "remove",
            "counters",
            "pump",
            "damage",
            "remove-from-combat",
            "destroy",
        ):
            sel = creature & (action == code[name])
            if sel.any():
                self._apply(name, rows[sel], target[sel])

    def _apply(self, action: str, rows: IntArray, t: IntArray) -> None:
        """One kind of event on creatures still on the battlefield."""
        b = self.batch
        if action == "grant":
            self.kw_base[t] |= b.event_keywords[rows].astype(self.kt)
            self.update_own(t)
            given = np.flatnonzero(np.isin(b.event_instance_event, rows))
            if given.size:  # the events' instances, after the rows' earlier ones
                target = b.event_target[b.event_instance_event[given]]
                self._add_instances(
                    target, b.event_instance_keyword[given], b.event_instance_parameter[given]
                )
        elif action == "remove":
            kws = b.event_keywords[rows].astype(self.kt)
            self.kw_base[t] &= ~kws
            if self.kw_counter is not None:
                self.kw_counter[t] &= ~kws
            if self.removed is None:
                self.removed = np.zeros(self.n, self.kt)
            self.removed[t] |= kws
            self.update_own(t)
            if self.inst_row.size:  # every instance of a removed keyword goes
                gone = np.zeros(self.n, self.kt)
                gone[t] = kws
                bits = (np.ones(1, self.kt) << self.inst_kw.astype(self.kt)).astype(self.kt)
                keep = (gone[self.inst_row] & bits) == 0
                self.inst_row = self.inst_row[keep]
                self.inst_kw = self.inst_kw[keep]
                self.inst_param = self.inst_param[keep]
        elif action == "counters":
            if b.event_counters is None:  # no counter changes at all
                return
            self.change_counters(t, b.event_counters[rows])
        elif action == "pump":
            self.writable("power")
            self.writable("toughness")
            self.power[t] += b.event_power[rows]
            self.toughness[t] += b.event_toughness[rows]
        elif action == "damage":
            self.marked[t] += b.event_amount[rows]
        elif action == "remove-from-combat":
            self.remove_from_combat(t)
        elif action == "destroy":
            self.refresh(self._battles(rows, b.event_battle))
            about = np.zeros(self.n, np.bool_)
            about[t] = True
            self.leave(np.flatnonzero(self.destroy(about)))

    def _add_instances(self, rows: IntArray, keywords: IntArray, params: IntArray) -> None:
        """Add keyword instances after each row's earlier ones."""
        row = np.concatenate([self.inst_row, rows])
        order = np.argsort(row, kind="stable")
        self.inst_row = row[order]
        self.inst_kw = np.concatenate([self.inst_kw, keywords])[order]
        self.inst_param = np.concatenate([self.inst_param, params])[order]

    def change_counters(self, t: IntArray, change: IntArray) -> None:
        """Change counters of rows `t` (distinct) by `change` [len(t), counter columns]: a
        count never goes below 0; keyword counters give their keyword (122.1b); the others
        change power and toughness while on the creature (122.1a)."""
        if self.counts is None:
            self.counts = np.zeros((self.n, len(self.batch.counter_names)), I64)
        if self.kw_counter is None:
            self._counters_begin()
        assert self.kw_counter is not None
        k = len(self.m.names)
        before = self.counts[t]
        counts = np.maximum(before + change, 0)
        self.counts[t] = counts
        gained = _bits_of(change[:, :k] > 0).astype(self.kt)
        kept = _bits_of(counts[:, :k] > 0).astype(self.kt)
        self.kw_counter[t] = (self.kw_counter[t] | gained) & kept
        self.update_own(t)
        if len(self.counter_pt) > k:
            gives = (counts - before) @ self.counter_pt
            if gives.any():
                self.pump(t, gives[:, 0], gives[:, 1])

    def cast(self, rows: IntArray) -> None:
        """Cast cards; each checks its target as it resolves (608.2b) and resolves once per
        card and round, over all its legal targets at once."""
        b = self.batch
        t = b.event_target[rows]
        caster = b.event_player[rows]
        legal = self.on_bf[t].copy()
        if self.static and legal.any():
            self.refresh(self._battles(rows[legal], b.event_battle))
        cards = [self.reg.card(name) for name in b.card_names]
        card_colors = [0 if c is None else color_mask(c.colors) for c in cards]
        spell_colors = np.asarray(card_colors, I64)[b.event_card[rows]]
        targets = _RowSide(self, t, self.controller[t] != caster, spell_colors)
        for restriction in self.reg.restrictions_of("target"):
            legal &= np.asarray(restriction.test(targets), np.bool_)
        card_index = b.event_card[rows]
        attacking = self.att[t]
        blocking = self.blocking[t]
        for ci in np.unique(card_index).tolist():
            card = self.reg.card(b.card_names[ci])
            assert card is not None  # checked when the run began
            ok = legal & (card_index == ci)
            rule = card.target
            if rule.caster_controls:
                ok &= self.controller[t] == caster
            if rule.blocking_or_blocked:
                ok &= blocking | (attacking & self.blocked[t])
            elif rule.in_combat:
                ok &= attacking | blocking
            if ok.any():
                card.resolve(_CardTargets(self, t[ok], caster[ok]))

    # -- output ---------------------------------------------------------------------------------

    def outcome(self) -> BatchOutcome:
        """The final state as arrays."""
        return BatchOutcome(
            alive=self.on_bf,
            damage=self.marked,
            power=self.power,
            toughness=self.toughness,
            life=self.life,
            lost=self.lost,
            died_in_step=self.died,
            damage_to_players=self.to_players,
            entered=self.entered,
            steps_taken=self.steps_taken,
        )

    def results(self) -> list[CombatResult]:
        """One :class:`CombatResult` per battle, as the reference engine gives it."""
        assert self.log is not None
        return _Results(self, self.log).build()


def _distinct_runs(values: IntArray, starts: IntArray, n: int) -> bool:
    """Whether no value of `values` (rows below `n`) comes back after its run ends."""
    firsts = values[starts]
    if bool(np.all(firsts[1:] > firsts[:-1])):  # ascending runs: none comes back
        return True
    return int(np.count_nonzero(np.bincount(values, minlength=n))) == len(starts)


def _concat(parts: Sequence[IntArray]) -> IntArray:
    """The arrays end to end."""
    if len(parts) == 1:
        return parts[0]
    return np.concatenate(parts) if parts else np.zeros(0, I64)


def _mask_type(bits: int) -> type[np.unsignedinteger[Any]]:
    """The narrowest unsigned integer type with at least `bits` bits."""
    for kind in (np.uint8, np.uint16, np.uint32):
        if bits <= np.iinfo(kind).bits:
            return kind
    return np.uint64


class RowGroups:
    """Runs of contiguous rows with one owner each: an attacker's blocks, a blocker's blocks."""

    def __init__(self, owner_of_row: IntArray, new: BoolArray) -> None:
        """`new` marks the first row of each run."""
        self.start = np.flatnonzero(new)
        self.size = len(self.start)
        self.last = np.append(self.start[1:] - 1, len(new) - 1)
        self.owner = owner_of_row[self.start]
        self.row_group: IntArray = np.cumsum(new)
        self.row_group -= 1

    @classmethod
    def of(cls, owner_of_row: IntArray) -> RowGroups:
        """The runs of equal owners."""
        new = np.empty(len(owner_of_row), np.bool_)
        new[:1] = True
        np.not_equal(owner_of_row[1:], owner_of_row[:-1], out=new[1:])
        return cls(owner_of_row, new)


@dataclass(frozen=True)
class _Flow:
    """Damage assigned: source rows, recipients (creature row or ``-1 - player_row``),
    amounts, and each one's place among its source's recipients (the reference's order)."""

    source: IntArray
    recipient: IntArray
    amount: IntArray
    place: IntArray | int

    def without(self, sources: BoolArray) -> _Flow:
        """The flow less what some sources assign."""
        keep = ~sources[self.source]
        place = self.place if isinstance(self.place, int) else self.place[keep]
        return _Flow(self.source[keep], self.recipient[keep], self.amount[keep], place)

    def places(self) -> IntArray:
        """The places as an array."""
        if isinstance(self.place, int):
            return np.full(len(self.source), self.place, I64)
        return self.place

    @staticmethod
    def empty() -> _Flow:
        """No damage."""
        none = np.zeros(0, I64)
        return _Flow(none, none, none, 0)


def _run_starts(values: IntArray) -> IntArray:
    """Indices where a new run of equal values begins."""
    if values.size == 0:
        return np.zeros(0, I64)
    out: IntArray = np.flatnonzero(np.concatenate(([True], values[1:] != values[:-1])))
    return out


def _starts_mask(n: int, starts: IntArray) -> IntArray:
    """1 at each run start, 0 elsewhere (cumsum - 1 gives each row its run number)."""
    out = np.zeros(n, I64)
    out[starts] = 1
    return out


class _View:
    """:class:`ecs_combat.plugin.views.BatchView` of a run, for static-keyword hooks."""

    def __init__(self, run: _Run) -> None:
        self.run = run

    def has(self, keyword: str) -> BoolArray:
        """Creatures on the battlefield whose own keywords include `keyword`."""
        bit = self.run.m.bit.get(normalize_keyword(keyword))
        if bit is None:
            return np.zeros(self.run.n, np.bool_)
        out: BoolArray = self.run.on_bf & ((self.run.own & self.run.kt(bit)) != 0)
        return out

    def name_keys(self) -> list[str]:
        """Each row's creature name."""
        return self.run.names()

    def block_pairs(self) -> tuple[IntArray, IntArray]:
        """(blocker rows, attacker rows) of every block still in effect."""
        run = self.run
        if not run.blocks_declared or not run.nblocks:
            empty = np.zeros(0, I64)
            return empty, empty
        in_effect = run.blocking[run.bb] & run.att[run.ba]
        return run.bb[in_effect], run.ba[in_effect]

    @property
    def rows(self) -> int:
        """The number of creature rows."""
        return self.run.n


class _RowSide:
    """Some creature rows as a restriction sees them (:class:`ecs_combat.plugin.restrictions.Side`)."""

    def __init__(
        self, run: _Run, rows: IntArray, opponent: BoolArray, spell_colors: IntArray
    ) -> None:
        self.run = run
        self.rows = rows
        self.opponent = opponent
        self.spell_colors = spell_colors

    def has(self, keyword: str) -> BoolArray:
        out: BoolArray = self.run.has(keyword)[self.rows]
        return out

    def values(self, keyword: str) -> IntArray:
        """Its instances' parameters: colors as a bit mask, numbers added up."""
        rows, params = self.run.instances(keyword)
        given = params >= 0
        out = np.zeros(self.run.n, I64)
        kw = self.run.reg.keyword(keyword)
        if kw is not None and kw.parameter == "color":
            np.bitwise_or.at(out, rows[given], np.left_shift(1, params[given]))
        else:
            np.add.at(out, rows[given], params[given])
        result: IntArray = out[self.rows]
        return result

    @property
    def colors(self) -> IntArray:
        out: IntArray = np.asarray(self.run.colors, I64)[self.rows]
        return out

    @property
    def power(self) -> IntArray:
        out: IntArray = self.run.power[self.rows]
        return out


class _CardTargets:
    """:class:`ecs_combat.plugin.views.EffectTarget` for the batched engine: one element per cast."""

    def __init__(self, run: _Run, targets: IntArray, casters: IntArray) -> None:
        self.run = run
        self.targets = targets
        self.casters = casters

    def _where(self, where: Any) -> BoolArray:
        return np.broadcast_to(np.asarray(where, dtype=np.bool_), self.targets.shape)

    def state(self, key: str) -> AnyArray:
        """A plugin's state of each target creature."""
        return self.run.creature_states[key][self.targets]

    def caster_state(self, key: str) -> AnyArray:
        """A plugin's state of each card's caster."""
        return self.run.player_states[key][self.casters]

    def related(self, key: str) -> BoolArray:
        """Whether each target's creature reference `key` names a creature on the battlefield."""
        other = self.run.creature_states[key][self.targets]
        out: BoolArray = (other >= 0) & self.run.on_bf[np.maximum(other, 0)]
        return out

    def pump(self, power: int, toughness: int, where: Any = True, via: str | None = None) -> None:
        """+power/+toughness until end of turn, where `where` holds (to the creature the
        target's state `via` names, with `via`)."""
        w = self._where(where)
        rows = self.targets
        if via is not None:
            w = w & self.related(via)
            rows = self.run.creature_states[via][self.targets]
        self.run.pump(rows[w], power, toughness)

    def grant(self, keyword: str, where: Any = True) -> None:
        """The targets where `where` holds gain `keyword` until end of turn."""
        bit = self.run.m.bit.get(normalize_keyword(keyword))
        if bit is None:
            raise RefusedError(f"a card gives {keyword!r}, which has no bit in the batch")
        rows = self.targets[self._where(where)]
        self.run.kw_base[rows] |= self.run.kt(bit)
        self.run.update_own(rows)

    def note(self, text: str, where: Any = True) -> None:
        """Words for the readable account; the batched engine keeps none."""


class _Results:
    """Turns a run's arrays and log into the reference engine's :class:`CombatResult` objects."""

    def __init__(self, run: _Run, log: _Log) -> None:
        self.run = run
        self.log = log
        b = run.batch
        self.cids = b.creature_ids or [f"creature row {i}" for i in range(run.n)]
        self.pids = b.player_ids or [f"player row {i}" for i in range(len(run.life))]
        self.step_names = [p.name for p in run.plans]
        self.points = [DECLARE_BLOCKERS, *(f"after {s}" for s in self.step_names)]
        self._reasons: dict[tuple[int, int, int, int], str] = {}  # strike reasons, computed once
        self.ev_skip: list[int] = run.ev_skip.tolist()
        self.ev_point: list[int] = b.event_point.tolist()
        self.ev_action: list[int] = b.event_action.tolist()
        if b.event_index is not None:
            self.ev_index: list[int] = b.event_index.tolist()
        else:  # place among the battle's events
            starts = np.searchsorted(b.event_battle, b.event_battle)
            self.ev_index = (np.arange(len(b.event_battle)) - starts).tolist()

    def _by_battle(
        self, battle: IntArray, keys: Sequence[IntArray], columns: Sequence[IntArray]
    ) -> list[list[tuple[int, ...]]]:
        """Rows sorted by battle then `keys` (most significant first), grouped per battle."""
        out: list[list[tuple[int, ...]]] = [[] for _ in range(self.run.nb)]
        if battle.size == 0:
            return out
        order = np.lexsort([*reversed(keys), battle])
        cols = [c[order].tolist() for c in columns]
        for b, *values in zip(battle[order].tolist(), *cols, strict=True):
            out[b].append(tuple(values))
        return out

    def _cat(self, parts: list[IntArray] | list[BoolArray] | list[MaskArray], dtype: Any) -> Any:
        return np.concatenate(parts) if parts else np.zeros(0, dtype)

    def build(self) -> list[CombatResult]:
        run, log = self.run, self.log
        battle = run.battle
        # damage: (step, source, place, recipient, amount)
        d_step = self._cat([np.full(len(x[1]), x[0], I64) for x in log.damage], I64)
        d_src = self._cat([x[1] for x in log.damage], I64)
        d_rec = self._cat([x[2] for x in log.damage], I64)
        d_amt = self._cat([x[3] for x in log.damage], I64)
        d_pos = self._cat([np.asarray(x[4], I64) for x in log.damage], I64)
        damage = self._by_battle(
            battle[d_src], [d_step, d_src, d_pos], [d_step, d_src, d_rec, d_amt]
        )
        g_step = self._cat([np.full(len(x[2]), x[0], I64) for x in log.gains], I64)
        g_player = self._cat([x[1] for x in log.gains], I64)
        g_src = self._cat([x[2] for x in log.gains], I64)
        g_amt = self._cat([x[3] for x in log.gains], I64)
        gains = self._by_battle(battle[g_src], [g_step, g_src], [g_step, g_player, g_src, g_amt])
        x_step = self._cat([np.full(len(x[1]), x[0], I64) for x in log.died], I64)
        x_row = self._cat([x[1] for x in log.died], I64)
        died = self._by_battle(battle[x_row], [x_step, x_row], [x_step, x_row])
        s_step = self._cat([np.full(len(x[1]), x[0], I64) for x in log.strikes], I64)
        s_row = self._cat([x[1] for x in log.strikes], I64)
        s_deals = self._cat([x[2] for x in log.strikes], np.bool_)
        s_kw = self._cat([x[3] for x in log.strikes], U64)
        s_before = self._cat([x[4] for x in log.strikes], U64)
        s_power = self._cat([x[5] for x in log.strikes], I64)
        strikes = self._by_battle(
            battle[s_row], [s_step, s_row], [s_step, s_row, s_deals, s_kw, s_before, s_power]
        )

        c_start = np.searchsorted(battle, np.arange(run.nb + 1)).tolist()
        p_start = np.searchsorted(run.player_battle, np.arange(run.nb + 1)).tolist()
        ev_start = np.searchsorted(run.batch.event_battle, np.arange(run.nb + 1)).tolist()
        alive, marked = run.on_bf.tolist(), run.marked.tolist()
        power, toughness = run.power.tolist(), run.toughness.tolist()
        entered = run.entered.tolist()
        life, lost = run.life.tolist(), run.lost.tolist()
        counter_names = run.batch.counter_names
        counts = None if run.counts is None else run.counts.tolist()
        reg = run.reg
        c_shown = {
            k: run.creature_states[k].tolist()
            for k, f in reg.state_fields("creature").items()
            if f.output
        }
        p_shown = {
            k: run.player_states[k].tolist()
            for k, f in reg.state_fields("player").items()
            if f.output
        }
        taken = run.steps_taken.T.tolist()
        out: list[CombatResult] = []
        for b in range(run.nb):
            res = CombatResult()
            steps: dict[int, StepResult] = {}
            for s, name in enumerate(self.step_names):
                if taken[b][s]:
                    steps[s] = StepResult(name)
                    res.steps.append(steps[s])
            for s, src, rec, amt in damage[b]:
                rid = self.pids[-1 - rec] if rec < 0 else self.cids[rec]
                steps[s].damage.append((self.cids[src], rid, amt))
            for s, player, src, amt in gains[b]:
                steps[s].life_gained.append((self.pids[player], self.cids[src], amt))
            for s, row in died[b]:
                steps[s].died.append(self.cids[row])
            for s, row, deals, kw, before, pw in strikes[b]:
                steps[s].strikes.append(self._strike(s, row, bool(deals), kw, before, pw))
            for row in range(c_start[b], c_start[b + 1]):
                if entered[row]:
                    res.creatures[self.cids[row]] = CreatureOutcome(
                        alive=alive[row],
                        damage=marked[row],
                        power=power[row],
                        toughness=toughness[row],
                        counters={}
                        if counts is None
                        else {
                            k: n for k, n in zip(counter_names, counts[row], strict=True) if n > 0
                        },
                        state={k: v[row] for k, v in c_shown.items()},
                    )
            for p in range(p_start[b], p_start[b + 1]):
                res.players[self.pids[p]] = PlayerOutcome(
                    life=life[p], lost=lost[p], state={k: v[p] for k, v in p_shown.items()}
                )
            res.skipped_events = self._skipped(ev_start[b], ev_start[b + 1])
            out.append(res)
        return out

    def _strike(
        self, s: int, row: int, deals: bool, kw: int, before: int, power: int
    ) -> StrikeNote:
        """Why a combatant did or did not deal damage, in the reference engine's words."""
        key = (s, kw, before, min(power, 1) if power > 0 else power)
        why = self._reasons.get(key)
        if why is None:
            plan = self.run.plans[s]
            earlier = [name for i, name in enumerate(self.step_names) if before >> i & 1]
            dealt, why = plan.deals(self.run.m.decode(kw), earlier)
            if dealt and power <= 0:
                why = f"{why}, but its power is {power}: it assigns no damage (510.1a)"
            self._reasons[key] = why
        return StrikeNote(self.cids[row], deals, why)

    def _skipped(self, start: int, end: int) -> list[SkippedEvent]:
        """The battle's events that did not happen, in the order the reference lists them."""
        skip, index = self.ev_skip, self.ev_index
        rows = [e for e in range(start, end) if skip[e] != HAPPENED]
        if rows and skip[rows[0]] == NO_ATTACKERS:  # all of them, in file order
            rows.sort(key=lambda e: index[e])
        out = []
        for e in rows:
            point, code = self.ev_point[e], skip[e]
            if code == NO_ATTACKERS:
                reason = _NO_ATTACKERS_REASON
            elif code == GAME_ENDED:
                reason = _GAME_ENDED_REASON
            else:
                reason = f"the {self.step_names[point - 1]} step did not take place"
            out.append(
                SkippedEvent(index[e], self.points[point], EVENT_ACTIONS[self.ev_action[e]], reason)
            )
        return out
