"""The attacking player's best attacks on many boards at once (RULES section 9, step 1), each
answered by the defending player's best blocks and both players' best divisions, for bulk
simulations (``decisions = "optimal"``).

A board's *attack* is a set of its creatures that may attack, numbered by a mask: bit i is the
board's i-th such creature in row order (file order). Every board with at least as many such
creatures as the mask's highest bit has that attack. For each mask, the boards that have it are
one block search (:class:`~ecs_combat.decisions.block_search.BlockSearch`) over the very rows
of the batch with only that attack declared: no copies of boards, and the boards of a mask keep
the shapes the block search lays out a declaration at a time (the keyword tournament's "attack"
is the drawn batch itself). Each board's attack is the one of the highest value for the
attacking player (its value: its best blocks'), ties as RULES section 9 shows them first (the
fewest attackers, then file order), with that attack's blocks and the best line's divisions.

The Python loop is over masks (at most ``2 ** most attackers``), never over boards.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ecs_combat.batched import (
    BoolArray,
    CombatBatch,
    Declarations,
    IntArray,
    Rows,
    declaring_blockers,
    replaced,
    without_blocks,
)
from ecs_combat.decisions.block_search import Best, BlockSearch, Legality
from ecs_combat.decisions.declarations import attack_declarations
from ecs_combat.decisions.objective import Sides, score

I64 = np.int64


@dataclass(frozen=True)
class Attacks:
    """Every board's best attack, with its best blocks and the best line's divisions."""

    declarations: Declarations
    #: [n_boards, terms] each board's value: its best attack's (0 for a board with no
    #: creature that may attack).
    value: IntArray
    #: [n_boards] the chosen attack as a mask over the board's creatures that may attack.
    mask: IntArray


class AttackSearch:
    """Searches the attacking player's best attacks of many boards (:meth:`best`)."""

    def __init__(self, blocks: BlockSearch) -> None:
        self.blocks = blocks
        #: Per number of creatures that may attack: each mask's place in the order ties are
        #: shown (the order of two masks is the same whatever that number).
        self._ties: dict[int, IntArray] = {}

    def tie_order(self, able: int) -> IntArray:
        """[2 ** able] each attack mask's place in the order ties are shown (RULES 9)."""
        if able not in self._ties:
            self._ties[able] = attack_declarations(
                np.arange(able, dtype=I64), able, "SPEC"
            ).tie_order
        return self._ties[able]

    def best(
        self, batch: CombatBatch, sides: Sides, defends: BoolArray, rows: Rows | None = None
    ) -> Attacks:
        """Each board's best attack: `batch.attacking` gives every creature that may attack
        the player it would attack (-1: it may not), `defends` the creatures that may block
        (the defending player's); the batch's own blocks and divisions are not read."""
        nb = batch.n_battles
        if rows is None:
            rows = Rows.by_battle(batch)
        able = np.flatnonzero(batch.attacking >= 0)
        able_battle = batch.battle[able]
        n_able = np.bincount(able_battle, minlength=nb).astype(I64)
        most = int(n_able.max(initial=0))
        # each able creature's place among its board's (its bit in a mask)
        if most <= 1:
            place = np.zeros(len(able), I64)
        else:
            before = np.cumsum(n_able)
            before -= n_able
            place = np.arange(len(able), dtype=I64)
            place -= before[able_battle]
        tie = self.tie_order(most)
        value: IntArray | None = None  # mask 0's, if any board may attack
        chosen = np.zeros(nb, I64)
        chosen_tie = np.full(nb, tie[0], I64)
        found: dict[int, Best] = {}
        for mask in range(1 << most):
            boards = n_able >= max(mask.bit_length(), 1)  # those with a choice and this attack
            if not boards.any():
                continue
            attacking = _attacking(batch, able, ((mask >> place) & 1).astype(np.bool_))
            if mask == 0:  # the first: every board's value so far
                value = self._no_attack(batch, sides, attacking)
                continue
            board = replaced(batch, attacking=attacking)
            found[mask] = best = self._blocks(board, sides, defends, boards, rows)
            assert value is not None  # mask 0 came first
            gain = best.value - value
            higher, equal = _compared(gain)
            better = higher | (equal & (int(tie[mask]) < chosen_tie))
            better &= boards
            # blends by products with the mask (faster than copies where the mask is set)
            take = better.astype(I64)
            gain *= take[:, None]
            value += gain
            chosen += (mask - chosen) * take
            chosen_tie += (int(tie[mask]) - chosen_tie) * take
        if value is None:  # no board may attack
            value = np.zeros((nb, len(self.blocks.objective.terms)), I64)
        attacking = _attacking(batch, able, ((chosen[able_battle] >> place) & 1).astype(np.bool_))
        return Attacks(_declared(batch, attacking, found, chosen), value, chosen)

    def _no_attack(self, batch: CombatBatch, sides: Sides, attacking: IntArray) -> IntArray:
        """[n_boards, terms] the value of attacking with nothing: one combat each, with no
        block or division to choose (508.8), resolved and scored."""
        board = without_blocks(batch, attacking=attacking)
        outcome = self.blocks.engine.resolve_batch(board)
        self.blocks.combats_resolved += board.n_battles
        return score(self.blocks.objective, board, outcome, sides)

    def _blocks(
        self, board: CombatBatch, sides: Sides, defends: BoolArray, boards: BoolArray, rows: Rows
    ) -> Best:
        """The best blocks of `boards` of a batch with one attack declared."""
        at = declaring_blockers(self.blocks.engine, board, defends)
        legality = Legality(at.legal_blocks, at.blockers_needed, at.required, at.capacity)
        return self.blocks.best(board, sides, at.may_block, legality, searched=boards, rows=rows)


def _attacking(batch: CombatBatch, able: IntArray, on: BoolArray) -> IntArray:
    """`batch.attacking` for the creatures `able` to attack that are `on`, -1 for the others."""
    declared = np.count_nonzero(on)
    if declared == len(on):  # all of them: the batch's own (read only)
        return batch.attacking
    if declared == 0:
        return np.full(batch.n_creatures, -1, I64)
    out = batch.attacking.copy()
    out[able[~on]] = -1
    return out


def _compared(gain: IntArray) -> tuple[BoolArray, BoolArray]:
    """[n] whether each row of `gain` (a value minus another, [n, terms]) is positive as
    values compare (term by term, the first difference decides), and whether it is zero."""
    n, terms = gain.shape
    if terms > 8:
        higher = np.zeros(n, np.bool_)
        equal = np.ones(n, np.bool_)
        for t in range(terms):
            higher |= equal & (gain[:, t] > 0)
            equal &= gain[:, t] == 0
        return higher, equal
    # each term's sign + 1 as a byte, a row's bytes read as one big-endian number: rows
    # compare as their first differing terms do (one comparison, not a pass per term)
    width = 4 if terms <= 4 else 8
    signs = np.ones((n, width), np.int8)
    np.sign(gain, out=signs[:, :terms], casting="unsafe")
    signs[:, :terms] += 1
    packed = signs.view(f">u{width}").reshape(n)
    zero = int.from_bytes(b"\x01" * width)
    return packed > zero, packed == zero


def _declared(
    batch: CombatBatch, attacking: IntArray, found: dict[int, Best], chosen: IntArray
) -> Declarations:
    """The chosen attacks, and the blocks and divisions their searches chose, by rows of the
    batch; blocks and divisions in battle order, each battle's as its search gave them."""
    ds = [best.declarations for best in found.values()]
    kept_blocks = [
        chosen[batch.battle[d.block_blocker]] == m for m, d in zip(found, ds, strict=True)
    ]
    kept_divisions = [
        chosen[batch.battle[d.division_source]] == m for m, d in zip(found, ds, strict=True)
    ]

    def blocks(name: str) -> IntArray:
        out: IntArray = np.concatenate(
            [np.zeros(0, I64), *(getattr(d, name)[k] for d, k in zip(ds, kept_blocks, strict=True))]
        )
        return out

    def divisions(name: str) -> IntArray:
        out: IntArray = np.concatenate(
            [
                np.zeros(0, I64),
                *(getattr(d, name)[k] for d, k in zip(ds, kept_divisions, strict=True)),
            ]
        )
        return out

    block_blocker = blocks("block_blocker")
    by_block = np.argsort(batch.battle[block_blocker], kind="stable")
    division_source = divisions("division_source")
    by_division = np.argsort(batch.battle[division_source], kind="stable")
    return Declarations(
        attacking=attacking,
        block_blocker=block_blocker[by_block],
        block_attacker=blocks("block_attacker")[by_block],
        block_rank=blocks("block_rank")[by_block],
        division_step=divisions("division_step")[by_division],
        division_source=division_source[by_division],
        division_recipient=divisions("division_recipient")[by_division],
        division_amount=divisions("division_amount")[by_division],
    )
