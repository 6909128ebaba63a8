"""A tournament block's draws made from its seed in one compiled call
(ecs_combat/kernel/one_on_one_draw.py): the same state as numpy's ``PCG64(SeedSequence(seed,
spawn_key=(block,)))``, the same bytes as its ``Generator.integers`` calls, the same columns
as the tournament's own draw; a block numpy's seeding can't be copied for drawn by numpy.

Shares test_kernels.py's compiled cache (kernels on for the player's test)."""

from __future__ import annotations

import numpy as np
import pytest
from test_kernels import kernels_on  # noqa: F401  (kernels on for this module, the same cache)

from ecs_combat import Registry
from ecs_combat.batched.engine import BatchedEngine
from ecs_combat.kernel.blocks import OneOnOnePlayer, SeededBlock, seed_words
from ecs_combat.kernel.one_on_one_draw import seeded_bytes, seeded_state
from ecs_combat.simulation import compiled
from ecs_combat.simulation.generators import make_generator
from ecs_combat.simulation.seeded_blocks import BLOCK, block_rng
from ecs_combat.simulation.spec import TournamentSpec, strike_keywords

SEEDS = [(0, 0), (1, 0), (1, 7), (2**40 + 3, 5), (123_456_789, 2**32 - 1)]


def test_seed_words_as_seed_sequence_assembles_them() -> None:
    """A seed's 32-bit words, low first, padded to SeedSequence's pool of four."""
    assert seed_words(0).tolist() == [0, 0, 0, 0]
    assert seed_words(1).tolist() == [1, 0, 0, 0]
    assert seed_words(2**32 + 5).tolist() == [5, 1, 0, 0]
    assert seed_words(2**128 - 1).tolist() == [2**32 - 1] * 4


@pytest.mark.parametrize(("seed", "block"), SEEDS)
def test_the_seeded_state_is_numpys(seed: int, block: int) -> None:
    """PCG64's state and increment after seeding from SeedSequence, as numpy has them."""
    numpy_state = np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(block,))).state
    high, low, inc_high, inc_low = seeded_state(seed_words(seed), block)
    assert (int(high) << 64 | int(low)) == numpy_state["state"]["state"]
    assert (int(inc_high) << 64 | int(inc_low)) == numpy_state["state"]["inc"]


@pytest.mark.parametrize(
    "fills",
    [
        [(0, 5, 2048), (1, 6, 4096)],  # the bundled tournament's block
        [(0, 0, 7), (3, 3, 5), (0, 1, 101)],  # no draw for one value; a coin
        [(0, 128, 999), (2, 254, 33)],  # many rejections (threshold 126 of 129)
        [(0, 255, 13), (9, 200, 3), (0, 255, 1)],  # every byte taken as drawn
    ],
)
@pytest.mark.parametrize(("seed", "block"), SEEDS[1:4])
def test_seeded_bytes_are_integers_calls(
    seed: int, block: int, fills: list[tuple[int, int, int]]
) -> None:
    """The bytes of ``integers(least, greatest + 1, count, np.uint8)`` calls in order on the
    block's generator, the calls' bytes of a 32-bit word not carried over."""
    rng = block_rng(seed, block)
    expected = [rng.integers(lo, hi + 1, size=n, dtype=np.uint8) for lo, hi, n in fills]
    out = np.zeros(sum(n for _, _, n in fills), np.uint8)
    seeded_bytes(seed_words(seed), block, np.array(fills, np.int64), out)
    assert out.tolist() == np.concatenate(expected).tolist()


@pytest.mark.parametrize(("power", "toughness"), [((1, 6), (1, 6)), ((0, 9), (2, 4))])
def test_the_tournament_fills_are_its_draw(
    registry: Registry, power: tuple[int, int], toughness: tuple[int, int]
) -> None:
    """A block's keyword codes, power and toughness from its fills: the tournament's draw (one
    call for power and toughness when their ranges are one, else one each)."""
    spec = TournamentSpec(strike_keywords(registry), power=power, toughness=toughness)
    shape = make_generator(spec, registry).compiled_blocks()
    assert shape is not None and shape.fills is not None
    assert len(shape.fills) == (2 if power == toughness else 3)
    out = np.zeros(6 * BLOCK, np.uint8)
    seeded_bytes(seed_words(3), 11, np.array(shape.fills, np.int64), out)
    drawn = shape.draw(block_rng(3, 11), BLOCK)
    assert out.tolist() == np.concatenate([d.reshape(-1) for d in drawn]).tolist()


def test_a_block_is_drawn_by_numpy_when_its_seeding_is_not_copied(registry: Registry) -> None:
    """A block from 2**32 on (two spawn-key words) is drawn by numpy's generator, the rest
    by the player from their seed; a player's fills must make a block's three columns."""
    engine = BatchedEngine(registry)
    generator = make_generator(TournamentSpec(strike_keywords(registry)), registry)
    assert compiled.compiled_counts(generator, engine, 1, 0, 1) is not None
    draw, players = compiled._players[(id(generator), id(engine))][2:]
    assert draw(1, 5) == SeededBlock(seed_words(1), 5)
    far = draw(1, 2**32)
    shape = generator.compiled_blocks()
    assert shape is not None
    numpy_draw = shape.draw(block_rng(1, 2**32), BLOCK)
    assert all(np.array_equal(a, b) for a, b in zip(far, numpy_draw, strict=True))
    player = players[0]
    assert isinstance(player, OneOnOnePlayer)
    with pytest.raises(ValueError, match="fills"):
        OneOnOnePlayer(
            player._arguments, player._entry, shape.batch, shape.masks, shape.codes,
            shape.ranges, ((0, 1, 2 * BLOCK),),
        )  # fmt: skip
