"""The keyword tournament drawn, played and tallied in the compiled kernel
(ecs_combat/simulation/compiled.py, ecs_combat/kernel/blocks.py): hand-derived tallies, and
the same summaries as the numpy path for the same seeds.

Shares test_kernels.py's compiled cache; ``test_parts_run_as_python`` there runs this module
too with ``NUMBA_DISABLE_JIT=1``.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_kernels import kernels_on  # noqa: F401  (kernels on for this module, the same cache)

from ecs_combat import Registry
from ecs_combat.batched.engine import BatchedEngine
from ecs_combat.kernel.blocks import one_on_one_player
from ecs_combat.simulation.compiled import compiled_counts
from ecs_combat.simulation.generators import make_generator
from ecs_combat.simulation.simulate import simulate, summary
from ecs_combat.simulation.spec import TournamentSpec, strike_keywords


@pytest.fixture(scope="module")
def engine(registry: Registry) -> BatchedEngine:
    return BatchedEngine(registry)


def test_a_block_tallied_by_hand(registry: Registry, engine: BatchedEngine) -> None:
    """Battles given as drawn, tallied per (attacker code, blocker code) in the summary's
    columns: battles, attacker wins, blocker wins, trades, neither dies, damage to players,
    attackers died, blockers died. First strike deals its damage first (702.7b, 510.4), last
    strike after the regular step; lethal damage destroys (704.5g); a blocked creature deals
    no damage to the player (510.1c)."""
    spec = TournamentSpec(strike_keywords(registry))
    generator = make_generator(spec, registry)
    shape = generator.compiled_blocks()
    assert shape is not None
    # every keyword is in the block's batch, so its schedule has every system that may run
    assert set(shape.batch.keywords.tolist()) == set(shape.masks.tolist())
    kernel = engine.kernel()
    assert kernel is not None
    player = one_on_one_player(
        kernel, engine.schedules.of([shape.batch]), shape.batch, shape.masks, shape.codes
    )
    assert player is not None
    k = shape.codes
    first, last = spec.keywords.index("first strike") + 1, spec.keywords.index("last strike") + 1
    rows = [  # (attacker code, power, toughness), (blocker code, power, toughness)
        ((first, 2, 2), (0, 2, 2)),  # the first striker kills first: attacker wins
        ((0, 3, 3), (0, 3, 3)),  # trade
        ((0, 1, 1), (0, 5, 5)),  # blocker wins
        ((0, 1, 5), (0, 1, 5)),  # neither dies
        ((last, 3, 3), (0, 3, 3)),  # the last striker dies first: blocker wins
    ]
    n = shape.batch.n_battles
    drawn = tuple(np.ones((n, 2), np.uint8) for _ in range(3))
    for b, sides in enumerate(rows):
        for side, values in enumerate(sides):
            for column, value in zip(drawn, values, strict=True):
                column[b, side] = value
    counts = player.counts()
    player.play(0, len(rows), drawn, counts)
    expected = np.zeros((k * k + 1, 8), np.int64)
    expected[-1, 0] = 2 * len(rows)  # the creatures
    expected[first * k] = [1, 1, 0, 0, 0, 0, 0, 1]
    expected[0] = [3, 0, 1, 1, 1, 0, 2, 1]
    expected[last * k] = [1, 0, 1, 0, 0, 0, 1, 0]
    assert np.array_equal(counts, expected)
    again = player.counts()  # the state starts afresh each call; a range inside the block
    player.play(1, 3, drawn, again)
    assert again[0].tolist() == [2, 0, 1, 1, 0, 0, 2, 1] and again[:-1].sum() == 7


def test_a_battle_drawn_again_is_tallied_from_its_kept_outcome(
    registry: Registry, engine: BatchedEngine
) -> None:
    """A battle is decided by what was drawn for it alone, so a player keeping outcomes
    tallies blocks as one playing every battle, also when it has seen them before: two 3/3s
    trade (704.5g), kept as 3 (both died, no damage to players); a random block twice."""
    spec = TournamentSpec(strike_keywords(registry))
    shape = make_generator(spec, registry).compiled_blocks()
    kernel = engine.kernel()
    assert shape is not None and kernel is not None
    schedule = engine.schedules.of([shape.batch])
    made = [
        one_on_one_player(kernel, schedule, shape.batch, shape.masks, shape.codes, ranges)
        for ranges in (None, shape.ranges)
    ]
    plays, keeps = made
    assert plays is not None and keeps is not None
    n = shape.batch.n_battles
    trade = (np.zeros((n, 2), np.uint8), np.full((n, 2), 3, np.uint8), np.full((n, 2), 3, np.uint8))
    counts = keeps.counts()
    keeps.play(0, 2, trade, counts)
    assert counts[0].tolist() == [2, 0, 0, 2, 0, 0, 2, 2]
    assert int((keeps._memo >= 0).sum()) == 1  # one battle drawn, played once
    drawn = shape.draw(np.random.default_rng(5), n)
    for _ in range(2):
        ours, theirs = keeps.counts(), plays.counts()
        keeps.play(0, n, drawn, ours)
        plays.play(0, n, drawn, theirs)
        assert np.array_equal(ours, theirs)


@pytest.mark.parametrize(
    ("seed", "battles", "chunk", "threads"),
    [(1, 2500, 1024, "1"), (7, 3000, 2048, "1"), (3, 9000, 8192, "2")],
)
def test_tournament_summaries_as_the_numpy_path(
    registry: Registry,
    engine: BatchedEngine,
    seed: int,
    battles: int,
    chunk: int,
    threads: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The tally of whole and partial blocks the same as the numpy engine's, but for `run`;
    a chunk of 8 blocks or more split over two threads."""
    monkeypatch.setenv("ECS_COMBAT_KERNEL_THREADS", threads)
    generator = make_generator(TournamentSpec(strike_keywords(registry)), registry)
    assert compiled_counts(generator, engine, seed, 0, 10) is not None  # the kernel's path
    numpy_engine = BatchedEngine(registry, kernels=False)
    assert compiled_counts(generator, numpy_engine, seed, 0, 10) is None
    ours, theirs = (
        summary(generator, generator.spec, seed, simulate(generator, "batched", e, seed, battles, chunk))
        for e in (engine, numpy_engine)
    )  # fmt: skip
    ours.pop("run"), theirs.pop("run")  # times
    assert ours == theirs and ours["battles"] == battles


def test_a_spec_is_not_drawn_as_one_on_one_blocks(
    registry: Registry, engine: BatchedEngine
) -> None:
    """A SPEC's battles (attackers with several blockers) are not the tournament's blocks:
    the kernel draws them as a SPEC (tests/test_kernel_specs.py)."""
    from ecs_combat.simulation.spec_reader import parse_spec

    spec = parse_spec({"attackers": 2, "power": [1, 3], "toughness": [1, 3]}, registry)
    generator = make_generator(spec, registry)
    assert generator.compiled_blocks() is None
    assert generator.compiled_spec() is not None
    counts = compiled_counts(generator, engine, 1, 0, 10)
    assert counts is not None and counts[0, 0] == 10
