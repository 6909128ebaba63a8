"""The keywords a simulation uses as mask bits, and the attack and block legality they carry."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ecs_combat.batched import BoolArray, IntArray, MaskArray
from ecs_combat.errors import InputError
from ecs_combat.plugin.registry import Registry
from ecs_combat.plugin.restrictions import Restriction
from ecs_combat.rules.usage import with_required
from ecs_combat.simulation.spec import Spec, drawn_keywords

#: Creatures' power as a rule reads it: none (0), given, or made when read.
Power = IntArray | Callable[[], IntArray] | None
#: A CombatBatch keyword mask has 64 bits.
MAX_KEYWORDS = 64


class KeywordBits:
    """The registry's keywords as mask bits, with the block-legality rules they carry."""

    def __init__(
        self, registry: Registry, spec: Spec | None = None, keywords: Iterable[str] = ()
    ) -> None:
        """Bits for the keywords a simulation's battles can hold (`spec`), else for
        `keywords` and those they require."""
        self.names = (
            drawn_keywords(registry, spec)
            if spec is not None
            else with_required(registry, keywords)
        )
        if len(self.names) > MAX_KEYWORDS:
            raise InputError(
                None,
                "",
                f"the simulation uses {len(self.names)} keywords (with those its cards give); "
                f"bulk simulations handle at most {MAX_KEYWORDS}",
            )
        self.bit = {name: np.uint64(1) << np.uint64(i) for i, name in enumerate(self.names)}
        self.registry = registry

    def mask(self, names: Sequence[str]) -> np.uint64:
        """The mask of some keywords (unknown names are left out)."""
        out = np.uint64(0)
        for name in names:
            out |= self.bit.get(name, np.uint64(0))
        return out

    def restrictions(self, kind: str, possible: np.uint64) -> list[Restriction]:
        """The registry's restrictions of a kind whose keyword is in `possible`."""
        return [
            r
            for r in self.registry.restrictions_of(kind)
            if self.bit.get(r.keyword, np.uint64(0)) & possible
        ]

    def restricts_blocks(self, possible: np.uint64) -> bool:
        """Whether any keyword in `possible` forbids some blocks."""
        return bool(
            self.restrictions("block", possible) or self.restrictions("block-pair", possible)
        )

    def legal_blocks(
        self,
        attacker_masks: MaskArray,
        blocker_masks: MaskArray,
        possible: np.uint64,
        attacker_power: Power = None,
        blocker_power: Power = None,
        attacker_cards: RowFacts | None = None,
        blocker_cards: RowFacts | None = None,
    ) -> BoolArray:
        """Which (attacker, blocker) pairs the rules allow, ignoring minimum numbers of blockers (509.1b).

        Only keywords in `possible` are checked (the others appear on no creature). Creatures
        are colorless with keywords without parameters unless `attacker_cards` and
        `blocker_cards` give their colors and parameters; their power is 0 unless given (or
        a function that gives it, called if a rule reads it).
        """
        ok = np.ones(attacker_masks.shape, dtype=np.bool_)
        attacker = _MaskSide(self, attacker_masks, attacker_power, attacker_cards)
        blocker = _MaskSide(self, blocker_masks, blocker_power, blocker_cards)
        for r in self.restrictions("block", possible):
            ok &= np.asarray(r.test(blocker), np.bool_)
        for r in self.restrictions("block-pair", possible):
            ok &= np.asarray(r.test(attacker, blocker), np.bool_)
        return ok

    def may_attack(self, masks: MaskArray, possible: np.uint64) -> BoolArray | None:
        """Which creatures the rules let attack (508.1a); None when no keyword in `possible`
        forbids it."""
        rules = self.restrictions("attack", possible)
        if not rules:
            return None
        side = _MaskSide(self, masks)
        ok = np.ones(masks.shape, dtype=np.bool_)
        for r in rules:
            ok &= np.asarray(r.test(side), np.bool_)
        return ok

    def blockers_needed(self, masks: MaskArray, possible: np.uint64) -> IntArray | None:
        """How many blockers each attacker needs at least (509.1b); None when no
        keyword in `possible` asks for more than one."""
        rules = self.restrictions("blockers", possible)
        if not rules:
            return None
        side = _MaskSide(self, masks)
        need = np.ones(masks.shape, dtype=np.int64)
        for r in rules:
            need = np.maximum(need, np.asarray(r.test(side), np.int64))
        return need


@dataclass
class RowFacts:
    """Colors and keyword parameters of some creature rows (real cards have them)."""

    #: [rows] colors as bit masks.
    colors: IntArray
    #: A keyword's parameters per row as a restriction reads them (``Side.values``).
    values: Callable[[str], IntArray]

    def take(self, rows: IntArray) -> RowFacts:
        """The facts of some of the rows."""
        values = self.values
        return RowFacts(self.colors[rows], lambda keyword: values(keyword)[rows])


class _MaskSide:
    """Creatures as keyword masks, as a restriction sees them. Drawn creatures are colorless
    and their keywords have no parameters (``values`` is 0), unless `facts` says otherwise."""

    def __init__(
        self,
        bits: KeywordBits,
        masks: MaskArray,
        power: Power = None,
        facts: RowFacts | None = None,
    ) -> None:
        self.bits = bits
        self.masks = masks
        self.facts = facts
        self._power = power

    def _zeros(self, dtype: type[np.generic] = np.int64) -> Any:
        return np.zeros(self.masks.shape, dtype)

    # What a restriction does not read is not made: most read keywords only.
    @property
    def opponent(self) -> BoolArray:
        out: BoolArray = self._zeros(np.bool_)
        return out

    @property
    def colors(self) -> IntArray:
        out: IntArray = self._zeros() if self.facts is None else self.facts.colors
        return out

    @property
    def power(self) -> IntArray:
        if self._power is None:
            out: IntArray = self._zeros()
            return out
        if callable(self._power):
            self._power = self._power()
        return self._power

    @property
    def types(self) -> IntArray:
        """Drawn creatures are creatures only."""
        out: IntArray = self._zeros()
        return out

    @property
    def lands(self) -> IntArray:
        """The players of drawn battles control no lands."""
        out: IntArray = self._zeros()
        return out

    def values(self, keyword: str) -> IntArray:
        if self.facts is None:
            return np.zeros(self.masks.shape, np.int64)
        return self.facts.values(keyword)

    def count(self, keyword: str) -> IntArray:
        """A drawn creature has each of its keywords once."""
        return self.has(keyword).astype(np.int64)

    def has(self, keyword: str) -> BoolArray:
        bit = self.bits.bit.get(keyword)
        if bit is None:
            return np.zeros(self.masks.shape, np.bool_)
        out: BoolArray = (self.masks & bit) != np.uint64(0)
        return out
