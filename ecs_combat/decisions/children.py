"""The children of an expanded node of the decision tree (:mod:`.tree`): one per joint
division of the attacking player times one per reply of the defending player (510.1c-d), as
division rows by places on the node's board.

Nodes whose dividers look the same from their board (:func:`signature`) have the same
children, so they are worked out once per kind (:func:`children_of_kind`, remembered across
searches: they depend on nothing else); the rows of a whole level
are then put together with array work (:func:`level_rows`), with no loop over nodes, and
their values backed up the same way (:func:`best_children`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ecs_combat.batched import BoolArray, IntArray, csr_rows
from ecs_combat.decisions.divisions import (
    Divider,
    StepChoices,
    attacking_divisions,
)
from ecs_combat.decisions.objective import lexicographic_ranks
from ecs_combat.rules.division import default_division

I64 = np.int64


@dataclass(frozen=True)
class Children:
    """The children of one kind of node, child ``a * n_defending + d`` being the attacking
    player's joint division ``a`` answered by the defending player's ``d``."""

    attacking: IntArray  #: [n_attacking, slots] amounts of each joint division
    defending: IntArray  #: [n_defending, slots]
    #: Each child's division rows ([R, 4]: step, source, recipient, amount; by places on the
    #: board, amounts above 0), grouped by child: the attacking player's, then the defending's.
    rows: IntArray
    count: IntArray  #: [n_children] rows of each child
    #: The attacking choice and the defending reply that are the default division (RULES
    #: section 3), or -1.
    default_attacking: int
    default_defending: int
    #: [n_children] the reply each child plays: its own, or, where that reply is illegal
    #: after the child's attacking division (702.19c with 702.22j), the first legal one, so
    #: that every attacking division has ``n_defending`` children and its best reply is the
    #: best legal one.
    replies: IntArray

    @property
    def n(self) -> int:
        return len(self.count)


@dataclass(frozen=True)
class Expanded:
    """Nodes expanded together (their children in one level, consecutive), as arrays."""

    node: IntArray
    first_child: IntArray
    n_attacking: IntArray
    n_defending: IntArray
    default_attacking: IntArray
    default_defending: IntArray
    #: Index of the first of them in :attr:`Tree.expansions`.
    first: int


def signature(choices: StepChoices, cstart: int, pstart: int) -> object:
    """What decides a node's children, by places on its board: its step's dividers and the
    damage fixed on their recipients."""

    def local(d: Divider) -> tuple[object, ...]:
        player = None if d.player is None else d.player - pstart
        recipients = tuple(r - cstart for r in d.recipients)
        return (d.source - cstart, d.power, recipients, player, d.lethal, d.one_is_lethal)

    fixed = tuple(sorted((r - cstart, v) for r, v in choices.fixed.items()))
    return (
        choices.step,
        tuple(local(d) for d in choices.attacking),
        tuple(local(d) for d in choices.defending),
        fixed,
    )


def children(choices: StepChoices, cstart: int, pstart: int) -> Children:
    """The children of a node whose step's dividers are `choices` (creature rows from
    `cstart`, player rows from `pstart`)."""
    att, dfd, legal = attacking_divisions(choices)
    na, nd = len(att.amounts), len(dfd.amounts)
    replies = reply_rows(legal, na, nd)
    if choices.defending:  # every child's amounts, the attacking player's slots first
        amounts = np.concatenate([np.repeat(att.amounts, nd, axis=0), dfd.amounts[replies]], axis=1)
        source = np.concatenate([att.source, dfd.source])
        recipient = np.concatenate([att.recipient, dfd.recipient])
    else:
        amounts, source, recipient = att.amounts, att.source, att.recipient
    child, slot = np.nonzero(amounts)
    rows = np.empty((len(child), 4), I64)
    rows[:, 0] = choices.step
    rows[:, 1] = source[slot] - cstart
    recipient = recipient[slot]
    rows[:, 2] = np.where(recipient < 0, recipient + pstart, recipient - cstart)
    rows[:, 3] = amounts[child, slot]
    out = Children(
        att.amounts,
        dfd.amounts,
        rows,
        np.bincount(child, minlength=na * nd).astype(I64),
        _row_of(att.amounts, default_row(choices.attacking)),
        _row_of(dfd.amounts, default_row(choices.defending)),
        replies,
    )
    for a in (out.attacking, out.defending, out.rows, out.count, out.replies):
        a.setflags(write=False)  # shared by every node of the kind
    return out


#: At most this many kinds of nodes' children are remembered (then forgotten, all at once).
CHILDREN_KEPT = 50_000
#: At most this many bytes of remembered children (then forgotten, all at once): a kind of
#: node with many dividers has hundreds of thousands of children.
CHILDREN_BYTES_KEPT = 1 << 27
#: The children of each kind of node met so far, by :func:`signature`.
_KINDS: dict[object, Children] = {}
_kept_bytes = [0]


def children_of_kind(choices: StepChoices, cstart: int, pstart: int) -> Children:
    """:func:`children`, worked out once per :func:`signature` (which holds all they depend
    on: the same for every board, search and registry)."""
    key = signature(choices, cstart, pstart)
    kind = _KINDS.get(key)
    if kind is None:
        kind = children(choices, cstart, pstart)
        size = sum(
            a.nbytes for a in (kind.attacking, kind.defending, kind.rows, kind.count, kind.replies)
        )
        if len(_KINDS) >= CHILDREN_KEPT or _kept_bytes[0] + size > CHILDREN_BYTES_KEPT:
            _KINDS.clear()
            _kept_bytes[0] = 0
        _KINDS[key] = kind
        _kept_bytes[0] += size
    return kind


def reply_rows(legal: BoolArray | None, na: int, nd: int) -> IntArray:
    """[na * nd] the reply each child ``a * nd + d`` plays: `d` where `legal` (None: all are),
    else the first legal reply to `a` (each `a` has one)."""
    own = np.tile(np.arange(nd, dtype=I64), na)
    if legal is None:
        return own
    first = legal.argmax(axis=1).repeat(nd)
    return np.where(legal.reshape(-1), own, first)


def default_row(dividers: tuple[Divider, ...]) -> list[int]:
    """The amounts of the default division (RULES section 3) of some dividers, slot by slot."""
    out: list[int] = []
    for d in dividers:
        names = [str(r) for r in d.recipients]
        player = None if d.player is None else "player"
        given = default_division(d.power, list(zip(names, d.lethal, strict=True)), player)
        out += [given.get(n, 0) for n in names]
        if player is not None:
            out.append(given.get(player, 0))
    return out


def _row_of(table: IntArray, row: list[int]) -> int:
    """Index of `row` in `table`, or -1."""
    rows: list[list[int]] = table.tolist()
    try:
        return rows.index(row)
    except ValueError:
        return -1


def level_rows(
    div_start: IntArray, div: IntArray, parent: IntArray, count: IntArray, rows: IntArray
) -> tuple[IntArray, IntArray]:
    """The division rows of a new level's nodes (CSR start, [R, 4] rows): each child's
    parent's rows (``parent[i]``'s, in the level whose rows are `div_start`, `div`), then its
    own (`count[i]` of `rows`, grouped by child)."""
    inherited, owner = csr_rows(div_start, parent)
    n_inherited = div_start[parent + 1] - div_start[parent]
    total = n_inherited + count
    start = np.zeros(len(total) + 1, I64)
    np.cumsum(total, out=start[1:])
    out = np.empty((int(start[-1]), 4), I64)
    if len(inherited):
        first = n_inherited.cumsum() - n_inherited
        at = start[:-1][owner] + np.arange(len(owner), dtype=I64) - first[owner]
        out[at] = div[inherited]
    own = np.arange(len(count), dtype=I64).repeat(count)
    first = count.cumsum() - count
    at = start[:-1][own] + n_inherited[own] + np.arange(len(own), dtype=I64) - first[own]
    out[at] = rows.reshape(-1, 4)
    return start, out


def best_children(e: Expanded, values: IntArray, solved: np.ndarray) -> tuple[np.ndarray, IntArray]:
    """Which of some expanded nodes have every child solved, and each one's child on the
    best line (its place among the node's children): the attacking player's division whose
    best reply is highest, against the defending player's lowest reply (scores compared
    term by term), the default division preferred among equals, else the first. `values`
    and `solved` are those of the nodes' children, consecutive."""
    nd, na = e.n_defending, e.n_attacking
    starts = _group_starts(na * nd)
    done: np.ndarray = ~np.logical_or.reduceat(~solved, starts)
    ranks = lexicographic_ranks(values)
    # the defending player's best reply to each attacking choice
    sizes = nd.repeat(na)
    reply_start = _group_starts(sizes)
    owner = np.arange(len(reply_start), dtype=I64).repeat(sizes)
    low = np.minimum.reduceat(ranks, reply_start)
    reply = _first_where(ranks == low[owner], reply_start, owner) - reply_start
    dd = e.default_defending.repeat(na)
    at_dd = ranks[reply_start + np.maximum(dd, 0)]
    reply = np.where((dd >= 0) & (at_dd == low), dd, reply)
    # the attacking player's best choice: the highest of those best replies
    a_start = _group_starts(na)
    a_owner = np.arange(len(na), dtype=I64).repeat(na)
    high = np.maximum.reduceat(low, a_start)
    best = _first_where(low == high[a_owner], a_start, a_owner) - a_start
    da = e.default_attacking
    at_da = low[a_start + np.maximum(da, 0)]
    best = np.where((da >= 0) & (at_da == high), da, best)
    return done, best * nd + reply[a_start + best]


def _group_starts(sizes: IntArray) -> IntArray:
    """First place of each group of consecutive places, groups of `sizes` (all above 0)."""
    out: IntArray = sizes.cumsum() - sizes
    return out


def _first_where(hit: np.ndarray, start: IntArray, owner: IntArray) -> IntArray:
    """Per group (places ``start[g]:`` owned by ``owner == g``), the first place where
    `hit`, which some place of every group is."""
    places = hit.nonzero()[0]
    first = np.ones(len(places), np.bool_)
    first[1:] = owner[places[1:]] != owner[places[:-1]]
    out = np.empty(len(start), I64)
    out[owner[places[first]]] = places[first]
    return out
