"""The game tree of block declarations and damage divisions, resolved level by level with the
batched engine (RULES section 9).

A *node* is a candidate combat: a board, a block declaration and the explicit divisions chosen
in the steps before its own. Every node of a level is one battle of one batch: resolved with
the default division in the steps not yet chosen, it is a leaf if no creature had to divide in
a later step, and otherwise the first such step is *expanded*: one child per joint division of
the attacking player times one per joint division of the defending player (510.1c-d). A
node's value is then the maximum over the attacking player's divisions of the minimum over the
defending player's replies (scores compared term by term).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from ecs_combat.batched.arrays import BatchOutcome, CombatBatch, IntArray
from ecs_combat.batched.boards import (
    Declarations,
    Outcomes,
    Segments,
    csr_rows,
    join_outcomes,
    take_boards,
    take_outcomes,
    with_declarations,
)
from ecs_combat.batched.engine import BatchedEngine
from ecs_combat.decisions.divisions import (
    Divider,
    StepChoices,
    StepRecord,
    attacking_divisions,
    joint_divisions,
)
from ecs_combat.decisions.objective import Objective, Sides, lexicographic_ranks, score
from ecs_combat.rules.division import default_division

I64 = np.int64


@dataclass(frozen=True)
class Blocks:
    """Block declarations of many boards, by creature places on their board."""

    board: IntArray  #: [D] board of each declaration
    #: Pairs of each declaration (CSR: ``start[d]:start[d+1]``), grouped by attacker with
    #: its blockers in declaration order (file order).
    start: IntArray
    blocker: IntArray
    attacker: IntArray
    rank: IntArray  #: place of the attacker among those its blocker blocks


@dataclass
class Level:
    """Nodes resolved together in one batch."""

    first: int  #: id of the level's first node
    decl: IntArray
    start_step: IntArray  #: the first step whose divisions are not chosen yet
    #: Chosen divisions (CSR by node): step, source, recipient (creature place, or
    #: ``-1 - player place``), amount.
    div_start: IntArray
    div: IntArray  #: [R, 4]


@dataclass
class Expansion:
    """A node whose first undecided division step was expanded into children."""

    node: int
    first_child: int
    n_attacking: int  #: joint divisions of the attacking player
    n_defending: int  #: replies of the defending player to each
    choices: StepChoices
    attacking: IntArray  #: [n_attacking, slots] amounts
    defending: IntArray
    #: First creature and player rows of the node's battle (rows minus these: places).
    creature_start: int
    player_start: int
    #: The attacking choice and the defending reply that are the default division (RULES
    #: section 3), preferred among equals so that the line shown changes only what matters.
    default_attacking: int = -1
    default_defending: int = -1


@dataclass
class Tree:
    """Nodes and their values, as the search grows them."""

    engine: BatchedEngine
    objective: Objective
    boards: CombatBatch
    board_sides: Sides
    blocks: Blocks
    levels: list[Level] = field(default_factory=list)
    values: list[IntArray] = field(default_factory=list)  #: per level, [m, T]
    #: Per node: whether its value is exact (a leaf, or every child solved).
    solved: list[np.ndarray] = field(default_factory=list)
    expansions: list[Expansion] = field(default_factory=list)
    #: Per expanded node: (attacking choice, defending reply) of the best line.
    best_line: dict[int, tuple[int, int]] = field(default_factory=dict)
    evaluated: int = 0  #: battles resolved
    #: The children of nodes by what they look like from their board (:func:`_signature`).
    _children: dict[tuple[object, bytes], Children] = field(default_factory=dict)
    backed_up: int = 0  #: expansions whose values are backed up already
    #: Keep each level's batch and outcome (:meth:`outcomes_of`).
    keep_outcomes: bool = False
    kept: list[tuple[CombatBatch, BatchOutcome]] = field(default_factory=list)

    @property
    def n_nodes(self) -> int:
        return self.levels[-1].first + len(self.levels[-1].decl) if self.levels else 0

    # -- resolving a level -----------------------------------------------------------------

    def battles(self, level: Level) -> CombatBatch:
        """The level's nodes as one batch."""
        board = self.blocks.board[level.decl]
        batch = take_boards(self.boards, board, self._refs())
        cs = Segments.of(batch.battle, batch.n_battles).start
        ps = Segments.of(batch.player_battle, batch.n_battles).start
        b = self.blocks
        rows, owner = csr_rows(b.start, level.decl)
        div_rows, div_owner = csr_rows(level.div_start, np.arange(len(level.decl), dtype=I64))
        div = level.div[div_rows]
        rec = div[:, 2]
        on_player = rec < 0
        recipient = np.where(on_player, -1 - (ps[div_owner] + (-1 - rec)), cs[div_owner] + rec)
        d = Declarations(
            attacking=batch.attacking,
            block_blocker=cs[owner] + b.blocker[rows],
            block_attacker=cs[owner] + b.attacker[rows],
            block_rank=b.rank[rows],
            division_step=div[:, 0].copy(),
            division_source=cs[div_owner] + div[:, 1],
            division_recipient=recipient,
            division_amount=div[:, 3].copy(),
        )
        return with_declarations(batch, d)

    def _refs(self) -> tuple[str, ...]:
        fields = self.engine.registry.state_fields("creature")
        return tuple(k for k, f in fields.items() if f.kind == "creature")

    def resolve(self, level: Level) -> tuple[CombatBatch, IntArray, list[StepRecord], IntArray]:
        """Resolve a level: its batch, scores, step records, and each node's first step
        (record index) with a choice at or after its own start, or -1."""
        batch = self.battles(level)
        outcome, records = self.engine.resolve_batch_with_divisions(batch)
        self.evaluated += batch.n_battles
        if self.keep_outcomes:
            self.kept.append((batch, outcome))
        sides = self._sides(batch, self.blocks.board[level.decl])
        values = score(self.objective, batch, outcome, sides)
        indexed = [StepRecord(r, batch.battle, batch.n_battles) for r in records]
        first = np.full(len(level.decl), -1, I64)
        for i, rec in enumerate(indexed):
            open_ = (first < 0) & rec.battles & (rec.rec.step >= level.start_step)
            first[open_] = i
        return batch, values, indexed, first

    def _sides(self, batch: CombatBatch, board: IntArray) -> Sides:
        src = self.board_sides
        ps = Segments.of(batch.player_battle, batch.n_battles).start
        pb = Segments.of(self.boards.player_battle, self.boards.n_battles).start
        crow, _, _ = Segments.of(self.boards.battle, self.boards.n_battles).gather(board)
        return Sides(
            ps + (src.attacking_player[board] - pb[board]),
            ps + (src.defending_player[board] - pb[board]),
            src.value[crow],
            None if src.keyed is None else src.keyed[crow],
        )

    # -- growing ----------------------------------------------------------------------------

    def add_level(self, level: Level) -> None:
        self.levels.append(level)
        self.values.append(np.zeros((len(level.decl), len(self.objective.terms)), I64))
        self.solved.append(np.zeros(len(level.decl), np.bool_))

    def locate(self, node: int) -> tuple[int, int]:
        """(level, place in it) of a node."""
        for li in range(len(self.levels) - 1, -1, -1):
            if node >= self.levels[li].first:
                return li, node - self.levels[li].first
        raise IndexError(node)

    def children_of(
        self,
        level: Level,
        batch: CombatBatch,
        records: list[StepRecord],
        first: IntArray,
        expand: IntArray,
    ) -> Level | None:
        """The next level: the children of the level's nodes `expand` (places in `level`)."""
        if len(expand) == 0:
            return None
        cs = Segments.of(batch.battle, batch.n_battles).start
        ps = Segments.of(batch.player_battle, batch.n_battles).start
        decls: list[IntArray] = []
        starts: list[IntArray] = []
        divs: list[IntArray] = []
        counts: list[IntArray] = []
        next_id = self.n_nodes
        for k in expand.tolist():
            rec = records[int(first[k])]
            choices = rec.choices(k, batch.attacking)
            own = level.div[level.div_start[k] : level.div_start[k + 1]]
            c0, p0 = int(cs[k]), int(ps[k])
            # nodes whose dividers look the same from their board have the same children
            key = (_signature(choices, c0, p0), own.tobytes())
            known = self._children.get(key)
            if known is None:
                known = _children(choices, own, c0, p0)
                if len(self._children) >= CHILDREN_KEPT:
                    self._children.clear()
                self._children[key] = known
            att, dfd, rows, n_rows, default_att, default_dfd = known
            na, nd = len(att), len(dfd)
            self.expansions.append(
                Expansion(
                    level.first + k,
                    next_id,
                    na,
                    nd,
                    choices,
                    att,
                    dfd,
                    c0,
                    p0,
                    default_att,
                    default_dfd,
                )
            )
            next_id += na * nd
            divs.append(rows)
            counts.append(n_rows)
            decls.append(np.full(na * nd, level.decl[k], I64))
            starts.append(np.full(na * nd, rec.rec.step + 1, I64))
        per_child = np.concatenate(counts)
        return Level(
            first=self.n_nodes,
            decl=np.concatenate(decls),
            start_step=np.concatenate(starts),
            div_start=np.concatenate([[0], np.cumsum(per_child)]).astype(I64),
            div=np.concatenate(divs).reshape(-1, 4),
        )

    # -- values -----------------------------------------------------------------------------

    def back_up(self) -> None:
        """Each expanded node's value from its children's: the attacking player's best
        division against the defending player's best reply (newest expansions first)."""
        for e in reversed(self.expansions[self.backed_up :]):
            li, k = self.locate(e.first_child)
            n = e.n_attacking * e.n_defending
            child_values = self.values[li][k : k + n]
            child_solved = self.solved[li][k : k + n]
            pl, pk = self.locate(e.node)
            if not child_solved.all():
                continue
            ranks = lexicographic_ranks(child_values).reshape(e.n_attacking, e.n_defending)
            reply = np.argmin(ranks, axis=1)
            dd = e.default_defending
            if dd >= 0:
                reply = np.where(ranks[:, dd] == ranks.min(axis=1), dd, reply)
            got = ranks[np.arange(e.n_attacking), reply]
            a = int(np.argmax(got))
            da = e.default_attacking
            if da >= 0 and got[da] == got[a]:
                a = da
            d = int(reply[a])
            self.values[pl][pk] = child_values[a * e.n_defending + d]
            self.solved[pl][pk] = True
            self.best_line[e.node] = (a, d)
        self.backed_up = len(self.expansions)

    def line(self, node: int) -> list[tuple[Expansion, int, int]]:
        """The best line below a node: each expansion on it with the attacking player's
        division and the defending player's reply chosen there."""
        out: list[tuple[Expansion, int, int]] = []
        by_node = {e.node: e for e in self.expansions}
        while node in self.best_line:
            e = by_node[node]
            a, d = self.best_line[node]
            out.append((e, a, d))
            node = e.first_child + a * e.n_defending + d
        return out

    def best_leaves(self, nodes: IntArray) -> IntArray:
        """The leaf at the end of each node's best line (a node that was not expanded, or
        whose children are not all solved, is its own)."""
        chosen = [e for e in self.expansions if e.node in self.best_line]
        if not chosen:
            return nodes.copy()
        expanded = np.array([e.node for e in chosen], I64)
        step = np.array(
            [
                e.first_child + a * e.n_defending + d
                for e in chosen
                for a, d in [self.best_line[e.node]]
            ],
            I64,
        )
        order = np.argsort(expanded)
        expanded, step = expanded[order], step[order]
        out = nodes.copy()
        while True:
            at = np.minimum(np.searchsorted(expanded, out), len(expanded) - 1)
            on = expanded[at] == out
            if not on.any():
                return out
            out = np.where(on, step[at], out)

    def outcomes_of(self, nodes: IntArray) -> Outcomes:
        """The outcomes of some nodes, as battles in the order given (the tree must keep
        outcomes)."""
        firsts = np.array([lv.first for lv in self.levels], I64)
        li = np.searchsorted(firsts, nodes, side="right") - 1
        parts: list[Outcomes] = []
        owners: list[IntArray] = []
        for i in np.unique(li).tolist():
            mine = np.flatnonzero(li == i)
            batch, outcome = self.kept[i]
            taken = nodes[mine] - self.levels[i].first
            parts.append(take_outcomes(outcome, batch.battle, batch.player_battle, taken))
            owners.append(mine)
        joined = join_outcomes(parts)
        if len(parts) == 1:
            return joined
        order = np.argsort(np.concatenate(owners), kind="stable")
        return take_outcomes(joined[0], joined[1], joined[2], order)

    def divisions_of(self, nodes: IntArray) -> tuple[IntArray, IntArray]:
        """The division rows of some nodes ([R, 4], by places on the board as in
        :class:`Level`), grouped by node in the order given, and each row's place in `nodes`."""
        firsts = np.array([lv.first for lv in self.levels], I64)
        li = np.searchsorted(firsts, nodes, side="right") - 1
        rows: list[IntArray] = []
        owners: list[IntArray] = []
        for i in np.unique(li).tolist():
            mine = np.flatnonzero(li == i)
            level = self.levels[i]
            taken, place = csr_rows(level.div_start, nodes[mine] - level.first)
            rows.append(level.div[taken])
            owners.append(mine[place])
        if not rows:
            return np.zeros((0, 4), I64), np.zeros(0, I64)
        div, owner = np.concatenate(rows), np.concatenate(owners)
        order = np.argsort(owner, kind="stable")
        return div[order], owner[order]


#: At most this many kinds of expanded nodes are remembered (then forgotten, all at once).
CHILDREN_KEPT = 100_000
#: A node's children: the attacking player's and the defending player's joint divisions
#: (amounts), every child's division rows and their counts, and the default choices.
Children = tuple[IntArray, IntArray, IntArray, IntArray, int, int]


def _signature(choices: StepChoices, cstart: int, pstart: int) -> object:
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


def _children(choices: StepChoices, own: IntArray, cstart: int, pstart: int) -> Children:
    """The children of a node whose step's dividers are `choices` and whose own division
    rows are `own`."""
    att = attacking_divisions(choices)
    dfd = joint_divisions(choices.defending)
    rows, n_rows = _children_rows(
        own,
        _division_rows(
            choices.step, _local_slots(att.source, att.recipient, cstart, pstart), att.amounts
        ),
        _division_rows(
            choices.step, _local_slots(dfd.source, dfd.recipient, cstart, pstart), dfd.amounts
        ),
    )
    return (
        att.amounts,
        dfd.amounts,
        rows,
        n_rows,
        _row_of(att.amounts, _default_row(choices.attacking)),
        _row_of(dfd.amounts, _default_row(choices.defending)),
    )


def _default_row(dividers: tuple[Divider, ...]) -> IntArray:
    """The amounts of the default division (RULES section 3) of some dividers, slot by slot."""
    out: list[int] = []
    for d in dividers:
        names = [str(r) for r in d.recipients]
        player = None if d.player is None else "player"
        given = default_division(d.power, list(zip(names, d.lethal, strict=True)), player)
        out += [given.get(n, 0) for n in names]
        if player is not None:
            out.append(given.get(player, 0))
    return np.array(out, I64)


def _row_of(table: IntArray, row: IntArray) -> int:
    """Index of `row` in `table`, or -1."""
    if table.shape[1] != len(row):
        return -1
    hits = np.flatnonzero((table == row).all(axis=1))
    return int(hits[0]) if len(hits) else -1


def _local_slots(source: IntArray, recipient: IntArray, cstart: int, pstart: int) -> IntArray:
    """[slots, 2] source and recipient of each slot by places on the board."""
    rec = np.where(recipient < 0, -1 - ((-1 - recipient) - pstart), recipient - cstart)
    return np.stack([source - cstart, rec], axis=1)


def _division_rows(step: int, slots: IntArray, amounts: IntArray) -> tuple[IntArray, IntArray]:
    """Division rows [R, 4] of each joint division (its amounts above 0), grouped by joint
    division, and how many each has."""
    owner, slot = np.nonzero(amounts > 0)
    out = np.empty((len(owner), 4), I64)
    out[:, 0] = step
    out[:, 1:3] = slots[slot]
    out[:, 3] = amounts[owner, slot]
    return out, np.bincount(owner, minlength=len(amounts)).astype(I64)


def _children_rows(
    own: IntArray, attacking: tuple[IntArray, IntArray], defending: tuple[IntArray, IntArray]
) -> tuple[IntArray, IntArray]:
    """The division rows of every child (attacking choice a, defending reply d; child
    ``a * n_defending + d``): the parent's, then a's, then d's; and each child's count."""
    rows_a, count_a = attacking
    rows_d, count_d = defending
    na, nd = len(count_a), len(count_d)
    start_a = np.concatenate([[0], np.cumsum(count_a)]).astype(I64)
    start_d = np.concatenate([[0], np.cumsum(count_d)]).astype(I64)
    child_a = np.repeat(np.arange(na, dtype=I64), nd)
    child_d = np.tile(np.arange(nd, dtype=I64), na)
    ra, oa = csr_rows(start_a, child_a)
    rd, od = csr_rows(start_d, child_d)
    n_children = na * nd
    parts = [
        (np.tile(own, (n_children, 1)), np.repeat(np.arange(n_children, dtype=I64), len(own)), 0),
        (rows_a[ra], oa, 1),
        (rows_d[rd], od, 2),
    ]
    rows = np.concatenate([p[0] for p in parts]).reshape(-1, 4)
    owner = np.concatenate([p[1] for p in parts])
    part = np.concatenate([np.full(len(p[1]), p[2], I64) for p in parts])
    order = np.lexsort((part, owner))
    counts = len(own) + count_a[child_a] + count_d[child_d]
    return rows[order], counts


class Clock:
    """A search's time budget."""

    def __init__(self, seconds: float | None) -> None:
        self.began = time.perf_counter()
        self.seconds = seconds

    @property
    def elapsed(self) -> float:
        return time.perf_counter() - self.began

    def out(self) -> bool:
        return self.seconds is not None and self.elapsed > self.seconds
