"""The batched engine: many combats at once, as numpy structure-of-arrays.

It plays exactly the reference engine's combat (:mod:`ecs_combat.reference.engine`), but over
whole arrays: one row per creature, player, block, division or event of every battle. The only
Python loops are over the registry's damage steps, the points of the combat, event rounds (the
n-th event of every battle at a point at once) and trigger rounds. Keywords are bits of a mask
over the keywords the batch uses; the damage steps come from the step plans, and everything a
keyword does from its plugin's systems, called once per point per batch with arrays (cards once
per card and event round), so no keyword is known by name here. :mod:`.damage` and
:mod:`.events` hold the damage steps and the events; this module the run, its declarations,
triggers and state-based actions, and what plugins call.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from ecs_combat.batched import damage, events, returns
from ecs_combat.batched.arrays import (
    ACTION_CODE,
    BatchOutcome,
    BoolArray,
    CombatBatch,
    IntArray,
    MaskArray,
    StepDivisions,
)
from ecs_combat.batched.context import BatchedContext
from ecs_combat.batched.from_scenarios import scenarios_to_batch
from ecs_combat.batched.masks import KeywordMasks
from ecs_combat.batched.numeric import (
    _bits_of,
    _distinct_runs,
    _mask_type,
    _run_starts,
    _starts_mask,
)
from ecs_combat.batched.results import GAME_ENDED, HAPPENED, NO_ATTACKERS, NO_STEP, _Log, _Results
from ecs_combat.batched.views import _View
from ecs_combat.errors import EcsCombatError, InputError, PluginError, RefusedError
from ecs_combat.plugin.definitions import normalize_keyword
from ecs_combat.plugin.registry import Registry, ScheduledSystem
from ecs_combat.plugin.schedule import (
    POINT_NAMES,
    BatchAttackDeclaration,
    BatchBlockDeclaration,
    BatchDeaths,
    BatchDestruction,
    BatchEndOfCombat,
    BatchStateCheck,
    BatchTriggers,
)
from ecs_combat.rules.legality import lethal_damage_message
from ecs_combat.rules.pipeline import plan_steps
from ecs_combat.rules.result import (
    CombatResult,
)
from ecs_combat.scenario.model import Scenario

if TYPE_CHECKING:
    from ecs_combat.batched.turn import TurnBatch
    from ecs_combat.rules.result import TurnResult
    from ecs_combat.scenario.turns import TurnScenario

I64 = np.int64
U64 = np.uint64
#: Where instances no keyword list names (counters', static abilities') sort among a row's.
UNLISTED = 1 << 30
SmallArray = npt.NDArray[np.int8]
AnyArray = npt.NDArray[Any]


class BatchedEngine:
    """Resolves many combats at once with numpy, with the reference engine's results."""

    name = "batched"

    def __init__(self, registry: Registry) -> None:
        self.registry = registry
        self.plans = plan_steps(registry)
        self._masks: dict[tuple[str, ...], KeywordMasks] = {}
        #: The static-keyword hook caller and the systems per point of a run, by keyword
        #: bit layout and keywords used (:class:`_Run`).
        self._reasons: dict[tuple[str, ...], dict[tuple[int, int, int, int], str]] = {}
        self._scheduled: dict[
            tuple[tuple[str, ...], int], tuple[Any, dict[str, list[ScheduledSystem]]]
        ] = {}

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

    def as_blockers_are_declared(self, batch: CombatBatch) -> _Run:
        """The batch being played, its attackers declared and their triggers resolved, the
        creatures' keywords as they are then (its blocks and divisions not read yet)."""
        run = _Run(self, batch, record=False)
        run.declare_attackers()
        run.refresh(None)
        return run

    def resolve_batch_with_divisions(
        self, batch: CombatBatch
    ) -> tuple[BatchOutcome, list[StepDivisions]]:
        """:meth:`resolve_batch`, and for each damage step that took place how its dealers
        could have divided their damage (in the order the steps happened)."""
        played = self.play_batch(batch, record=False)
        return played.outcome, played.divisions

    def play_batch(self, batch: CombatBatch, record: bool) -> Played:
        """:meth:`resolve_batch_with_divisions`, as a :class:`Played`; with `record`, its
        log is kept for the results of chosen battles (:meth:`Played.results`)."""
        run = _Run(self, batch, record=record)
        run.divisions = []
        run.play()
        run.raise_error()
        return Played(run)

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

    def resolve_turns(self, turns: Sequence[TurnScenario]) -> list[TurnResult]:
        """Resolve turns with several combat phases as one run (:mod:`.turn`); results
        identical to the reference engine's."""
        from ecs_combat.batched.turn import resolve_turns

        return resolve_turns(self, turns)

    def resolve_turn_batch(self, turns: TurnBatch) -> BatchOutcome:
        """Resolve many turns given as arrays (bulk simulations, :mod:`.turn`); the state at
        the end of each turn's last combat phase."""
        from ecs_combat.batched.turn import resolve_turn_batch

        return resolve_turn_batch(self, turns)


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
        # the hooks and systems depend on the keywords used only: made once for each
        key = (self.m.names, used)
        scheduled = engine._scheduled.get(key)
        if scheduled is None:
            scheduled = engine._scheduled[key] = (self._static_hook(used), self._systems(used))
        self.static_hook = scheduled[0]
        #: The plugins' systems that apply to this batch, per point.
        self.systems = scheduled[1]
        #: Why a combatant deals damage or not, by step, keywords, steps struck in before
        #: and power (above 0, or as it is): computed once per keyword layout (results).
        self.reasons = engine._reasons.setdefault(self.m.names, {})
        #: Plugins' per-creature columns (:meth:`column`).
        self.columns: dict[str, AnyArray] = {}
        #: What the plugins' systems and triggered abilities see of this batch.
        self.context = BatchedContext(self)
        self.log = _Log() if record else None
        #: What each step's dealers could divide, when asked for (decision search).
        self.divisions: list[StepDivisions] | None = None
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
        #: Requirements triggers made (509.1c): (blocker rows, attacker rows, keyword).
        self.required_blocks: list[tuple[IntArray, IntArray, str]] = []
        #: Keyword instances with their parameters (printed, then granted), by row.
        self.inst_row = batch.instance_row
        self.inst_kw = batch.instance_keyword
        self.inst_param = batch.instance_parameter
        #: What the batch put onto the battlefield: a returning creature starts from it (400.7).
        self.born_power = np.asarray(batch.power, I64)
        self.born_toughness = np.asarray(batch.toughness, I64)
        self.born_keywords = self.kw_base.copy()
        self.born_inst_row, self.born_inst_kw, self.born_inst_param = (
            batch.instance_row,
            batch.instance_keyword,
            batch.instance_parameter,
        )
        #: Tokens (111.1), once they enter: they never come back (111.8).
        self.token = np.zeros(n, np.bool_)
        #: Power plus toughness of each row as it last returned to the battlefield, or -1.
        self.returned = np.full(n, -1, I64)
        #: While triggers resolve: row mask of the creatures that returned as new objects since
        #: they were put on the stack (400.7); what those triggers do to them does nothing.
        self.new_objects: BoolArray | None = None
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
        self.tapped = (
            np.zeros(n, np.bool_) if batch.tapped is None else batch.tapped.astype(np.bool_)
        )
        #: The keywords that let attackers assign excess to the player this step, for errors.
        self._excess_by: list[tuple[str, Any]] = []
        self.died = np.zeros(n, np.bool_)
        self._mark = np.zeros(n, np.bool_)  # scratch, all False between uses
        # players and battles
        self.player_battle = batch.player_battle
        #: Each battle's active (attacking) player row: the first player, unless a turn's
        #: combat phase belongs to another (:mod:`.turn`).
        self.active = np.searchsorted(self.player_battle, np.arange(nb))
        #: Key path of the combat in error messages (``combats[1]`` in a turn).
        self.combat_path = "combat"
        self.life = batch.life.astype(I64, copy=True)
        self.lost = np.zeros(batch.n_players, np.bool_)
        self.remaining: IntArray | None = None  # players still in each battle, once one lost
        self.game_over = np.zeros(nb, np.bool_)
        self.has_attack = np.zeros(nb, np.bool_)
        self.to_players = np.zeros(nb, I64)
        self.dealt_to_players = np.zeros(batch.n_creatures, I64)
        self.life_gained = np.zeros(batch.n_creatures, I64)
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
        if b.event_card.size:
            used |= self._card_bits(b.event_card[b.event_action == ACTION_CODE["cast"]])
        for name, why in self.m.refused.items():
            if used & self.m.bit[name]:
                raise RefusedError(why)
        return used

    def _card_bits(self, card_indices: IntArray) -> int:
        """The bits of the keywords some cards (indices into `card_names`) may grant; a card
        or keyword the batch can't hold is refused."""
        used = 0
        names = self.batch.card_names
        for ci in np.unique(card_indices).tolist():
            card = self.reg.card(names[ci])
            if card is None:
                raise RefusedError(f"no card {names[ci]!r} in the card library")
            for kw in card.keywords:
                if kw not in self.m.bit:
                    raise RefusedError(f"{card.name} gives {kw!r}, which has no bit in the batch")
                used |= self.m.bit[kw]
        return used

    def _systems(self, used: int) -> dict[str, list[ScheduledSystem]]:
        """The plugins' systems that apply to a batch using keywords `used`, per point."""
        return {
            point: [
                s
                for s in self.reg.systems_at(point)
                if not s.system.keywords
                or any(used & self.m.bit.get(k, 0) for k in s.system.keywords)
            ]
            for point in POINT_NAMES
        }

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

    def _battles_with(self, creatures: BoolArray) -> BoolArray:
        """Battles with at least one of some creatures (a row mask)."""
        out = np.zeros(self.nb, np.bool_)
        out[self.battle[creatures.nonzero()[0]]] = True
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

    def types(self) -> IntArray:
        """Each row's card types besides creature, as bit masks (0 without them)."""
        types = self.batch.types
        if types is None or len(types) != self.n:
            return np.zeros(self.n, I64)
        return types

    def lands(self) -> IntArray:
        """Each player row's land types, as bit masks (0 without them)."""
        lands = self.batch.player_lands
        if lands is None or len(lands) != len(self.life):
            return np.zeros(len(self.life), I64)
        return lands

    def column(self, name: str, dtype: Any) -> AnyArray:
        """A plugin's per-creature column, zeros until first written; kept for the batch."""
        col = self.columns.get(name)
        if col is None:
            col = self.columns[name] = np.zeros(self.n, dtype)
        return col

    def targets(self, keyword: str) -> tuple[IntArray, IntArray, IntArray]:
        """(source rows, instance, target rows) of the targets the batch gives a keyword."""
        b = self.batch
        name = normalize_keyword(keyword)
        if name not in b.keyword_names:
            return np.zeros(0, I64), np.zeros(0, I64), np.zeros(0, I64)
        sel = b.target_keyword == b.keyword_names.index(name)
        return b.target_source[sel], b.target_instance[sel], b.target_row[sel]

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
        """Players (rows, may repeat) lose life (not damage, 119.3); not those who have left
        the game (800.4a)."""
        here = ~self.lost[players]
        if not here.all():
            players = players[here]
            amount = _kept(amount, here)
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
        """+power/+toughness until end of turn for some rows; nothing for rows that have left
        the battlefield (400.7: the effect can't find them)."""
        here = self.on_bf[rows]
        if not here.all():
            rows = rows[here]
            power = _kept(power, here)
            toughness = _kept(toughness, here)
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
                result = batched(self.context, payload)
                named = scheduled.system.keywords
                for group in triggers[before:] if triggers is not None else ():
                    group.plugin = scheduled.plugin
                    if not group.keyword and len(named) == 1:
                        group.keyword = next(iter(named))
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
            events.events_at(self, 0, np.where(ha, HAPPENED, NO_ATTACKERS).astype(np.int8))
        for s, plan in enumerate(self.plans):
            act = ha & ~self.game_over
            happen = np.zeros(self.nb, np.bool_)
            if act.any():
                self.refresh(act)
                happen = act if plan.step.default else act & damage.step_exists(self, s)
                if happen.any():
                    damage.damage_step(self, s, happen)
            self.steps_taken[s] = happen
            if self.rounds[s + 1]:  # why an event after the step would not happen
                why = np.where(ha, np.where(act, HAPPENED, GAME_ENDED), NO_ATTACKERS)
                why = np.where(act & ~happen, NO_STEP, why)
                events.events_at(self, s + 1, why.astype(np.int8))
        self.end_of_combat(ha & ~self.game_over)

    def declare(self) -> None:
        """Declare attackers and blockers (508, 509)."""
        self.declare_attackers()
        self.check_blocks()
        # A block of or by a creature that left the battlefield or combat before blocks (the
        # attack triggers, a player leaving the game) is not declared (509.1a).
        declared = self.on_bf[self.bb] & self.att[self.ba]
        if self.nblocks:
            self.blocking[self.bb[declared]] = True
            self.in_combat[self.bb[declared]] = True
        self.blocks_declared = True
        self.refresh(None)
        if self.has_attack.any():
            blocking = BatchBlockDeclaration(self.bb[declared], self.ba[declared])
            self.run_systems("declare-blockers", blocking)
            self.resolve_triggers(blocking.triggers)

    def declare_attackers(self) -> None:
        """Declare attackers and resolve their triggers (508, 508.2): the combat as blockers
        are declared."""
        self._check_marked_damage()
        att = self.att.copy()
        self.has_attack = self._battles_with(att)
        self.in_combat |= att
        self.refresh(None)
        declaration = BatchAttackDeclaration(att, att.copy())
        self.run_systems("declare-attackers", declaration)
        self.tapped = self.tapped | declaration.taps  # tapped earlier in the turn stay tapped
        self.resolve_triggers(declaration.triggers)  # 508.2

    def check_blocks(self) -> None:
        """Check the blocks as they are declared (a turn's combat phases do; one combat's
        were checked as the scenario was loaded)."""

    def resolve_triggers(self, groups: list[BatchTriggers]) -> None:
        """Resolve triggered abilities as the reference engine does (APNAP order, 603.3b; one
        source's in the order its keyword instances are listed; state-based actions after
        each): round r resolves the r-th trigger of every battle, one call per kind of
        trigger; a trigger whose source left the battlefield still resolves (113.7a)."""
        groups = [g for g in groups if len(g.source)]
        if not groups:
            return
        source = np.concatenate([np.asarray(g.source, I64) for g in groups])
        instance = np.concatenate([np.asarray(g.instance, I64) for g in groups])
        kind = np.concatenate([np.full(len(g.source), i, I64) for i, g in enumerate(groups)])
        local = np.concatenate([np.arange(len(g.source), dtype=I64) for g in groups])
        keyword = np.concatenate(
            [np.full(len(g.source), self._keyword_index(g.keyword), I64) for g in groups]
        )
        listed = self.listed_at(source, keyword, instance)
        battle = self.battle[source]
        seats = np.bincount(self.player_battle, minlength=self.nb)[battle]
        rank = (self.controller[source] - self.active[battle]) % seats  # from the active player
        order = np.lexsort((local, kind, listed, source, -rank, battle))
        starts = _run_starts(battle[order])
        position = np.arange(len(order)) - np.repeat(starts, np.diff(np.append(starts, len(order))))
        self.new_objects = np.zeros(self.n, np.bool_)
        try:
            for r in range(int(position.max()) + 1):
                now = order[position == r]
                now = now[~self.game_over[battle[now]]]
                if not now.size:
                    continue
                self.context.stale = self.new_objects.copy() if self.new_objects.any() else None
                try:
                    for k in np.unique(kind[now]).tolist():
                        self._resolve_group(groups[k], local[now[kind[now] == k]])
                finally:
                    self.context.stale = None
                battles = self._battles_with_rows(battle[now])
                self.refresh(battles)
                self.state_based_actions(battles)
        finally:
            self.new_objects = None

    def _resolve_group(self, group: BatchTriggers, index: IntArray) -> None:
        """Some triggers of one kind resolve (at most one in each battle)."""
        taken = group.take(index)
        try:
            group.resolve(self.context, taken)
        except EcsCombatError:
            raise
        except Exception as exc:  # a plugin's bug, reported by name
            raise PluginError(
                f"plugin {group.plugin!r}: a triggered ability (batched) raised "
                f"{type(exc).__name__}: {exc}"
            ) from exc

    def _keyword_index(self, keyword: str) -> int:
        """A keyword's index in the batch's keyword names, or -1."""
        bit = self.m.bit.get(normalize_keyword(keyword)) if keyword else None
        return -1 if bit is None else bit.bit_length() - 1

    def listed_at(self, rows: IntArray, keywords: IntArray, instances: IntArray) -> IntArray:
        """Where each row's `instances`-th instance of keyword index `keywords` is in its list
        of keyword instances (printed, then granted), as the reference engine's ``listed_at``:
        instances no list names come after every listed one."""
        out = UNLISTED + instances
        n_inst = len(self.inst_row)
        if not n_inst:
            return out
        k = max(len(self.m.names), 1)
        entry = np.arange(n_inst, dtype=I64)
        in_row = entry - np.searchsorted(self.inst_row, self.inst_row)  # place in its row
        key = self.inst_row * k + self.inst_kw
        by_key = np.argsort(key, kind="stable")
        keys = key[by_key]
        want = rows * k + keywords
        at = np.searchsorted(keys, want) + instances
        found = (keywords >= 0) & (at < n_inst)
        at = np.where(found, at, 0)
        found &= keys[at] == want
        return np.where(found, in_row[by_key[at]], out)

    def _battles_with_rows(self, battles_of: IntArray) -> BoolArray:
        """Battle mask of some battle numbers."""
        out = np.zeros(self.nb, np.bool_)
        out[battles_of] = True
        return out

    def _check_marked_damage(self) -> None:
        """A creature can't start the combat with lethal damage marked unless nothing
        destroys it (704.5g): an input error, as the reference engine says it."""
        printed = np.asarray(self.batch.toughness, I64)  # as the scenario gives it
        lethal = self.entered & (self.toughness > 0) & (self.marked >= self.toughness)  # 704.5g
        if not lethal.any():
            return
        b = self.batch
        for row in np.flatnonzero(self.destroy(lethal)).tolist():
            battle = int(self.battle[row])
            file = b.battle_files[battle] if b.battle_files is not None else f"battle {battle}"
            damage, toughness = int(self.marked[row]), int(self.toughness[row])
            message = lethal_damage_message(damage, toughness, int(printed[row]))
            self.fail(battle, InputError(file, f"creatures.{self.cid(row)}.damage", message))

    def state_based_actions(self, battles: BoolArray | None) -> IntArray:
        """704.5a, f, g and the plugins' conditions, in some battles (all if None): creatures
        die, players lose; the `dies` systems follow, and the state-based actions are checked
        again after them (704.3) in the battles where creatures died, until a check finds
        nothing that dies. Returns who died, in row order."""
        dead = self._check_state(battles)
        died = dead
        while dead.size and self.systems["dies"]:
            dead = self._check_state(self._battles_with_rows(self.battle[dead]))
            died = np.union1d(died, dead)
        return died

    def creatures_died(self, rows: IntArray) -> None:
        """The `dies` systems for creatures that just died (700.4), in battles whose game goes
        on."""
        if not self.systems["dies"]:
            return
        rows = rows[~self.game_over[self.battle[rows]]]
        if not rows.size:
            return
        mask = np.zeros(self.n, np.bool_)
        mask[rows] = True
        self.run_systems("dies", BatchDeaths(mask))
        back = rows[self.on_bf[rows]]  # what returned, as it returned (RULES 9: value)
        self.returned[back] = self.power[back] + self.toughness[back]
        if back.size:
            self.refresh(self._battles_with_rows(self.battle[back]))

    def sacrifice(self, rows: IntArray) -> None:
        """Rows are sacrificed (701.17): they die (700.4); state-based actions are checked
        after the `dies` systems (704.3) in their battles."""
        rows = rows[self.on_bf[rows]]
        if not rows.size:
            return
        self.leave(rows)
        self.creatures_died(rows)
        if self.systems["dies"]:
            self.state_based_actions(self._battles_with_rows(self.battle[rows]))

    def return_to_battlefield(self, rows: IntArray) -> None:
        """Rows that died return as new objects (:mod:`ecs_combat.batched.returns`)."""
        returns.return_to_battlefield(self, rows)

    def became_sick(self, rows: IntArray) -> None:
        """Rows came under their controller's control (302.6): a turn's later combat phases
        read it."""

    def forget_flags(self) -> None:
        """Forget the cached keyword flags after keywords changed."""
        self._flags.clear()

    def _check_state(self, battles: BoolArray | None) -> IntArray:
        """One check of the state-based actions (704.3), then the `dies` systems."""
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
        dead = ((destroy | check.dies) & self.on_bf).nonzero()[0]
        if dead.size:
            self.leave(dead)
        losing = (check.loses & ~self.lost).nonzero()[0]
        if losing.size:
            self.players_lose(losing)
        if dead.size:
            self.creatures_died(dead)
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
            dealt_to_players=self.dealt_to_players,
            life_gained=self.life_gained,
            entered=self.entered,
            steps_taken=self.steps_taken,
            player_state=self.player_states,
            returned=self.returned,
        )

    def results(
        self, battles: Sequence[int] | None = None, notes: bool = True
    ) -> list[CombatResult]:
        """One :class:`CombatResult` per battle (of some distinct `battles`, in that order),
        as the reference engine gives it (without `notes`: no ``StepResult.strikes``)."""
        assert self.log is not None
        return _Results(self, self.log).build(battles, notes)


class Played:
    """A batch played through (:meth:`BatchedEngine.play_batch`)."""

    def __init__(self, run: _Run) -> None:
        self._run = run
        self.outcome = run.outcome()
        #: How each damage step's dealers could have divided their damage.
        self.divisions: list[StepDivisions] = run.divisions or []

    @property
    def recorded(self) -> bool:
        return self._run.log is not None

    def results(self, battles: Sequence[int], notes: bool = True) -> list[CombatResult]:
        """The results of some distinct battles, in that order, as :meth:`resolve_many`
        gives them (the batch must have been played with `record`, and should name its
        creatures and players); without `notes`, without the readable account's notes on
        who strikes (``StepResult.strikes``, which the JSON document leaves out)."""
        return self._run.results(battles, notes)


def _kept(values: IntArray | int, keep: BoolArray) -> IntArray | int:
    """Per-row values (or one for all) for the rows a mask keeps."""
    if isinstance(values, int) or np.ndim(values) == 0:
        return values
    out: IntArray = np.asarray(values)[keep]
    return out
