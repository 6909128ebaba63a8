"""Bulk simulations: random battles drawn in chunks, resolved in bulk, tallied per matchup.

The chunk is the unit of work: :func:`run_chunk` is a pure function of the generator, the
engine, the seed and a range of battles, and chunk tallies merge associatively, so the summary
of a run depends only on its spec, seed and number of battles (CONTRACT.md section 3).

Outcome of a battle, by which side lost creatures in it: **attacker wins** (only the defending
player's creatures died), **blocker wins** (only the attacking player's), **trade** (both),
**neither dies**.
"""

from __future__ import annotations

import gc
import math
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from ecs_combat.batched import BatchOutcome, CombatBatch, IntArray
from ecs_combat.errors import RefusedError
from ecs_combat.plugin.registry import Registry
from ecs_combat.rules.result import TurnResult
from ecs_combat.scenario.turns import TurnScenario
from ecs_combat.simulation.card_draw import totals_of
from ecs_combat.simulation.compiled import compiled_rows
from ecs_combat.simulation.creature_rows import creature_rows, creature_table
from ecs_combat.simulation.decided_boards import board_tally
from ecs_combat.simulation.deciding import decided
from ecs_combat.simulation.generate import Generator, draw_battles
from ecs_combat.simulation.intervals import rate_and_interval
from ecs_combat.simulation.outcomes import outcome_codes
from ecs_combat.simulation.pool_boards import pool_tally
from ecs_combat.simulation.pool_seeded import seeded_tally
from ecs_combat.simulation.races import died_in_races, play_chunk, race_card_counts, race_table
from ecs_combat.simulation.seeded_blocks import battles_per_block
from ecs_combat.simulation.spec import BattleSpec, Spec, TournamentSpec

ENGINES = ("batched", "reference")
#: Outcome codes: 2 * (attacking side lost a creature) + (blocking side lost a creature).
OUTCOME_NAMES = ("neither dies", "attacker wins", "blocker wins", "trade")
#: Tally columns, in summary order: battles, battles per outcome (outcome code ``c`` is counted
#: in column ``OUTCOME_COLUMN[c]``), then sums over battles: combat damage dealt to players,
#: and creatures of the attacking and of the defending player that died.
COLUMNS = (
    "battles",
    "attacker_wins",
    "blocker_wins",
    "trades",
    "neither_dies",
    "damage_to_players",
    "attackers_died",
    "blockers_died",
)
OUTCOME_COLUMN = (4, 1, 2, 3)
#: A batched-engine chunk holds about this many creatures (at least one block of battles): the
#: size measured fastest (docs/performance.md, "Chunk size matters"). Smaller, the engine's
#: per-step Python work is amortised less; larger, the arrays fall out of the CPU caches. (The
#: engine keeps freed memory for reuse, :mod:`ecs_combat.batched.memory`, so large arrays are
#: not mapped afresh each chunk.)
CHUNK_CREATURES = 1 << 16
#: Battles per chunk for the reference engine (it reports progress once a chunk).
REFERENCE_CHUNK = 256
#: Races per chunk (a SPEC with ``[race]``): played together, step by step (:mod:`.races`);
#: a race takes thousands of times a battle's work, and progress is reported once a chunk.
RACE_CHUNK = 256
#: A chunk holds at most about this many creatures: a batched-engine chunk takes about 140
#: bytes a creature, so about 300 MB (``--chunk-size`` beyond it is refused).
MAX_CHUNK_CREATURES = 1 << 21


class BatchResolver(Protocol):
    """An engine that resolves a whole :class:`CombatBatch` and many turns (both engines,
    through adapters)."""

    def resolve_batch(self, batch: CombatBatch) -> BatchOutcome:
        """Resolve every battle of the batch."""
        ...

    def resolve_turns(self, turns: Sequence[TurnScenario]) -> list[TurnResult]:
        """Resolve each turn."""
        ...


def make_engine(name: str, registry: Registry) -> BatchResolver:
    """The named engine; the reference engine runs behind the batched interface."""
    if name == "reference":
        from ecs_combat.batched import ReferenceBatchEngine

        return ReferenceBatchEngine(registry)
    if name == "batched":
        from ecs_combat.batched import BatchedEngine

        engine: BatchResolver = BatchedEngine(registry)
        return engine
    raise ValueError(f"unknown engine {name!r} (known: {', '.join(ENGINES)})")


def expected_creatures(spec: Spec) -> float:
    """Average number of creatures in a battle of the spec."""
    if isinstance(spec, TournamentSpec):
        return 2.0
    attackers = sum(spec.attackers) / 2
    extra = len(spec.turn.creatures) if spec.turn is not None else 0
    return attackers * (1 + sum(spec.blockers_per_attacker) / 2) + extra


def default_chunk_size(spec: Spec, engine: str) -> int:
    """Battles per chunk: whole blocks of about :data:`CHUNK_CREATURES` creatures (batched);
    :data:`RACE_CHUNK` races (a SPEC with ``[race]``)."""
    if isinstance(spec, BattleSpec) and spec.race is not None:
        return RACE_CHUNK
    if engine == "reference":
        return REFERENCE_CHUNK
    block = battles_per_block(spec)
    return max(1, math.ceil(CHUNK_CREATURES / expected_creatures(spec) / block)) * block


def max_chunk_size(spec: Spec) -> int:
    """The largest chunk size allowed for the spec: about :data:`MAX_CHUNK_CREATURES`
    creatures, whole blocks of battles, at least one block."""
    block = battles_per_block(spec)
    return max(1, int(MAX_CHUNK_CREATURES / expected_creatures(spec)) // block) * block


def chunks(battles: int, chunk_size: int) -> Iterator[tuple[int, int]]:
    """The (start, stop) battle ranges of the chunks, in order."""
    for start in range(0, battles, chunk_size):
        yield start, min(start + chunk_size, battles)


@dataclass
class Tally:
    """Per matchup (attacker code, blocker code): the :data:`COLUMNS` counts.

    Merging is associative and commutative, so chunks may be tallied in any grouping.
    """

    counts: dict[tuple[int, int], npt.NDArray[np.int64]] = field(default_factory=dict)
    creatures: int = 0
    #: For battles of real cards: the per-card tally, [card, role, CARD_COLUMNS]
    #: (:func:`~ecs_combat.simulation.card_draw.card_counts`); else None.
    cards: npt.NDArray[np.int64] | None = None
    #: For races (a SPEC with ``[race]``, whose `counts` rows are
    #: :data:`~ecs_combat.simulation.races.RACE_COLUMNS`): [combat phases played, candidate
    #: combats the searches resolved to decide them]; else None.
    combats: npt.NDArray[np.int64] | None = None

    @property
    def battles(self) -> int:
        """Number of battles tallied."""
        return int(sum(int(c[0]) for c in self.counts.values()))

    def merge(self, other: Tally) -> Tally:
        """The tally of both."""
        out = {k: v.copy() for k, v in self.counts.items()}
        for key, row in other.counts.items():
            if key in out:
                out[key] += row
            else:
                out[key] = row.copy()
        cards = self.cards
        if other.cards is not None:
            cards = other.cards.copy() if cards is None else cards + other.cards
        combats = self.combats
        if other.combats is not None:
            combats = other.combats.copy() if combats is None else combats + other.combats
        return Tally(out, self.creatures + other.creatures, cards, combats)

    @staticmethod
    def of(
        attacker_code: IntArray,
        blocker_code: IntArray,
        outcome: IntArray,
        sums: tuple[IntArray, IntArray, IntArray],
        n_codes: int,
        creatures: int,
    ) -> Tally:
        """Tally battles given per battle: matchup codes, outcome code, and the summed columns
        (damage to players, attackers died, blockers died)."""
        key = attacker_code * n_codes + blocker_code
        if n_codes * n_codes <= 1 << 16:
            size = n_codes * n_codes
            keys = np.arange(size)
            inverse = key
        else:
            keys, inverse = np.unique(key, return_inverse=True)
            size = int(keys.shape[0])
        table = np.zeros((size, len(COLUMNS)), dtype=np.int64)
        by_outcome = np.bincount(inverse * 4 + outcome, minlength=size * 4).reshape(size, 4)
        table[:, 0] = by_outcome.sum(axis=1)
        table[:, list(OUTCOME_COLUMN)] = by_outcome
        for column, values in enumerate(sums, start=5):
            summed = np.bincount(inverse, weights=values, minlength=size)
            table[:, column] = np.rint(summed).astype(np.int64)
        counts = {
            (int(k) // n_codes, int(k) % n_codes): table[i]
            for i, k in enumerate(keys.tolist())
            if table[i, 0] > 0
        }
        return Tally(counts, creatures)


@dataclass
class ChunkResult:
    """What one chunk gives: its tally, and its per-battle table when asked for."""

    index: int
    start: int
    stop: int
    tally: Tally
    #: Seconds spent in the engine's resolve_batch.
    engine_seconds: float
    #: Per-battle columns (see :data:`TABLE_COLUMNS`), or None.
    table: dict[str, IntArray] | None = None
    #: Per-creature columns (see :data:`CREATURE_COLUMNS`), with the per-battle table.
    creatures: dict[str, npt.NDArray[Any]] | None = None


#: Columns of the per-battle table, codes as integers (labels are added when it is written).
TABLE_COLUMNS = (
    "battle",
    "attacker",
    "blocker",
    "outcome",
    "attackers",
    "blockers",
    "attackers_died",
    "blockers_died",
    "damage_to_players",
)


def _race_chunk(
    generator: Generator,
    engine: BatchResolver,
    seed: int,
    index: int,
    start: int,
    stop: int,
    with_table: bool,
) -> ChunkResult:
    """:func:`run_chunk` for a SPEC with ``[race]``: each drawn board played as a race, tallied
    per matchup, and per card for a card pool."""
    played = play_chunk(generator, engine, seed, start, stop)
    player = played.player
    combats = np.array([player.combats_played, player.combats_resolved], np.int64)
    pool = generator.pool
    cards = None if pool is None else race_card_counts(played, len(pool))
    tally = Tally(played.counts, played.drawn.batch.n_creatures, cards, combats)
    table = creatures = None
    if with_table:
        table = race_table(played, start, stop)
        creatures = creature_rows(generator, played.drawn, died_in_races(played), start)
    return ChunkResult(index, start, stop, tally, played.seconds, table, creatures)


def _kept_chunk(
    generator: Generator, engine: BatchResolver, seed: int, index: int, start: int, stop: int
) -> ChunkResult | None:
    """:func:`run_chunk` from kept outcomes: each drawn board decided once (:mod:`.decided_boards`)
    or each drawn card pair of a pool resolved once (:mod:`.pool_boards`); None when the
    generator keeps none."""
    kept = board_tally(generator, engine, seed, start, stop)
    if kept is not None:
        tally = Tally.of(*kept.columns, generator.n_codes, kept.creatures)
        return ChunkResult(index, start, stop, tally, kept.seconds)
    pooled = seeded_tally(generator, engine, seed, start, stop)  # in the kernel, if on
    if pooled is None:
        pooled = pool_tally(generator, engine, seed, start, stop)
    if pooled is not None:
        tally = Tally({(0, 0): pooled.totals()}, pooled.creatures, pooled.cards)
        return ChunkResult(index, start, stop, tally, pooled.seconds)
    return None


def run_chunk(
    generator: Generator,
    engine: BatchResolver,
    seed: int,
    index: int,
    start: int,
    stop: int,
    with_table: bool = False,
) -> ChunkResult:
    """Draw battles ``start`` to ``stop - 1`` of the run with `seed`, resolve and tally them
    (with ``[race]``: play each as a race, :mod:`.races`)."""
    spec = generator.spec
    if isinstance(spec, BattleSpec) and spec.race is not None:
        return _race_chunk(generator, engine, seed, index, start, stop, with_table)
    if not with_table and (compiled := compiled_rows(generator, engine, seed, start, stop)):
        tally = Tally(compiled[0], compiled[1])
        return ChunkResult(index, start, stop, tally, compiled[2])  # all in the compiled kernel
    kept = None if with_table else _kept_chunk(generator, engine, seed, index, start, stop)
    if kept is not None:
        return kept
    drawn = draw_battles(generator, seed, start, stop)
    began = time.perf_counter()
    drawn, known = decided(generator, drawn, engine)  # the search resolves with the engine
    if known is not None:
        outcome: BatchOutcome = known
    elif drawn.turn is not None:
        resolve_turns = getattr(engine, "resolve_turn_batch", None)
        if resolve_turns is None:
            raise RefusedError("a SPEC with [turn] resolves on the batched engine only")
        outcome = resolve_turns(drawn.turn)
    else:
        outcome = engine.resolve_batch(drawn.batch)
    engine_seconds = time.perf_counter() - began
    code, att_died, blk_died = outcome_codes(drawn, outcome)
    batch = drawn.batch
    cards = generator.card_counts(drawn, code, outcome)
    if cards is not None:
        if drawn.two_rows_a_battle:  # one matchup, its figures from the cards'
            tally = Tally({(0, 0): totals_of(cards)}, batch.n_creatures, cards)
        else:
            one = np.zeros(batch.n_battles, dtype=np.int64)
            tally = Tally.of(
                one, one, code, (outcome.damage_to_players, att_died, blk_died), 1,
                batch.n_creatures,
            )  # fmt: skip
            tally.cards = cards
    else:
        tally = Tally.of(
            drawn.attacker_code,
            drawn.blocker_code,
            code,
            (outcome.damage_to_players, att_died, blk_died),
            generator.n_codes,
            batch.n_creatures,
        )
    table = creatures = None
    if with_table:
        creatures = creature_table(generator, drawn, outcome, start)
        n = batch.n_battles
        attackers = np.bincount(batch.battle[drawn.attacking_side], minlength=n)
        table = {
            "battle": np.arange(start, stop, dtype=np.int64),
            "attacker": drawn.attacker_code,
            "blocker": drawn.blocker_code,
            "outcome": code,
            "attackers": attackers,
            "blockers": np.bincount(batch.battle, minlength=n) - attackers,
            "attackers_died": att_died,
            "blockers_died": blk_died,
            "damage_to_players": outcome.damage_to_players.astype(np.int64),
        }
    # What the engine built holds reference cycles, freed only by the cyclic collector, whose
    # oldest generation runs rarely: collected here (a young generation, well under a ms) it
    # can't pile up over chunks (190 MB in a 1,000,000-battle tournament; performance.md).
    gc.collect(1)
    return ChunkResult(index, start, stop, tally, engine_seconds, table, creatures)


@dataclass
class Run:
    """A finished simulation: its tally and how it was made."""

    tally: Tally
    engine: str
    chunk_size: int
    chunks: int
    seconds: float
    engine_seconds: float
    #: How many tasks ran at once (processes, or a cluster's threads).
    workers: int = 1
    #: Battles and creatures of the tally not resolved by this run (read from checkpoints).
    battles_resumed: int = 0
    creatures_resumed: int = 0

    def describe(self) -> dict[str, Any]:
        """How the run was made, for the summary's ``run``: speeds count only the battles
        resolved by this run (None when it resolved none)."""
        resolved = self.tally.battles - self.battles_resumed
        creatures = self.tally.creatures - self.creatures_resumed
        timed = resolved > 0 and self.seconds > 0
        return {
            "engine": self.engine,
            "workers": self.workers,
            "chunk_size": self.chunk_size,
            "chunks": self.chunks,
            "seconds": round(self.seconds, 6),
            "engine_seconds": round(self.engine_seconds, 6),
            "battles_per_second": round(resolved / self.seconds) if timed else None,
            "creatures_per_second": round(creatures / self.seconds) if timed else None,
            "battles_resolved": resolved,
            "battles_resumed": self.battles_resumed,
        }


def simulate(
    generator: Generator,
    engine_name: str,
    engine: BatchResolver,
    seed: int,
    battles: int,
    chunk_size: int,
    on_chunk: Callable[[ChunkResult], None] | None = None,
    with_table: bool = False,
) -> Run:
    """Resolve `battles` battles chunk by chunk, merging the tallies in chunk order."""
    began = time.perf_counter()
    total = Tally()
    engine_seconds = 0.0
    n_chunks = 0
    for index, (start, stop) in enumerate(chunks(battles, chunk_size)):
        result = run_chunk(generator, engine, seed, index, start, stop, with_table)
        total = total.merge(result.tally)
        engine_seconds += result.engine_seconds
        n_chunks += 1
        if on_chunk is not None:
            on_chunk(result)
    return Run(
        total, engine_name, chunk_size, n_chunks, time.perf_counter() - began, engine_seconds
    )


def summary_row(counts: npt.NDArray[np.int64]) -> dict[str, Any]:
    """A summary row: the counts, then each side's win rate with its 95% Wilson interval."""
    row: dict[str, Any] = {name: int(v) for name, v in zip(COLUMNS, counts.tolist(), strict=True)}
    for side in ("attacker", "blocker"):
        rate, interval = rate_and_interval(row[f"{side}_wins"], row["battles"])
        row[f"{side}_win_rate"] = rate
        row[f"{side}_win_rate_ci95"] = interval
    return row


def summary(generator: Generator, spec: Spec, seed: int, run: Run) -> dict[str, Any]:
    """The machine-readable summary; everything about how the run was made is under ``run``."""
    tally = run.tally
    keys = sorted(tally.counts, key=lambda k: (generator.sort_key(k[0]), generator.sort_key(k[1])))
    total = np.zeros(len(COLUMNS), dtype=np.int64)
    for row in tally.counts.values():
        total += row
    battles = int(total[0])
    return {
        "simulation": "spec" if isinstance(spec, BattleSpec) else "keyword tournament",
        "seed": seed,
        "battles": battles,
        "creatures": tally.creatures,
        "spec": spec.describe(),
        "totals": summary_row(total),
        "matchups": [
            {
                "attacker": generator.label(a),
                "blocker": generator.label(b),
                **summary_row(tally.counts[(a, b)]),
            }
            for a, b in keys
        ],
        "run": run.describe(),
    }
