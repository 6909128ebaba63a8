"""Building the :class:`CombatBatch` of drawn two-player battles from per-creature arrays."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from ecs_combat.batched import ACTION_CODE, BoolArray, CombatBatch, IntArray, MaskArray
from ecs_combat.plugin.registry import Registry
from ecs_combat.simulation.keyword_bits import KeywordBits, RowFacts

Array = npt.NDArray[Any]


def state_columns(
    registry: Registry,
    owner: str,
    rows: int,
    given: dict[str, Array] | None = None,
    shared: bool = False,
) -> dict[str, Array]:
    """Every state plugins add to creatures or players, for `rows` rows: as `given`, else the
    default (a creature reference: -1); with `shared`, defaults as read-only views shared
    with other batches (:func:`filled`)."""
    out: dict[str, Array] = {}
    for key, f in registry.state_fields(owner).items():
        if given and key in given:
            out[key] = given[key]
        elif f.kind == "bool":
            out[key] = filled(rows, bool(f.default), np.bool_, shared)
        else:
            default = -1 if f.default is None else int(f.default)
            out[key] = filled(rows, default, np.int64, shared)
    return out


def filled(size: int, value: int | bool, dtype: type[np.generic], shared: bool) -> Array:
    """`size` elements of `value`: with `shared`, a read-only view of one element (stride 0:
    no memory for the column), else a new array."""
    if not shared:
        return np.full(size, value, dtype=dtype)
    return np.broadcast_to(np.array(value, dtype=dtype), (size,))


@dataclass
class Casts:
    """Which card is cast on which creature rows."""

    card_names: tuple[str, ...] = ()
    #: Per `[[casts]]` entry: index into card_names, target kind, and per-row draws.
    entries: list[tuple[int, str, BoolArray]] = field(default_factory=list)


def assemble(
    bits: KeywordBits,
    counts: IntArray,
    role: IntArray,
    assigned: IntArray,
    power: IntArray,
    toughness: IntArray,
    keywords: MaskArray,
    life: int,
    possible: np.uint64,
    casts: Casts | None = None,
    names: list[str] | None = None,
    per_battle: int | None = None,
    creature_state: dict[str, Array] | None = None,
    player_state: dict[str, Array] | None = None,
    home: BoolArray | None = None,
    facts: RowFacts | None = None,
    shared: bool = False,
    battle: IntArray | None = None,
) -> tuple[CombatBatch, BoolArray]:
    """Build the batch of two-player battles from per-creature arrays, battle-major.

    `counts` holds each battle's creature count (all `per_battle`, if given); `role` is 0 for the attacking player's
    creatures and 1 for the defending player's; `assigned` is, for a defending creature, the
    row (within its battle) of the attacker it is drawn to block. Forbidden blocks are dropped;
    an attacker left with fewer blockers than it needs (702.111b) is unblocked. Returns the batch
    and the attacking-side mask. The plugins' state not given takes its default. Creatures
    in `home` neither attack nor block. `facts` gives the creatures' colors and keyword
    parameters (else colorless, no parameters). With `shared`, the columns that hold one value
    (no damage, colorless, present, life) are read-only views shared by every batch built
    (engines don't write to their input), not made for each. `battle`, each row's battle,
    when the caller has it (else it is made from `counts`).
    """
    n = int(counts.shape[0])
    battle, starts = _battle_rows(counts, per_battle, battle)
    rows = battle.shape[0]
    controller = 2 * battle + role
    attacks, blocks = _who_fights(bits, role, keywords, possible, home)
    attacking = np.where(attacks, controller + 1, -1)
    block_blocker, block_attacker = _legal_blocks(
        bits,
        possible,
        attacks,
        blocks,
        battle,
        starts,
        per_battle,
        assigned,
        keywords,
        power,
        facts,
    )

    batch = CombatBatch(
        n_battles=n,
        keyword_names=bits.names,
        counter_names=(*bits.names, *bits.registry.counter_kinds),
        player_battle=np.repeat(np.arange(n, dtype=np.int64), 2),
        life=filled(2 * n, life, np.int64, shared),
        player_state=state_columns(bits.registry, "player", 2 * n, player_state, shared),
        battle=battle,
        controller=controller,
        power=power,
        toughness=toughness,
        damage=filled(rows, 0, np.int64, shared),
        keywords=keywords,
        colors=filled(rows, 0, np.int64, shared) if facts is None else facts.colors,
        creature_state=state_columns(bits.registry, "creature", rows, creature_state, shared),
        attacking=attacking,
        present=filled(rows, True, np.bool_, shared),
        block_blocker=block_blocker,
        block_attacker=block_attacker,
        block_rank=filled(block_blocker.shape[0], 0, np.int64, shared),
        creature_names=names,
    )
    if casts is not None and casts.entries:
        _add_casts(batch, casts, attacks, block_attacker, block_blocker)
    return batch, role == 0


def _who_fights(
    bits: KeywordBits,
    role: IntArray,
    keywords: MaskArray,
    possible: np.uint64,
    home: BoolArray | None,
) -> tuple[BoolArray, BoolArray]:
    """Which creatures attack (the attacking player's that may) and which are drawn to block
    (the defending player's); none of those in `home`."""
    attacks = role == 0
    blocks = role == 1
    if home is not None:
        attacks &= ~home
        blocks &= ~home
    may_attack = bits.may_attack(keywords, possible)
    if may_attack is not None:
        attacks &= may_attack
    return attacks, blocks


def _battle_rows(
    counts: IntArray, per_battle: int | None, battle: IntArray | None
) -> tuple[IntArray, IntArray]:
    """Each creature row's battle (`battle` if given) and the first row of each battle."""
    n = int(counts.shape[0])
    if battle is not None:
        starts = np.zeros(n, dtype=np.int64)
        np.cumsum(counts[:-1], out=starts[1:])
    elif per_battle is not None:
        battle = np.repeat(np.arange(n, dtype=np.int64), per_battle)
        starts = np.arange(0, per_battle * n, per_battle, dtype=np.int64)
    else:
        battle = np.repeat(np.arange(n, dtype=np.int64), counts)
        starts = np.zeros(n, dtype=np.int64)
        np.cumsum(counts[:-1], out=starts[1:])
    return battle, starts


def _legal_blocks(
    bits: KeywordBits,
    possible: np.uint64,
    attacks: BoolArray,
    blocks: BoolArray,
    battle: IntArray,
    starts: IntArray,
    per_battle: int | None,
    assigned: IntArray,
    keywords: MaskArray,
    power: IntArray,
    facts: RowFacts | None,
) -> tuple[IntArray, IntArray]:
    """The drawn blocks the rules allow, as (blocker rows, attacker rows): each blocker that
    may block its `assigned` attacker, which attacks; an attacker left with fewer blockers
    than it needs (702.111b) is unblocked."""
    blocker_rows = np.flatnonzero(blocks)
    blocker_battle = battle[blocker_rows]
    if per_battle is not None:
        attacker_rows = blocker_battle * per_battle + assigned[blocker_rows]
    else:
        attacker_rows = starts[blocker_battle] + assigned[blocker_rows]
    legal = attacks[attacker_rows]
    attacker_masks = keywords[attacker_rows]
    if bits.restricts_blocks(possible):
        legal &= bits.legal_blocks(
            attacker_masks,
            keywords[blocker_rows],
            possible,
            lambda: power[attacker_rows],
            lambda: power[blocker_rows],
            None if facts is None else facts.take(attacker_rows),
            None if facts is None else facts.take(blocker_rows),
        )
    need = bits.blockers_needed(attacker_masks, possible)
    if need is not None:  # only the blocks of attackers needing more than one are checked
        needy = (need > 1).nonzero()[0]
        if needy.size:
            have = np.bincount(attacker_rows[legal], minlength=battle.shape[0])
            legal[needy] &= have[attacker_rows[needy]] >= need[needy]
    return blocker_rows[legal], attacker_rows[legal]


def _add_casts(
    batch: CombatBatch,
    casts: Casts,
    attacks: BoolArray,
    block_attacker: IntArray,
    block_blocker: IntArray,
) -> None:
    """Cast events at declare-blockers, by row and then in `[[casts]]` order."""

    def marked(rows: IntArray) -> BoolArray:
        out = np.zeros(len(attacks), dtype=np.bool_)
        out[rows] = True
        return out

    wanted: dict[str, Callable[[], BoolArray]] = {  # made when a cast asks for them
        "blocked attacker": lambda: attacks & marked(block_attacker),
        "attacker": lambda: attacks,
        "blocker": lambda: marked(block_blocker),
    }
    kinds: dict[str, BoolArray] = {}
    targets: list[IntArray] = []
    order: list[IntArray] = []
    cards: list[IntArray] = []
    for i, (card, kind, drawn) in enumerate(casts.entries):
        if kind not in kinds:
            kinds[kind] = wanted[kind]()
        rows = np.flatnonzero(drawn & kinds[kind])
        targets.append(rows)
        order.append(np.full(rows.shape, i, dtype=np.int64))
        cards.append(np.full(rows.shape, card, dtype=np.int64))
    if len(targets) == 1:  # one entry: its rows ascending already
        target, card_of = targets[0], cards[0]
    else:
        target = np.concatenate(targets)
        sort = np.lexsort((np.concatenate(order), target))
        target, card_of = target[sort], np.concatenate(cards)[sort]
    e = int(target.shape[0])
    batch.event_battle = batch.battle[target]
    batch.event_point = np.zeros(e, dtype=np.int64)
    batch.event_action = np.full(e, ACTION_CODE["cast"], dtype=np.int64)
    batch.event_target = target
    batch.event_keywords = np.zeros(e, dtype=np.uint64)
    batch.event_power = np.zeros(e, dtype=np.int64)
    batch.event_toughness = np.zeros(e, dtype=np.int64)
    batch.event_amount = np.zeros(e, dtype=np.int64)
    batch.event_player = batch.controller[target]
    batch.event_card = card_of
    batch.card_names = casts.card_names
