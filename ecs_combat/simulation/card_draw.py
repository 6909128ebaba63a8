"""Drawing battles of real cards from a SPEC's card pool, and tallying them per card.

A creature is a card index drawn uniformly from its side's cards; its power, toughness,
keyword mask, colors and keyword instances with parameters (``bushido 1``, ``protection from
black``) are gathered from the pool's arrays, so a block of battles is drawn and built with no
Python loop over battles. Blocks the rules forbid (a flyer blocked by a creature without
flying or reach, a black creature blocking one with protection from black) are not declared,
as for any SPEC.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ecs_combat.batched.arrays import BatchOutcome, IntArray, MaskArray
from ecs_combat.plugin.definitions import COLORS
from ecs_combat.plugin.registry import Registry
from ecs_combat.simulation.generate import (
    Array,
    Drawn,
    Draws,
    RowFacts,
    SpecGenerator,
    _Casts,
    assemble,
)
from ecs_combat.simulation.pool import CardPool
from ecs_combat.simulation.spec import BattleSpec

#: Per-card tally columns, from the card's side of each battle it was in: its side won (only
#: the other side lost creatures), lost (only its side did), traded (both did), neither side
#: lost one; combat damage dealt to players in those battles; how often the card died.
CARD_COLUMNS = (
    "battles",
    "wins",
    "losses",
    "trades",
    "neither_dies",
    "damage_to_players",
    "died",
)
#: Roles, the second axis of a per-card tally.
ROLES = ("attacker", "blocker")
#: The outcome code of a battle (simulate.OUTCOME_NAMES) seen from each role: attacking, a
#: win is "attacker wins" (1); blocking, it is "blocker wins" (2).
_SEEN_FROM = np.array([[0, 1, 2, 3], [0, 2, 1, 3]], dtype=np.int64)
#: Side codes of the per-battle table when a side is not one card.
SEVERAL, NONE = -1, -2


@dataclass
class CardDrawn(Drawn):
    """Drawn battles of real cards: also each creature row's card index."""

    card: IntArray = field(default_factory=lambda: np.zeros(0, np.int64))


class CardGenerator(SpecGenerator):
    """Draws the battles of a SPEC with a card pool.

    With one attacker and one blocker a battle (and no casts or drawn state) a block's draws
    are one array of card indices, [n, 2]; otherwise the battle's shape is drawn as for any
    SPEC, then a card for each creature row. Side codes, for the per-battle table, are card
    indices (a side of several creatures: :data:`SEVERAL`; of none: :data:`NONE`); the
    matchup tally has one matchup, the per-card tally is :func:`card_counts`.
    """

    def __init__(self, spec: BattleSpec, registry: Registry) -> None:
        super().__init__(spec, registry)
        assert spec.pool is not None
        pool: CardPool = spec.pool
        self.pool = pool
        bits = self.bits
        self.card_masks: MaskArray = np.array(
            [int(bits.mask([i.name for i in card])) for card in pool.instances], dtype=np.uint64
        )
        self.possible = np.bitwise_or.reduce(self.card_masks) if len(pool) else np.uint64(0)
        self._instances(registry)
        static = set(registry.plugins_implementing("static_keywords"))
        self.needs_names = any(registry.keyword_plugin.get(k) in static for k in pool.keywords)
        self.one_on_one = (
            spec.attackers == (1, 1)
            and spec.blockers_per_attacker == (1, 1)
            and not spec.casts
            and not spec.attacker.state
            and not spec.blocker.state
            and not spec.player_state
        )
        self._names = np.array(pool.names, dtype=object)

    def _instances(self, registry: Registry) -> None:
        """Instance rows of the cards whose keywords have parameters or are listed twice
        (``bushido 1``, ``protection from black``), and each parameterized keyword's values per
        card as restrictions read them (colors as a bit mask, numbers added up)."""
        pool, bits = self.pool, self.bits
        index = {name: i for i, name in enumerate(bits.names)}
        counts, keyword, parameter = [], [], []
        values: dict[str, IntArray] = {}
        for c, card in enumerate(pool.instances):
            names = [i.name for i in card]
            listed = [i for i in card if i.parameter is not None or names.count(i.name) > 1]
            counts.append(len(listed))
            for inst in listed:
                keyword.append(index[inst.name])
                p = inst.parameter
                if isinstance(p, str):
                    code, value = COLORS.index(p), 1 << COLORS.index(p)
                    v = values.setdefault(inst.name, np.zeros(len(pool), np.int64))
                    v[c] |= value
                else:
                    code = -1 if p is None else p
                    v = values.setdefault(inst.name, np.zeros(len(pool), np.int64))
                    v[c] += 0 if p is None else p
                parameter.append(code)
        self.inst_count = np.array(counts, dtype=np.int64)
        self.inst_start = np.concatenate([[0], np.cumsum(self.inst_count)[:-1]]).astype(np.int64)
        self.inst_keyword = np.array(keyword, dtype=np.int64)
        self.inst_parameter = np.array(parameter, dtype=np.int64)
        self.card_values = values

    @property
    def n_codes(self) -> int:
        """One matchup: battles of cards are tallied per card (:func:`card_counts`)."""
        return 1

    def label(self, code: int) -> str:
        """A side's card name in the per-battle table."""
        if code == SEVERAL:
            return "several"
        if code == NONE:
            return "none"
        return self.pool.names[code]

    def sort_key(self, code: int) -> tuple[int, ...]:
        """Cards in name order."""
        return (code,)

    def draw(self, rng: np.random.Generator, n: int) -> Draws:
        """Card indices: ``card`` [n, 2] (attacker, blocker) for one-on-one battles, else the
        battle's shape as for any SPEC and a ``card`` per creature row."""
        pool = self.pool
        if self.one_on_one:
            attacker = pool.attacker[rng.integers(0, pool.attacker.size, size=n)]
            blocker = pool.blocker[rng.integers(0, pool.blocker.size, size=n)]
            return Draws(
                {
                    "creatures": np.full(n, 2, dtype=np.int64),
                    "card": np.stack([attacker, blocker], axis=1),
                }
            )
        draws = super().draw(rng, n)
        role = draws.creature_cols["role"]
        rows = role.shape[0]
        attacker = pool.attacker[rng.integers(0, pool.attacker.size, size=rows)]
        blocker = pool.blocker[rng.integers(0, pool.blocker.size, size=rows)]
        draws.creature_cols["card"] = np.where(role == 0, attacker, blocker)
        return draws

    def build(self, draws: Draws) -> CardDrawn:
        """The batch of the drawn battles, with each row's card."""
        counts = draws.battle_cols["creatures"]
        n = int(counts.shape[0])
        if self.one_on_one:
            pair = draws.battle_cols["card"]
            card = pair.reshape(-1)
            role = np.tile(np.array([0, 1], dtype=np.int64), n)
            assigned = np.zeros(2 * n, dtype=np.int64)
            extra: dict[str, object] = {"per_battle": 2}
        else:
            c = draws.creature_cols
            card = c["card"]
            role = c["role"].astype(np.int64)
            assigned = c["assigned"]
            extra = {
                "casts": _Casts(
                    self._card_names,
                    [
                        (self._cast_card[i], cast.target, c[f"cast{i}"])
                        for i, cast in enumerate(self.spec.casts)
                    ],
                ),
                "creature_state": {k[6:]: v for k, v in c.items() if k.startswith("state ")},
                "player_state": {
                    k[6:]: v.reshape(-1)
                    for k, v in draws.battle_cols.items()
                    if k.startswith("state ")
                },
            }
        pool = self.pool
        values = self.card_values
        zeros = np.zeros(card.shape, np.int64)
        facts = RowFacts(
            pool.colors[card],
            lambda keyword: values[keyword][card] if keyword in values else zeros,
        )
        names = self._names[card].tolist() if self.needs_names else None
        batch, side = assemble(
            self.bits,
            counts=counts,
            role=role,
            assigned=assigned,
            power=pool.power[card],
            toughness=pool.toughness[card],
            keywords=self.card_masks[card],
            life=self.spec.life,
            possible=self.possible,
            names=names,
            facts=facts,
            **extra,  # type: ignore[arg-type]
        )
        per_row = self.inst_count[card]
        if self.inst_keyword.size and per_row.any():
            rows = np.repeat(np.arange(card.shape[0], dtype=np.int64), per_row)
            first = np.cumsum(per_row) - per_row
            within = np.arange(rows.shape[0], dtype=np.int64) - np.repeat(first, per_row)
            at = self.inst_start[card][rows] + within
            batch.instance_row = rows
            batch.instance_keyword = self.inst_keyword[at]
            batch.instance_parameter = self.inst_parameter[at]
        if self.one_on_one:
            a_code, b_code = pair[:, 0], pair[:, 1]
        else:
            a_code = self._side_code(batch.battle, card, side, n)
            b_code = self._side_code(batch.battle, card, ~side, n)
        return CardDrawn(batch, a_code, b_code, side, two_rows_a_battle=self.one_on_one, card=card)

    @staticmethod
    def _side_code(battle: IntArray, card: IntArray, rows: Array, n: int) -> IntArray:
        """Per battle, the card of a side of one creature; :data:`SEVERAL` or :data:`NONE`."""
        count = np.bincount(battle[rows], minlength=n)
        total = np.bincount(battle[rows], weights=card[rows], minlength=n).astype(np.int64)
        return np.where(count == 1, total, np.where(count == 0, NONE, SEVERAL))


def card_counts(drawn: CardDrawn, code: IntArray, outcome: BatchOutcome, n_cards: int) -> IntArray:
    """The per-card tally of drawn battles, [card, role, :data:`CARD_COLUMNS`]: each creature
    row counts for its card and role, from its side of the battle (`code`: outcome code per
    battle)."""
    batch = drawn.batch
    card = drawn.card
    role = (~drawn.attacking_side).astype(np.int64)
    battle = batch.battle
    seen = _SEEN_FROM[role, code[battle]]
    key = card * 2 + role
    size = n_cards * 2
    by = np.bincount(key * 4 + seen, minlength=size * 4).reshape(n_cards, 2, 4)
    out = np.zeros((n_cards, 2, len(CARD_COLUMNS)), dtype=np.int64)
    out[..., 0] = by.sum(axis=-1)
    out[..., 1] = by[..., 1]
    out[..., 2] = by[..., 2]
    out[..., 3] = by[..., 3]
    out[..., 4] = by[..., 0]
    damage = outcome.damage_to_players.astype(np.float64)[battle]
    out[..., 5] = np.rint(np.bincount(key, weights=damage, minlength=size)).reshape(n_cards, 2)
    out[..., 6] = np.bincount(key[~outcome.alive], minlength=size).reshape(n_cards, 2)
    return out
