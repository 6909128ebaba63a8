"""Drawn one-on-one battles of a card pool, each card pair resolved once
(simulation/pool_boards.py): the kept outcomes give the per-card tally that resolving every
battle as drawn gives, pairs that differ in a role are never merged, battles drawing more than
their two cards keep nothing, and the store is bounded."""

from __future__ import annotations

import dataclasses
import gc
import textwrap
import tomllib
import weakref
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ecs_combat.plugin.registry import Registry
from ecs_combat.simulation import pool_boards
from ecs_combat.simulation.card_draw import CardGenerator
from ecs_combat.simulation.generate import Draws, Generator, draw_battles
from ecs_combat.simulation.generators import make_generator
from ecs_combat.simulation.outcomes import outcome_codes
from ecs_combat.simulation.pool_boards import keeps_outcomes, kept_for, pool_tally
from ecs_combat.simulation.simulate import make_engine, run_chunk, simulate
from ecs_combat.simulation.spec import BattleSpec
from ecs_combat.simulation.spec_reader import parse_spec

TWO_DROPS = (
    Path(__file__).resolve().parent.parent / "docs" / "examples" / "specs" / "two-drops.toml"
)
THREE = '[pool]\nnames = ["White Knight", "Hand of Cruelty", "Watchwolf"]\n'


def spec_of(registry: Registry, text: str) -> BattleSpec:
    return parse_spec(tomllib.loads(textwrap.dedent(text)), registry, "pool.toml")


def as_drawn(generator: Generator, engine: object, seed: int, start: int, stop: int) -> list[int]:
    """The per-card tally of battles ``start`` to ``stop - 1``, every battle resolved."""
    drawn = draw_battles(generator, seed, start, stop)
    outcome = engine.resolve_batch(drawn.batch)  # type: ignore[attr-defined]
    code, _, _ = outcome_codes(drawn, outcome)
    cards = generator.card_counts(drawn, code, outcome)
    assert cards is not None
    out: list[int] = cards.reshape(-1).tolist()
    return out


def kept(generator: Generator, engine: object, seed: int, start: int, stop: int) -> list[int]:
    """The same from the kept outcomes (:func:`pool_tally`)."""
    found = pool_tally(generator, engine, seed, start, stop)
    assert found is not None
    assert found.creatures == 2 * (stop - start)
    out: list[int] = found.cards.reshape(-1).tolist()
    return out


_POOL: list[str] = []


def pool_names(registry: Registry) -> list[str]:
    """The 2-drop pool's card names (read once)."""
    if not _POOL:
        spec = parse_spec(tomllib.loads(TWO_DROPS.read_text()), registry, "two-drops.toml")
        assert spec.pool is not None
        _POOL.extend(spec.pool.names)
    return _POOL


def names_toml(names: list[str]) -> str:
    return "names = [" + ", ".join(f'"{n}"' for n in names) + "]\n"


@settings(max_examples=10, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    start=st.integers(0, 5000),
    sizes=st.lists(st.integers(1, 900), min_size=1, max_size=4),
    attackers=st.lists(st.integers(0, 10_000), min_size=1, max_size=12, unique=True),
    blockers=st.lists(st.integers(0, 10_000), min_size=1, max_size=12, unique=True),
)
def test_kept_tally_is_every_battle_resolved(
    registry: Registry,
    seed: int,
    start: int,
    sizes: list[int],
    attackers: list[int],
    blockers: list[int],
) -> None:
    """Small pools of the 2-drop cards (each side its own cards), chunk after chunk with the
    store filling up: each chunk's per-card tally is that of resolving all its battles."""
    cards = pool_names(registry)
    a = [cards[i % len(cards)] for i in attackers]
    b = [cards[i % len(cards)] for i in blockers]
    text = (
        f"[attacker.pool]\n{names_toml(sorted(set(a)))}[blocker.pool]\n{names_toml(sorted(set(b)))}"
    )
    generator = make_generator(spec_of(registry, text), registry)
    engine = make_engine("batched", registry)
    assert keeps_outcomes(generator)
    for size in sizes:
        stop = start + size
        assert kept(generator, engine, seed, start, stop) == as_drawn(
            generator, engine, seed, start, stop
        )
        start = stop


def test_whole_pool_runs_give_the_same_summary(registry: Registry) -> None:
    """The 2-drop pool itself, chunks of several sizes: the run's tally with the store is
    every battle's."""
    spec = parse_spec(tomllib.loads(TWO_DROPS.read_text()), registry, "two-drops.toml")
    generator = make_generator(spec, registry)
    engine = make_engine("batched", registry)
    run = simulate(generator, "batched", engine, 3, 6000, 1700).tally
    assert run.cards is not None
    expected = np.array(as_drawn(generator, engine, 3, 0, 6000)).reshape(run.cards.shape)
    assert np.array_equal(run.cards, expected)
    row = run.counts[(0, 0)]
    assert row[0] == 6000 and run.creatures == 12000


def test_swapped_roles_are_not_merged(registry: Registry) -> None:
    """The same two cards in the other roles are another pair: White Knight (2/2 first
    strike) attacking into Watchwolf (3/3) loses, Watchwolf attacking into it wins (702.7b:
    2 first-strike damage doesn't kill a 3/3, which deals 3 back; 510.1)."""
    generator = make_generator(spec_of(registry, THREE), registry)
    engine = make_engine("batched", registry)
    kept(generator, engine, 5, 0, 300)
    store = kept_for(generator, engine)
    assert store is not None and store.known.all()  # all 9 pairs drawn
    assert isinstance(generator, CardGenerator)
    index = {name: i for i, name in enumerate(generator.pool.names)}
    knight, wolf = index["White Knight"], index["Watchwolf"]
    n = store.n_cards
    # outcomes seen from each side: neither dies, won, lost, traded
    lost = store.attacker[:4, knight * n + wolf].tolist()
    assert lost == [0, 0, 1, 0] and store.blocker[:4, knight * n + wolf].tolist() == [0, 1, 0, 0]
    won = store.attacker[:4, wolf * n + knight].tolist()
    assert won == [0, 1, 0, 0] and store.blocker[:4, wolf * n + knight].tolist() == [0, 0, 1, 0]


def test_battles_drawing_more_than_their_cards_keep_nothing(registry: Registry) -> None:
    """The same cards with a block drawn or not (0-1 blockers), or with more drawn per battle
    than the two cards: battles sharing their cards differ, so none keeps outcomes and the
    battles are resolved as drawn."""
    maybe = make_generator(spec_of(registry, "blockers_per_attacker = [0, 1]\n" + THREE), registry)
    engine = make_engine("batched", registry)
    assert not keeps_outcomes(maybe)
    assert pool_tally(maybe, engine, 1, 0, 100) is None
    generator = make_generator(spec_of(registry, THREE), registry)
    assert isinstance(generator, CardGenerator)
    drawing = generator.draw

    def more(rng: np.random.Generator, n: int) -> Draws:
        draws = drawing(rng, n)
        draws.battle_cols["life"] = np.full(n, 20)
        return draws

    generator.draw = more  # type: ignore[method-assign]
    assert keeps_outcomes(generator)
    assert pool_tally(generator, engine, 1, 0, 100) is None


def test_refused_when_decided_or_asked_for_tables(registry: Registry) -> None:
    """Decided battles are kept by their boards elsewhere; with a per-battle table the chunk
    is resolved as drawn, with the same tally."""
    spec = spec_of(registry, THREE)
    optimal = make_generator(dataclasses.replace(spec, decisions="optimal"), registry)
    assert not keeps_outcomes(optimal)
    generator = make_generator(spec, registry)
    engine = make_engine("batched", registry)
    with_table = run_chunk(generator, engine, 2, 0, 0, 500, with_table=True)
    without = run_chunk(generator, engine, 2, 0, 0, 500)
    assert with_table.table is not None and without.table is None
    assert with_table.tally.cards is not None and without.tally.cards is not None
    assert np.array_equal(with_table.tally.cards, without.tally.cards)
    assert with_table.tally.counts[(0, 0)].tolist() == without.tally.counts[(0, 0)].tolist()


def test_each_engine_keeps_its_own(registry: Registry) -> None:
    """Kept per engine: another engine starts a new store, with the same tally."""
    generator = make_generator(spec_of(registry, THREE), registry)
    batched, reference = make_engine("batched", registry), make_engine("reference", registry)
    first = kept(generator, batched, 4, 0, 200)
    store = kept_for(generator, batched)
    assert store is not None and store.known.any()
    assert (
        kept(generator, reference, 4, 0, 200) == first == as_drawn(generator, reference, 4, 0, 200)
    )
    again = kept_for(generator, reference)
    assert again is not None and again is not store and again.engine is reference


def test_the_store_is_bounded(registry: Registry, monkeypatch: pytest.MonkeyPatch) -> None:
    """A pool of more card pairs than KEPT_BOARDS keeps none (its battles resolved as drawn,
    the same tally); a store holds one row per pair."""
    generator = make_generator(spec_of(registry, THREE), registry)
    engine = make_engine("batched", registry)
    store = kept_for(generator, engine)
    assert store is not None and store.known.shape == (9,)
    assert store.attacker.shape == store.blocker.shape == (7, 9)
    assert pool_boards.KEPT_BOARDS >= 512 * 512
    monkeypatch.setattr(pool_boards, "KEPT_BOARDS", 8)
    wide = make_generator(spec_of(registry, THREE), registry)
    assert kept_for(wide, engine) is None
    assert pool_tally(wide, engine, 1, 0, 10) is None
    run = simulate(wide, "batched", engine, 6, 300, 100).tally
    again = simulate(generator, "batched", engine, 6, 300, 100).tally
    assert run.cards is not None and again.cards is not None
    assert np.array_equal(run.cards, again.cards)


def test_the_store_does_not_keep_its_generator_alive(registry: Registry) -> None:
    """A generator no longer used is freed with its store."""
    generator = make_generator(spec_of(registry, THREE), registry)
    engine = make_engine("batched", registry)
    kept(generator, engine, 1, 0, 100)
    store = kept_for(generator, engine)
    assert store is not None
    freed, freed_store = weakref.ref(generator), weakref.ref(store)
    del generator, store
    gc.collect()
    assert freed() is None and freed_store() is None


def test_the_last_pairs_are_resolved_together(registry: Registry) -> None:
    """Pairs are resolved as drawn while more are unknown than a chunk has battles; then every
    pair not known yet at once (9 pairs of three cards: a chunk of 5, then one of 9)."""
    generator = make_generator(spec_of(registry, THREE), registry)
    engine = make_engine("batched", registry)
    kept(generator, engine, 2, 0, 5)
    store = kept_for(generator, engine)
    assert store is not None
    drawn = draw_battles(generator, 2, 0, 5)
    pairs = {
        (a, b)
        for a, b in zip(drawn.attacker_code.tolist(), drawn.blocker_code.tolist(), strict=True)
    }
    assert int(store.known.sum()) == len(pairs) == 9 - store.unknown < 9
    assert kept(generator, engine, 2, 5, 14) == as_drawn(generator, engine, 2, 5, 14)
    assert store.known.all() and store.unknown == 0


def test_cards_the_engines_cannot_tell_apart_are_resolved_once(registry: Registry) -> None:
    """Alpha Myr and Bronze Sable are both colorless 2/1s without keywords: one class, so
    the 9 pairs of a pool with White Knight are 4 battles (2 classes a side), and each pair
    still gets its own outcome: a 2/1 attacking into White Knight (2/2 first strike) dies
    dealing nothing (702.7b), White Knight attacking into a 2/1 kills it first."""
    text = '[pool]\nnames = ["Alpha Myr", "Bronze Sable", "White Knight"]\n'
    generator = make_generator(spec_of(registry, text), registry)
    assert isinstance(generator, CardGenerator)
    assert generator.card_classes().tolist() == [0, 0, 1]
    engine = make_engine("batched", registry)
    resolved: list[int] = []
    real = engine.resolve_batch

    def counted(batch: Any, *args: Any, **kwargs: Any) -> Any:
        resolved.append(batch.n_battles)
        return real(batch, *args, **kwargs)

    engine.resolve_batch = counted  # type: ignore[method-assign]
    assert kept(generator, engine, 1, 0, 40) == as_drawn(generator, engine, 1, 0, 40)
    assert resolved[0] == 4
    store = kept_for(generator, engine)
    assert store is not None and store.known.all()
    for myr in (0, 1):  # attacker's card * 3 + blocker's: (won, lost) columns 1, 2
        assert store.attacker[2, myr * 3 + 2] == 1  # the 2/1 attacking White Knight loses
        assert store.attacker[1, 2 * 3 + myr] == 1  # White Knight attacking it wins


def test_new_pairs_are_resolved_a_few_at_a_time(
    registry: Registry, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With at most 4 new battles a batch, the 9 pairs of three cards (all learned in a
    chunk of 20 battles) are 3 batches, and the tally is every battle's."""
    monkeypatch.setattr(pool_boards, "RESOLVED_AT_ONCE", 4)
    generator = make_generator(spec_of(registry, THREE), registry)
    engine = make_engine("batched", registry)
    sizes: list[int] = []
    real = engine.resolve_batch

    def counted(batch: Any, *args: Any, **kwargs: Any) -> Any:
        sizes.append(batch.n_battles)
        return real(batch, *args, **kwargs)

    engine.resolve_batch = counted  # type: ignore[method-assign]
    assert kept(generator, engine, 4, 0, 20) == as_drawn(generator, engine, 4, 0, 20)
    assert sizes[:3] == [4, 4, 1]
