"""The outcomes of decided battles (``decisions = "optimal"``) without resolving them all again:
a battle whose attacking player attacks with nothing ends as its "no attack" combat did when
the attack search resolved it to value it (the same board, nothing declared); only the battles
that attack are resolved, as copies of their boards with their declarations, and their rows put
in place. Everything is array work over the chunk's battles.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ecs_combat.batched import (
    BatchedEngine,
    BatchOutcome,
    CombatBatch,
    Copies,
    IntArray,
    Rows,
    copy_boards,
    replaced,
)

I64 = np.int64
#: BatchOutcome's fields by what their rows are: creature rows ([N]), player rows ([P]),
#: battles ([n_battles]); ``steps_taken`` is [steps, n_battles], ``player_state`` by key.
CREATURE_FIELDS = (
    "alive",
    "damage",
    "power",
    "toughness",
    "died_in_step",
    "dealt_to_players",
    "life_gained",
    "entered",
    "returned",
)
PLAYER_FIELDS = ("life", "lost")
BATTLE_FIELDS = ("damage_to_players",)
KNOWN_FIELDS = frozenset(
    (*CREATURE_FIELDS, *PLAYER_FIELDS, *BATTLE_FIELDS, "steps_taken", "player_state")
)


def decided_outcomes(
    engine: BatchedEngine,
    batch: CombatBatch,
    attacks: IntArray,
    still: BatchOutcome,
    rows: Rows,
    creature_refs: tuple[str, ...],
) -> BatchOutcome | None:
    """The outcome of the decided `batch` (its attacks, blocks and divisions declared), whose
    battles `attacks` (ascending) attack and the others attack with nothing, `still` being every
    battle's outcome attacking with nothing (`rows`: the batch's rows by battle;
    `creature_refs`: the creature state keys holding creature rows). None when it is as well
    resolved whole (every battle attacks) or the two outcomes don't say the same things."""
    if len(attacks) == batch.n_battles or any(
        f.name not in KNOWN_FIELDS for f in dataclasses.fields(BatchOutcome)
    ):
        return None
    if not len(attacks):
        return still
    copies = copy_boards(batch, attacks, creature_refs, rows)
    part = engine.resolve_batch(_declared(batch, attacks, copies, rows))
    return _placed(still, part, copies, attacks)


def _declared(batch: CombatBatch, battles: IntArray, copies: Copies, rows: Rows) -> CombatBatch:
    """The copies of `battles` with their blocks and divisions (rows moved to the copies')."""
    place = np.full(batch.n_battles, -1, I64)
    place[battles] = np.arange(len(battles), dtype=I64)
    cs, ps = rows.creatures.start, rows.players.start

    def moved(row: IntArray) -> IntArray:  # creature rows of the copied battles
        b = batch.battle[row]
        out: IntArray = copies.creature_start[place[b]] + (row - cs[b])
        return out

    blocks = place[batch.battle[batch.block_blocker]] >= 0
    divisions = place[batch.battle[batch.division_source]] >= 0
    source = batch.division_source[divisions]
    recipient = batch.division_recipient[divisions]
    on_player = recipient < 0
    player = -1 - recipient
    b = batch.battle[source]
    to_player = copies.player_start[place[b]] + (np.where(on_player, player, ps[b]) - ps[b])
    to_creature = moved(np.where(on_player, source, recipient))
    return replaced(
        copies.batch,
        block_blocker=moved(batch.block_blocker[blocks]),
        block_attacker=moved(batch.block_attacker[blocks]),
        block_rank=batch.block_rank[blocks],
        division_step=batch.division_step[divisions],
        division_source=moved(source),
        division_recipient=np.where(on_player, -1 - to_player, to_creature),
        division_amount=batch.division_amount[divisions],
        division_index=None,
    )


def _placed(
    still: BatchOutcome, part: BatchOutcome, copies: Copies, battles: IntArray
) -> BatchOutcome | None:
    """`still` with the rows of the copies of `battles` taken from their outcome `part`; None
    when the two don't give the same fields."""
    changes: dict[str, object] = {}
    for name, at in (
        *((n, copies.creature_row) for n in CREATURE_FIELDS),
        *((n, copies.player_row) for n in PLAYER_FIELDS),
        *((n, battles) for n in BATTLE_FIELDS),
    ):
        mine, theirs = getattr(still, name), getattr(part, name)
        if (mine is None) != (theirs is None):
            return None
        if mine is not None:
            out = mine.copy()  # never the batch's own arrays
            out[at] = theirs
            changes[name] = out
    if (still.steps_taken is None) != (part.steps_taken is None):
        return None
    if still.steps_taken is not None and part.steps_taken is not None:
        steps = still.steps_taken.copy()
        steps[:, battles] = part.steps_taken
        changes["steps_taken"] = steps
    if still.player_state is not None or part.player_state is not None:
        if still.player_state is None or part.player_state is None:
            return None
        if set(still.player_state) != set(part.player_state):
            return None
        state = {}
        for key, values in still.player_state.items():
            out = values.copy()
            out[copies.player_row] = part.player_state[key]
            state[key] = out
        changes["player_state"] = state
    return dataclasses.replace(still, **changes)  # type: ignore[arg-type]


__all__ = ["decided_outcomes"]
