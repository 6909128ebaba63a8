"""Bulk turns with decisions (``decisions = "optimal"`` in a SPEC with ``[turn]``): every
combat phase is decided as it begins, from the battle's state then, as RULES section 9 decides
one combat phase (each phase its own game: the search looks no further than the phase's end).

- In the first combat phase the attacking player attacks with the set of the SPEC's drawn
  attackers that the search chooses (CONTRACT 9: as a decided SPEC without ``[turn]`` does),
  answered by the defending player's best blocks by every creature of its that may block
  (the drawn blockers and its `turn.creatures`).
- In each later combat phase the attacking player attacks with the set of its creatures
  that may attack (:class:`~ecs_combat.batched.phase_start.PhaseStart`) that the search
  chooses.
- Either way every set is a board, answered by the defending player's best blocks (and the
  attacking player's best divisions); the board of the best value is the attack, ties as RULES
  section 9 shows them first (fewest attackers, then file order).

Blocks are judged as the engines judge them, on each board as its blockers are declared (its
attack triggers resolved: :func:`~ecs_combat.batched.block_rules.declaring_blockers`), by the
creatures that may block as the phase begins; a creature may block as many attackers as its
capacity allows (509.1a). The phase's attacking player divides damage as the best line does. Everything is array work
over the battles of a chunk (:class:`~ecs_combat.decisions.block_search.BlockSearch`): per
phase, per number of creatures that may attack, never per battle.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ecs_combat.batched import (
    BatchedEngine,
    BoolArray,
    CombatBatch,
    Copies,
    Declarations,
    DeclaringBlockers,
    IntArray,
    PhaseStart,
    Rows,
    copy_boards,
    declaring_blockers,
)
from ecs_combat.decisions.block_search import BlockSearch, Legality
from ecs_combat.decisions.declarations import attack_declarations
from ecs_combat.decisions.objective import Objective, Sides, lexicographic_ranks
from ecs_combat.plugin.registry import Registry

I64 = np.int64
#: Creature rows of the attack boards (copies of battles) made at a time.
BOARD_ROWS = 1 << 20


class TurnDecider:
    """Decides the combat phases of bulk turns (a
    :data:`~ecs_combat.batched.phase_start.PhaseDeclarer`)."""

    def __init__(self, registry: Registry) -> None:
        self.engine = BatchedEngine(registry)
        self.objective = Objective.default(registry)
        self.search = BlockSearch(self.engine, self.objective)
        fields = registry.state_fields("creature")
        self._refs = tuple(k for k, f in fields.items() if f.kind == "creature")
        #: Per number of creatures that may attack: every attack as bits, and its tie place.
        self._attacks: dict[int, tuple[IntArray, IntArray]] = {}

    @property
    def combats_resolved(self) -> int:
        """Candidate combats resolved, over every phase decided (for measurements)."""
        return self.search.combats_resolved

    def __call__(self, phase: PhaseStart) -> Declarations:
        may_attack = phase.may_attack
        if may_attack is None:  # the first phase: its attacks are among the drawn attackers
            may_attack = phase.state.attacking >= 0
        return self._attacks_and_blocks(phase, may_attack)

    def attack_table(self, able: int) -> tuple[IntArray, IntArray]:
        """Every attack of `able` creatures that may attack (bit i: the i-th in row order),
        and its place in the order ties are shown (RULES section 9)."""
        if able not in self._attacks:
            decls = attack_declarations(np.arange(able, dtype=I64), able, "turn")
            self._attacks[able] = (decls.masks.astype(I64), decls.tie_order)
        return self._attacks[able]

    def _attacks_and_blocks(self, phase: PhaseStart, may_attack: BoolArray) -> Declarations:
        """The attacking player's best attack, answered by the defending player's best
        blocks, and that line's divisions; battles taken in groups whose boards have at most
        about :data:`BOARD_ROWS` creature rows."""
        state = phase.state
        nb = state.n_battles
        rows = Rows.of(state)
        able = np.flatnonzero(may_attack)
        n_able = np.bincount(state.battle[able], minlength=nb).astype(I64)
        n_able[phase.attacker < 0] = 0
        first_able = np.cumsum(n_able) - n_able
        # one board per (battle, attack), battles in order, each battle's attacks in mask order
        per = np.where(n_able > 0, np.left_shift(1, n_able), 0).astype(I64)
        copied = per * rows.creatures.count
        group = (np.cumsum(copied) - copied) // BOARD_ROWS
        attacking = np.full(state.n_creatures, -1, I64)
        parts: list[Declarations] = []
        for g in np.unique(group[per > 0]).tolist():
            battles = np.flatnonzero((group == g) & (per > 0))
            part = self._group(phase, rows, battles, per, n_able, able, first_able)
            attacking = np.where(part.attacking >= 0, part.attacking, attacking)
            parts.append(part)
        return _joined(attacking, parts)

    def _group(
        self,
        phase: PhaseStart,
        rows: Rows,
        battles: IntArray,
        per: IntArray,
        n_able: IntArray,
        able: IntArray,
        first_able: IntArray,
    ) -> Declarations:
        """:meth:`_attacks_and_blocks` for some battles (ascending)."""
        state = phase.state
        board_battle = np.repeat(battles, per[battles])
        counts = per[battles]
        local = np.arange(len(board_battle), dtype=I64) - np.repeat(
            np.cumsum(counts) - counts, counts
        )
        mask = np.zeros(len(board_battle), I64)
        tie = np.zeros(len(board_battle), I64)
        for m in np.unique(n_able[battles]).tolist():
            on = n_able[board_battle] == m
            masks, order = self.attack_table(m)
            mask[on], tie[on] = masks[local[on]], order[local[on]]
        copies = copy_boards(state, board_battle, self._refs, rows)
        boards = self._declared(copies, state, rows, phase, board_battle, mask, able, first_able)
        at = declaring_blockers(self.engine, boards, phase.may_block[copies.creature_row])
        shift = copies.player_start - rows.players.start[board_battle]
        sides = Sides(
            phase.attacker[board_battle] + shift,
            phase.defender[board_battle] + shift,
            (boards.power + boards.toughness).astype(I64),
        )
        best = self.search.best(boards, sides, at.may_block, _legality(at))
        chosen = _best_boards(best.value, tie, board_battle, state.n_battles)
        return _on_state(state, copies, boards, best.declarations, chosen)

    def _declared(
        self,
        copies: Copies,
        state: CombatBatch,
        rows: Rows,
        phase: PhaseStart,
        board_battle: IntArray,
        mask: IntArray,
        able: IntArray,
        first_able: IntArray,
    ) -> CombatBatch:
        """The boards with each one's attack declared: bit i of its mask, the i-th creature
        of its battle that may attack, attacks the defending player."""
        width = int(mask.max(initial=0)).bit_length()
        bits = (mask[:, None] >> np.arange(width, dtype=I64)) & 1
        board, i = np.nonzero(bits)
        row = able[first_able[board_battle[board]] + i]
        b = board_battle[board]
        attacking = np.full(copies.batch.n_creatures, -1, I64)
        attacking[copies.creature_start[board] + row - rows.creatures.start[b]] = (
            copies.player_start[board] + phase.defender[b] - rows.players.start[b]
        )
        return dataclasses.replace(copies.batch, attacking=attacking)


def _legality(at: DeclaringBlockers) -> Legality:
    """The block rules as blockers are declared, the attack triggers resolved (RULES 4)."""
    return Legality(at.legal_blocks, at.blockers_needed, at.required, at.capacity)


def _sides(state: CombatBatch, attacker: IntArray, defender: IntArray) -> Sides:
    """The phase's players (the first rows of battles without the phase) and each creature's
    value: power plus toughness as the phase begins, before counters (RULES section 9)."""
    first = np.searchsorted(state.player_battle, np.arange(state.n_battles))
    return Sides(
        np.where(attacker >= 0, attacker, first),
        np.where(defender >= 0, defender, first),
        (state.power + state.toughness).astype(I64),
    )


def _best_boards(value: IntArray, tie: IntArray, board_battle: IntArray, nb: int) -> IntArray:
    """Each battle's board of the highest value for the attacking player (its attack's value
    is its best blocks'), the first as ties are shown among equal ones; boards by battle."""
    rank = lexicographic_ranks(value)
    ties = int(tie.max(initial=0)) + 1
    if (int(rank.max(initial=0)) + 1) * ties >= 1 << 62:  # the key would overflow int64:
        rank = np.unique(rank, return_inverse=True)[1].reshape(-1).astype(I64)  # dense ranks
    key = (int(rank.max(initial=0)) - rank) * ties + tie  # lowest: best
    count = np.bincount(board_battle, minlength=nb)
    some = count > 0
    start = (np.cumsum(count) - count)[some]
    low = np.minimum.reduceat(key, start) if len(start) else np.zeros(0, I64)
    lowest = np.zeros(nb, I64)
    lowest[some] = low
    hit = np.flatnonzero(key == lowest[board_battle])
    first = np.ones(len(hit), np.bool_)
    first[1:] = board_battle[hit][1:] != board_battle[hit][:-1]
    out: IntArray = hit[first]
    return out


def _on_state(
    state: CombatBatch,
    copies: Copies,
    boards: CombatBatch,
    d: Declarations,
    chosen: IntArray,
) -> Declarations:
    """The chosen boards' attacks, blocks and divisions, by rows of the state."""
    crow, prow = copies.creature_row, copies.player_row
    keep = np.zeros(boards.n_battles, np.bool_)
    keep[chosen] = True
    attacking = np.full(state.n_creatures, -1, I64)
    attackers = np.flatnonzero((boards.attacking >= 0) & keep[boards.battle])
    attacking[crow[attackers]] = prow[boards.attacking[attackers]]
    blocks = keep[boards.battle[d.block_blocker]]
    divisions = keep[boards.battle[d.division_source]]
    rec = d.division_recipient[divisions]
    player = rec < 0
    return Declarations(
        attacking=attacking,
        block_blocker=crow[d.block_blocker[blocks]],
        block_attacker=crow[d.block_attacker[blocks]],
        block_rank=d.block_rank[blocks],
        division_step=d.division_step[divisions],
        division_source=crow[d.division_source[divisions]],
        division_recipient=np.where(
            player, -1 - prow[np.where(player, -1 - rec, 0)], crow[np.where(player, 0, rec)]
        ),
        division_amount=d.division_amount[divisions],
    )


def _joined(attacking: IntArray, parts: list[Declarations]) -> Declarations:
    """The declarations of groups of battles (ascending) as one, with every attack."""
    empty = np.zeros(0, I64)

    def cat(name: str) -> IntArray:
        out: IntArray = np.concatenate([empty, *(getattr(p, name) for p in parts)])
        return out

    return Declarations(
        attacking,
        cat("block_blocker"),
        cat("block_attacker"),
        cat("block_rank"),
        cat("division_step"),
        cat("division_source"),
        cat("division_recipient"),
        cat("division_amount"),
    )
