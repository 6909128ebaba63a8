"""The Python API (docs/python.md): load and resolve scenario and turn files on either engine,
resolve battles given as arrays, run simulations; results as numpy arrays, pandas DataFrames
and Arrow tables. Everything here is exported from :mod:`ecs_combat`.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import numpy.typing as npt

from ecs_combat.api_checks import check_arrays
from ecs_combat.batched import BatchOutcome, BoolArray, CombatBatch
from ecs_combat.errors import InputError
from ecs_combat.plugin.loading import load_registry
from ecs_combat.plugin.registry import Registry
from ecs_combat.rules.result import CombatResult, TurnResult
from ecs_combat.scenario.loader import iter_scenarios
from ecs_combat.scenario.model import Scenario
from ecs_combat.scenario.turn_loader import is_turn_file, iter_turns
from ecs_combat.scenario.turns import TurnScenario

if TYPE_CHECKING:
    from ecs_combat.simulation.simulate import ChunkResult

Engine = Literal["reference", "batched"]
#: The engines, by name (the simulation modules are imported only when used).
ENGINES = ("batched", "reference")
Array = npt.NDArray[Any]
#: Outcome codes of the ``outcome`` columns: ``OUTCOMES[code]`` is the outcome's name.
OUTCOMES: tuple[str, ...] = ("neither dies", "attacker wins", "blocker wins", "trade")
#: The columns of :attr:`BattleResults.creatures`, one row per creature, in input order.
CREATURE_RESULT_COLUMNS = (
    "battle", "side", "attacking", "blocking", "power", "toughness", "damage", "died",
    "dealt_to_players", "life_gained",
)  # fmt: skip
#: The columns of :attr:`BattleResults.battles`, one row per battle.
BATTLE_RESULT_COLUMNS = (
    "battle", "outcome", "attackers_died", "blockers_died", "damage_to_players",
    "life_a", "life_b", "lost_a", "lost_b",
)  # fmt: skip


def _registry(registry: Registry | None) -> Registry:
    return registry if registry is not None else load_registry()


def _check_engine(engine: str) -> None:
    if engine not in ENGINES:
        raise InputError(None, "engine", f"unknown engine {engine!r} (known: {', '.join(ENGINES)})")


# ---------------------------------------------------------------------------------------------
# Files


def load(
    paths: str | Path | Sequence[str | Path], registry: Registry | None = None
) -> list[Scenario | TurnScenario]:
    """Every combat scenario and turn of the files, in file order: one per ``.toml`` or
    ``.json`` file, one per line of a ``.jsonl`` file. A turn file (docs/turns.md) gives
    :class:`TurnScenario` objects, any other a :class:`Scenario`. Bad input raises
    :class:`InputError`, with the message `resolve` prints."""
    registry = _registry(registry)
    files = [paths] if isinstance(paths, str | Path) else list(paths)
    out: list[Scenario | TurnScenario] = []
    for path in map(str, files):
        if is_turn_file(path):
            out.extend(iter_turns(path, registry))
        else:
            out.extend(iter_scenarios(path, registry))
    return out


def resolve(
    scenarios: str
    | Path
    | Scenario
    | TurnScenario
    | Sequence[str | Path | Scenario | TurnScenario],
    engine: Engine = "reference",
    registry: Registry | None = None,
) -> list[CombatResult | TurnResult]:
    """Resolve scenarios and turns (objects, or files read with :func:`load`), in order, on
    either engine; the batched engine resolves all the combats as one batch and all the turns
    as another. A result's ``to_json()`` is what ``resolve --json`` prints (docs/output.md)."""
    _check_engine(engine)
    registry = _registry(registry)
    given = (
        [scenarios] if isinstance(scenarios, str | Path | Scenario | TurnScenario) else scenarios
    )
    items: list[Scenario | TurnScenario] = []
    for item in given:
        items.extend(load(item, registry) if isinstance(item, str | Path) else [item])
    combats = [s for s in items if isinstance(s, Scenario)]
    turns = [s for s in items if isinstance(s, TurnScenario)]
    combat_results: list[CombatResult]
    turn_results: list[TurnResult]
    if engine == "batched":
        from ecs_combat.batched import BatchedEngine

        batched = BatchedEngine(registry)
        combat_results = batched.resolve_many(combats)
        turn_results = batched.resolve_turns(turns) if turns else []
    else:
        from ecs_combat.reference.engine import ReferenceEngine

        reference = ReferenceEngine(registry)
        combat_results = [reference.resolve(s) for s in combats]
        turn_results = reference.resolve_turns(turns) if turns else []
    combat_iter, turn_iter = iter(combat_results), iter(turn_results)
    results: list[CombatResult | TurnResult] = [
        next(combat_iter) if isinstance(s, Scenario) else next(turn_iter) for s in items
    ]
    return results


# ---------------------------------------------------------------------------------------------
# Tables


class Tables:
    """Named tables of equal-length numpy columns, also as pandas DataFrames and Arrow tables."""

    def table(self, name: str) -> dict[str, Array]:
        """The columns of a table, by name."""
        tables = self._tables()
        if name not in tables:
            raise KeyError(f"no table {name!r} (tables: {', '.join(tables)})")
        return tables[name]

    def _tables(self) -> dict[str, dict[str, Array]]:
        raise NotImplementedError

    def to_pandas(self, table: str = "battles") -> Any:
        """A table as a pandas DataFrame; ``outcome`` codes become the outcomes' names (a
        categorical column)."""
        import pandas as pd

        columns: dict[str, Any] = dict(self.table(table))
        if "outcome" in columns and columns["outcome"].dtype.kind in "iu":
            columns["outcome"] = pd.Categorical.from_codes(columns["outcome"], list(OUTCOMES))
        return pd.DataFrame(columns)

    def to_arrow(self, table: str = "battles") -> Any:
        """A table as a pyarrow Table; ``outcome`` codes become the outcomes' names (a
        dictionary column)."""
        import pyarrow as pa

        columns: dict[str, Any] = {}
        for name, values in self.table(table).items():
            if name == "outcome" and values.dtype.kind in "iu":
                columns[name] = pa.DictionaryArray.from_arrays(
                    pa.array(values.astype(np.int8)), pa.array(list(OUTCOMES))
                )
            else:
                columns[name] = pa.array(values.tolist() if values.dtype == object else values)
        return pa.table(columns)


# ---------------------------------------------------------------------------------------------
# Battles from arrays


@dataclass
class Battles:
    """Two-player battles built from arrays by :func:`battles`, ready for
    :func:`resolve_battles`: `batch` is the batched engine's input (docs/architecture.md)."""

    batch: CombatBatch
    #: [N] True for the creatures of player A (the attacking player).
    attacking_side: BoolArray

    @property
    def n_battles(self) -> int:
        """Number of battles."""
        return self.batch.n_battles


def _column(name: str, values: Any, n: int | None, kind: str = "int") -> Array:
    array = np.asarray(values)
    if array.ndim != 1:
        raise InputError(
            None, name, f"must be a one-dimensional array, not {array.ndim}-dimensional"
        )
    if n is not None and array.shape[0] != n:
        raise InputError(None, name, f"has {array.shape[0]:,} rows; battle has {n:,}")
    if kind == "bool":
        if array.dtype != np.bool_:
            raise InputError(None, name, f"must be an array of booleans, not {array.dtype}")
        return array
    if array.dtype.kind not in "iu" and not (array.dtype.kind == "b" and kind == "int"):
        raise InputError(None, name, f"must be an array of integers, not {array.dtype}")
    return array.astype(np.int64, copy=False)  # int64 arrays are used as given, not copied


def _first_bad(name: str, bad: BoolArray, what: str) -> None:
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(None, f"{name}[{i}]", what)


def battles(
    battle: Any,
    side: Any,
    power: Any,
    toughness: Any,
    *,
    blocks: Any = None,
    keywords: Mapping[str, Any] | None = None,
    colors: Any = None,
    counters: Mapping[str, Any] | None = None,
    life: int = 20,
    registry: Registry | None = None,
) -> Battles:
    """Build two-player battles from per-creature arrays (one row per creature).

    `battle`: the battle of each creature, 0 to n-1, rows of a battle together and battles in
    order. `side`: 0 for a creature of player A, who attacks with all of them, 1 for one of
    player B. `blocks`: for a creature of B, the row of the creature of A in the same battle
    it blocks, or -1 (default: none blocks). `keywords`: keyword name -> an array saying which creatures have
    it: booleans for a keyword without a parameter; for one that takes a number (``bushido``),
    the number (0: the creature lacks it); for one that takes a quality (``protection``), the
    words after "from" (``"red"``; ``""``: it lacks it). `colors`: each creature's colors as
    a bit mask (:func:`~ecs_combat.plugin.definitions.color_mask`; default colorless).
    `counters`: counter kind (``"+1/+1"``, ``"-1/-1"``) or keyword (a keyword counter) -> how
    many each creature has. Both players start at `life`.
    Bad arrays raise :class:`InputError` naming the array and the first bad row; what a
    scenario file refuses (toughness 0 or less, a block the rules forbid, such as a flyer
    blocked by a creature without flying or reach) they refuse with the file's message, the
    creatures named ``row<i>`` (RULES 11.2). Arrays of
    int64 are used as given, not copied (the engines never write to them): don't change them
    while the battles are in use.
    """
    from ecs_combat.api_arrays import read_creatures
    from ecs_combat.simulation.assemble import assemble

    registry = _registry(registry)
    b = _column("battle", battle, None)
    n = int(b.shape[0])
    s = _column("side", side, n)
    p = _column("power", power, n)
    t = _column("toughness", toughness, n)
    if n == 0:
        raise InputError(None, "battle", "no creatures: give at least one row")
    _first_bad("battle", b < 0, "must be 0 or more")
    if n > 1 and (b[1:] < b[:-1]).any():  # found only then: no array of the rows' order
        _first_bad(
            "battle",
            np.diff(b, prepend=b[:1]) < 0,
            "battles must come in order, rows of a battle together",
        )
    _first_bad("side", (s != 0) & (s != 1), "must be 0 (player A, attacking) or 1 (player B)")
    n_battles = int(b[-1]) + 1
    counts = np.bincount(b, minlength=n_battles)
    starts = np.cumsum(counts) - counts
    blk = np.full(n, -1, np.int64) if blocks is None else _column("blocks", blocks, n)
    target_ok = (blk >= 0) & (blk < n)
    safe = np.where(target_ok, blk, 0)
    _first_bad("blocks", (blk != -1) & ~target_ok, f"must be -1 or a row from 0 to {n - 1}")
    _first_bad("blocks", (blk >= 0) & (s == 0), "a creature of player A attacks: it can't block")
    _first_bad("blocks", (blk >= 0) & (b[safe] != b), "must be a creature of the same battle")
    _first_bad("blocks", (blk >= 0) & (s[safe] != 0), "must be a creature of player A")
    creatures = read_creatures(n, registry, keywords, colors, counters, _column)
    bits = creatures.bits(registry)
    masks = creatures.masks(bits)
    home = (s == 1) & (blk < 0)
    assigned = np.where(blk >= 0, blk - starts[b], 0)
    # declared with the keywords of keyword counters too; the batch holds the printed ones
    batch, attacking_side = assemble(
        bits, counts, s, assigned, p, t, creatures.declared(bits, masks), life,
        bits.mask(list(bits.names)), home=home, shared=True, battle=b, facts=creatures.facts(),
    )  # fmt: skip
    batch.keywords = masks
    creatures.complete(batch, bits)
    declared = np.zeros(n, np.bool_)
    declared[batch.block_blocker] = True
    attacks = np.asarray(batch.attacking) >= 0
    check_arrays(b, s, p, t, blk, creatures, attacks, declared, life, registry)
    return Battles(batch, attacking_side)


@dataclass
class BattleResults(Tables):
    """What :func:`resolve_battles` gives: two tables of numpy columns.

    ``creatures``, one row per creature in the order of the input arrays (row i is the
    creature of row i): ``battle``; ``side`` (0: player A's, 1: player B's); ``attacking``
    (it attacked); ``blocking`` (the row of the creature it blocked, -1 if none: a forbidden
    block was not declared); ``power``, ``toughness`` and ``damage`` (marked) as combat ends;
    ``died`` (it left the battlefield: died or was sacrificed); ``dealt_to_players`` (combat
    damage it dealt to players); ``life_gained`` (life its controller gained from its damage:
    lifelink).

    ``battles``, one row per battle: ``battle``; ``outcome`` (a code into :data:`OUTCOMES`:
    0 neither dies, 1 attacker wins, 2 blocker wins, 3 trade, by which side lost creatures);
    ``attackers_died`` and ``blockers_died`` (creatures of A and of B that died);
    ``damage_to_players`` (combat damage dealt to players); ``life_a``, ``life_b`` (life as
    combat ends); ``lost_a``, ``lost_b`` (the player lost the game).
    """

    creatures: dict[str, Array] = field(default_factory=dict)
    battles: dict[str, Array] = field(default_factory=dict)

    def _tables(self) -> dict[str, dict[str, Array]]:
        return {"battles": self.battles, "creatures": self.creatures}


def resolve_battles(
    battles: Battles, engine: Engine = "batched", registry: Registry | None = None
) -> BattleResults:
    """Resolve battles built by :func:`battles` on either engine (the reference engine one
    battle at a time: about 300 times slower)."""
    from ecs_combat.simulation.simulate import make_engine

    _check_engine(engine)
    registry = _registry(registry)
    outcome = make_engine(engine, registry).resolve_batch(battles.batch)
    return battle_tables(battles.batch, battles.attacking_side, outcome)


def battle_tables(
    batch: CombatBatch, attacking_side: BoolArray, outcome: BatchOutcome
) -> BattleResults:
    """The tables of :class:`BattleResults` of a batch of two-player battles (the attacking
    player's creatures `attacking_side`) and its outcome."""
    from ecs_combat.simulation.generate import Drawn
    from ecs_combat.simulation.outcomes import outcome_codes

    zeros = np.zeros(batch.n_battles, np.int64)
    code, att_died, blk_died = outcome_codes(Drawn(batch, zeros, zeros, attacking_side), outcome)
    blocking = np.full(batch.n_creatures, -1, np.int64)
    blocking[batch.block_blocker] = batch.block_attacker
    creatures = {
        "battle": batch.battle.copy(),
        "side": (~attacking_side).astype(np.int64),
        "attacking": batch.attacking >= 0,
        "blocking": blocking,
        "power": np.asarray(outcome.power, np.int64).copy(),
        "toughness": np.asarray(outcome.toughness, np.int64).copy(),
        "damage": np.asarray(outcome.damage, np.int64).copy(),
        "died": ~outcome.alive,
        "dealt_to_players": _per_creature(outcome.dealt_to_players, batch.n_creatures),
        "life_gained": _per_creature(outcome.life_gained, batch.n_creatures),
    }
    life = outcome.life.reshape(-1, 2)
    lost = outcome.lost.reshape(-1, 2)
    table = {
        "battle": np.arange(batch.n_battles, dtype=np.int64),
        "outcome": code,
        "attackers_died": att_died.astype(np.int64),
        "blockers_died": blk_died.astype(np.int64),
        "damage_to_players": outcome.damage_to_players.astype(np.int64),
        "life_a": life[:, 0].copy(),
        "life_b": life[:, 1].copy(),
        "lost_a": lost[:, 0].copy(),
        "lost_b": lost[:, 1].copy(),
    }
    return BattleResults(creatures, table)


def _per_creature(values: Array | None, n: int) -> Array:
    return np.zeros(n, np.int64) if values is None else np.asarray(values, np.int64).copy()


# ---------------------------------------------------------------------------------------------
# Simulations


@dataclass
class SimulationResult(Tables):
    """What :func:`simulate` gives: the summary (the document ``simulate --json`` prints,
    docs/simulate.md) and, unless asked not to, the per-battle and per-creature tables
    (the columns of ``simulate --out``: docs/simulate.md, "The per-battle file")."""

    summary: dict[str, Any]
    #: One row per battle, in battle order; ``attacker``, ``blocker`` and ``outcome`` as text.
    battles: dict[str, Array] = field(default_factory=dict)
    #: One row per creature of each battle, in battle order.
    creatures: dict[str, Array] = field(default_factory=dict)

    def _tables(self) -> dict[str, dict[str, Array]]:
        return {"battles": self.battles, "creatures": self.creatures}


def simulate(
    spec: str | Path | None = None,
    *,
    battles: int = 100_000,
    seed: int | None = None,
    engine: Engine = "batched",
    chunk_size: int | None = None,
    tables: bool = True,
    registry: Registry | None = None,
) -> SimulationResult:
    """Run a simulation as ``ecs-combat simulate [SPEC]`` does, in this process: the keyword
    tournament without `spec`, else the SPEC file. The same spec, `battles` and `seed` give
    the same battles and summary as the command. Without `seed` a random one is drawn (the
    summary's ``seed``). With `tables`, the per-battle (for a SPEC with ``[race]``, per-race)
    and per-creature tables are kept."""
    from ecs_combat.simulation.card_summary import card_summary
    from ecs_combat.simulation.generators import make_generator
    from ecs_combat.simulation.outfiles import code_labels
    from ecs_combat.simulation.race_cards import race_card_summary
    from ecs_combat.simulation.race_summary import race_summary
    from ecs_combat.simulation.races import WINNERS
    from ecs_combat.simulation.simulate import (
        default_chunk_size,
        make_engine,
        max_chunk_size,
        summary,
    )
    from ecs_combat.simulation.simulate import simulate as run_simulation
    from ecs_combat.simulation.spec import BattleSpec, Spec, tournament
    from ecs_combat.simulation.spec_reader import load_spec

    _check_engine(engine)
    registry = _registry(registry)
    if battles < 1:
        raise InputError(None, "battles", "must be 1 or more")
    chosen: Spec = load_spec(str(spec), registry) if spec is not None else tournament(registry)
    if isinstance(chosen, BattleSpec) and chosen.turn is not None and engine != "batched":
        raise InputError(None, "engine", "a SPEC with [turn] resolves on the batched engine only")
    size = chunk_size or default_chunk_size(chosen, engine)
    if size > max_chunk_size(chosen):
        raise InputError(None, "chunk_size", f"at most {max_chunk_size(chosen):,} for this SPEC")
    seed = secrets.randbits(32) if seed is None else seed
    generator = make_generator(chosen, registry)
    chunks: list[ChunkResult] = []
    run = run_simulation(
        generator, engine, make_engine(engine, registry), seed, battles, size,
        on_chunk=chunks.append if tables else None, with_table=tables,
    )  # fmt: skip
    pool = generator.pool
    races = isinstance(chosen, BattleSpec) and chosen.race is not None
    if races and pool is not None:
        doc = race_card_summary(pool, chosen, seed, run)
    elif isinstance(chosen, BattleSpec) and chosen.race is not None:
        doc = race_summary(generator, chosen, seed, run)
    elif pool is not None:
        doc = card_summary(pool, chosen, seed, run)
    else:
        doc = summary(generator, chosen, seed, run)
    doc["run"]["spec_file"] = None if spec is None else str(spec)
    result = SimulationResult(doc)
    if tables and chunks:
        per_battle = {
            k: np.concatenate([c.table[k] for c in chunks if c.table])
            for k in chunks[0].table or {}
        }
        for side in ("attacker", "blocker"):
            per_battle[side] = np.array(
                code_labels(per_battle[side], generator.label), dtype=object
            )
        if races:  # one row per race
            per_battle["winner"] = np.array(
                code_labels(per_battle["winner"], lambda c: WINNERS[c]), dtype=object
            )
        result.battles = per_battle
        result.creatures = {
            k: np.concatenate([c.creatures[k] for c in chunks if c.creatures])
            for k in chunks[0].creatures or {}
        }
    return result


__all__ = [
    "BATTLE_RESULT_COLUMNS",
    "CREATURE_RESULT_COLUMNS",
    "OUTCOMES",
    "BattleResults",
    "Battles",
    "Engine",
    "SimulationResult",
    "Tables",
    "battles",
    "load",
    "resolve",
    "resolve_battles",
    "simulate",
]
