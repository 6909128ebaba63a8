"""What a grown tree of block declarations tells of its nodes (:class:`TreeAnswers`, the
reading side of :class:`~ecs_combat.decisions.tree.Tree`): where a node is, the best line
below it and the leaf at its end, and the results (played again when not recorded), outcomes
and divisions of nodes."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ecs_combat.batched import (
    BatchedEngine,
    BatchOutcome,
    CombatBatch,
    Copies,
    IntArray,
    Outcomes,
    Played,
    Rows,
    csr_rows,
    distinct_values,
    join_outcomes,
    take_outcomes,
)
from ecs_combat.decisions.children import Expanded
from ecs_combat.decisions.layout import Layout
from ecs_combat.decisions.nodes import Expansion, Level
from ecs_combat.decisions.playing import nodes_level
from ecs_combat.rules.result import CombatResult

I64 = np.int64


class TreeAnswers:
    """The answers a tree gives from what its search recorded (the fields are
    :class:`~ecs_combat.decisions.tree.Tree`'s)."""

    levels: list[Level]
    expansions: list[Expansion]
    best_child: list[IntArray]
    _expanded: list[Expanded]
    kept: list[tuple[CombatBatch, BatchOutcome, Rows, IntArray | None]]
    played: list[Played | None]
    _where: dict[int, tuple[int, int]]
    _indexed_groups: int
    engine: BatchedEngine
    record: bool
    #: A level's nodes as one batch (:meth:`~ecs_combat.decisions.tree.Tree.battles`).
    battles: Callable[[Level, bool], tuple[Copies, Layout | None]]

    @property
    def n_nodes(self) -> int:
        """How many nodes the tree has (numbered level by level)."""
        return self.levels[-1].first + len(self.levels[-1].decl) if self.levels else 0

    def locate(self, node: int) -> tuple[int, int]:
        """(level, place in it) of a node."""
        for li in range(len(self.levels) - 1, -1, -1):
            if node >= self.levels[li].first:
                return li, node - self.levels[li].first
        raise IndexError(node)

    def line(self, node: int) -> list[tuple[Expansion, int, int]]:
        """The best line below a node: each expansion on it with the attacking player's
        division and the defending player's reply chosen there."""
        where = self._where
        for g in range(self._indexed_groups, len(self._expanded)):  # index the new groups
            group = self._expanded[g]
            where.update((n, (g, group.first + j)) for j, n in enumerate(group.node.tolist()))
        self._indexed_groups = len(self._expanded)
        out: list[tuple[Expansion, int, int]] = []
        while node in where:
            g, i = where[node]
            e = self.expansions[i]
            child = int(self.best_child[g][i - self._expanded[g].first])
            if child < 0:
                break
            a = (child - e.first_child) // e.n_defending
            out.append((e, a, int(e.replies[child - e.first_child])))
            node = child
        return out

    def best_leaves(self, nodes: IntArray) -> IntArray:
        """The leaf at the end of each node's best line (a node that was not expanded, or
        whose children are not all solved, is its own)."""
        if not self._expanded:
            return nodes.copy()
        expanded = np.concatenate([e.node for e in self._expanded])
        step = np.concatenate(self.best_child)
        chosen = step >= 0
        expanded, step = expanded[chosen], step[chosen]
        if not len(expanded):
            return nodes.copy()
        order = np.argsort(expanded)
        expanded, step = expanded[order], step[order]
        out = nodes.copy()
        while True:
            at = np.minimum(expanded.searchsorted(out), len(expanded) - 1)
            on = expanded[at] == out
            if not on.any():
                return out
            out = np.where(on, step[at], out)

    def results_of(self, nodes: list[int], notes: bool = True) -> list[CombatResult] | None:
        """The results of some distinct nodes, as :meth:`BatchedEngine.resolve_many` gives
        them (without `notes`: :meth:`Played.results`); None if one's level was not
        recorded and the tree does not record (else those are played again)."""
        firsts = [lv.first for lv in self.levels]
        at = [int(np.searchsorted(firsts, n, side="right")) - 1 for n in nodes]
        if any(self.played[li] is None for li in at):
            return self._replayed(nodes, notes) if self.record else None
        out: dict[int, CombatResult] = {}
        for li in sorted(set(at)):
            mine = [n for n, i in zip(nodes, at, strict=True) if i == li]
            played = self.played[li]
            assert played is not None
            places = [n - firsts[li] for n in mine]
            if played.logged is None:
                got = played.results(places, notes)
            else:  # the kernel's log, where it tells them (it has no notes)
                told = None if notes else played.logged(places)
                if told is None:
                    return self._replayed(nodes, notes)
                got = told
            out.update(zip(mine, got, strict=True))
        return [out[n] for n in nodes]

    def _replayed(self, nodes: list[int], notes: bool) -> list[CombatResult]:
        """Some nodes' results, played again together: in the compiled kernel with its log
        when it tells them (without `notes`), else with the numpy engine's log."""
        ids = np.array(nodes, I64)
        copies, _ = self.battles(nodes_level(self.levels, ids, *self.divisions_of(ids)), True)
        found = None if notes else self.engine.kernel_results(copies.batch)
        if found is not None:
            return found
        return self.engine.play_batch(copies.batch, True).results(list(range(len(ids))), notes)

    def outcomes_of(self, nodes: IntArray) -> Outcomes:
        """The outcomes of some nodes, as battles in the order given (the tree must keep
        outcomes)."""
        firsts = np.array([lv.first for lv in self.levels], I64)
        li = firsts.searchsorted(nodes, side="right") - 1
        parts: list[Outcomes] = []
        owners: list[IntArray] = []
        for i in distinct_values(li):
            mine = (li == i).nonzero()[0]
            batch, outcome, rows, node_battle = self.kept[i]
            taken = nodes[mine] - self.levels[i].first
            if node_battle is not None:
                taken = node_battle[taken]
            parts.append(take_outcomes(outcome, batch.battle, batch.player_battle, taken, rows))
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
        li = firsts.searchsorted(nodes, side="right") - 1
        rows: list[IntArray] = []
        owners: list[IntArray] = []
        for i in distinct_values(li):
            mine = (li == i).nonzero()[0]
            level = self.levels[i]
            taken, place = csr_rows(level.div_start, nodes[mine] - level.first)
            rows.append(level.div[taken])
            owners.append(mine[place])
        if not rows:
            return np.zeros((0, 4), I64), np.zeros(0, I64)
        div, owner = np.concatenate(rows), np.concatenate(owners)
        order = np.argsort(owner, kind="stable")
        return div[order], owner[order]
