"""Each distinct board of a batch decided once (``decisions = "optimal"`` in bulk, RULES
section 9).

A battle's best attack, blocks and divisions are a function of its board alone: its players'
life and state, its creatures (controller, power, toughness, damage, keywords and their
instances, colors, counters, state, which may attack, which are the attacking player's), in
row order. The search reads nothing of another battle and nothing random. So battles whose
boards are equal, column for column (row references taken within the battle), get the same
declarations: :func:`distinct_boards` numbers a batch's boards over arrays (one padded row of
integers per battle, hashed to one number, :func:`numpy.unique` over those, and every row
compared with its board's first: a hash shared by two boards merges none), the first battle of each board is
decided, and :func:`spread` gives every battle its board's declarations, moved to its rows.

Only what the key covers may differ between battles: a batch with anything else a battle may
hold (targets, tokens, sacrifices, `value` keys, bands, events, names, a plugin's state that
is not a number) is refused (None: every battle is decided), as is a key wider than
:data:`KEY_CELLS` cells in all, so the key's memory stays bounded whatever the batch.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

import numpy as np
import numpy.typing as npt

from ecs_combat.batched import (
    BoolArray,
    CombatBatch,
    Copies,
    Declarations,
    IntArray,
    Rows,
    row_ranges,
)
from ecs_combat.plugin.registry import Registry

I64 = np.int64
#: The most integers the key of a batch may hold (8 bytes each: 256 MB).
KEY_CELLS = 1 << 25
#: Columns of a batch in the key, by rows.
_CREATURE = ("controller", "power", "toughness", "damage", "keywords", "colors", "attacking")
_CREATURE_MORE = ("present", "counters", "creature_state")
_PLAYER = ("player_battle", "life", "player_state")
_INSTANCES = ("instance_row", "instance_keyword", "instance_parameter")
#: Not read by the search (replaced by its declarations), the same for every battle, or rows.
_NOT_KEYED = (
    "n_battles", "keyword_names", "counter_names", "battle", "block_blocker",
    "block_attacker", "block_rank", "division_step", "division_source", "division_recipient",
    "division_amount", "division_index", "card_names",
)  # fmt: skip
_KNOWN = frozenset((*_CREATURE, *_CREATURE_MORE, *_PLAYER, *_INSTANCES, *_NOT_KEYED))


@dataclass(frozen=True)
class Distinct:
    """A batch's battles by board: the first battle of each distinct board (ascending), and
    each battle's board (an index into `first`)."""

    first: IntArray
    board: IntArray


def distinct_boards(
    batch: CombatBatch, attacking_side: BoolArray, rows: Rows, registry: Registry
) -> Distinct | None:
    """The batch's battles numbered by board, or None when the batch holds what the key does
    not cover, the key would be too large, or no board is drawn twice."""
    nb = batch.n_battles
    if nb < 2 or not _keyable(batch):
        return None
    creatures, players = rows.creatures, rows.players
    p_of_c = players.start[batch.battle]
    ccols = [
        batch.controller - p_of_c,
        batch.power,
        batch.toughness,
        batch.damage,
        batch.keywords.view(I64),
        batch.colors,
        np.where(batch.attacking >= 0, batch.attacking - p_of_c, -1),
        batch.present,
        attacking_side,
    ]
    if batch.counters is not None:
        ccols.extend(batch.counters.T)
    pcols: list[npt.NDArray[Any]] = [batch.life]
    for owner, state in (("creature", batch.creature_state), ("player", batch.player_state)):
        found = _state_columns(registry, owner, state, batch, rows)
        if found is None:
            return None
        (ccols if owner == "creature" else pcols).extend(found)
    inst_battle = batch.battle[batch.instance_row]
    icols = [
        batch.instance_row - creatures.start[inst_battle],
        batch.instance_keyword,
        batch.instance_parameter,
    ]
    parts = [
        (creatures.count, batch.battle, ccols),
        (players.count, batch.player_battle, pcols),
        (np.bincount(inst_battle, minlength=nb), inst_battle, icols),
    ]
    most = [int(count.max(initial=0)) for count, _, _ in parts]
    if nb * (3 + sum(m * len(p[2]) for m, p in zip(most, parts, strict=True))) > KEY_CELLS:
        return None
    blocks: list[IntArray] = [np.stack([count for count, _, _ in parts], axis=1)]
    for (count, battle, cols), m in zip(parts, most, strict=True):
        if len(battle) == nb * m:  # m rows a battle: the rows as they are
            blocks.append(np.stack(cols, axis=1).astype(I64, copy=False).reshape(nb, -1))
            continue
        block = np.full((nb, m, len(cols)), -(1 << 62), I64)
        place = np.arange(len(battle), dtype=I64) - (np.cumsum(count) - count)[battle]
        block[battle, place] = np.stack(cols, axis=1)
        blocks.append(block.reshape(nb, -1))
    key = np.concatenate(blocks, axis=1)
    _, first, board = np.unique(_hashed(key), return_index=True, return_inverse=True)
    board = board.reshape(-1)
    if len(first) == nb or not np.array_equal(key, key[first[board]]):
        return None  # every board distinct, or two boards of one hash (then none is merged)
    order = np.argsort(first)  # boards by their first battle
    rank = np.empty(len(order), I64)
    rank[order] = np.arange(len(order), dtype=I64)
    return Distinct(first[order].astype(I64), rank[board])


def _hashed(key: IntArray) -> npt.NDArray[np.uint64]:
    """Each row of `key` as one 64-bit number, a sum of its cells times fixed odd numbers
    modulo 2^64 (equal rows, equal numbers; the rows of one number are compared after)."""
    odd = np.random.default_rng(0).integers(0, 1 << 62, key.shape[1], np.uint64) * 2 + 1
    out: npt.NDArray[np.uint64] = key.view(np.uint64) @ odd.astype(np.uint64)
    return out


def _keyable(batch: CombatBatch) -> bool:
    """Whether every column a battle may differ in is one the key covers (the others empty)."""
    for f in fields(batch):
        if f.name in _KNOWN:
            continue
        value = getattr(batch, f.name)
        if value is not None and len(value):
            return False
    return True


def _state_columns(
    registry: Registry,
    owner: str,
    state: dict[str, npt.NDArray[Any]],
    batch: CombatBatch,
    rows: Rows,
) -> list[npt.NDArray[Any]] | None:
    """A plugin state's columns for the key (creature references within the battle), or None
    when one is not integers or booleans."""
    kinds = registry.state_fields(owner)
    out: list[npt.NDArray[Any]] = []
    for name, column in state.items():
        if column.dtype.kind not in "biu":
            return None
        field = kinds.get(name)
        if field is not None and field.kind == "creature":
            battle = batch.battle if owner == "creature" else batch.player_battle
            first = rows.creatures.start[battle]
            column = np.where(column >= 0, column - first, column)
        out.append(column)
    return out


def spread(
    decided: Declarations, copies: Copies, distinct: Distinct, batch: CombatBatch, rows: Rows
) -> Declarations:
    """Every battle's declarations from its board's (`decided`: of `copies`, battle ``k`` a
    copy of battle ``distinct.first[k]``), moved to the battle's rows."""
    creatures, players = rows.creatures, rows.players
    board = distinct.board
    # each creature row: the same place in its board's copy
    place = np.arange(batch.n_creatures, dtype=I64) - creatures.start[batch.battle]
    source = copies.creature_start[board[batch.battle]] + place
    attacks = decided.attacking[source]
    p_shift = players.start - copies.player_start[board]  # per battle
    attacking = np.where(attacks >= 0, attacks + p_shift[batch.battle], -1)
    c_shift = creatures.start - copies.creature_start[board]
    sub_battle = copies.batch.battle
    blocks, block_of = _gathered(sub_battle[decided.block_blocker], board, copies.batch.n_battles)
    divisions, division_of = _gathered(
        sub_battle[decided.division_source], board, copies.batch.n_battles
    )
    recipient = decided.division_recipient[divisions]
    # a player row as -1 - row; below every such number, no recipient (kept as it is)
    player = (recipient < 0) & (recipient >= -len(copies.player_row))
    shift_c, shift_p = c_shift[division_of], p_shift[division_of]
    return Declarations(
        attacking=attacking,
        block_blocker=decided.block_blocker[blocks] + c_shift[block_of],
        block_attacker=decided.block_attacker[blocks] + c_shift[block_of],
        block_rank=decided.block_rank[blocks],
        division_step=decided.division_step[divisions],
        division_source=decided.division_source[divisions] + shift_c,
        division_recipient=np.where(
            player, recipient - shift_p, np.where(recipient >= 0, recipient + shift_c, recipient)
        ),
        division_amount=decided.division_amount[divisions],
    )


def _gathered(owner: IntArray, board: IntArray, n_boards: int) -> tuple[IntArray, IntArray]:
    """For rows of the boards' declarations owned by board `owner` (ascending): each
    battle's rows of its board, battles in order, and each row's battle."""
    if len(owner) and bool(np.any(owner[1:] < owner[:-1])):
        raise ValueError("declarations are not grouped by battle")
    count = np.bincount(owner, minlength=n_boards).astype(I64)
    start = np.cumsum(count) - count
    lo = start[board]
    return row_ranges(lo, lo + count[board])
