"""The built-in keyword tournament drawn as arrays (:class:`TournamentGenerator`): one attacker
against one blocker per battle, each with no keyword or one of the tournament's, in seeded
blocks of battles (:mod:`.generate`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ecs_combat.batched import BatchOutcome, CombatBatch, IntArray, MaskArray
from ecs_combat.plugin.registry import Registry
from ecs_combat.simulation.assemble import Array, assemble, state_columns
from ecs_combat.simulation.generate import Drawn, Draws, OneOnOne
from ecs_combat.simulation.keyword_bits import KeywordBits
from ecs_combat.simulation.seeded_blocks import BLOCK
from ecs_combat.simulation.spec import TournamentSpec

if TYPE_CHECKING:
    from ecs_combat.kernel.spec_shape import SpecBlocks
    from ecs_combat.simulation.pool import CardPool


class TournamentGenerator:
    """Draws the keyword tournament: one attacker against one blocker per battle.

    Matchup codes: 0 for no keyword, ``i + 1`` for ``spec.keywords[i]``.
    """

    pool: CardPool | None = None

    def __init__(self, spec: TournamentSpec, registry: Registry) -> None:
        self.spec = spec
        self.bits = KeywordBits(registry, spec)
        self.labels = ("none", *spec.keywords)
        self.code_masks = np.array(
            [0, *(int(self.bits.bit[k]) for k in spec.keywords)], dtype=np.uint64
        )
        self.possible = self.bits.mask(spec.keywords)
        self._k = len(spec.keywords) + 1
        self._fixed: dict[int, dict[str, Any]] = {}
        self._two = np.full(BLOCK, 2, dtype=np.int64)  # creatures a battle, shared read-only
        self._two.flags.writeable = False
        possible = self.possible
        self._free_blocks = not (
            self.bits.restricts_blocks(possible)
            or self.bits.restrictions("attack", possible)
            or self.bits.blockers_needed(np.zeros(1, dtype=np.uint64), possible) is not None
        )
        if max(spec.power[1], spec.toughness[1], self._k) > 255:
            raise ValueError("tournament draws are bytes: ranges and keywords must stay below 256")

    def draw(self, rng: np.random.Generator, n: int) -> Draws:
        """Columns (bytes): ``keyword`` [n, 2] (0 none, else index + 1), ``power`` and
        ``toughness`` [n, 2]; the second axis is attacker, blocker."""
        spec = self.spec
        keyword = rng.integers(0, self._k, size=(n, 2), dtype=np.uint8)
        if spec.power == spec.toughness:
            stats = rng.integers(spec.power[0], spec.power[1] + 1, size=(2, n, 2), dtype=np.uint8)
            power, toughness = stats[0], stats[1]
        else:
            power = rng.integers(spec.power[0], spec.power[1] + 1, size=(n, 2), dtype=np.uint8)
            toughness = rng.integers(
                spec.toughness[0], spec.toughness[1] + 1, size=(n, 2), dtype=np.uint8
            )
        two = self._two if n == BLOCK else np.full(n, 2, dtype=np.int64)
        return Draws(
            {
                "creatures": two,
                "keyword": keyword,
                "power": power,
                "toughness": toughness,
            }
        )

    def build(self, draws: Draws) -> Drawn:
        """The batch: rows 2i (attacker, player 2i) and 2i + 1 (blocker, player 2i + 1)."""
        cols = draws.battle_cols
        keyword = cols["keyword"]
        n = int(keyword.shape[0])
        power = cols["power"].reshape(-1).astype(np.int64)
        toughness = cols["toughness"].reshape(-1).astype(np.int64)
        masks = self.code_masks[keyword.reshape(-1)]
        codes = keyword.astype(np.int64)
        if self._free_blocks:
            batch = self._one_on_one(n, power, toughness, masks)
            side = self._fixed[n]["side"]
            return Drawn(batch, codes[:, 0], codes[:, 1], side, two_rows_a_battle=True)
        batch, side = assemble(
            self.bits,
            counts=cols["creatures"],
            role=np.tile(np.array([0, 1], dtype=np.int64), n),
            assigned=np.zeros(2 * n, dtype=np.int64),
            power=power,
            toughness=toughness,
            keywords=masks,
            life=self.spec.life,
            possible=self.possible,
            per_battle=2,
        )
        return Drawn(batch, codes[:, 0], codes[:, 1], side, two_rows_a_battle=True)

    def _one_on_one(
        self, n: int, power: IntArray, toughness: IntArray, masks: MaskArray
    ) -> CombatBatch:
        """What :func:`assemble` builds, written out for the tournament's fixed shape when no
        keyword it draws forbids an attack or a block: creature 2i is player 2i's and attacks
        player 2i + 1; creature 2i + 1 is player 2i + 1's and blocks it.

        The arrays that depend only on `n` are made once per size and shared, read-only, by
        every chunk of that size (engines don't write to their input)."""
        fixed = self._fixed.get(n)
        if fixed is None:
            fixed = self._fixed_arrays(n)
            if len(self._fixed) >= 4:
                self._fixed.clear()
            self._fixed[n] = fixed
        return CombatBatch(
            n_battles=n,
            keyword_names=self.bits.names,
            counter_names=(*self.bits.names, *self.bits.registry.counter_kinds),
            player_battle=fixed["player_battle"],
            life=fixed["life"],
            player_state=fixed["player_state"],
            battle=fixed["battle"],
            controller=fixed["controller"],
            power=power,
            toughness=toughness,
            damage=fixed["damage"],
            keywords=masks,
            colors=fixed["colors"],
            creature_state=fixed["creature_state"],
            attacking=fixed["attacking"],
            present=fixed["present"],
            block_blocker=fixed["block_blocker"],
            block_attacker=fixed["block_attacker"],
            block_rank=fixed["block_rank"],
        )

    def _fixed_arrays(self, n: int) -> dict[str, Any]:
        rows = 2 * n
        attacking = np.arange(1, rows + 1, dtype=np.int64)
        attacking[1::2] = -1
        pair = np.repeat(np.arange(n, dtype=np.int64), 2)
        fixed: dict[str, Any] = {
            "player_battle": pair,
            "life": np.full(rows, self.spec.life, dtype=np.int64),
            "player_state": state_columns(self.bits.registry, "player", rows),
            "battle": pair,
            "controller": np.arange(rows, dtype=np.int64),
            "damage": np.zeros(rows, dtype=np.int64),
            "colors": np.zeros(rows, dtype=np.int64),
            "creature_state": state_columns(self.bits.registry, "creature", rows),
            "attacking": attacking,
            "present": np.ones(rows, dtype=np.bool_),
            "block_blocker": np.arange(1, rows, 2, dtype=np.int64),
            "block_attacker": np.arange(0, rows, 2, dtype=np.int64),
            "block_rank": np.zeros(n, dtype=np.int64),
            "side": np.tile(np.array([True, False]), n),
        }
        for value in fixed.values():
            for array in value.values() if isinstance(value, dict) else (value,):
                array.flags.writeable = False
        return fixed

    def label(self, code: int) -> str:
        """A side's matchup label."""
        return self.labels[code]

    def sort_key(self, code: int) -> tuple[int, ...]:
        """Order of labels in tables: none first, then the keywords in registry order."""
        return (code,)

    @property
    def n_codes(self) -> int:
        """Number of matchup codes per side."""
        return len(self.labels)

    def card_counts(self, drawn: Drawn, code: IntArray, outcome: BatchOutcome) -> IntArray | None:
        """None: the tournament's creatures are made up."""
        return None

    def compiled_spec(self) -> SpecBlocks | None:
        """None: the tournament's blocks are :meth:`compiled_blocks`."""
        return None

    def pairs_alone(self) -> bool:
        """False: the tournament makes its creatures up."""
        return False

    def card_classes(self) -> IntArray:
        """No class: the tournament makes its creatures up."""
        return np.zeros(0, np.int64)

    def side_fills(self) -> tuple[tuple[int, int], ...] | None:
        """None: the tournament draws no card indices."""
        return None

    def compiled_blocks(self) -> OneOnOne | None:
        """The tournament's blocks for a compiled kernel (:meth:`Generator.compiled_blocks`),
        when no keyword it draws forbids an attack or a block."""
        if not self._free_blocks:
            return None
        draws = self.draw(np.random.default_rng(0), BLOCK)
        # every keyword in the batch, so that every system which may run is in its schedule
        every = np.arange(2 * BLOCK).reshape(BLOCK, 2) % self._k
        draws.battle_cols["keyword"] = every.astype(np.uint8)
        batch = self.build(draws).batch
        ranges = (self.spec.power, self.spec.toughness)
        return OneOnOne(
            batch, self.code_masks, self._k, self._draw_columns, ranges, self._build_columns,
            self.fills(BLOCK),
        )  # fmt: skip

    def fills(self, n: int) -> tuple[tuple[int, int, int], ...]:
        """:meth:`draw`'s ``integers`` calls for `n` battles, in order: (least, greatest,
        bytes), making the keyword codes, then power, then toughness."""
        spec = self.spec
        keyword = (0, self._k - 1, 2 * n)
        if spec.power == spec.toughness:
            return keyword, (spec.power[0], spec.power[1], 4 * n)
        return keyword, (*spec.power, 2 * n), (*spec.toughness, 2 * n)

    def _build_columns(self, keyword: Array, power: Array, toughness: Array) -> Drawn:
        """The battles of :meth:`_draw_columns`' columns, as :meth:`build` makes them."""
        n = int(keyword.shape[0])
        two = np.full(n, 2, dtype=np.int64)
        cols = {"creatures": two, "keyword": keyword, "power": power, "toughness": toughness}
        return self.build(Draws(cols))

    def _draw_columns(self, rng: np.random.Generator, n: int) -> tuple[Array, Array, Array]:
        """:meth:`draw`'s columns: keyword codes, power, toughness."""
        cols = self.draw(rng, n).battle_cols
        return cols["keyword"], cols["power"], cols["toughness"]
