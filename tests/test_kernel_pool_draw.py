"""A card pool's one-on-one blocks drawn from their seeds and tallied in one compiled pass
(ecs_combat/kernel/pool_draw.py, simulation/pool_seeded.py): the card indices numpy's
``integers(0, size, count, dtype=np.uint16)`` calls give, the per-card tally of the numpy
path (:func:`~ecs_combat.simulation.pool_boards.pool_tally`), and that path for what the
kernel can't draw.

Shares test_kernels.py's compiled cache (kernels on for this module)."""

from __future__ import annotations

import tomllib
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_kernels import kernels_on  # noqa: F401  (kernels on for this module, the same cache)
from test_pool_boards import TWO_DROPS, names_toml, pool_names, spec_of

from ecs_combat import Registry
from ecs_combat.batched.engine import BatchedEngine
from ecs_combat.kernel.blocks import seed_words
from ecs_combat.kernel.pool_draw import seeded_indices
from ecs_combat.simulation import pool_seeded
from ecs_combat.simulation.card_draw import CardGenerator
from ecs_combat.simulation.generators import make_generator
from ecs_combat.simulation.pool_boards import PoolOutcomes, kept_for, pool_tally
from ecs_combat.simulation.pool_seeded import seeded_tally
from ecs_combat.simulation.seeded_blocks import block_rng
from ecs_combat.simulation.spec_reader import parse_spec

SIZES = [1, 2, 5, 163, 239, 255, 256, 1000, 65535, 65536]


def drawn(seed: int, block: int, fills: list[tuple[int, int]]) -> list[int]:
    """The compiled draw of `fills` ((size, count) calls) on the block's generator."""
    out = np.zeros(sum(n for _, n in fills), np.int64)
    seeded_indices(seed_words(seed), block, np.array(fills, np.int64), out)
    return out.tolist()


def integers(seed: int, block: int, fills: list[tuple[int, int]]) -> list[int]:
    """numpy's: an ``integers(0, size, count, dtype=np.uint16)`` call per fill, in order."""
    rng = block_rng(seed, block)
    calls = [rng.integers(0, size, size=n, dtype=np.uint16) for size, n in fills]
    return np.concatenate(calls).astype(np.int64).tolist()


@pytest.mark.parametrize("size", SIZES)
def test_the_card_indices_are_numpys(size: int) -> None:
    """A block's [1024, 2] card indices, as ``CardGenerator.draw`` gets them (one call of
    2,048 numbers: a size of 1 draws no word, 65,536 keeps every 16 bits, the others
    reject with Lemire's threshold)."""
    for seed, block in [(0, 0), (1, 3), (2**40 + 3, 2**32 - 1)]:
        expected = block_rng(seed, block).integers(0, size, size=(1024, 2), dtype=np.uint16)
        assert drawn(seed, block, [(size, 2048)]) == expected.reshape(-1).tolist()


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**70),
    block=st.integers(0, 2**32 - 1),
    fills=st.lists(
        st.tuples(st.one_of(st.sampled_from(SIZES), st.integers(1, 65536)), st.integers(0, 300)),
        min_size=1,
        max_size=3,
    ),
)
def test_calls_in_order_are_numpys(seed: int, block: int, fills: list[tuple[int, int]]) -> None:
    """Several calls in order: each a fresh 16-bit buffer, the generator's 32-bit word
    carried over (an odd count leaves a word's high half to the next call's first)."""
    assert drawn(seed, block, fills) == integers(seed, block, fills)


def pools(registry: Registry, attackers: list[int], blockers: list[int]) -> CardGenerator:
    """A generator of a pool of the 2-drop cards, each side its own."""
    cards = pool_names(registry)
    a = sorted({cards[i % len(cards)] for i in attackers})
    b = sorted({cards[i % len(cards)] for i in blockers})
    text = f"[attacker.pool]\n{names_toml(a)}[blocker.pool]\n{names_toml(b)}"
    generator = make_generator(spec_of(registry, text), registry)
    assert isinstance(generator, CardGenerator)
    return generator


@settings(max_examples=8, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    start=st.integers(0, 5000),
    sizes=st.lists(st.integers(1, 2500), min_size=1, max_size=4),
    attackers=st.lists(st.integers(0, 10_000), min_size=1, max_size=12, unique=True),
    blockers=st.lists(st.integers(0, 10_000), min_size=1, max_size=12, unique=True),
)
def test_the_tally_is_the_numpy_paths(
    registry: Registry,
    seed: int,
    start: int,
    sizes: list[int],
    attackers: list[int],
    blockers: list[int],
) -> None:
    """Small pools (sides as large or not: one call or one a side), chunk after chunk with
    pairs of classes learned on the way: each chunk's per-card tally and creatures are the
    numpy path's."""
    kernel, numpy_path = pools(registry, attackers, blockers), pools(registry, attackers, blockers)
    engine = BatchedEngine(registry)
    for size in sizes:
        stop = start + size
        found = seeded_tally(kernel, engine, seed, start, stop)
        expected = pool_tally(numpy_path, engine, seed, start, stop)
        assert found is not None and expected is not None
        assert found.creatures == expected.creatures == 2 * size
        assert found.cards.tolist() == expected.cards.tolist()
        start = stop


def test_the_two_drop_pool_is_the_numpy_paths(registry: Registry) -> None:
    """The 2-drop pool (239 cards, one call a block): a first chunk learning its pairs of
    classes, then chunks from them, as the numpy path tallies them."""
    spec = parse_spec(tomllib.loads(TWO_DROPS.read_text()), registry, "two-drops.toml")
    kernel, numpy_path = make_generator(spec, registry), make_generator(spec, registry)
    engine = BatchedEngine(registry)
    for start, stop in [(0, 3000), (3000, 40_000), (40_000, 41_025)]:
        found = seeded_tally(kernel, engine, 7, start, stop)
        expected = pool_tally(numpy_path, engine, 7, start, stop)
        assert found is not None and expected is not None
        assert found.cards.tolist() == expected.cards.tolist()


def test_what_the_kernel_cannot_draw_takes_the_numpy_path(registry: Registry) -> None:
    """Kernels off, a seed below 0, a block from 2**32 on, no battle, a battle not
    one of the four outcomes from a side: no compiled tally (pool_tally's then)."""
    generator = pools(registry, [0, 1, 2], [3, 4])
    engine = BatchedEngine(registry)
    assert seeded_tally(generator, BatchedEngine(registry, kernels=False), 1, 0, 10) is None
    assert seeded_tally(generator, engine, -1, 0, 10) is None
    assert seeded_tally(generator, engine, 1, 2**32 * 1024, 2**32 * 1024 + 5) is None
    assert seeded_tally(generator, engine, 1, 0, 0) is None

    assert seeded_tally(generator, engine, 1, 0, 10) is not None
    kept = kept_for(generator, engine)
    assert kept is not None
    kept.class_outcomes[0, :4, np.flatnonzero(kept.known_classes)[0]] = 0
    pool_seeded._seeded.pop(kept)
    assert seeded_tally(generator, engine, 1, 0, 10) is None


def test_side_fills_are_the_draws_calls(registry: Registry) -> None:
    """Sides as large: one call of both indices a battle; else one a side; a tournament-like
    SPEC of several creatures draws otherwise (none)."""
    assert pools(registry, [0, 1, 2], [3, 4, 5]).side_fills() == ((3, 2),)
    assert pools(registry, [0, 1, 2], [3, 4]).side_fills() == ((3, 1), (2, 1))
    text = 'attackers = [1, 2]\n[pool]\nnames = ["White Knight", "Watchwolf"]\n'
    many = make_generator(spec_of(registry, text), registry)
    assert isinstance(many, CardGenerator) and many.side_fills() is None


def test_battles_learned_not_one_outcome_a_side_take_the_numpy_path(
    registry: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Pairs of classes resolved in the chunk whose battles are not one of the four outcomes
    from each side (no rows for them): no compiled tally, the pairs still resolved."""
    generator = pools(registry, [0, 1, 2], [3, 4])
    engine = BatchedEngine(registry)
    real = PoolOutcomes.class_rows

    def none_once_resolved(self: PoolOutcomes) -> Any:
        return None if self.known_classes.any() else real(self)

    monkeypatch.setattr(PoolOutcomes, "class_rows", none_once_resolved)
    assert seeded_tally(generator, engine, 1, 0, 50) is None
    kept = kept_for(generator, engine)
    assert kept is not None and kept.known_classes.any()
