"""Copies of battles' boards as a new batch, for candidate combats (decisions).

A *board* is a battle's players, creatures, keyword instances, plugins' state and events: all of
a :class:`CombatBatch` but the declarations. :func:`copy_boards` copies chosen battles' boards
into a new batch (one battle may be copied many times), with every row reference moved to the
copy's rows; :func:`tile_boards` copies a run of consecutive battles several times over, which
takes whole slices of every array instead of gathering rows (several times faster). Either way
each copy then gets its own attacks, blocks and explicit divisions
(:func:`~ecs_combat.batched.boards.with_declarations`). Everything is array work: no Python
loop over battles.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from ecs_combat.batched.arrays import CombatBatch, IntArray
from ecs_combat.batched.boards import OwnedRows, Rows, Segments, replaced

I64 = np.int64
_A = TypeVar("_A", bound=npt.NDArray[Any])


@dataclass(frozen=True)
class Copies:
    """Copies of boards as a batch (:func:`copy_boards`), with each copy's first rows."""

    batch: CombatBatch
    creature_start: IntArray  #: [n_battles] first creature row of each copy
    player_start: IntArray  #: [n_battles] first player row of each copy
    creature_row: IntArray  #: [N] the source row of each creature row
    player_row: IntArray  #: [P] the source row of each player row
    #: When the creature rows are copies of one run of source rows (:func:`tile_boards`).
    creature_run: _Take | None = None

    def of_creatures(self, values: _A) -> _A:
        """The copies' rows of a column of the source's creature rows."""
        if self.creature_run is not None:
            return self.creature_run(values)
        return values[self.creature_row]  # type: ignore[return-value]

    def segments(self) -> Rows:
        """The copies' players and creatures grouped by battle (no instances or targets)."""
        return Rows(
            Segments.starting(self.player_start, len(self.player_row)),
            Segments.starting(self.creature_start, len(self.creature_row)),
        )


@dataclass(frozen=True)
class _Take:
    """How the copies take the rows of one table (creatures, players, instances...): a
    gather of the source rows `rows`, or `times` copies of the source rows ``lo:hi``."""

    rows: IntArray | None
    lo: int = 0
    hi: int = 0
    times: int = 1

    def __call__(self, values: _A) -> _A:
        """The copies' rows of a column of the table."""
        if self.rows is not None:  # take: faster than indexing by an array
            return values.take(self.rows, axis=0)  # type: ignore[return-value]
        part = values[self.lo : self.hi]
        if self.times == 1:
            return part.copy()  # type: ignore[return-value]
        return np.concatenate([part] * self.times)  # type: ignore[return-value]

    def moved(self, refs: IntArray, shift: IntArray, keep_none: bool = True) -> IntArray:
        """The copies' rows of a column of row references, each moved by `shift` (per copied
        row for a gather, per copy for a run); with `keep_none`, -1 (none) stays -1."""
        if self.rows is not None:
            taken = refs.take(self.rows)
            out: IntArray = (
                np.where(taken >= 0, taken + shift, taken) if keep_none else taken + shift
            )
            return out
        part = refs[self.lo : self.hi]
        by_copy = shift[:, None] * (part >= 0) if keep_none else shift[:, None]
        out = (part[None, :] + by_copy).reshape(-1)
        return out

    def listed(self, values: list[str]) -> list[str]:
        """The copies' rows of a list."""
        if self.rows is not None:
            out: list[str] = np.asarray(values, dtype=object)[self.rows].tolist()
            return out
        return values[self.lo : self.hi] * self.times


@dataclass(frozen=True)
class _Plan:
    """Which source rows make the copies' rows, table by table, and what moves a reference
    to a source row of a battle into its copy: to creature rows (``c_*``), player rows
    (``p_*``), event rows (``e_*``), per copied row of the table named (gathers) or per copy
    (runs: :class:`_Take` ``moved``)."""

    n_battles: int
    creatures: _Take
    players: _Take
    instances: _Take
    targets: _Take
    battle: IntArray  #: [N] each new creature row's battle
    player_battle: IntArray  #: [P]
    c_on_creature: IntArray
    p_on_creature: IntArray
    c_on_instance: IntArray
    c_on_target: IntArray


@dataclass(frozen=True)
class _EventPlan:
    """The same for the events and the instances `grant` events give."""

    events: _Take
    instances: _Take
    battle: IntArray
    c_on_event: IntArray
    p_on_event: IntArray
    e_on_instance: IntArray


def copy_boards(
    batch: CombatBatch,
    battles: IntArray,
    creature_refs: tuple[str, ...],
    rows: Rows | None = None,
) -> Copies:
    """A batch whose battle ``i`` is a copy of ``batch``'s battle ``battles[i]``: players,
    creatures (attacking as in the source), instances, targets, plugins' state and events; no
    blocks and no divisions; with the copies' first rows. `creature_refs` are the creature state
    keys that hold creature rows; `rows` are ``Rows.of(batch)``, if known."""
    battles = np.asarray(battles, I64)
    rows = rows or Rows.of(batch)
    players, creatures = rows.players, rows.creatures
    prow, pcopy, pstart = players.gather(battles)
    crow, ccopy, cstart = creatures.gather(battles)
    # what to add to a reference to a row of the source battle, per copy
    p_shift = pstart - players.start[battles]
    c_shift = cstart - creatures.start[battles]
    inst = _rows_of(batch.instance_row, crow, batch.n_creatures, rows.instances)
    aims = _rows_of(batch.target_source, crow, batch.n_creatures, rows.targets)
    plan = _Plan(
        len(battles),
        _Take(crow),
        _Take(prow),
        _Take(inst[0]),
        _Take(aims[0]),
        ccopy,
        pcopy,
        np.arange(len(crow), dtype=I64) - crow,
        p_shift[ccopy],
        c_shift[ccopy[inst[1]]],
        c_shift[ccopy[aims[1]]],
    )
    events = None
    if len(batch.event_battle):
        segments = Segments.of(batch.event_battle, batch.n_battles)
        erow, ecopy, estart = segments.gather(battles)
        ev_inst = _rows_of(batch.event_instance_event, erow, len(batch.event_battle))
        e_shift = estart - segments.start[battles]
        events = _EventPlan(
            _Take(erow),
            _Take(ev_inst[0]),
            ecopy,
            c_shift[ecopy],
            p_shift[ecopy],
            e_shift[ecopy[ev_inst[1]]],
        )
    return Copies(_copied(batch, plan, events, creature_refs), cstart, pstart, crow, prow)


def tile_boards(
    batch: CombatBatch,
    lo: int,
    hi: int,
    times: int,
    creature_refs: tuple[str, ...],
    rows: Rows | None = None,
) -> Copies:
    """``copy_boards(batch, np.tile(np.arange(lo, hi), times), ...)``: battles ``lo:hi``
    copied `times` over (battle ``t * (hi - lo) + i`` is a copy of battle ``lo + i``), made
    from whole slices of the source arrays. `rows`: ``Rows.by_battle(batch)``, if known."""
    rows = rows or Rows.by_battle(batch)
    c = _Run.of(rows.creatures.start, batch.n_creatures, lo, hi, times)
    p = _Run.of(rows.players.start, batch.n_players, lo, hi, times)
    battle = _Run(lo, hi, times)  # of the battles themselves
    # child tables are ordered by their owner rows: a run of owners has a run of theirs
    inst = _Run.owned(batch.instance_row, c)
    aims = _Run.owned(batch.target_source, c)
    # references move by a copy's first row minus its source's, the same for a whole copy
    c_on, p_on, b_on = c.shift, p.shift, battle.shift
    plan = _Plan(
        (hi - lo) * times,
        c.take,
        p.take,
        inst.take,
        aims.take,
        c.take.moved(batch.battle, b_on, keep_none=False),
        p.take.moved(batch.player_battle, b_on, keep_none=False),
        c_on, p_on, c_on, c_on,
    )  # fmt: skip
    events = None
    if len(batch.event_battle):
        e = _Run.owned(batch.event_battle, battle)
        grants = _Run.owned(batch.event_instance_event, e)
        events = _EventPlan(
            e.take, grants.take, e.take.moved(batch.event_battle, b_on, keep_none=False),
            c_on, p_on, e.shift,
        )  # fmt: skip
    first = battle.take
    return Copies(
        _copied(batch, plan, events, creature_refs),
        first.moved(rows.creatures.start, c_on, keep_none=False),
        first.moved(rows.players.start, p_on, keep_none=False),
        np.tile(np.arange(c.lo, c.hi, dtype=I64), times),
        np.tile(np.arange(p.lo, p.hi, dtype=I64), times),
        c.take,
    )


@dataclass(frozen=True)
class _Run:
    """A run of consecutive rows ``lo:hi`` of one table, copied `times` over."""

    lo: int
    hi: int
    times: int

    @staticmethod
    def of(start: IntArray, size: int, lo: int, hi: int, times: int) -> _Run:
        """The rows of battles ``lo:hi`` (`start`: each battle's first row; `size` rows)."""
        end = int(start[hi]) if hi < len(start) else size
        return _Run(int(start[lo]) if lo < hi else end, end, times)

    @staticmethod
    def owned(owner: IntArray, owners: _Run) -> _Run:
        """The rows of a child table (`owner`: each one's owner row, ascending) whose owners
        are the rows of `owners`."""
        lo, hi = owner.searchsorted([owners.lo, owners.hi]).tolist()
        return _Run(lo, hi, owners.times)

    @property
    def take(self) -> _Take:
        return _Take(None, self.lo, self.hi, self.times)

    @property
    def shift(self) -> IntArray:
        """Per copy: what moves a reference to one of the run's source rows into the copy."""
        return np.arange(self.times, dtype=I64) * (self.hi - self.lo) - self.lo


def _copied(
    batch: CombatBatch,
    plan: _Plan,
    events: _EventPlan | None,
    creature_refs: tuple[str, ...],
) -> CombatBatch:
    """The copies of :func:`copy_boards` as `plan` and `events` take them."""
    take, c_on = plan.creatures, plan.c_on_creature
    p_on = plan.p_on_creature
    state = {
        k: (take.moved(v, c_on) if k in creature_refs else take(v))
        for k, v in batch.creature_state.items()
    }
    out = replaced(
        batch,
        n_battles=plan.n_battles,
        player_battle=plan.player_battle,
        life=plan.players(batch.life),
        battle=plan.battle,
        controller=take.moved(batch.controller, p_on, keep_none=False),
        power=take(batch.power),
        toughness=take(batch.toughness),
        damage=take(batch.damage),
        keywords=take(batch.keywords),
        colors=take(batch.colors),
        attacking=take.moved(batch.attacking, p_on),
        band=None if batch.band is None else take.moved(batch.band, c_on),
        present=take(batch.present),
        types=None if batch.types is None else take(batch.types),
        player_lands=None if batch.player_lands is None else plan.players(batch.player_lands),
        tapped=None if batch.tapped is None else take(batch.tapped),
        block_blocker=np.zeros(0, I64),
        block_attacker=np.zeros(0, I64),
        block_rank=np.zeros(0, I64),
        counters=None if batch.counters is None else take(batch.counters),
        creature_state=state,
        player_state={k: plan.players(v) for k, v in batch.player_state.items()},
        instance_row=plan.instances.moved(batch.instance_row, plan.c_on_instance),
        instance_keyword=plan.instances(batch.instance_keyword),
        instance_parameter=plan.instances(batch.instance_parameter),
        target_source=plan.targets.moved(batch.target_source, plan.c_on_target),
        target_keyword=plan.targets(batch.target_keyword),
        target_instance=plan.targets(batch.target_instance),
        target_row=plan.targets.moved(batch.target_row, plan.c_on_target),
        division_step=np.zeros(0, I64),
        division_source=np.zeros(0, I64),
        division_recipient=np.zeros(0, I64),
        division_amount=np.zeros(0, I64),
        creature_ids=None,
        # names decide some keywords (alpha strike), so each copy keeps its creatures'
        creature_names=None if batch.creature_names is None else take.listed(batch.creature_names),
        player_ids=None,
        division_index=None,
        battle_files=None,
    )
    return out if events is None else _with_events(out, batch, events)


def _with_events(out: CombatBatch, batch: CombatBatch, events: _EventPlan) -> CombatBatch:
    """The copies `out` with the events of `batch` copied as `events` takes them."""
    e = events.events
    # a player as target is -1 - its row: it moves the other way
    on_player = e.moved(batch.event_target, -events.p_on_event, keep_none=False)
    on_creature = e.moved(batch.event_target, events.c_on_event, keep_none=False)
    return replaced(
        out,
        event_battle=events.battle,
        event_point=e(batch.event_point),
        event_action=e(batch.event_action),
        event_target=np.where(e(batch.event_target) < 0, on_player, on_creature),
        event_keywords=e(batch.event_keywords),
        event_counters=None if batch.event_counters is None else e(batch.event_counters),
        event_instance_event=events.instances.moved(
            batch.event_instance_event, events.e_on_instance
        ),
        event_instance_keyword=events.instances(batch.event_instance_keyword),
        event_instance_parameter=events.instances(batch.event_instance_parameter),
        event_power=e(batch.event_power),
        event_toughness=e(batch.event_toughness),
        event_amount=e(batch.event_amount),
        event_player=e.moved(batch.event_player, events.p_on_event),
        event_card=e(batch.event_card),
        event_token=None
        if batch.event_token is None
        else e.moved(batch.event_token, events.c_on_event),
        event_index=None if batch.event_index is None else e(batch.event_index),
    )


def _rows_of(
    owner: IntArray, taken: IntArray, n_owners: int, owned: OwnedRows | None = None
) -> tuple[IntArray, IntArray]:
    """Rows of a child table (instances of creatures, of events) whose owner rows are copied
    as `taken`: the child rows in the copies' order, and the place in `taken` of each one's
    owner. Child rows of one owner are contiguous and ordered by owner; `owned` is
    ``OwnedRows.of(owner, n_owners)``, if known."""
    if len(owner) == 0:
        return np.zeros(0, I64), np.zeros(0, I64)
    owned = owned or OwnedRows.of(owner, n_owners)
    per = owned.count[taken]
    place = np.arange(len(taken), dtype=I64).repeat(per)
    first = per.cumsum() - per
    within = np.arange(len(place), dtype=I64) - first[place]
    return owned.order[owned.start[taken][place] + within], place
