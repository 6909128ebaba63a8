"""What plugins and cards see of a batch: restriction sides and card targets, one element per
row; the block rules on a run's rows."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from ecs_combat.batched.actions import lose_life
from ecs_combat.batched.arrays import (
    BoolArray,
    IntArray,
)
from ecs_combat.batched.keyword_rows import KeywordRows
from ecs_combat.batched.keywords import has, instances, lands, pump, types, update_own
from ecs_combat.batched.state import CombatRows, CreatureRows, Frame, PlayerRows
from ecs_combat.errors import RefusedError
from ecs_combat.plugin.definitions import normalize_keyword
from ecs_combat.plugin.restrictions import Restriction

I64 = np.int64
U64 = np.uint64
SmallArray = npt.NDArray[np.int8]
AnyArray = npt.NDArray[Any]


def ability_targets(
    frame: Frame, kw: KeywordRows, creatures: CreatureRows, sources: IntArray, targets: IntArray
) -> BoolArray:
    """Per pair: whether no ``target`` restriction forbids the target row to a triggered
    ability of the source row (a creature source with its colors and controller)."""
    colors = np.asarray(creatures.colors, I64)[sources]
    opponent = creatures.controller[targets] != creatures.controller[sources]
    side = RowSide(frame, kw, creatures, targets, opponent, colors)
    side.from_creature = np.ones(len(targets), np.bool_)
    legal = np.ones(len(targets), np.bool_)
    for restriction in frame.schedule.registry.restrictions_of("target"):
        legal &= np.asarray(restriction.test(side), np.bool_)
    return legal


class RowSide:
    """Some creature rows as a restriction sees them (:class:`ecs_combat.plugin.restrictions.Side`):
    their keywords and characteristics."""

    def __init__(
        self,
        frame: Frame,
        kw: KeywordRows,
        creatures: CreatureRows,
        rows: IntArray,
        opponent: BoolArray,
        spell_colors: IntArray,
    ) -> None:
        self.frame, self.kw, self.creatures = frame, kw, creatures
        self.rows = rows
        self.opponent = opponent
        self.spell_colors = spell_colors
        self.from_creature = np.zeros(len(rows), np.bool_)  # a spell's target (cast events)

    def has(self, keyword: str) -> BoolArray:
        out: BoolArray = has(self.frame, self.kw, keyword)[self.rows]
        return out

    def values(self, keyword: str) -> IntArray:
        """Its instances' parameters: colors as a bit mask, numbers added up."""
        rows, params = instances(self.frame, self.kw, keyword)
        given = params >= 0
        if not given.any():  # no parameters: 0 for every row (most batches)
            return np.zeros(len(self.rows), I64)
        out = np.zeros(self.frame.n, I64)
        declared = self.frame.schedule.registry.keyword(keyword)
        if declared is not None and declared.parameter == "color":
            np.bitwise_or.at(out, rows[given], np.left_shift(1, params[given]))
        else:
            np.add.at(out, rows[given], params[given])
        result: IntArray = out[self.rows]
        return result

    def count(self, keyword: str) -> IntArray:
        """How many instances of the keyword each row has."""
        rows, _ = instances(self.frame, self.kw, keyword)
        result: IntArray = np.bincount(rows, minlength=self.frame.n)[self.rows].astype(I64)
        return result

    @property
    def colors(self) -> IntArray:
        out: IntArray = np.asarray(self.creatures.colors, I64)[self.rows]
        return out

    @property
    def power(self) -> IntArray:
        out: IntArray = self.creatures.power[self.rows]
        return out

    @property
    def types(self) -> IntArray:
        out: IntArray = types(self.frame)[self.rows]
        return out

    @property
    def lands(self) -> IntArray:
        out: IntArray = lands(self.frame)[self.creatures.controller[self.rows]]
        return out


class CardTargets:
    """:class:`ecs_combat.plugin.views.EffectTarget` for the batched engine: one element per cast.

    `targets` holds creature rows, or ``-1 - player_row`` for a player target of a card of
    kind "any"; for a card of kind "none" its values mean nothing.
    """

    def __init__(
        self,
        frame: Frame,
        kw: KeywordRows,
        creatures: CreatureRows,
        players: PlayerRows,
        targets: IntArray,
        casters: IntArray,
        kind: str = "creature",
    ) -> None:
        self.frame, self.kw, self.creatures, self.players = frame, kw, creatures, players
        self.targets = targets
        self.casters = casters
        none = np.zeros(targets.shape, np.bool_)
        self.to_creature: BoolArray = none if kind == "none" else targets >= 0
        self.to_player: BoolArray = targets < 0 if kind == "any" else none
        #: The target creature rows (0 where the target is no creature: masked everywhere).
        self.rows: IntArray = np.where(self.to_creature, targets, 0)

    def _where(self, where: Any) -> BoolArray:
        return np.broadcast_to(np.asarray(where, dtype=np.bool_), self.targets.shape)

    def state(self, key: str) -> AnyArray:
        """A plugin's state of each target creature (False or 0 for a target that is none)."""
        values = self.creatures.states[key][self.rows]
        return np.where(self.to_creature, values, np.zeros_like(values))

    def caster_state(self, key: str) -> AnyArray:
        """A plugin's state of each card's caster."""
        return self.players.states[key][self.casters]

    def related(self, key: str) -> BoolArray:
        """Whether each target's creature reference `key` names a creature on the battlefield."""
        states = self.creatures.states.get(key)
        if states is None:  # the plugin giving that state is not loaded: nothing is related
            return np.zeros(self.targets.shape, np.bool_)
        other = states[self.rows]
        out: BoolArray = (
            self.to_creature & (other >= 0) & self.creatures.on_bf[np.maximum(other, 0)]
        )
        return out

    def pump(self, power: int, toughness: int, where: Any = True, via: str | None = None) -> None:
        """+power/+toughness until end of turn, where `where` holds (to the creature the
        target's state `via` names, with `via`)."""
        w = self._where(where) & self.to_creature
        rows = self.rows
        if via is not None:
            w = w & self.related(via)
            if not w.any():
                return
            rows = self.creatures.states[via][self.rows]
        pump(self.creatures, rows[w], power, toughness)

    def grant(self, keyword: str, where: Any = True) -> None:
        """The targets where `where` holds gain `keyword` until end of turn."""
        rows = self.rows[self._where(where) & self.to_creature]
        self.kw.base[rows] |= self.frame.schedule.kt(self._bit(keyword))
        update_own(self.kw, rows)

    def damage(self, amount: int, where: Any = True) -> None:
        """`amount` noncombat damage to each target where `where` holds: marked on a
        creature, life lost by a player (120.3)."""
        w = self._where(where)
        self.creatures.marked[self.rows[w & self.to_creature]] += amount
        players = -1 - self.targets[w & self.to_player]
        if players.size:
            lose_life(self.players, players, amount)

    def grant_each(self, keyword: str, where: Any = True) -> None:
        """Each creature on the battlefield its cast's caster controls gains `keyword` until
        end of turn, where `where` holds."""
        casters = self.casters[self._where(where)]
        rows = np.flatnonzero(self.creatures.on_bf & np.isin(self.creatures.controller, casters))
        self.kw.base[rows] |= self.frame.schedule.kt(self._bit(keyword))
        update_own(self.kw, rows)

    def _bit(self, keyword: str) -> int:
        bit = self.frame.schedule.masks.bit.get(normalize_keyword(keyword))
        if bit is None:
            raise RefusedError(f"a card gives {keyword!r}, which has no bit in the batch")
        return bit

    def note(self, text: str, where: Any = True) -> None:
        """Words for the readable account; the batched engine keeps none."""


# -- the block rules on a run's rows (509.1a-c), for decisions -------------------------------


def restrictions(frame: Frame, kind: str) -> list[Restriction]:
    """The restrictions of a kind whose keyword the batch has a bit for."""
    return [
        r
        for r in frame.schedule.registry.restrictions_of(kind)
        if r.keyword in frame.schedule.masks.bit
    ]


def _side(frame: Frame, kw: KeywordRows, creatures: CreatureRows, rows: IntArray) -> RowSide:
    return RowSide(
        frame, kw, creatures, rows, np.ones(len(rows), np.bool_), np.zeros(len(rows), I64)
    )


def able_to_block(
    frame: Frame, kw: KeywordRows, creatures: CreatureRows, rows: IntArray
) -> BoolArray:
    """Whether each creature row is allowed to block at all ("block" restrictions)."""
    able = np.ones(len(rows), np.bool_)
    if len(rows):
        side = _side(frame, kw, creatures, rows)
        for r in restrictions(frame, "block"):
            able &= np.asarray(r.test(side), np.bool_)
    return able


def legal_pairs(
    frame: Frame, kw: KeywordRows, creatures: CreatureRows, attackers: IntArray, blockers: IntArray
) -> BoolArray:
    """Whether each (attacker row, blocker row) pair is a block the rules allow now
    (509.1a-b restrictions, minimum numbers of blockers aside)."""
    ok = able_to_block(frame, kw, creatures, blockers)
    if len(attackers):
        attacker, blocker = (
            _side(frame, kw, creatures, attackers),
            _side(frame, kw, creatures, blockers),
        )
        for r in restrictions(frame, "block-pair"):
            ok &= np.asarray(r.test(attacker, blocker), np.bool_)
    return ok


def blockers_needed(
    frame: Frame, kw: KeywordRows, creatures: CreatureRows, attackers: IntArray
) -> IntArray | None:
    """How many blockers each attacker row needs at least if blocked (509.1b), or None
    when no rule asks for more than one."""
    rules = restrictions(frame, "blockers")
    if not rules or not len(attackers):
        return None
    side = _side(frame, kw, creatures, attackers)
    need = np.ones(len(attackers), I64)
    for r in rules:
        need = np.maximum(need, np.asarray(r.test(side), I64))
    return need


def block_capacity(
    frame: Frame, kw: KeywordRows, creatures: CreatureRows, blockers: IntArray
) -> IntArray:
    """How many attackers at most each creature row may block (509.1a): one, or the most
    any ``blocks`` restriction allows it."""
    capacity = np.ones(len(blockers), I64)
    rules = restrictions(frame, "blocks")
    if rules and len(blockers):
        side = _side(frame, kw, creatures, blockers)
        for r in rules:
            capacity = np.maximum(capacity, np.asarray(r.test(side), I64))
    return capacity


def required_pairs(
    frame: Frame,
    kw: KeywordRows,
    creatures: CreatureRows,
    combat: CombatRows,
    attackers: IntArray,
    blockers: IntArray,
) -> IntArray | None:
    """How many block requirements each (attacker row, blocker row) pair obeys if declared
    (509.1c): the keywords' ("block-requirement" restrictions: lure) and those the attack
    triggers made (provoke); None when nothing is required."""
    rules = restrictions(frame, "block-requirement")
    made = [(b, a) for b, a, _ in combat.required_blocks if len(b)]
    if not rules and not made:
        return None
    count = np.zeros(len(attackers), I64)
    if rules and len(attackers):
        attacker, blocker = (
            _side(frame, kw, creatures, attackers),
            _side(frame, kw, creatures, blockers),
        )
        for r in rules:
            count += np.asarray(r.test(attacker, blocker), np.bool_)
    if made:
        n = np.int64(frame.n)
        keys = np.concatenate([b.astype(I64) * n + a.astype(I64) for b, a in made])
        keys.sort()
        pair = blockers.astype(I64) * n + attackers.astype(I64)
        count += np.searchsorted(keys, pair, side="right") - np.searchsorted(keys, pair)
    return count
