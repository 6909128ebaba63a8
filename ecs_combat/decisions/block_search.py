"""The defending player's best blocks on many boards at once (RULES section 9), for bulk
simulations: the search of :mod:`ecs_combat.decisions.search` over raw declarations shared by
boards of one *shape*.

Boards of one shape (attackers, creatures that may block and how many attackers each may
block) share one enumeration of raw declarations (:mod:`.block_shapes`: each creature blocks
nothing or a set of attackers up to its capacity, 509.1a); which of them each board may
declare comes from a :class:`Legality`: pairs, least numbers of blockers, and the most
requirements obeyed (509.1c), as a mask per (board, declaration).
The legal ones of many boards are searched together, and each board gets its best declaration
(ties as RULES section 9 shows them first), the divisions of the best line and its value.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ecs_combat.batched import (
    BatchedEngine,
    BoolArray,
    CombatBatch,
    Declarations,
    IntArray,
    Outcomes,
    Rows,
    csr_rows,
    distinct_rows,
    distinct_values,
    join_outcomes,
    repeated,
    tiled,
)
from ecs_combat.decisions.block_shapes import Shape, declarations_of
from ecs_combat.decisions.bounds import Clock
from ecs_combat.decisions.objective import Objective, Sides
from ecs_combat.decisions.search import best_declarations, search
from ecs_combat.decisions.tree import Blocks, Tree

I64 = np.int64
#: Creature rows of candidate combats resolved together in one search (its first level).
#: Smaller searches keep the arrays small enough for the C allocator to reuse their memory
#: (docs/performance.md, "Chunk size matters"), but each also reads the chunk's arrays: 2^14
#: and 2^17 measured about the same on the tournament (2^14: less system time, more user).
SEARCH_ROWS = 1 << 17


#: Which (attacker row, blocker row) pairs the rules allow (509.1a-b restrictions); None:
#: every pair.
PairTest = Callable[[IntArray, IntArray], BoolArray]
#: How many blockers each of some attacker rows needs at least if blocked (509.1b), or None:
#: one.
NeedTest = Callable[[IntArray], IntArray | None]


#: How many block requirements (509.1c) each (attacker row, blocker row) pair obeys if
#: declared, or None: nothing is required.
RequiredTest = Callable[[IntArray, IntArray], IntArray | None]


@dataclass(frozen=True)
class Legality:
    """The rules a board's block declarations must follow, by rows of its batch."""

    pairs: PairTest | None
    need: NeedTest
    required: RequiredTest | None = None
    #: How many attackers at most each of some creature rows may block (509.1a); None: one.
    capacity: Callable[[IntArray], IntArray] | None = None


@dataclass(frozen=True)
class Best:
    """Every board's best block declaration (with the best line's divisions) and its value."""

    declarations: Declarations
    #: [n_boards, terms] the value of each board's best declaration (0 for a board not
    #: searched: no attacker or nobody to block).
    value: IntArray
    #: [n_boards] whether the board was searched.
    searched: BoolArray
    #: The searched boards' outcomes on their best lines, with each creature and player
    #: row's battle, when asked for.
    outcome: Outcomes | None = None
    #: Whether every board asked for was searched: False when the clock ran out first (the
    #: boards left are not `searched`: they declare nothing).
    complete: bool = True


class BlockSearch:
    """Searches the defending player's best blocks of many boards (:meth:`best`)."""

    def __init__(self, engine: BatchedEngine, objective: Objective) -> None:
        self.engine = engine
        self.objective = objective
        self._shapes: dict[tuple[int, tuple[int, ...]], Shape] = {}
        #: Candidate combats resolved, over every search (for measurements).
        self.combats_resolved = 0

    def shape(self, attackers: int, capacities: tuple[int, ...]) -> Shape:
        key = (attackers, capacities)
        if key not in self._shapes:
            self._shapes[key] = Shape.of(attackers, capacities)
        return self._shapes[key]

    def best(
        self,
        batch: CombatBatch,
        sides: Sides,
        defends: BoolArray,
        legality: Legality,
        outcomes: bool = False,
        searched: BoolArray | None = None,
        rows: Rows | None = None,
        clock: Clock | None = None,
    ) -> Best:
        """Each board's best blocks against its attackers (``batch.attacking``) by its
        creatures `defends` (those that may block), the attacking player's best divisions,
        and their value; only boards `searched` (default: all) are searched, the others
        declare nothing. With `outcomes`, also the searched boards' outcomes (battles in
        board order). `rows`: the batch's players and creatures by battle, if known.
        `clock`: a time budget, read before each group of boards (each group's first level
        has about :data:`SEARCH_ROWS` creature rows); the groups left when it runs out are
        not searched (``Best.complete`` is then False)."""
        nb = batch.n_battles
        if rows is None:
            rows = Rows.by_battle(batch)
        cs = rows.creatures
        att_rows, blk_rows = np.flatnonzero(batch.attacking >= 0), np.flatnonzero(defends)
        n_att = np.bincount(batch.battle[att_rows], minlength=nb).astype(I64)
        n_blk = np.bincount(batch.battle[blk_rows], minlength=nb).astype(I64)
        search_of = np.ones(nb, np.bool_) if searched is None else searched.copy()
        capacity = (
            np.ones(len(blk_rows), I64)
            if legality.capacity is None
            else legality.capacity(blk_rows).astype(I64)
        )
        raw = declarations_of(n_att, capacity, batch.battle[blk_rows], nb)
        size = np.where(search_of, raw * np.maximum(cs.count, 1), 0)
        # by the rows before each battle's own, so that a group ends once it has enough
        group = ((np.cumsum(size) - size) // SEARCH_ROWS).astype(I64)
        chunk = ChunkRows(
            rows,
            np.arange(batch.n_creatures, dtype=I64) - cs.start[batch.battle],
            att_rows,
            blk_rows,
            np.cumsum(n_att) - n_att,
            np.cumsum(n_blk) - n_blk,
            capacity,
        )
        parts: list[Chosen] = []
        value: IntArray | None = None  # zeros for the boards not searched, when some aren't
        complete = True
        for g in distinct_values(group[search_of]):
            battles = np.flatnonzero((group == g) & search_of)
            if clock is not None and clock.out():
                search_of[group >= g] = False
                complete = False
                break
            part = self._search(batch, sides, legality, chunk, battles, n_att, n_blk, outcomes)
            if len(battles) == nb:  # every board, in order: its values are theirs
                value = part.value
            else:
                if value is None:
                    value = np.zeros((nb, len(self.objective.terms)), I64)
                value[battles] = part.value
            parts.append(part)
        if value is None:
            value = np.zeros((nb, len(self.objective.terms)), I64)
        d = _declarations(batch, parts, rows)
        known = [p.outcome for p in parts if p.outcome is not None]
        outcome = join_outcomes(known) if outcomes and known else None
        return Best(d, value, search_of, outcome, complete)

    def _search(
        self,
        batch: CombatBatch,
        sides: Sides,
        legality: Legality,
        chunk: ChunkRows,
        battles: IntArray,
        n_att: IntArray,
        n_blk: IntArray,
        outcomes: bool,
    ) -> Chosen:
        """Search some battles (ascending) and choose their declarations."""
        blocks, tie = self._declarations(legality, chunk, battles, n_att, n_blk)
        offset = np.concatenate(
            [[0], np.cumsum(np.bincount(blocks.board, minlength=batch.n_battles))]
        ).astype(I64)
        tree = Tree(
            self.engine, self.objective, batch, sides, blocks, keep_outcomes=outcomes,
            board_rows=chunk.rows,
        )  # fmt: skip
        # the memory guard: a group whose candidate combats (declarations times division
        # choices) would not fit is refused, naming its size (SearchTooLarge, exit 2)
        results = search(tree, offset, 1, Clock(None), guard="")
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
            blocks.rank[rows_of[0]],
            battles[owner],
            div,
            results.values.take(best, axis=0),  # rows: faster than indexing
            tree.outcomes_of(leaves) if outcomes else None,
        )

    def _declarations(
        self,
        legality: Legality,
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
        shape_key = _shape_keys(chunk, battles, n_att, n_blk)
        parts: list[tuple[IntArray, ...]] = []
        tables: list[Shape] = []
        kinds, which_kind = distinct_rows(shape_key)
        for s, key in enumerate(kinds.tolist()):
            mine = slice(None) if len(kinds) == 1 else np.flatnonzero(which_kind == s)
            a, k = key[0], key[1]
            shape = self.shape(a, tuple(key[2 : 2 + k]))
            af, bf = att_first[mine], blk_first[mine]
            att = att_rows[af[:, None] + np.arange(a, dtype=I64)]
            blk = blk_rows[bf[:, None] + np.arange(k, dtype=I64)]
            ok = _legal(legality, shape, att.reshape(len(af), a), blk.reshape(len(bf), k))
            if len(kinds) == 1 and not np.count_nonzero(~ok):  # all alike, all legal
                return _every_declaration(shape, battles, place[att], place[blk]), tiled(
                    shape.tie, len(battles)
                )
            b, r = np.nonzero(ok)
            on = battles[mine]
            # r plus the rows of the tables before this one: a row of every shape's table
            at = r + sum(len(t.tie) for t in tables)
            parts.append((on[b], shape.tie[r], at, af[b], bf[b]))
            tables.append(shape)
        board, tie, decl, att0, blk0 = (
            parts[0] if len(parts) == 1 else (np.concatenate(x) for x in zip(*parts, strict=True))
        )
        if len(tables) > 1:  # by battle
            order = np.argsort(board, kind="stable")
            board, tie, decl, att0, blk0 = (x[order] for x in (board, tie, decl, att0, blk0))
        # one table of every shape's pairs; declaration row d's are start[d]:start[d + 1]
        start, pair_att, pair_blk, pair_rank = _pair_table(tables)
        rows, owner = csr_rows(start, decl)
        count = start[decl + 1] - start[decl]
        return (
            Blocks(
                board=board,
                start=np.concatenate([[0], np.cumsum(count)]).astype(I64),
                blocker=place[blk_rows[blk0[owner] + pair_blk[rows]]],
                attacker=place[att_rows[att0[owner] + pair_att[rows]]],
                rank=pair_rank[rows],
            ),
            tie,
        )


def _every_declaration(shape: Shape, battles: IntArray, att: IntArray, blk: IntArray) -> Blocks:
    """Every declaration of `shape` for each of some battles (ascending; `att`, `blk`: the
    places of their attackers and of their creatures that may block, [battles, a] and
    [battles, k]), in the shape's order."""
    n, per = len(battles), len(shape.pair_attacker)
    r = len(shape.tie)
    start = np.empty(n * r + 1, I64)  # each battle's pairs after the battles' before it
    np.add(repeated(np.arange(n, dtype=I64) * per, r), tiled(shape.start[:-1], n),
           out=start[:-1])  # fmt: skip
    start[-1] = n * per
    return Blocks(
        board=repeated(battles, r),
        start=start,
        blocker=blk[:, shape.pair_blocker].reshape(-1),
        attacker=att[:, shape.pair_attacker].reshape(-1),
        rank=tiled(shape.pair_rank, n),
        each=r,
    )


def _pair_table(tables: list[Shape]) -> tuple[IntArray, IntArray, IntArray, IntArray]:
    """The pairs of the declarations of several shapes as one table, the declarations of each
    after those of the shapes before it: each declaration's first pair (CSR, one more at the
    end), and each pair's attacker, blocker and rank (:class:`Shape`)."""
    if len(tables) == 1:
        t = tables[0]
        return t.start, t.pair_attacker, t.pair_blocker, t.pair_rank
    pair_base = np.cumsum([0, *(len(t.pair_attacker) for t in tables)])
    start = np.concatenate(
        [*(t.start[:-1] + pb for t, pb in zip(tables, pair_base, strict=False)), pair_base[-1:]]
    ).astype(I64)
    return (
        start,
        np.concatenate([t.pair_attacker for t in tables]),
        np.concatenate([t.pair_blocker for t in tables]),
        np.concatenate([t.pair_rank for t in tables]),
    )


def _shape_keys(chunk: ChunkRows, battles: IntArray, n_att: IntArray, n_blk: IntArray) -> IntArray:
    """[battles, 2 + most blockers] each battle's shape: its attackers, its creatures that
    may block, and their capacities (at most its attackers; 0 past its own)."""
    k = n_blk[battles]
    width = int(k.max(initial=0))
    place = np.arange(width, dtype=I64)[None, :]
    on = place < k[:, None]
    idx = np.where(on, chunk.first_blocker[battles][:, None] + place, 0)
    caps = chunk.capacity[idx] if len(chunk.capacity) else np.zeros(idx.shape, I64)
    caps = np.where(on, np.minimum(caps, n_att[battles][:, None]), 0)
    return np.concatenate([n_att[battles][:, None], k[:, None], caps], axis=1).astype(I64)


def _legal(legality: Legality, shape: Shape, att: IntArray, blk: IntArray) -> BoolArray:
    """[boards, R] which of the shape's declarations each board (attacker rows `att`,
    blocker rows `blk`) may make: every pair allowed (509.1a-b restrictions), every blocked
    attacker blocked by at least as many creatures as it needs (509.1b), and of those, the
    ones obeying as many block requirements as any does (509.1c)."""
    nb, a, k = att.shape[0], shape.attackers, shape.blockers
    ok = np.ones((nb, len(shape.tie)), np.bool_)
    if a == 0 or k == 0:
        return ok
    pa = np.broadcast_to(att[:, None, :], (nb, k, a)).reshape(-1)
    pb = np.broadcast_to(blk[:, :, None], (nb, k, a)).reshape(-1)
    if legality.pairs is not None:
        barred: BoolArray = ~legality.pairs(pa, pb).reshape(nb, k, a)
        # [nb, k, O] whether each creature may block each set: no attacker of it barred
        allowed: BoolArray = ~np.any(barred[:, :, None, :] & shape.members[None, None], axis=3)
        for j in range(k):
            ok &= allowed[:, j, :][:, shape.option[:, j]]
    need = legality.need(att.reshape(-1))
    if need is not None:
        need = need.reshape(nb, a)
        for i in range(a):
            have = shape.count[:, i][None, :]
            ok &= (have == 0) | (have >= need[:, i][:, None])
    counts = None if legality.required is None else legality.required(pa, pb)
    if counts is not None:
        # a requirement is obeyed once however often it was made (rules/requirements.py)
        required = (counts.reshape(nb, k, a) > 0).astype(I64)
        per_set = (required[:, :, None, :] * shape.members[None, None]).sum(axis=3)
        obeyed = np.zeros(ok.shape, I64)
        for j in range(k):
            obeyed += per_set[:, j, :][:, shape.option[:, j]]
        most = np.where(ok, obeyed, -1).max(axis=1, initial=-1)
        ok &= obeyed == most[:, None]
    return ok


@dataclass(frozen=True)
class ChunkRows:
    """The rows of a chunk's battles that every search of the chunk reads."""

    rows: Rows
    place: IntArray  #: [N] each creature's place on its board
    attackers: IntArray  #: the attacking creatures' rows, by battle
    blockers: IntArray  #: the rows of the creatures that may block, by battle
    first_attacker: IntArray  #: [n_battles] each battle's first among `attackers`
    first_blocker: IntArray
    capacity: IntArray  #: how many attackers at most each of `blockers` may block


@dataclass(frozen=True)
class Chosen:
    """The declarations chosen for some battles: blocks by places on their boards, and the
    best line's divisions as the search's levels hold them ([R, 4] rows)."""

    block_board: IntArray
    blocker: IntArray
    attacker: IntArray
    #: The attacker's place among those its blocker blocks.
    rank: IntArray
    division_board: IntArray
    division: IntArray
    #: [battles, terms] the value of each battle's best declaration.
    value: IntArray
    #: Their outcomes with each creature and player row's battle (among those searched).
    outcome: Outcomes | None = None


def _declarations(batch: CombatBatch, parts: list[Chosen], rows: Rows) -> Declarations:
    """The chosen blocks and divisions of every battle, by rows of the batch (`rows`: its
    players and creatures by battle)."""
    cs, ps = rows.creatures.start, rows.players.start
    empty = np.zeros(0, I64)
    block_board = np.concatenate([empty, *(p.block_board for p in parts)])
    blocker = np.concatenate([empty, *(p.blocker for p in parts)])
    attacker = np.concatenate([empty, *(p.attacker for p in parts)])
    rank = np.concatenate([empty, *(p.rank for p in parts)])
    div_board = np.concatenate([empty, *(p.division_board for p in parts)])
    div = np.concatenate([np.zeros((0, 4), I64), *(p.division for p in parts)]).reshape(-1, 4)
    rec = div[:, 2]
    on_player = rec < 0
    return Declarations(
        attacking=batch.attacking,
        block_blocker=cs[block_board] + blocker,
        block_attacker=cs[block_board] + attacker,
        block_rank=rank,
        division_step=div[:, 0].copy(),
        division_source=cs[div_board] + div[:, 1],
        division_recipient=np.where(
            on_player, -1 - (ps[div_board] + (-1 - rec)), cs[div_board] + rec
        ),
        division_amount=div[:, 3].copy(),
    )
