"""Decided one-on-one battles, each distinct board decided once (simulation/decided_boards.py):
the kept outcomes give every battle what deciding and resolving it as drawn gives (RULES
section 9: a decision is a function of the board), boards of different generators (life,
keywords) are never merged, and the store is bounded."""

from __future__ import annotations

import dataclasses

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ecs_combat.plugin.registry import Registry
from ecs_combat.simulation.decided_boards import KEPT_BOARDS, BoardOutcomes, board_tally, kept_for
from ecs_combat.simulation.deciding import decided
from ecs_combat.simulation.generate import Generator, draw_battles
from ecs_combat.simulation.generators import make_generator
from ecs_combat.simulation.outcomes import outcome_codes
from ecs_combat.simulation.simulate import make_engine, run_chunk, simulate
from ecs_combat.simulation.spec import TournamentSpec

STRIKES = ("first strike", "double strike")


def as_drawn(
    generator: Generator, engine: object, seed: int, start: int, stop: int
) -> list[list[int]]:
    """Per battle, what the tally reads, every battle decided and resolved as drawn."""
    drawn, known = decided(generator, draw_battles(generator, seed, start, stop), engine)
    outcome = known if known is not None else engine.resolve_batch(drawn.batch)  # type: ignore[attr-defined]
    code, att, blk = outcome_codes(drawn, outcome)
    columns = (drawn.attacker_code, drawn.blocker_code, code, outcome.damage_to_players, att, blk)
    return [np.asarray(c).tolist() for c in columns]


def kept(generator: Generator, engine: object, seed: int, start: int, stop: int) -> list[list[int]]:
    """The same from the kept outcomes (:func:`board_tally`)."""
    found = board_tally(generator, engine, seed, start, stop)
    assert found is not None
    a, b, code, (damage, att, blk) = found.columns
    assert found.creatures == 2 * (stop - start)
    return [np.asarray(c).tolist() for c in (a, b, code, damage, att, blk)]


@settings(max_examples=12, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    start=st.integers(0, 3000),
    sizes=st.lists(st.integers(1, 700), min_size=1, max_size=3),
    power=st.sampled_from([(1, 3), (2, 2), (1, 6)]),
    life=st.sampled_from([2, 4, 20]),
)
def test_kept_outcomes_are_every_battle_decided_as_drawn(
    registry: Registry, seed: int, start: int, sizes: list[int], power: tuple[int, int], life: int
) -> None:
    """Drawn boards (keywords, power and toughness of both sides), chunk after chunk with the
    store filling up: every battle's codes, outcome, damage and deaths are those of deciding
    and resolving it with its chunk as drawn."""
    spec = TournamentSpec(STRIKES, power, (1, 3), life, decisions="optimal")
    generator = make_generator(spec, registry)
    engine = make_engine("batched", registry)
    for size in sizes:
        stop = start + size
        assert kept(generator, engine, seed, start, stop) == as_drawn(
            generator, engine, seed, start, stop
        )
        start = stop


def test_the_reference_engine_keeps_its_own(registry: Registry) -> None:
    """Kept per engine: another engine starts a new store, with the same outcomes."""
    spec = TournamentSpec(STRIKES, (1, 3), (1, 3), 3, decisions="optimal")
    generator = make_generator(spec, registry)
    batched, reference = make_engine("batched", registry), make_engine("reference", registry)
    first = kept(generator, batched, 4, 0, 300)
    store = kept_for(generator, batched)
    assert store is not None and store.known.any()
    assert (
        kept(generator, reference, 4, 0, 300) == first == as_drawn(generator, reference, 4, 0, 300)
    )
    again = kept_for(generator, reference)
    assert again is not None and again is not store and again.engine is reference


def test_same_creatures_other_life_or_keywords_are_not_merged(registry: Registry) -> None:
    """Two 3/3s, one with first strike attacking: at 20 life the attack goes unblocked (3
    damage, nobody dies); at 3 life the defender must chump (RULES 9: losing the game is
    worse than losing material), so the attacker wins. The same draws with another keyword
    list (code 1 is double strike) decide otherwise again: each generator keeps its own."""
    outcomes = {}
    for life, keywords in (
        (20, ("first strike",)),
        (3, ("first strike",)),
        (3, ("double strike",)),
    ):
        spec = TournamentSpec(keywords, (3, 3), (3, 3), life, decisions="optimal")
        generator = make_generator(spec, registry)
        engine = make_engine("batched", registry)
        got = kept(generator, engine, 9, 0, 400)
        assert got == as_drawn(generator, engine, 9, 0, 400)
        hits = [i for i in range(400) if got[0][i] == 1 and got[1][i] == 0]
        assert hits
        outcomes[(life, keywords)] = {(got[2][i], got[3][i]) for i in hits}
    assert outcomes[(20, ("first strike",))] == {(0, 3)}  # unblocked: neither dies
    assert outcomes[(3, ("first strike",))] == {(1, 0)}  # chump-blocked: the attacker wins
    assert outcomes[(3, ("double strike",))] == {(1, 0)}


def test_the_store_is_bounded(registry: Registry) -> None:
    """A generator of more boards than KEPT_BOARDS keeps none (its battles are decided as
    drawn, with the same summary); a store holds one row per board, at most KEPT_BOARDS."""
    wide = TournamentSpec(STRIKES, (1, 255), (1, 255), 20, decisions="optimal")
    generator = make_generator(wide, registry)
    shape = generator.compiled_blocks()
    assert shape is not None and BoardOutcomes.boards_of(shape) > KEPT_BOARDS
    engine = make_engine("batched", registry)
    assert kept_for(generator, engine) is None
    assert board_tally(generator, engine, 1, 0, 10) is None
    run = simulate(generator, "batched", engine, 1, 200, 100)
    assert run.tally.battles == 200
    small = make_generator(dataclasses.replace(wide, power=(1, 6), toughness=(1, 6)), registry)
    store = kept_for(small, engine)
    assert store is not None and store.boards == (3 * 6 * 6) ** 2 <= KEPT_BOARDS
    assert store.known.shape == (store.boards,) and store.columns.shape == (7, store.boards)


def test_refused_when_drawn_or_asked_for_tables(registry: Registry) -> None:
    """Drawn decisions keep nothing; with a per-battle table the chunk is decided as drawn."""
    spec = TournamentSpec(STRIKES, (1, 3), (1, 3), 20)
    assert kept_for(make_generator(spec, registry), None) is None
    optimal = make_generator(dataclasses.replace(spec, decisions="optimal"), registry)
    engine = make_engine("batched", registry)
    with_table = run_chunk(optimal, engine, 2, 0, 0, 50, with_table=True)
    assert with_table.table is not None
    without = run_chunk(optimal, engine, 2, 0, 0, 50)
    assert without.table is None
    assert with_table.tally.counts.keys() == without.tally.counts.keys()
    for key, row in with_table.tally.counts.items():
        assert row.tolist() == without.tally.counts[key].tolist()


def test_the_store_does_not_keep_its_generator_alive(registry: Registry) -> None:
    """A generator no longer used is freed with its store (memory stays bounded over many
    runs)."""
    import gc
    import weakref

    spec = TournamentSpec(STRIKES, (1, 3), (1, 3), 20, decisions="optimal")
    generator = make_generator(spec, registry)
    engine = make_engine("batched", registry)
    kept(generator, engine, 1, 0, 100)
    store = kept_for(generator, engine)
    assert store is not None
    freed, freed_store = weakref.ref(generator), weakref.ref(store)
    del generator, store
    gc.collect()
    assert freed() is None and freed_store() is None
