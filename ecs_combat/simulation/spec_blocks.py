"""A SPEC's battles as the compiled kernel draws them (:class:`~ecs_combat.kernel.spec_shape.
SpecBlocks`): the draw's numbers, and the attack and block rules of every set of drawn
keywords as tables, worked out once with the rules' own numpy code. Only for SPECs whose
battles differ in nothing those cover (no card pool, turn, race, decisions, names, or rule
reading more than keywords)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import partial

import numpy as np

from ecs_combat.batched import CombatBatch
from ecs_combat.kernel.spec_shape import SpecBlocks
from ecs_combat.simulation.assemble import Array
from ecs_combat.simulation.float_words import float32_words, limits
from ecs_combat.simulation.keyword_bits import KeywordBits
from ecs_combat.simulation.spec import CAST_TARGETS, BattleSpec, most_creatures

#: At most this many drawn keywords: the block table has 4**k entries.
MOST_KEYWORDS = 10

#: The generator's `build` of some draws (battle and creature columns): their batch.
Build = Callable[[dict[str, Array], dict[str, Array]], CombatBatch]


def spec_blocks(
    spec: BattleSpec,
    bits: KeywordBits,
    keywords: tuple[str, ...],
    keyword_limits: tuple[Array, ...],
    battles: int,
    build: Build,
) -> SpecBlocks | None:
    """The kernel's view of a SPEC drawing `keywords` (with `keyword_limits` per side) in
    blocks of `battles`, or None when the kernel can't draw it."""
    k = len(keywords)
    if spec.turn is not None or spec.pool is not None or spec.race is not None:
        return None
    if spec.decisions != "drawn" or k > MOST_KEYWORDS:
        return None
    registry = bits.registry
    keyword_bits = np.array([int(bits.bit[kw]) for kw in keywords], np.uint64)
    sets = np.arange(1 << k, dtype=np.uint64)
    masks = np.zeros(sets.shape[0], np.uint64)
    for j, bit in enumerate(keyword_bits.tolist()):
        masks |= np.where(sets >> np.uint64(j) & np.uint64(1), np.uint64(bit), np.uint64(0))
    possible = bits.mask(list(keywords))
    tables = _tables(spec, bits, masks, possible)
    legal = _legal(bits, masks, possible)
    if legal is None:
        return None
    a, b = spec.attacker, spec.blocker
    states = tuple(
        key for key in registry.state_fields("creature") if a.state.get(key) or b.state.get(key)
    )
    chances = [
        limits([side.state.get(key, 0.0) for key in states] + [c.probability for c in spec.casts])
        for side in (a, b)
    ]
    batch = _largest(spec, battles, states, build)
    attackers, per = spec.attackers[1], spec.blockers_per_attacker[1]
    if batch.block_blocker.shape[0] != battles * attackers * per:
        return None  # some block not drawn even without keywords: the flows' room unknown
    probe = replace(batch, keywords=np.full_like(batch.keywords, possible))
    return SpecBlocks(
        batch=batch,
        probe=probe,
        battles=battles,
        codes=1 << len(spec.matchup),
        sizes=np.array([*spec.attackers, *spec.blockers_per_attacker], np.int64),
        ranges=np.array([[a.power, b.power], [a.toughness, b.toughness]], np.int64).reshape(
            2, 2, 2
        ),
        keyword_limits=np.array(keyword_limits, np.uint32).reshape(2, k),
        keyword_bits=masks,
        chance_limits=np.array(chances, np.uint32).reshape(2, -1),
        player_chances=np.array(list(spec.player_state.values()), np.float64),
        tables=tables,
        legal=legal,
        cast_cards=tuple(c.card for c in spec.casts),
        cast_kinds=tuple(CAST_TARGETS.index(c.target) for c in spec.casts),
        numbers=partial(_numbers, spec, len(keywords) + len(states) + len(spec.casts)),
        creature_states=states,
        player_states=tuple(spec.player_state),
    )


def _tables(spec: BattleSpec, bits: KeywordBits, masks: Array, possible: np.uint64) -> Array:
    """Per set of drawn keywords: whether a creature with it may attack, how many blockers
    it needs, its matchup code."""
    may_attack = bits.may_attack(masks, possible)
    needed = bits.blockers_needed(masks, possible)
    code = np.zeros(masks.shape[0], np.int64)
    for i, keyword in enumerate(spec.matchup):
        code |= ((masks & bits.bit[keyword]) != 0).astype(np.int64) << i
    return np.stack(
        [
            np.ones(masks.shape[0], np.int64) if may_attack is None else may_attack,
            np.ones(masks.shape[0], np.int64) if needed is None else needed,
            code,
        ]
    ).astype(np.int64)


def _legal(bits: KeywordBits, masks: Array, possible: np.uint64) -> Array | None:
    """[attacker set, blocker set]: whether the rules allow the block; None when a rule
    reads the creatures' power (not a function of keywords alone)."""
    n = masks.shape[0]
    if not bits.restricts_blocks(possible):
        return np.ones((n, n), np.bool_)
    asked = []

    def power() -> Array:
        asked.append(True)
        return np.zeros(n * n, np.int64)

    legal = bits.legal_blocks(np.repeat(masks, n), np.tile(masks, n), possible, power, power)
    return None if asked else np.ascontiguousarray(legal.reshape(n, n), np.bool_)


def _largest(spec: BattleSpec, battles: int, states: tuple[str, ...], build: Build) -> CombatBatch:
    """A block's batch at its largest: every battle with the most attackers, each with the
    most blockers, no keyword, and every card cast."""
    attackers, per = spec.attackers[1], spec.blockers_per_attacker[1]
    each = most_creatures(spec)
    role = np.tile(np.repeat(np.array([0, 1], np.int8), [attackers, attackers * per]), battles)
    assigned = np.tile(
        np.concatenate([np.full(attackers, -1), np.repeat(np.arange(attackers), per)]), battles
    )
    rows = each * battles
    creature_cols: dict[str, Array] = {
        "role": role,
        "assigned": assigned.astype(np.int64),
        "power": np.ones(rows, np.int16),
        "toughness": np.ones(rows, np.int16),
        "keywords": np.zeros(rows, np.uint64),
        **{f"state {key}": np.zeros(rows, np.bool_) for key in states},
        **{f"cast{i}": np.ones(rows, np.bool_) for i in range(len(spec.casts))},
    }
    battle_cols: dict[str, Array] = {
        "creatures": np.full(battles, each, np.int64),
        **{f"state {key}": np.zeros((battles, 2), np.bool_) for key in spec.player_state},
    }
    return build(battle_cols, creature_cols)


def _numbers(
    spec: BattleSpec, uniforms: int, rng: np.random.Generator, n: int
) -> tuple[Array, ...]:
    """A block's random numbers, drawn with the calls :meth:`SpecGenerator.draw
    <ecs_combat.simulation.generate.SpecGenerator.draw>` makes, in its order: attackers per
    battle, blockers per attacker, power and toughness (for an attacker, for a blocker),
    `uniforms` float32 words a row (32-bit: their top 24 bits), each player's state's
    uniforms."""
    n_att = rng.integers(spec.attackers[0], spec.attackers[1] + 1, size=n)
    total_att = int(n_att.sum())
    per_att = rng.integers(
        spec.blockers_per_attacker[0], spec.blockers_per_attacker[1] + 1, size=total_att
    )
    rows = total_att + int(per_att.sum())
    drawn: list[Array] = [n_att, per_att]
    for a, b in (
        (spec.attacker.power, spec.blocker.power),
        (spec.attacker.toughness, spec.blocker.toughness),
    ):
        mine = rng.integers(a[0], a[1] + 1, size=(rows,), dtype=np.int16)
        other = mine if a == b else rng.integers(b[0], b[1] + 1, size=(rows,), dtype=np.int16)
        drawn += [mine, other]
    drawn.append(float32_words(rng, uniforms * rows, shifted=False))
    players = [rng.random((n, 2)).reshape(-1) for _ in spec.player_state]
    drawn.append(np.array(players, np.float64).reshape(len(players), 2 * n))
    return tuple(drawn)
