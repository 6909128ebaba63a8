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

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ecs_combat.batched import (
    BatchedEngine,
    BatchOutcome,
    CombatBatch,
    Copies,
    IntArray,
    Played,
    Rows,
    copy_boards,
    csr_rows,
    distinct_values,
    replaced,
    tile_boards,
)
from ecs_combat.decisions.children import (
    Children,
    Expanded,
    best_children,
    children_of_kind,
    level_rows,
)
from ecs_combat.decisions.divisions import StepChoices, StepRecord, joint_count
from ecs_combat.decisions.layout import Layout
from ecs_combat.decisions.nodes import Expansion, Level, Resolved
from ecs_combat.decisions.objective import Objective, Sides, score
from ecs_combat.decisions.playing import play_level
from ecs_combat.decisions.tree_answers import TreeAnswers
from ecs_combat.errors import RefusedError
from ecs_combat.rules.result import CombatResult

I64 = np.int64

#: Values of leaves past their own combat: given each leaf's board, result (as
#: ``resolve --json`` has it) and score, their values ([n, T]).
Continuation = Callable[[IntArray, list[CombatResult], IntArray], IntArray]


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
    #: When every board has the same `each` (> 0) declarations, of the same pairs by place
    #: (one shape, each one legal), boards in ascending order: if the boards are also
    #: consecutive battles, the first level is resolved as `each` copies of their run, a
    #: declaration at a time (:func:`~ecs_combat.batched.board_copies.tile_boards`).
    each: int = 0


@dataclass
class Tree(TreeAnswers):
    """Nodes and their values, as the search grows them (what they tell: TreeAnswers)."""

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
    #: Per expansion (index in :attr:`expansions`): the child on the best line, or -1 while
    #: its children are not all solved.
    best_child: list[IntArray] = field(default_factory=list)
    evaluated: int = 0  #: battles resolved
    _expanded: list[Expanded] = field(default_factory=list)
    backed_up: int = 0  #: :class:`Expanded` groups whose values are backed up already
    #: Keep each level's batch and outcome (:meth:`outcomes_of`).
    keep_outcomes: bool = False
    #: Per level: its batch, outcome, rows by battle and battle of each node (None: its own).
    kept: list[tuple[CombatBatch, BatchOutcome, Rows, IntArray | None]] = field(
        default_factory=list
    )
    #: Record the levels of at most :data:`RECORDED_ROWS` creature rows, for the results of
    #: their nodes (:meth:`results_of`); the boards must name their creatures and players.
    record: bool = False
    #: Per level: its play, when recorded, else None.
    played: list[Played | None] = field(default_factory=list)
    #: ``Rows.of(boards)``, if known.
    board_rows: Rows | None = None
    #: Expanded node -> (its group in `_expanded`, its index in `expansions`), for
    #: :meth:`line`; the groups indexed so far.
    _where: dict[int, tuple[int, int]] = field(default_factory=dict)
    _indexed_groups: int = 0
    #: The values of leaves beyond their own combat (the two-combat horizon, RULES 12), or
    #: None: their scores. Needs `record` (the leaves' results are what it reads).
    continuation: Continuation | None = None

    def __post_init__(self) -> None:
        self._rows = self.board_rows or Rows.of(self.boards)
        fields = self.engine.registry.state_fields("creature")
        self._refs = tuple(k for k, f in fields.items() if f.kind == "creature")
        self._ids = (
            np.asarray(self.boards.creature_ids, dtype=object),
            np.asarray(self.boards.player_ids, dtype=object),
        )

    # -- resolving a level -----------------------------------------------------------------

    def battles(self, level: Level, named: bool = False) -> tuple[Copies, Layout | None]:
        """The level's nodes as one batch, and how its battles are laid out if not a node
        each in order; `named`: with the boards' creature and player ids (for results)."""
        b = self.blocks
        decl, layout = level.decl, self._tiled(level, named)
        if layout is None:
            copies = copy_boards(self.boards, b.board[decl], self._refs, self._rows)
        else:  # declaration by declaration: battle t * boards + i is node i * each + t
            lo, n = int(b.board[decl[0]]), len(decl) // b.each
            copies = tile_boards(self.boards, lo, lo + n, b.each, self._refs, self._rows)
        batch, cs, ps = copies.batch, copies.creature_start, copies.player_start
        rows, owner = csr_rows(b.start, decl) if layout is None else layout.block_rows(b.start)
        if len(level.div):
            div_rows, div_owner = csr_rows(level.div_start, np.arange(len(level.decl), dtype=I64))
            div = level.div[div_rows]
        else:  # nothing chosen yet (the declarations' own level)
            div, div_owner = level.div, np.zeros(0, I64)
        rec = div[:, 2]
        creature_ids = player_ids = None
        if named:
            creatures, players = self._ids
            creature_ids = creatures[copies.creature_row].tolist()
            player_ids = players[copies.player_row].tolist()
        batch = replaced(
            batch,
            block_blocker=cs[owner] + b.blocker[rows],
            block_attacker=cs[owner] + b.attacker[rows],
            block_rank=b.rank[rows],
            division_step=div[:, 0].copy(),
            division_source=cs[div_owner] + div[:, 1],
            division_recipient=np.where(rec < 0, rec - ps[div_owner], rec + cs[div_owner]),
            division_amount=div[:, 3].copy(),
            division_index=None,
            creature_ids=creature_ids,
            player_ids=player_ids,
        )
        return Copies(batch, cs, ps, copies.creature_row, copies.player_row), layout

    def _tiled(self, level: Level, named: bool) -> Layout | None:
        """The first level laid out a declaration at a time when its boards allow it
        (:meth:`Layout.tiled`), unless named (recorded levels keep node order)."""
        if named or level.first != 0 or len(level.div) or level.ids is not None:
            return None
        return Layout.tiled(self.blocks.each, self.blocks.board, level.decl)

    def rows_of(self, decl: IntArray) -> IntArray:
        """The creature rows of the boards of some declarations (a node's battle has its
        board's rows)."""
        out: IntArray = self._rows.creatures.count[self.blocks.board[decl]]
        return out

    def resolve(self, level: Level, keep: bool = True) -> Resolved:
        """Resolve a level; without `keep`, a piece or a view of a level whose play and
        outcomes are not kept (:attr:`played`, :attr:`kept` are per level added)."""
        board = self.blocks.board[level.decl]
        rows = int(self._rows.creatures.count[board].sum())
        horizon = self.continuation is not None  # its levels are resolved whole (kept)
        record = keep and self.record and rows <= (HORIZON_ROWS if horizon else RECORDED_ROWS)
        if horizon and not record:  # refused before anything is resolved
            raise RefusedError(
                f"looking past a combat reads the result of every candidate combat: this "
                f"board's come to {rows:,} creature rows at once, more than {HORIZON_ROWS:,} "
                '(decide it with horizon = "combat", or make the board smaller)'
            )
        copies, layout = self.battles(level, named=record)
        batch = copies.batch
        played, record = play_level(self.engine, batch, rows, record, horizon)
        if keep:
            self.played.append(played if record else None)
        outcome, records = played.outcome, played.divisions
        if not record:
            played.release()
        self.evaluated += batch.n_battles
        node, node_battle = (None, None) if layout is None else (layout.node, layout.battle)
        if self.keep_outcomes and keep:
            self.kept.append((batch, outcome, copies.segments(), node_battle))
        decl = level.decl if node is None else level.decl[node]
        values = score(self.objective, batch, outcome, self._sides(copies, decl))
        node_of_row = batch.battle if node is None else node[batch.battle]
        indexed = [StepRecord(r, node_of_row, batch.n_battles) for r in records]
        if layout is not None:
            values = layout.by_node(values)
        first = np.full(len(level.decl), -1, I64)
        for i, rec in enumerate(indexed):
            open_ = (first < 0) & rec.battles & (rec.rec.step >= level.start_step)
            first[open_] = i
        if self.continuation is not None:
            values = self._continued(played if record else None, values, first, level.decl)
        return Resolved(copies, values, indexed, first, node_battle)

    def _continued(
        self, played: Played | None, values: IntArray, first: IntArray, decl: IntArray
    ) -> IntArray:
        """The leaves' values with their :attr:`continuation`."""
        assert self.continuation is not None and played is not None
        leaves = (first < 0).nonzero()[0]
        if not len(leaves):
            return values
        out = values.copy()
        results = played.results(leaves.tolist(), notes=False)
        out[leaves] = self.continuation(self.blocks.board[decl[leaves]], results, values[leaves])
        return out

    def _sides(self, copies: Copies, decl: IntArray) -> Sides:
        """The sides of the copies' battles (`decl`: each one's declaration)."""
        src = self.board_sides
        board = self.blocks.board[decl]
        shift = copies.player_start - self._rows.players.start[board]
        return Sides(
            src.attacking_player[board] + shift,
            src.defending_player[board] + shift,
            copies.of_creatures(src.value),
            None if src.keyed is None else copies.of_creatures(src.keyed),
        )

    # -- growing ----------------------------------------------------------------------------

    def add_level(self, level: Level) -> None:
        self.levels.append(level)
        self.values.append(np.zeros((len(level.decl), len(self.objective.terms)), I64))
        self.solved.append(np.zeros(len(level.decl), np.bool_))

    def kinds_of(
        self,
        level: Level,
        resolved: Resolved,
        expand: IntArray,
        check: Callable[[int], None] | None = None,
    ) -> list[tuple[StepChoices, Children]]:
        """The dividers and the children (by kind) of the level's nodes `expand` (places);
        `check` is called with each node's number of children at most (:func:`joint_count`)
        before they are made (to refuse a search growing too large)."""
        records, first = resolved.records, resolved.first
        attacked = resolved.copies.batch.attacking
        cs, ps = resolved.starts()
        # each node's dividers, gathered record by record
        found: dict[int, StepChoices] = {}
        record_of = first[expand]
        for i in distinct_values(record_of):
            mine = expand[record_of == i].tolist()
            found.update(zip(mine, records[i].choices_of(mine, attacked), strict=True))
        if check is not None:
            check(max(joint_count(c) for c in found.values()))
        # nodes whose dividers look the same from their board have the same children
        return [(found[k], children_of_kind(found[k], cs[k], ps[k])) for k in expand.tolist()]

    def fitting(
        self, level: Level, expand: IntArray, kinds: list[tuple[StepChoices, Children]], rows: int
    ) -> int:
        """How many of the nodes `expand`, in order, have at most `rows` creature rows of
        children together (at least one)."""
        sizes = np.array([kind.n for _, kind in kinds], I64) * self.rows_of(level.decl[expand])
        return max(int(np.searchsorted(sizes.cumsum(), rows, side="right")), 1)

    def children_of(
        self,
        level: Level,
        resolved: Resolved,
        expand: IntArray,
        known: list[tuple[StepChoices, Children]] | None = None,
    ) -> Level | None:
        """The next level: the children of the level's nodes `expand` (places in `level`;
        `known`: their :meth:`kinds_of`, if known)."""
        if len(expand) == 0:
            return None
        if known is None:
            known = self.kinds_of(level, resolved, expand)
        cs, ps = resolved.starts()
        kinds: list[Children] = []
        next_id = first_id = self.n_nodes
        first_expansion = len(self.expansions)
        steps = []
        ids = level.node_ids(expand).tolist()
        for k, node, (choices, kind) in zip(expand.tolist(), ids, known, strict=True):
            c0, p0 = cs[k], ps[k]
            kinds.append(kind)
            steps.append(choices.step + 1)
            self.expansions.append(
                Expansion(
                    node,
                    next_id,
                    len(kind.attacking),
                    len(kind.defending),
                    choices,
                    kind.attacking,
                    kind.defending,
                    c0,
                    p0,
                    kind.replies,
                    kind.default_attacking,
                    kind.default_defending,
                )
            )
            next_id += kind.n
        n = np.array([kind.n for kind in kinds], I64)
        self._expanded.append(
            Expanded(
                level.node_ids(expand),
                first_id + n.cumsum() - n,
                np.array([len(kind.attacking) for kind in kinds], I64),
                np.array([len(kind.defending) for kind in kinds], I64),
                np.array([kind.default_attacking for kind in kinds], I64),
                np.array([kind.default_defending for kind in kinds], I64),
                first_expansion,
            )
        )
        self.best_child.append(np.full(len(kinds), -1, I64))
        parent = expand.repeat(n)
        div_start, div = level_rows(
            level.div_start,
            level.div,
            parent,
            np.concatenate([kind.count for kind in kinds]),
            np.concatenate([kind.rows for kind in kinds]),
        )
        return Level(
            first=first_id,
            decl=level.decl[parent],
            start_step=np.array(steps, I64).repeat(n),
            div_start=div_start,
            div=div,
        )

    # -- values -----------------------------------------------------------------------------

    def back_up(self) -> None:
        """Each expanded node's value from its children's: the attacking player's best
        division against the defending player's best reply (newest expansions first: a
        child's value is backed up before its parent's)."""
        firsts = np.array([lv.first for lv in self.levels], I64)
        for g in range(len(self._expanded) - 1, self.backed_up - 1, -1):
            self._back_up(g, firsts)
        self.backed_up = len(self._expanded)

    def _back_up(self, g: int, firsts: IntArray) -> None:
        """The expansions of group `g` (children all in one level, parents in one level)."""
        e = self._expanded[g]
        if not len(e.node):
            return
        ci = int(firsts.searchsorted(e.first_child[0], side="right")) - 1
        pi = int(firsts.searchsorted(e.node[0], side="right")) - 1
        lo = int(e.first_child[0] - firsts[ci])
        hi = lo + int((e.n_attacking * e.n_defending).sum())
        values = self.values[ci][lo:hi]
        done, child = best_children(e, values, self.solved[ci][lo:hi])
        places = e.node[done] - firsts[pi]
        self.values[pi][places] = values[(e.first_child - e.first_child[0] + child)[done]]
        self.solved[pi][places] = True
        self.best_child[g][done] = (e.first_child + child)[done]


#: Levels of at most this many creature rows are recorded when the tree records.
RECORDED_ROWS = 1 << 14
#: Levels of trees with a :attr:`Tree.continuation` are recorded up to this many creature rows;
#: a larger one is refused.
HORIZON_ROWS = 1 << 18
