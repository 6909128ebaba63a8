"""Drawing random battles as arrays, seeded per block of battles, and handing them to
:func:`~ecs_combat.simulation.assemble.assemble` to become a :class:`CombatBatch`.

Battles are drawn in seeded **blocks** of :data:`BLOCK` battles (fewer for a SPEC of large
battles: :func:`battles_per_block`): block ``b`` of a run with seed ``s`` draws from
``SeedSequence(s, spawn_key=(b,))``, which is the ``b``-th child of
``SeedSequence(s).spawn(...)``. Any range of battles is therefore the same whichever chunks
it is resolved in, and no battle is ever drawn with a Python loop.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

import numpy as np

from ecs_combat.batched import BatchOutcome, BoolArray, CombatBatch, IntArray, MaskArray, TurnBatch
from ecs_combat.plugin.registry import Registry
from ecs_combat.simulation.assemble import Array, Casts, assemble
from ecs_combat.simulation.float_words import WordArray, below, float32_words, grid_limit, limits
from ecs_combat.simulation.keyword_bits import KeywordBits
from ecs_combat.simulation.seeded_blocks import battles_per_block, block_draws
from ecs_combat.simulation.spec import BattleSpec, Range, Spec
from ecs_combat.simulation.turns import TurnPlan, turn_keywords

if TYPE_CHECKING:
    from ecs_combat.kernel.spec_shape import SpecBlocks
    from ecs_combat.simulation.pool import CardPool

#: A SPEC drawing at most this many keywords reads each creature's mask from a table of every
#: set of them (2^12 masks, 32 KB).
KEYWORD_TABLE_BITS = 12


@dataclass
class Draws:
    """Raw draws for some battles: per-battle and per-creature columns, battle-major
    (``battle_cols["creatures"]`` counts each battle's creature rows, so any range of
    battles can be cut out and blocks concatenated without renumbering)."""

    battle_cols: dict[str, Array]
    creature_cols: dict[str, Array] = field(default_factory=dict)

    def cut(self, lo: int, hi: int) -> Draws:
        """The draws of battles ``lo`` to ``hi - 1``."""
        counts = self.battle_cols["creatures"]
        c_lo, c_hi = int(counts[:lo].sum()), int(counts[:hi].sum())
        return Draws(
            {k: v[lo:hi] for k, v in self.battle_cols.items()},
            {k: v[c_lo:c_hi] for k, v in self.creature_cols.items()},
        )

    @staticmethod
    def concat(parts: Sequence[Draws]) -> Draws:
        """Draws of consecutive battle ranges, joined."""
        if len(parts) == 1:
            return parts[0]
        first = parts[0]
        return Draws(
            {k: np.concatenate([p.battle_cols[k] for p in parts]) for k in first.battle_cols},
            {k: np.concatenate([p.creature_cols[k] for p in parts]) for k in first.creature_cols},
        )


@dataclass
class Drawn:
    """Battles ready to resolve, with what the summary needs to know about them."""

    batch: CombatBatch
    #: [n] matchup code of each battle's attacking side and blocking side.
    attacker_code: IntArray
    blocker_code: IntArray
    #: [N] whether each creature belongs to the attacking player.
    attacking_side: BoolArray
    #: Every battle is rows 2i (the attacking player's) and 2i + 1 (the defending player's).
    two_rows_a_battle: bool = False
    #: A SPEC with `[turn]`: every battle's turn (its first combat phase is `batch`).
    turn: TurnBatch | None = None
    #: [N] each creature row's card, an index into the generator's pool; None when the
    #: creatures are made up.
    card: IntArray | None = None
    #: [n] each battle's first creature row, when known (the batch's rows are battle-major).
    battle_start: IntArray | None = None


@dataclass(frozen=True)
class OneOnOne:
    """Battles of one attacker against one blocker that differ only in the creatures' power,
    toughness and keywords, so that a compiled kernel may draw, play and tally them block by
    block: the batch of a block (any block's draws), each keyword code's mask, the number of
    codes a side, and a block's draws as (keyword code, power, toughness), each [battles, 2]
    bytes (attacker, blocker), the same random numbers :meth:`Generator.draw` takes."""

    batch: CombatBatch
    masks: MaskArray
    codes: int
    draw: Callable[[np.random.Generator, int], tuple[Array, Array, Array]]
    #: The least and greatest power drawn, and toughness.
    ranges: tuple[tuple[int, int], tuple[int, int]]
    #: The battles of given draws (keyword code, power, toughness, each [battles, 2]) as
    #: :meth:`Generator.build` makes them: a battle is decided by its draws alone.
    build: Callable[[Array, Array, Array], Drawn] | None = None
    #: A block's draws as the ``integers`` calls that make them from its generator, in order:
    #: (least, greatest, bytes), the bytes being keyword codes, then power, then toughness,
    #: each [battles, 2] (:mod:`ecs_combat.kernel.one_on_one_draw`); None: not so drawn.
    fills: tuple[tuple[int, int, int], ...] | None = None


class Generator(Protocol):
    """What running, tallying and summing up a simulation ask of its battles' generator (the
    keyword tournament, a SPEC, a SPEC with a card pool), so none of them asks which it is."""

    @property
    def pool(self) -> CardPool | None:
        """The card pool the creatures are drawn from; None when they are made up."""
        ...

    @property
    def spec(self) -> Spec:
        """What the battles are drawn from (its ``decisions`` say who chooses the blocks)."""
        ...

    @property
    def bits(self) -> KeywordBits:
        """The keywords the battles can hold, as mask bits."""
        ...

    @property
    def possible(self) -> np.uint64:
        """The mask of every keyword a drawn creature can have."""
        ...

    @property
    def n_codes(self) -> int:
        """Number of matchup codes per side."""
        ...

    def draw(self, rng: np.random.Generator, n: int) -> Draws:
        """The raw draws of `n` battles."""
        ...

    def build(self, draws: Draws) -> Drawn:
        """The drawn battles as a batch ready to resolve."""
        ...

    def label(self, code: int) -> str:
        """A side's label (a matchup label, or a card's name)."""
        ...

    def sort_key(self, code: int) -> tuple[int, ...]:
        """The order of labels in tables."""
        ...

    def card_counts(self, drawn: Drawn, code: IntArray, outcome: BatchOutcome) -> IntArray | None:
        """The per-card tally of resolved battles (`code`: outcome code per battle), or None
        when they are not drawn from a card pool."""
        ...

    def pairs_alone(self) -> bool:
        """Whether each battle is a card of the pool against another, drawn as nothing else
        (``side`` card indices a battle: one attacker, one blocker, no casts or state)."""
        ...

    def card_classes(self) -> IntArray:
        """Per pool card, its class (those of one class give the same one-on-one battle)."""
        ...

    def side_fills(self) -> tuple[tuple[int, int], ...] | None:
        """A card pool's one-on-one block draws as ``integers(0, size, count, dtype=np.uint16)``
        calls (size, count per battle), or None when it draws otherwise."""
        ...

    def compiled_blocks(self) -> OneOnOne | None:
        """How a compiled kernel draws these battles block by block, or None when it
        can't (they are not all one attacker against one blocker, differing only in power,
        toughness and keywords)."""
        ...

    def compiled_spec(self) -> SpecBlocks | None:
        """How a compiled kernel draws these battles block by block as a SPEC does, or
        None when it can't (:func:`~ecs_combat.simulation.spec_blocks.spec_blocks`)."""
        ...


class SpecGenerator:
    """Draws the battles of a SPEC file: a battle's creature rows are its attackers, then
    the blockers of its first attacker, of its second, and so on. Matchup codes are bit sets
    over ``spec.matchup``: bit ``i`` is set when a creature of that side has it."""

    pool: CardPool | None = None

    def __init__(self, spec: BattleSpec, registry: Registry) -> None:
        self.spec = spec
        self.bits = KeywordBits(registry, spec)
        used = [
            k
            for k in registry.keywords
            if k in spec.attacker.keywords or k in spec.blocker.keywords
        ]
        self.keywords = tuple(used)
        self.possible = self.bits.mask(used)
        self._kw_bits = np.array([int(self.bits.bit[k]) for k in used], dtype=np.uint64)
        #: Per side (attacker, blocker), the float32 uniforms below each keyword's
        #: probability, as 24-bit integers (:mod:`.float_words`).
        self._kw_limits = tuple(
            limits([side.keywords.get(k, 0.0) for k in used])
            for side in (spec.attacker, spec.blocker)
        )
        #: The keywords drawn with another probability for blockers than for attackers.
        self._kw_differ = np.flatnonzero(self._kw_limits[0] != self._kw_limits[1]).tolist()
        #: The mask of each set of the drawn keywords (bit ``j``: ``used[j]``), when few.
        self._kw_masks: MaskArray | None = None
        if len(used) <= KEYWORD_TABLE_BITS:
            sets = np.arange(1 << len(used), dtype=np.uint64)
            self._kw_masks = np.zeros(sets.shape[0], dtype=np.uint64)
            for j, bit in enumerate(self._kw_bits.tolist()):
                self._kw_masks |= np.where(sets >> np.uint64(j) & np.uint64(1), bit, 0).astype(
                    np.uint64
                )
        self._matchup_bits = [self.bits.bit[k] for k in spec.matchup]
        names = tuple(dict.fromkeys(c.card for c in spec.casts))
        self._card_names = names
        self._cast_card = [names.index(c.card) for c in spec.casts]
        static = set(registry.plugins_implementing("static_keywords"))
        named = set(used) if spec.turn is None else {*used, *turn_keywords(spec.turn, registry)}
        self.needs_names = any(registry.keyword_plugin.get(k) in static for k in named)
        self.turn = None if spec.turn is None else TurnPlan(spec.turn, registry, self.bits.bit)

    @property
    def n_codes(self) -> int:
        """Number of matchup codes per side."""
        return 1 << len(self.spec.matchup)

    def card_counts(self, drawn: Drawn, code: IntArray, outcome: BatchOutcome) -> IntArray | None:
        """None: a SPEC without a pool makes its creatures up."""
        return None

    def pairs_alone(self) -> bool:
        """False: a SPEC without a pool makes its creatures up."""
        return False

    def card_classes(self) -> IntArray:
        """No class: a SPEC without a pool makes its creatures up."""
        return np.zeros(0, np.int64)

    def side_fills(self) -> tuple[tuple[int, int], ...] | None:
        """What a card pool's one-on-one block draws (:meth:`~.card_draw.CardGenerator.
        draw`) as ``integers(0, size, count, dtype=np.uint16)`` calls: per call (size,
        count per battle), both sides' indices in one call when the sides are as large
        (interleaved), else one call a side; None without a pool, when the battles are not
        one on one (:meth:`pairs_alone`) or a side has more than 65,536 cards."""
        if self.pool is None or not self.pairs_alone():
            return None
        a_size, b_size = self.pool.attacker.size, self.pool.blocker.size
        if max(a_size, b_size) > 1 << 16 or min(a_size, b_size) < 1:
            return None
        return ((a_size, 2),) if a_size == b_size else ((a_size, 1), (b_size, 1))

    def compiled_blocks(self) -> OneOnOne | None:
        """None: a SPEC's battles are not all one on one (:meth:`compiled_spec`)."""
        return None

    def compiled_spec(self) -> SpecBlocks | None:
        """The SPEC's blocks for a compiled kernel (:meth:`Generator.compiled_spec`); None
        with a card pool or creatures' names."""
        if self.pool is not None or self.needs_names:
            return None
        from ecs_combat.simulation.spec_blocks import spec_blocks

        return spec_blocks(
            self.spec, self.bits, self.keywords, self._kw_limits,
            battles_per_block(self.spec), lambda b, c: self.build(Draws(b, c)).batch,
        )  # fmt: skip

    def label(self, code: int) -> str:
        """A side's matchup label: its matchup keywords joined by " + ", or none."""
        if not self.spec.matchup:
            return "any"
        have = [k for i, k in enumerate(self.spec.matchup) if code >> i & 1]
        return " + ".join(have) if have else "none"

    def sort_key(self, code: int) -> tuple[int, ...]:
        """Order of labels in tables: fewer keywords first, then in matchup order."""
        members = tuple(i for i in range(len(self.spec.matchup)) if code >> i & 1)
        return (len(members), *members)

    def _uniform(self, rng: np.random.Generator, role: Array, ranges: tuple[Range, Range]) -> Array:
        """Per row, an integer drawn uniformly from its side's range (attacker, blocker)."""
        (a_lo, a_hi), (b_lo, b_hi) = ranges
        rows = role.shape[0]
        drawn: Array = rng.integers(a_lo, a_hi + 1, size=(rows,), dtype=np.int16)
        if ranges[0] != ranges[1]:
            other = rng.integers(b_lo, b_hi + 1, size=(rows,), dtype=np.int16)
            drawn = np.where(role == 0, drawn, other)
        return drawn

    def _chance(
        self, words: WordArray, blocks: BoolArray, p_attacker: float, p_blocker: float
    ) -> BoolArray:
        """Per row, whether an event of its side's probability happens (`words`: a float32
        uniform per row, :mod:`.float_words`)."""
        if p_attacker == p_blocker:
            return below(words, p_attacker)
        m_a, m_b = grid_limit(p_attacker), grid_limit(p_blocker)
        return np.asarray(words < np.where(blocks, np.uint32(m_b), np.uint32(m_a)))

    def _keyword_masks(self, words: WordArray, blocks: BoolArray) -> MaskArray:
        """Per row, the mask of its keywords: keyword ``j`` where its uniform ``words[j]`` is
        below its probability for the row's side."""
        has = words < self._kw_limits[0][:, None]
        attacks = None
        for j in self._kw_differ:
            if self._kw_limits[1][j] == 0:  # blockers never have it
                attacks = ~blocks if attacks is None else attacks
                has[j] &= attacks
            else:
                np.copyto(has[j], words[j] < self._kw_limits[1][j], where=blocks)
        if self._kw_masks is None:
            masks: MaskArray = np.bitwise_or.reduce(has * self._kw_bits[:, None], axis=0)
            return masks
        drawn = has.view(np.uint8)
        keyword_set = drawn[0].astype(np.uint16)
        for j in range(1, drawn.shape[0]):
            keyword_set |= np.left_shift(drawn[j], j, dtype=np.uint16)
        out: MaskArray = self._kw_masks.take(keyword_set)
        return out

    def draw(self, rng: np.random.Generator, n: int) -> Draws:
        """Draw counts first, then every creature's attributes in row order."""
        spec = self.spec
        n_att = rng.integers(spec.attackers[0], spec.attackers[1] + 1, size=n)
        total_att = int(n_att.sum())
        per_att = rng.integers(
            spec.blockers_per_attacker[0], spec.blockers_per_attacker[1] + 1, size=total_att
        )
        # Each battle's rows: its attackers (assigned -1), then the blockers of its first
        # attacker (assigned 0), of its second, and so on: one run of rows per battle and
        # per attacker, the battle's run first.
        att_first = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(n_att, out=att_first[1:])
        att_battle = np.repeat(np.arange(n), n_att)
        heads = np.arange(n) + att_first[:-1]
        own = np.arange(total_att)
        places = own + att_battle + 1
        run_length = np.empty(n + total_att, dtype=np.int64)
        run_length[heads] = n_att
        run_length[places] = per_att
        run_value = np.empty(n + total_att, dtype=np.int64)
        run_value[heads] = -1
        run_value[places] = own - att_first[att_battle]
        assigned = np.repeat(run_value, run_length)
        blocks = assigned >= 0
        role = blocks.view(np.int8)
        blocked_by = np.zeros(total_att + 1, dtype=np.int64)
        np.cumsum(per_att, out=blocked_by[1:])
        counts = n_att + blocked_by[att_first[1:]] - blocked_by[att_first[:-1]]
        rows = int(assigned.shape[0])

        a, b = spec.attacker, spec.blocker
        cols: dict[str, Array] = {
            "role": role,
            "assigned": assigned,
            "power": self._uniform(rng, role, (a.power, b.power)),
            "toughness": self._uniform(rng, role, (a.toughness, b.toughness)),
        }
        # The keywords, the creatures' state and the casts are float32 uniforms drawn one
        # after the other, a row of `rows` each: read at once as their 24-bit integers.
        k = len(self.keywords)
        chances = [
            (f"state {key}", a.state.get(key, 0.0), b.state.get(key, 0.0))
            for key in self.bits.registry.state_fields("creature")
        ]
        chances = [c for c in chances if c[1] or c[2]]
        chances += [(f"cast{i}", c.probability, c.probability) for i, c in enumerate(spec.casts)]
        words = float32_words(rng, (k + len(chances)) * rows).reshape(k + len(chances), rows)
        if k:
            cols["keywords"] = self._keyword_masks(words[:k], blocks)
        for i, (key, p_a, p_b) in enumerate(chances):
            cols[key] = self._chance(words[k + i], blocks, p_a, p_b)
        battle_cols: dict[str, Array] = {"creatures": counts}
        for key, chance in spec.player_state.items():
            battle_cols[f"state {key}"] = rng.random((n, 2)) < chance
        if self.needs_names:
            letters = rng.integers(0, 26, size=(rows, 6), dtype=np.uint8) + np.uint8(ord("a"))
            cols["name"] = letters.view("S6").reshape(-1)
        if self.turn is not None:  # drawn after the first combat's: the same battles
            self.turn.insert(cols, counts)
            battle_cols["creatures"] = counts + self.turn.n_extra
            cols.update(self.turn.draw(rng, int(battle_cols["creatures"].sum())))
        return Draws(battle_cols, cols)

    def build(self, draws: Draws) -> Drawn:
        """The batch of the drawn battles."""
        c = draws.creature_cols
        counts = draws.battle_cols["creatures"]
        n = int(counts.shape[0])
        rows = int(c["role"].shape[0])
        keywords = c.get("keywords")
        masks = keywords if keywords is not None else np.zeros(rows, dtype=np.uint64)
        casts = Casts(
            self._card_names,
            [
                (self._cast_card[i], cast.target, c[f"cast{i}"])
                for i, cast in enumerate(self.spec.casts)
            ],
        )
        names = [s.decode() for s in c["name"].tolist()] if "name" in c else None
        role = c["role"]
        batch, side = assemble(
            self.bits,
            counts=counts,
            role=role.astype(np.int64),
            assigned=c["assigned"],
            power=c["power"].astype(np.int64),
            toughness=c["toughness"].astype(np.int64),
            keywords=masks,
            life=self.spec.life,
            possible=self.possible,
            casts=casts,
            names=names,
            creature_state={k[6:]: v for k, v in c.items() if k.startswith("state ")},
            player_state={
                k[6:]: v.reshape(-1) for k, v in draws.battle_cols.items() if k.startswith("state ")
            },
            home=c.get("home"),
            shared=True,
        )
        turn = None if self.turn is None else self.turn.build(batch, c, counts)
        start = np.zeros(n, dtype=np.int64)
        np.cumsum(counts[:-1], out=start[1:])
        codes = self._codes(batch.keywords, side, start)
        return Drawn(batch, *codes, side, turn=turn, battle_start=start)

    def _codes(
        self, keywords: MaskArray, side: BoolArray, start: IntArray
    ) -> tuple[IntArray, IntArray]:
        """Each battle's matchup codes, of its attacking side and of its blocking side."""
        m = len(self._matchup_bits)
        row = np.zeros(keywords.shape[0], dtype=np.int64) if m == 0 else None
        for i, bit in enumerate(self._matchup_bits):
            has = np.left_shift((keywords & bit) != np.uint64(0), i, dtype=np.int64)
            row = has if row is None else row | has
        assert row is not None
        row = np.where(side, row, row << m)  # the blocking side's bits above the attacking's
        code = battle_reduce(np.bitwise_or, row, start)
        return code & ((1 << m) - 1), code >> m


def battle_reduce(ufunc: np.ufunc, values: Array, start: IntArray) -> Array:
    """`ufunc` reduced over each battle's rows (`start`: each battle's first row, the rows
    battle-major); 0 for a battle without rows."""
    rows = values.shape[0]
    if rows == 0:
        return np.zeros(start.shape[0], dtype=values.dtype)
    out: Array = ufunc.reduceat(values, np.minimum(start, rows - 1))
    empty = np.diff(start, append=rows) == 0
    if empty.any():
        out[empty] = 0
    return out


def draw_battles(generator: Generator, seed: int, start: int, stop: int) -> Drawn:
    """Battles ``start`` to ``stop - 1`` of the run with `seed`."""
    size = battles_per_block(generator.spec)
    parts = [
        draws if (lo, hi) == (0, size) else draws.cut(lo, hi)
        for draws, lo, hi in block_draws(generator.draw, generator.spec, seed, start, stop)
    ]
    return generator.build(Draws.concat(parts))
