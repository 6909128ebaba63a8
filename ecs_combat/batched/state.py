"""The state of a batch being played, as typed structures of arrays: the creature rows, their
keywords and counters (:mod:`.keyword_rows`), the combat's own rows (made anew for each combat
phase), the players and battles; what a run reads and never changes (:class:`Frame`: its
schedule, batch layout and sizes); the input errors found and what is recorded for the
caller. The behaviour over them is in the modules of functions (:mod:`.keywords`,
:mod:`.actions`, :mod:`.combat`, ...), each taking the structures it reads and writes;
:class:`State` bundles them for the functions that run the plugins' code, which may read
and change any of them through the plugins' context."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from ecs_combat.batched.arrays import BoolArray, CombatBatch, IntArray, MaskArray, StepDivisions
from ecs_combat.batched.keyword_rows import KeywordRows
from ecs_combat.batched.log import Log
from ecs_combat.batched.masks import KeywordMasks
from ecs_combat.batched.numeric import as_slice, distinct_runs, run_starts, starts_mask
from ecs_combat.errors import InputError
from ecs_combat.plugin.batch_context import BatchContext
from ecs_combat.plugin.registry import Registry, ScheduledSystem
from ecs_combat.rules.pipeline import StepPlan

I64 = np.int64
U64 = np.uint64
AnyArray = npt.NDArray[Any]


@dataclass(slots=True, eq=False)
class CreatureRows:
    """One row per creature of every battle: what it is and where it is."""

    battle: IntArray
    controller: IntArray
    power: IntArray
    toughness: IntArray
    #: Damage marked on it.
    marked: IntArray
    on_bf: BoolArray
    #: Whether it was ever on the battlefield in the run.
    entered: BoolArray
    tapped: BoolArray
    #: Died in a combat damage step's state-based actions.
    died: BoolArray
    #: Tokens (111.1), once they enter: they never come back (111.8).
    token: BoolArray
    #: Power plus toughness of each row as it last returned to the battlefield, or -1.
    returned: IntArray
    colors: IntArray
    #: The plugins' state of every creature row.
    states: dict[str, AnyArray]
    #: What the batch put onto the battlefield: a returning creature starts from it (400.7).
    born_power: IntArray
    born_toughness: IntArray
    #: Combat damage each row dealt to players, and life its damage gained.
    dealt_to_players: IntArray
    life_gained: IntArray
    #: Arrays still shared with the batch, copied before their first change (:meth:`writable`).
    shared: set[str]
    #: Cached ``power > 0``, None once power changes.
    power_positive: BoolArray | None = None
    #: While triggers resolve: row mask of the creatures that returned as new objects since
    #: they were put on the stack (400.7); what those triggers do to them does nothing.
    new_objects: BoolArray | None = None
    #: While a round of triggers resolves: the rows returned as new objects before it
    #: (:attr:`new_objects` then), or None. To the triggers the rows are gone: not on the
    #: battlefield, and what they would do to them does nothing.
    stale: BoolArray | None = None
    #: The plugins' per-creature columns (``marks``), zeros until first written.
    columns: dict[str, AnyArray] = field(default_factory=dict)
    #: Each row's creature name, once asked for.
    names: list[str] | None = None

    @classmethod
    def of(cls, batch: CombatBatch, gives: IntArray | None) -> CreatureRows:
        """The batch's creatures as it gives them; `gives` the power and toughness their
        counters give ([rows, 2]), if any."""
        n = batch.n_creatures
        power = np.asarray(batch.power, I64)
        toughness = np.asarray(batch.toughness, I64)
        shared = {"power", "toughness", "entered"}
        if gives is not None:
            power, toughness = power + gives[:, 0], toughness + gives[:, 1]
            shared = {"entered"}
        return cls(
            battle=batch.battle,
            controller=batch.controller,
            power=power,
            toughness=toughness,
            marked=batch.damage.astype(I64, copy=True),
            on_bf=batch.present.astype(np.bool_, copy=True),
            entered=np.asarray(batch.present, np.bool_),
            tapped=np.zeros(n, np.bool_) if batch.tapped is None else batch.tapped.astype(np.bool_),
            died=np.zeros(n, np.bool_),
            token=np.zeros(n, np.bool_),
            returned=np.full(n, -1, I64),
            colors=batch.colors,
            states={k: v.copy() for k, v in batch.creature_state.items()},
            born_power=np.asarray(batch.power, I64),
            born_toughness=np.asarray(batch.toughness, I64),
            dealt_to_players=np.zeros(n, I64),
            life_gained=np.zeros(n, I64),
            shared=shared,
        )

    def writable(self, name: str) -> None:
        """Copy an array still shared with the batch (power, toughness, entered) before it
        changes; power's cached sign is forgotten."""
        if name in self.shared:
            self.shared.discard(name)
            setattr(self, name, getattr(self, name).copy())
        if name == "power":
            self.power_positive = None


@dataclass(frozen=True, slots=True)
class BlockIndex:
    """Each creature row's blocks: as an attacker, where they begin and how many there are
    (the blocks are grouped by attacker); as a blocker, its block row or -1. None when the
    blocks are in order (their rows found by binary search instead)."""

    start: IntArray | None
    count: IntArray | None
    as_blocker: IntArray | None
    #: Whether the attackers' groups and the blockers come in the order of their rows.
    in_order: bool


@dataclass(slots=True, eq=False)
class CombatRows:
    """The rows of one combat phase: attackers, blocks, strikers, divisions, events and the
    steps taken. Made anew from the phase's batch as each combat phase begins."""

    #: Player row each creature attacks (read only where `att` holds).
    attacking: IntArray
    #: Whether it is attacking now.
    att: BoolArray
    blocking: BoolArray
    blocked: BoolArray
    in_combat: BoolArray
    #: Dealt combat damage in an earlier step of this combat.
    struck: BoolArray
    #: The steps each row struck in (bit per step), when recording.
    struck_steps: MaskArray | None
    #: Battles with attackers.
    has_attack: BoolArray
    #: [steps, battles] the damage steps that took place.
    steps_taken: BoolArray
    #: Blocks grouped by attacker (declaration order kept): blocker, attacker, rank.
    bb: IntArray
    ba: IntArray
    rank: IntArray
    one_blocker_each: bool
    multi_block: bool
    #: The blockers' view of the blocks (grouped by blocker, in their declared order).
    q: IntArray | None
    #: Division rows per step, grouped by source, and where each source's begin.
    div_rows: list[IntArray]
    div_start: list[IntArray]
    #: Sorted ``blocker * n + attacker`` of the blocks (where divisions are given).
    pair_keys: IntArray
    #: Event rows per point, in rounds: the k-th event of every battle at that point.
    rounds: list[list[IntArray]]
    #: Per event: whether it happened, else why not (:mod:`.results`).
    ev_skip: npt.NDArray[np.int8]
    #: Key path of the combat in error messages (``combats[1]`` in a turn).
    path: str
    #: The phase's batch: its declarations, divisions, events and targets.
    batch: CombatBatch
    #: Whether `attacking` is still the batch's own array.
    attacking_shared: bool
    blocks_declared: bool = False
    #: Requirements triggers made (509.1c): (blocker rows, attacker rows, keyword).
    required_blocks: list[tuple[IntArray, IntArray, str]] = field(default_factory=list)
    #: The keywords that let attackers assign excess to the player this step, for errors.
    excess_by: list[tuple[str, Any]] = field(default_factory=list)
    #: Each creature row's blocks, once asked for (:mod:`.dealers`); forgotten when the
    #: blocks change.
    block_index: BlockIndex | None = None
    #: `bb` and `ba` as slices when they are evenly spaced rows (one-on-one battles).
    bb_at: slice | None = None
    ba_at: slice | None = None
    #: Per player row: how many of its ``sacrifices`` the sacrifices so far have taken
    #: (None: none yet).
    sacrifices_taken: IntArray | None = None
    #: Rows that returned to the battlefield as new objects this combat phase (400.7), or
    #: None if none did: a declared blocker among them does not block (RULES 13, 1.3).
    returned: BoolArray | None = None

    @property
    def nblocks(self) -> int:
        return len(self.bb)

    @classmethod
    def of(cls, batch: CombatBatch, n_steps: int, record: bool, path: str = "combat") -> CombatRows:
        """The combat of a batch: its attackers, blocks (grouped), divisions and events."""
        n, nb = batch.n_creatures, batch.n_battles
        attacking = np.asarray(batch.attacking, I64)
        shared = attacking is batch.attacking
        out = cls(
            attacking=attacking,
            att=attacking >= 0,
            blocking=np.zeros(n, np.bool_),
            blocked=np.zeros(n, np.bool_),
            in_combat=np.zeros(n, np.bool_),
            struck=np.zeros(n, np.bool_),
            struck_steps=np.zeros(n, U64) if record else None,
            has_attack=np.zeros(nb, np.bool_),
            steps_taken=np.zeros((n_steps, nb), np.bool_),
            bb=np.asarray(batch.block_blocker, I64),
            ba=np.asarray(batch.block_attacker, I64),
            rank=np.asarray(batch.block_rank, I64),
            one_blocker_each=True,
            multi_block=False,
            q=None,
            div_rows=[],
            div_start=[],
            pair_keys=np.zeros(0, I64),
            rounds=[[] for _ in range(n_steps + 1)],
            ev_skip=np.zeros(len(batch.event_battle), np.int8),
            path=path,
            batch=batch,
            attacking_shared=shared,
        )
        out.index_blocks(n)
        out.index_divisions(batch, n_steps, n)
        out.index_events(batch, n_steps)
        return out

    def of_blockers(self, values: AnyArray) -> AnyArray:
        """Each block's blocker's value (``values[bb]``; a strided copy, faster than a
        gather, when the blockers are evenly spaced rows)."""
        if self.bb_at is None:
            return values[self.bb]
        return np.ascontiguousarray(values[self.bb_at])

    def of_attackers(self, values: AnyArray) -> AnyArray:
        """Each block's attacker's value (``values[ba]``; a strided copy when evenly
        spaced)."""
        if self.ba_at is None:
            return values[self.ba]
        return np.ascontiguousarray(values[self.ba_at])

    def writable_attacking(self) -> None:
        """Copy `attacking` before it changes, if it is still the batch's."""
        if self.attacking_shared:
            self.attacking = self.attacking.copy()
            self.attacking_shared = False

    def index_blocks(self, n: int) -> None:
        """Group the blocks by attacker (declared order kept); the blockers' own view."""
        self.block_index = None
        self.bb_at = self.ba_at = None
        nblocks = len(self.bb)
        if nblocks == 0:
            return
        starts = run_starts(self.ba)
        if not distinct_runs(self.ba, starts, n):  # group them, keeping declared order
            order = np.argsort(self.ba, kind="stable")
            self.bb, self.ba, self.rank = self.bb[order], self.ba[order], self.rank[order]
            starts = run_starts(self.ba)
        self.bb_at, self.ba_at = as_slice(self.bb), as_slice(self.ba)
        self.blocked[self.ba if self.ba_at is None else self.ba_at] = True
        self.one_blocker_each = len(starts) == nblocks
        blockers = run_starts(self.bb)
        self.multi_block = not (len(blockers) == nblocks and distinct_runs(self.bb, blockers, n))
        if self.multi_block:  # grouped by blocker, in their declared order
            self.q = np.lexsort((self.rank, self.bb))

    def keep_blocks(self, keep: BoolArray, n: int) -> None:
        """Keep only some of the blocks (still grouped by attacker)."""
        self.bb, self.ba, self.rank = self.bb[keep], self.ba[keep], self.rank[keep]
        self.blocked[:] = False
        self.one_blocker_each, self.multi_block, self.q = True, False, None
        self.index_blocks(n)

    def index_divisions(self, batch: CombatBatch, n_steps: int, n: int) -> None:
        """Division rows per step, grouped by source with the scenario's recipient order."""
        if batch.division_step.size == 0:
            return
        order = np.argsort(batch.division_step * max(n, 1) + batch.division_source, kind="stable")
        for s in range(n_steps):
            rows = order[batch.division_step[order] == s]
            self.div_rows.append(rows)
            self.div_start.append(run_starts(batch.division_source[rows]))
        self.pair_keys = np.sort(self.bb * max(n, 1) + self.ba)

    def index_events(self, batch: CombatBatch, n_steps: int) -> None:
        """Event rows per point, in rounds: the k-th event of every battle at that point."""
        e = len(batch.event_battle)
        if e == 0:
            return
        key = batch.event_battle * (n_steps + 1) + batch.event_point
        order = np.argsort(key, kind="stable")
        starts = run_starts(key[order])
        place = np.arange(e) - starts[np.cumsum(starts_mask(e, starts)) - 1]
        point = batch.event_point[order]
        for p in range(n_steps + 1):
            at = point == p
            if not at.any():
                continue
            for k in range(int(place[at].max()) + 1):
                self.rounds[p].append(order[at & (place == k)])


@dataclass(slots=True, eq=False)
class PlayerRows:
    """One row per player of every battle, and the battles' own arrays."""

    #: Each player row's battle.
    battle: IntArray
    life: IntArray
    lost: BoolArray
    #: The plugins' state of every player row.
    states: dict[str, AnyArray]
    #: [battles] whether its game is over.
    game_over: BoolArray
    #: [battles] combat damage dealt to players.
    to_players: IntArray
    #: [battles] players still in each battle, once one lost.
    remaining: IntArray | None = None
    #: Each battle's active (attacking) player row: the first player, unless a turn's
    #: combat phase belongs to another; None until asked for (:meth:`active_rows`).
    active: IntArray | None = None

    def active_rows(self) -> IntArray:
        """Each battle's active player row (the first player's, unless set)."""
        if self.active is None:
            self.active = np.searchsorted(self.battle, np.arange(len(self.game_over)))
        return self.active

    def active_of(self, battles: IntArray) -> IntArray:
        """The active player rows of some battles (looked up for these only while every
        battle's is its first player's)."""
        if self.active is None:
            out: IntArray = np.searchsorted(self.battle, battles)
            return out
        return self.active[battles]

    @classmethod
    def of(cls, batch: CombatBatch) -> PlayerRows:
        nb = batch.n_battles
        return cls(
            battle=batch.player_battle,
            life=batch.life.astype(I64, copy=True),
            lost=np.zeros(batch.n_players, np.bool_),
            states={k: v.copy() for k, v in batch.player_state.items()},
            game_over=np.zeros(nb, np.bool_),
            to_players=np.zeros(nb, I64),
        )


@dataclass(slots=True, eq=False)
class Policy:
    """What a run of turns does differently from one combat (:mod:`.turn`)."""

    #: Check the blocks as they are declared (a turn's combat phases do; one combat's were
    #: checked as the scenario was loaded).
    check_blocks: Callable[[], None] | None = None
    #: Rows came under their controller's control (302.6): a turn's later combat phases
    #: read it.
    became_sick: Callable[[IntArray], None] | None = None
    #: Check lethal damage in the input as attackers are declared (a turn checks it once,
    #: as the turn begins).
    check_marked_damage: bool = True


#: A run of one combat: no policy of a turn.
ONE_COMBAT = Policy()


@dataclass(slots=True, eq=False)
class Schedule:
    """What a run does, fixed by the batch's keyword layout and the keywords it uses."""

    registry: Registry
    plans: list[StepPlan]
    masks: KeywordMasks
    #: Keyword masks' integer type (the narrowest that holds every keyword bit).
    kt: type[np.unsignedinteger[Any]]
    #: The plugins' systems that apply to this batch, per point.
    systems: dict[str, list[ScheduledSystem]]
    #: The static-keyword hook caller, or None.
    static_hook: Any
    #: Why a combatant deals damage or not, by step, keywords, steps struck in before and
    #: power (results; shared by the runs of a keyword layout).
    reasons: dict[tuple[int, int, int, int], str]


@dataclass(frozen=True, slots=True)
class Frame:
    """What a run reads and never changes: its schedule, the batch its rows were laid out
    from (ids, names, counter kinds, cards, files: a turn's combat phases share it; each
    phase's own declarations and events are its :attr:`CombatRows.batch`), its sizes and
    policy."""

    schedule: Schedule
    batch: CombatBatch
    #: Creature rows, battles and damage steps.
    n: int
    nb: int
    n_steps: int
    #: k when battle i's rows are rows ki to ki + k - 1 (:func:`.numeric.rows_per_battle`).
    per_battle: int | None
    policy: Policy

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

    def file_of(self, battle: int) -> str:
        """The file a battle was read from (for errors)."""
        files = self.batch.battle_files
        return files[battle] if files is not None else f"battle {battle}"


@dataclass(slots=True, eq=False)
class Errors:
    """The input error of the first battle (in battle order) found to have one."""

    first: tuple[int, InputError] | None = None

    def fail(self, battle: int, error: InputError) -> None:
        """Record an input error found in a battle; the first battle's error is kept."""
        if self.first is None or battle < self.first[0]:
            self.first = (battle, error)

    def known_before(self, battle: int) -> bool:
        """Whether a battle at or before `battle` already has an error."""
        return self.first is not None and battle >= self.first[0]

    def raise_first(self) -> None:
        """Raise the input error of the first battle that has one."""
        if self.first is not None:
            raise self.first[1]


@dataclass(slots=True, eq=False)
class Records:
    """What a run keeps for its caller as it plays."""

    #: What the run logs for results, when recording.
    log: Log | None
    #: What each step's dealers could divide, when asked for (decision search).
    divisions: list[StepDivisions] | None = None


@dataclass(slots=True, eq=False)
class State:
    """One batch being played: every structure of it. What a function gets when it runs
    the plugins' code (systems, triggered abilities, cards, event actions, static
    abilities), which may read and change any of them through :attr:`context`; every other
    function takes the structures it reads and writes."""

    frame: Frame
    creatures: CreatureRows
    keywords: KeywordRows
    #: The combat phase being played (made anew as each begins).
    combat: CombatRows
    players: PlayerRows
    errors: Errors
    records: Records
    #: What the plugins' systems and triggered abilities see (set as the run starts).
    context: BatchContext = field(init=False)
