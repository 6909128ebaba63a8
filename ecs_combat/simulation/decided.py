"""Bulk simulation with decisions (``decisions = "optimal"``, CONTRACT section 8): each drawn
battle's blocks are not the drawn ones but the defending player's best, searched exactly as
RULES section 9 says, with the attacking player's best damage divisions.

Everything is array work over the battles of a chunk. Battles of one *shape* (attackers,
creatures that may block) share one enumeration of raw declarations (each creature blocks
nothing or one attacker, 509.1a); which of them each battle may declare comes from the
keywords' restrictions pair by pair (:class:`~ecs_combat.simulation.keyword_bits.KeywordBits`),
as a mask per (battle, declaration). The legal ones of many battles are searched together
(:func:`ecs_combat.decisions.search.search`), and each battle gets its best declaration (ties
as RULES section 9 shows them first) and the divisions of the best line, to be resolved by the
run's engine.
"""

from __future__ import annotations

import dataclasses
import weakref
from dataclasses import dataclass

import numpy as np

from ecs_combat.batched.arrays import BatchOutcome, BoolArray, CombatBatch, IntArray
from ecs_combat.batched.boards import (
    Declarations,
    Outcomes,
    Rows,
    Segments,
    csr_rows,
    join_outcomes,
    with_declarations,
)
from ecs_combat.batched.engine import BatchedEngine
from ecs_combat.decisions.declarations import U64, tie_order
from ecs_combat.decisions.objective import Objective, Sides
from ecs_combat.decisions.search import best_declarations, search
from ecs_combat.decisions.tree import Blocks, Clock, Tree
from ecs_combat.simulation.generate import Drawn, Generator
from ecs_combat.simulation.keyword_bits import KeywordBits, RowFacts

I64 = np.int64
#: Creature rows of candidate combats resolved together in one search (its first level).
#: Smaller searches keep the arrays small enough for the C allocator to reuse their memory
#: (docs/performance.md, "Chunk size matters"), but each also reads the chunk's arrays: 2^14
#: and 2^17 measured about the same on the tournament (2^14: less system time, more user).
SEARCH_ROWS = 1 << 17


@dataclass(frozen=True)
class Shape:
    """Every raw block declaration of battles with `attackers` attackers and `blockers`
    creatures that may block: each of them blocks nothing or one attacker."""

    attackers: int
    blockers: int
    #: [R, blockers] the attacker each blocks (1 + its place among the attackers), or 0.
    choice: IntArray
    #: [R] place of each in the order ties are shown (RULES section 9).
    tie: IntArray
    #: [R, attackers] blockers of each attacker.
    count: IntArray
    #: Pairs of each declaration (CSR ``start[r]:start[r + 1]``), grouped by attacker with
    #: its blockers in order: places among the attackers and among the blockers.
    start: IntArray
    pair_attacker: IntArray
    pair_blocker: IntArray

    @staticmethod
    def of(attackers: int, blockers: int) -> Shape:
        """The shape's declarations, in the order ``np.indices`` gives."""
        a, k = attackers, blockers
        choice = (
            np.indices((a + 1,) * k, dtype=I64).reshape(k, -1).T if k else np.zeros((1, 0), I64)
        )
        masks = np.where(choice > 0, U64(1) << np.maximum(choice - 1, 0).astype(U64), U64(0))
        tie = tie_order(masks, np.arange(a, a + k, dtype=I64), np.arange(a, dtype=I64))
        count = (choice[:, :, None] == np.arange(1, a + 1, dtype=I64)).sum(axis=1).astype(I64)
        r, j = np.nonzero(choice > 0)
        i = choice[r, j] - 1
        order = np.lexsort((j, i, r))
        per = np.bincount(r, minlength=len(choice)).astype(I64)
        start = np.concatenate([[0], np.cumsum(per)]).astype(I64)
        return Shape(a, k, choice, tie, count, start, i[order], j[order])


class Decider:
    """Chooses the blocks (and divisions) of drawn battles with the batched engine's search."""

    def __init__(self, generator: Generator) -> None:
        self.bits: KeywordBits = generator.bits
        self.possible: np.uint64 = generator.possible
        registry = self.bits.registry
        self.engine = BatchedEngine(registry)
        self.objective = Objective.default(registry)
        self.color_keywords = {
            name for name, kw in registry.keywords.items() if kw.parameter == "color"
        }
        self._shapes: dict[tuple[int, int], Shape] = {}
        #: Candidate combats resolved, over every chunk decided (for measurements).
        self.combats_resolved = 0

    def shape(self, attackers: int, blockers: int) -> Shape:
        key = (attackers, blockers)
        if key not in self._shapes:
            self._shapes[key] = Shape.of(attackers, blockers)
        return self._shapes[key]

    def decide(self, drawn: Drawn, outcomes: bool = False) -> tuple[Drawn, BatchOutcome | None]:
        """The battles with the defending player's best blocks and the best line's
        divisions instead of the drawn blocks; with `outcomes`, also their outcomes as the
        search resolved them (the batched engine's)."""
        batch = drawn.batch
        nb = batch.n_battles
        cs = Segments.of(batch.battle, nb)
        attacks = batch.attacking >= 0
        defends = ~drawn.attacking_side
        n_att = np.bincount(batch.battle[attacks], minlength=nb).astype(I64)
        n_blk = np.bincount(batch.battle[defends], minlength=nb).astype(I64)
        raw = (n_att + 1).astype(np.float64) ** n_blk
        rows = raw * np.maximum(cs.count, 1)
        # by the rows before each battle's own, so that a group ends once it has enough
        group = ((np.cumsum(rows) - rows) // SEARCH_ROWS).astype(I64)
        sides = self._sides(batch)
        facts = self._facts(batch)
        # what every search of the chunk reads: rows by battle, each creature's place on its
        # board, the attackers and the creatures that may block, each battle's first of them
        att_rows, blk_rows = np.flatnonzero(attacks), np.flatnonzero(defends)
        chunk = ChunkRows(
            Rows(Segments.of(batch.player_battle, nb), cs),
            np.arange(batch.n_creatures, dtype=I64) - cs.start[batch.battle],
            att_rows,
            blk_rows,
            np.cumsum(n_att) - n_att,
            np.cumsum(n_blk) - n_blk,
        )
        parts: list[Chosen] = []
        for g in np.unique(group).tolist():
            battles = np.flatnonzero(group == g)
            parts.append(self._search(batch, sides, facts, chunk, battles, n_att, n_blk, outcomes))
        d = _declarations(batch, parts)
        decided = dataclasses.replace(drawn, batch=with_declarations(batch, d))
        known = [p.outcome for p in parts if p.outcome is not None]
        return decided, join_outcomes(known)[0] if outcomes else None

    def _search(
        self,
        batch: CombatBatch,
        sides: Sides,
        facts: RowFacts,
        chunk: ChunkRows,
        battles: IntArray,
        n_att: IntArray,
        n_blk: IntArray,
        outcomes: bool,
    ) -> Chosen:
        """Search some battles (ascending) and choose their declarations."""
        blocks, tie = self._declarations(batch, facts, chunk, battles, n_att, n_blk)
        offset = np.concatenate(
            [[0], np.cumsum(np.bincount(blocks.board, minlength=batch.n_battles))]
        ).astype(I64)
        tree = Tree(
            self.engine, self.objective, batch, sides, blocks, keep_outcomes=outcomes,
            board_rows=chunk.rows,
        )  # fmt: skip
        results = search(tree, offset, 1, Clock(None))
        self.combats_resolved += results.tree.evaluated
        best = best_declarations(results, tie)[battles]
        rows_of = csr_rows(blocks.start, best)
        block_board = battles[rows_of[1]]
        leaves = tree.best_leaves(best)
        div, owner = tree.divisions_of(leaves)
        return Chosen(
            block_board,
            blocks.blocker[rows_of[0]],
            blocks.attacker[rows_of[0]],
            battles[owner],
            div,
            tree.outcomes_of(leaves) if outcomes else None,
        )

    def _declarations(
        self,
        batch: CombatBatch,
        facts: RowFacts,
        chunk: ChunkRows,
        battles: IntArray,
        n_att: IntArray,
        n_blk: IntArray,
    ) -> tuple[Blocks, IntArray]:
        """Every legal block declaration of some battles, as :class:`Blocks` by places on
        each battle's board (ordered by battle), and each one's tie place in its shape."""
        place, att_rows, blk_rows = chunk.place, chunk.attackers, chunk.blockers
        # each battle's first attacker and first blocker among those rows
        att_first = chunk.first_attacker[battles]
        blk_first = chunk.first_blocker[battles]
        shape_key = n_att[battles] * (int(n_blk.max(initial=0)) + 1) + n_blk[battles]
        boards, raws, ties, shapes, starts = [], [], [], [], []
        tables: list[Shape] = []
        for key in np.unique(shape_key).tolist():
            mine = np.flatnonzero(shape_key == key)
            a, k = int(n_att[battles[mine[0]]]), int(n_blk[battles[mine[0]]])
            shape = self.shape(a, k)
            att = att_rows[att_first[mine][:, None] + np.arange(a, dtype=I64)]
            blk = blk_rows[blk_first[mine][:, None] + np.arange(k, dtype=I64)]
            ok = self._legal(
                batch, facts, shape, att.reshape(len(mine), a), blk.reshape(len(mine), k)
            )
            b, r = np.nonzero(ok)
            boards.append(battles[mine][b])
            raws.append(r)
            ties.append(shape.tie[r])
            shapes.append(np.full(len(r), len(tables), I64))
            starts.append(np.stack([att_first[mine][b], blk_first[mine][b]], axis=1))
            tables.append(shape)
        board, raw, tie = np.concatenate(boards), np.concatenate(raws), np.concatenate(ties)
        which, first = np.concatenate(shapes), np.concatenate(starts)
        if len(tables) > 1:  # by battle
            order = np.argsort(board, kind="stable")
            board, raw, tie, which, first = (x[order] for x in (board, raw, tie, which, first))
        # one table of every shape's pairs; declaration (shape s, raw r) is row base[s] + r
        base = np.concatenate([[0], np.cumsum([len(t.tie) for t in tables])]).astype(I64)
        pair_base = np.concatenate([[0], np.cumsum([len(t.pair_attacker) for t in tables])])
        start = np.concatenate(
            [t.start[:-1] + pb for t, pb in zip(tables, pair_base, strict=False)]
        )
        start = np.concatenate([start, [pair_base[-1]]]).astype(I64)
        pair_att = np.concatenate([t.pair_attacker for t in tables])
        pair_blk = np.concatenate([t.pair_blocker for t in tables])
        rows, owner = csr_rows(start, base[which] + raw)
        return (
            Blocks(
                board=board,
                start=np.concatenate(
                    [[0], np.cumsum(start[base[which] + raw + 1] - start[base[which] + raw])]
                ).astype(I64),
                blocker=place[blk_rows[first[owner, 1] + pair_blk[rows]]],
                attacker=place[att_rows[first[owner, 0] + pair_att[rows]]],
                rank=np.zeros(len(rows), I64),
            ),
            tie,
        )

    def _legal(
        self, batch: CombatBatch, facts: RowFacts, shape: Shape, att: IntArray, blk: IntArray
    ) -> BoolArray:
        """[battles, R] which of the shape's declarations each battle (attacker rows `att`,
        blocker rows `blk`) may make: every pair allowed (509.1a-b restrictions), and every
        blocked attacker blocked by at least as many creatures as it needs (509.1b)."""
        nb, a, k = att.shape[0], shape.attackers, shape.blockers
        bits, possible = self.bits, self.possible
        ok = np.ones((nb, len(shape.tie)), np.bool_)
        if a == 0 or k == 0:
            return ok
        if bits.restricts_blocks(possible):
            pa = np.broadcast_to(att[:, None, :], (nb, k, a)).reshape(-1)
            pb = np.broadcast_to(blk[:, :, None], (nb, k, a)).reshape(-1)
            pairs = bits.legal_blocks(
                batch.keywords[pa], batch.keywords[pb], possible,
                batch.power[pa], batch.power[pb], facts.take(pa), facts.take(pb),
            ).reshape(nb, k, a)  # fmt: skip
            table = np.concatenate([np.ones((nb, k, 1), np.bool_), pairs], axis=2)
            for j in range(k):
                ok &= table[:, j, :][:, shape.choice[:, j]]
        need = bits.blockers_needed(batch.keywords[att.reshape(-1)], possible)
        if need is not None:
            need = need.reshape(nb, a)
            for i in range(a):
                have = shape.count[:, i][None, :]
                ok &= (have == 0) | (have >= need[:, i][:, None])
        return ok

    def _sides(self, batch: CombatBatch) -> Sides:
        """Player 2i attacks, 2i + 1 defends (as drawn); a creature's value is its power
        plus toughness as drawn (RULES section 9)."""
        ps = Segments.of(batch.player_battle, batch.n_battles).start
        return Sides(ps, ps + 1, (batch.power + batch.toughness).astype(I64))

    def _facts(self, batch: CombatBatch) -> RowFacts:
        """The rows' colors and keyword parameters, from the batch's keyword instances."""
        n = batch.n_creatures
        names = batch.keyword_names
        colors = self.color_keywords

        def values(keyword: str) -> IntArray:
            out = np.zeros(n, I64)
            if keyword not in names:
                return out
            on = (batch.instance_keyword == names.index(keyword)) & (batch.instance_parameter >= 0)
            rows, p = batch.instance_row[on], batch.instance_parameter[on]
            if keyword in colors:
                np.bitwise_or.at(out, rows, np.int64(1) << p)
            else:
                np.add.at(out, rows, p)
            return out

        return RowFacts(batch.colors, values)


@dataclass(frozen=True)
class ChunkRows:
    """The rows of a chunk's battles that every search of the chunk reads."""

    rows: Rows
    place: IntArray  #: [N] each creature's place on its board
    attackers: IntArray  #: the attacking creatures' rows, by battle
    blockers: IntArray  #: the rows of the creatures that may block, by battle
    first_attacker: IntArray  #: [n_battles] each battle's first among `attackers`
    first_blocker: IntArray


@dataclass(frozen=True)
class Chosen:
    """The declarations chosen for some battles: blocks by places on their boards, and the
    best line's divisions as the search's levels hold them ([R, 4] rows)."""

    block_board: IntArray
    blocker: IntArray
    attacker: IntArray
    division_board: IntArray
    division: IntArray
    #: Their outcomes with each creature and player row's battle (among those searched).
    outcome: Outcomes | None = None


def _declarations(batch: CombatBatch, parts: list[Chosen]) -> Declarations:
    """The chosen blocks and divisions of every battle, by rows of the batch."""
    cs = Segments.of(batch.battle, batch.n_battles).start
    ps = Segments.of(batch.player_battle, batch.n_battles).start
    block_board = np.concatenate([p.block_board for p in parts])
    blocker = np.concatenate([p.blocker for p in parts])
    attacker = np.concatenate([p.attacker for p in parts])
    div_board = np.concatenate([p.division_board for p in parts])
    div = np.concatenate([p.division for p in parts]).reshape(-1, 4)
    rec = div[:, 2]
    on_player = rec < 0
    return Declarations(
        attacking=batch.attacking,
        block_blocker=cs[block_board] + blocker,
        block_attacker=cs[block_board] + attacker,
        block_rank=np.zeros(len(blocker), I64),
        division_step=div[:, 0].copy(),
        division_source=cs[div_board] + div[:, 1],
        division_recipient=np.where(
            on_player, -1 - (ps[div_board] + (-1 - rec)), cs[div_board] + rec
        ),
        division_amount=div[:, 3].copy(),
    )


_deciders: weakref.WeakKeyDictionary[Generator, Decider] = weakref.WeakKeyDictionary()


def decided(
    generator: Generator, drawn: Drawn, engine: object
) -> tuple[Drawn, BatchOutcome | None]:
    """The drawn battles as the generator's spec says: blocks as drawn, or with
    ``decisions = "optimal"`` the best blocks (:class:`Decider`). When `engine` is the
    batched engine, also their outcomes (the search resolved them with it); else None: the
    engine is to resolve them."""
    if generator.spec.decisions != "optimal":
        return drawn, None
    decider = _deciders.get(generator)
    if decider is None:
        decider = _deciders[generator] = Decider(generator)
    return decider.decide(drawn, outcomes=isinstance(engine, BatchedEngine))
