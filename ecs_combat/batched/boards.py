"""Battles' rows grouped by battle, declarations given to a batch, and outcomes taken from
one: what the decision search and bulk simulations need around the boards they copy
(:mod:`.board_copies`).

A *board* is a battle's players, creatures, keyword instances, plugins' state and events: all of
a :class:`CombatBatch` but the declarations. :func:`with_declarations` gives a batch's battles
their attacks, blocks and explicit divisions; :func:`take_outcomes` takes some battles'
outcomes. Everything is array work: no Python loop over battles.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

import numpy as np

from ecs_combat.batched.arrays import BatchOutcome, CombatBatch, IntArray
from ecs_combat.batched.numeric import row_ranges

I64 = np.int64


@dataclass(frozen=True)
class Segments:
    """Rows of some kind (players, creatures, events) grouped by battle."""

    start: IntArray  #: [n_battles] first row of each battle
    count: IntArray  #: [n_battles] rows of each battle

    @staticmethod
    def of(battle_of_row: IntArray, n_battles: int) -> Segments:
        """The segments of rows whose battles are `battle_of_row` (ascending)."""
        count = np.bincount(battle_of_row, minlength=n_battles).astype(I64)
        start = np.concatenate([[0], count.cumsum()[:-1]]).astype(I64)
        return Segments(start, count)

    def gather(self, battles: IntArray) -> tuple[IntArray, IntArray, IntArray]:
        """For copies of `battles`: the source rows in order, each row's copy, and each
        copy's first new row."""
        lo, count = self.start[battles], self.count[battles]
        rows, copy = row_ranges(lo, lo + count)
        new_start = count.cumsum()
        new_start -= count
        return rows, copy, new_start

    @staticmethod
    def starting(start: IntArray, rows: int) -> Segments:
        """The segments of `rows` rows whose battles begin at `start` (ascending)."""
        count = np.empty(len(start), I64)
        count[:-1] = start[1:] - start[:-1]
        if len(start):
            count[-1] = rows - start[-1]
        return Segments(start, count)


#: The fields of a :class:`CombatBatch`.
_BATCH_FIELDS = frozenset(f.name for f in fields(CombatBatch))


def replaced(batch: CombatBatch, **changes: Any) -> CombatBatch:
    """``dataclasses.replace(batch, **changes)`` without its work per field (a batch checks
    nothing as it is made), for the many small batches of a decision search."""
    unknown = changes.keys() - _BATCH_FIELDS
    if unknown:
        raise TypeError(f"CombatBatch has no fields {sorted(unknown)}")
    out = object.__new__(CombatBatch)
    out.__dict__.update(batch.__dict__)
    out.__dict__.update(changes)
    return out


@dataclass(frozen=True)
class OwnedRows:
    """Rows of a child table (keyword instances, targets) grouped by their owner rows."""

    start: IntArray  #: [owners] where each owner's rows begin in `order`
    count: IntArray  #: [owners] how many each owner has
    order: IntArray  #: the child rows, by owner (each owner's in their order)

    @staticmethod
    def of(owner: IntArray, n_owners: int) -> OwnedRows:
        count = np.bincount(owner, minlength=n_owners).astype(I64)
        start = np.zeros(n_owners, I64)
        np.cumsum(count[:-1], out=start[1:])
        return OwnedRows(start, count, owner.argsort(kind="stable"))


@dataclass(frozen=True)
class Rows:
    """A batch's players and creatures grouped by battle, and its creatures' keyword instances
    and targets by creature (for copying its boards often)."""

    players: Segments
    creatures: Segments
    instances: OwnedRows | None = None
    targets: OwnedRows | None = None

    @staticmethod
    def by_battle(batch: CombatBatch) -> Rows:
        """A batch's players and creatures grouped by battle (no instances or targets)."""
        return Rows(
            Segments.of(batch.player_battle, batch.n_battles),
            Segments.of(batch.battle, batch.n_battles),
        )

    @staticmethod
    def of(batch: CombatBatch) -> Rows:
        return Rows(
            Segments.of(batch.player_battle, batch.n_battles),
            Segments.of(batch.battle, batch.n_battles),
            OwnedRows.of(batch.instance_row, batch.n_creatures),
            OwnedRows.of(batch.target_source, batch.n_creatures),
        )


@dataclass(frozen=True)
class Declarations:
    """Attacks, blocks and explicit divisions for the battles of a batch, by creature rows.

    Blocks are grouped by attacker with each attacker's blockers in declaration order;
    divisions' rows of one (step, source) are contiguous.
    """

    attacking: IntArray  #: [N] player row each creature attacks, or -1
    block_blocker: IntArray
    block_attacker: IntArray
    block_rank: IntArray
    division_step: IntArray
    division_source: IntArray
    division_recipient: IntArray  #: creature row, or ``-1 - player_row``
    division_amount: IntArray


def with_declarations(batch: CombatBatch, d: Declarations) -> CombatBatch:
    """The batch with these attacks, blocks and divisions instead of its own."""
    return replace(
        batch,
        attacking=d.attacking,
        block_blocker=d.block_blocker,
        block_attacker=d.block_attacker,
        block_rank=d.block_rank,
        division_step=d.division_step,
        division_source=d.division_source,
        division_recipient=d.division_recipient,
        division_amount=d.division_amount,
        division_index=None,
    )


def without_blocks(batch: CombatBatch, **changes: Any) -> CombatBatch:
    """The batch with no blocks or divisions, and the `changes`."""
    empty = np.zeros(0, np.int64)
    return replace(
        batch,
        block_blocker=empty,
        block_attacker=empty,
        block_rank=empty,
        division_step=empty,
        division_source=empty,
        division_recipient=empty,
        division_amount=empty,
        division_index=None,
        **changes,
    )


#: An outcome with each creature row's and each player row's battle.
Outcomes = tuple[BatchOutcome, IntArray, IntArray]


def take_outcomes(outcome: BatchOutcome, battle_of_row: IntArray, player_battle: IntArray,
                  battles: IntArray, rows: Rows | None = None) -> Outcomes:  # fmt: skip
    """The outcome of some battles of a batch (creature rows `battle_of_row`, player rows
    `player_battle`; `rows`: their segments, if known), as battles ``0 .. len(battles) - 1``
    in that order."""
    n = len(outcome.damage_to_players)
    creatures = Segments.of(battle_of_row, n) if rows is None else rows.creatures
    players = Segments.of(player_battle, n) if rows is None else rows.players
    crow, ccopy, _ = creatures.gather(battles)
    prow, pcopy, _ = players.gather(battles)
    o = outcome  # ndarray.take: faster than indexing by an array
    taken = BatchOutcome(
        alive=o.alive.take(crow),
        damage=o.damage.take(crow),
        power=o.power.take(crow),
        toughness=o.toughness.take(crow),
        life=o.life.take(prow),
        lost=o.lost.take(prow),
        died_in_step=o.died_in_step.take(crow),
        damage_to_players=o.damage_to_players.take(battles),
        dealt_to_players=None if o.dealt_to_players is None else o.dealt_to_players.take(crow),
        life_gained=None if o.life_gained is None else o.life_gained.take(crow),
        entered=None if o.entered is None else o.entered.take(crow),
        steps_taken=None if o.steps_taken is None else o.steps_taken.take(battles, axis=1),
        player_state=None
        if o.player_state is None
        else {k: v.take(prow) for k, v in o.player_state.items()},
        returned=None if o.returned is None else o.returned.take(crow),
    )
    return taken, ccopy, pcopy


def join_outcomes(parts: list[Outcomes]) -> Outcomes:
    """The outcomes of several batches' battles as one, in order."""
    if len(parts) == 1:
        return parts[0]
    outcomes = [p[0] for p in parts]
    before = np.cumsum([0, *(len(o.damage_to_players) for o in outcomes)])
    first = outcomes[0]

    def joined(name: str) -> Any:
        return np.concatenate([getattr(o, name) for o in outcomes])

    return (
        BatchOutcome(
            alive=joined("alive"),
            damage=joined("damage"),
            power=joined("power"),
            toughness=joined("toughness"),
            life=joined("life"),
            lost=joined("lost"),
            died_in_step=joined("died_in_step"),
            damage_to_players=joined("damage_to_players"),
            dealt_to_players=None if first.dealt_to_players is None else joined("dealt_to_players"),
            life_gained=None if first.life_gained is None else joined("life_gained"),
            entered=None if first.entered is None else joined("entered"),
            steps_taken=None
            if first.steps_taken is None
            else np.concatenate(
                [o.steps_taken for o in outcomes if o.steps_taken is not None], axis=1
            ),
            player_state=None
            if first.player_state is None
            else {
                k: np.concatenate([o.player_state[k] for o in outcomes if o.player_state])
                for k in first.player_state
            },
            returned=None if first.returned is None else joined("returned"),
        ),
        np.concatenate([p[1] + b for p, b in zip(parts, before, strict=False)]).astype(I64),
        np.concatenate([p[2] + b for p, b in zip(parts, before, strict=False)]).astype(I64),
    )


def csr_rows(start: IntArray, groups: IntArray) -> tuple[IntArray, IntArray]:
    """Rows of CSR groups `groups` (group g is rows ``start[g]:start[g + 1]``), in order, and
    each row's place in `groups`."""
    return row_ranges(start[groups], start[groups + 1])
