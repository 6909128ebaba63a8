"""The attacks and blocks of a common JSON Lines line checked quickly (RULES 4): against the
plugins' restrictions with the creatures as the line declares them
(:func:`~ecs_combat.rules.sides.spec_side`), remembering the answer for each kind of creature
(its keyword instances, power, colors and types).

A line the reference world would be needed for (a declare-attackers system for its creatures,
a keyword with a static ability, a block requirement such as lure's) is not legal here: the
full reader checks it, with its messages. The quick readers (:mod:`.quick`, :mod:`.quick_rows`)
share one :class:`KindLegality` per registry.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ecs_combat.plugin.registry import Registry
from ecs_combat.rules.legality import least_blockers, why_cannot_attack
from ecs_combat.rules.sides import KeywordSide, spec_side
from ecs_combat.rules.usage import attack_system_keywords, static_ability_keywords
from ecs_combat.scenario.instances import Parameter
from ecs_combat.scenario.model import CreatureSpec

#: Kinds of creature whose answers are remembered, before the memory starts again.
REMEMBERED = 100_000

#: A creature as legality reads it: its keyword names and their parameters, its power, colors
#: and types.
Kind = tuple[tuple[str, ...], tuple[Parameter, ...], int, tuple[str, ...], tuple[str, ...]]


def kind_of(spec: CreatureSpec) -> Kind:
    """A creature's kind, as the scenario declares it."""
    return (spec.keywords, spec.parameters, spec.power, spec.colors, spec.types)


class KindLegality:
    """Whether the attacks and blocks of lines are surely legal, per kind of creature."""

    def __init__(self, registry: Registry) -> None:
        self.registry = registry
        #: Keywords whose static abilities the reference world gives (a plugin's static
        #: ability belongs to its keywords), and keywords with a declare-attackers system:
        #: a line with them is left to the full reader; None: every line with keywords is.
        self.static_keywords = static_ability_keywords(registry)
        self.attack_keywords = attack_system_keywords(registry)
        self.requirement_keywords = frozenset(
            r.keyword for r in registry.restrictions_of("block-requirement")
        )
        self.sides: dict[Kind, KeywordSide] = {}
        self.attack_ok: dict[Kind, bool] = {}
        self.block_ok: dict[Kind, bool] = {}
        self.pair_ok: dict[tuple[Kind, Kind], bool] = {}
        self.least: dict[Kind, int] = {}

    def legal(
        self,
        kinds: Sequence[Kind],
        attackers: Iterable[int],
        blocks: Iterable[tuple[int, int]],
    ) -> bool:
        """Whether a line's attacks and blocks are surely legal with nothing for the reference
        world to change first: `kinds` of its creatures, the places of its `attackers` among
        them, its `blocks` as (blocker, attacker) places, each blocker blocking one attacker.
        False sends the line to the full check."""
        names = [k[0] for k in kinds]
        if not any(names):
            # a restriction is checked only where its keyword is (Restriction.keyword), and
            # these creatures can't be tapped or summoning sick
            return True
        static, attack = self.static_keywords, self.attack_keywords
        if static is None or any(not static.isdisjoint(n) for n in names):
            return False
        attacking = list(attackers)
        if attacking and (attack is None or any(not attack.isdisjoint(n) for n in names)):
            return False
        for a in attacking:
            if not self.requirement_keywords.isdisjoint(names[a]):
                return False
            if not self.can_attack(kinds[a]):
                return False
        blocked: dict[int, int] = {}
        for b, a in blocks:
            if not self.can_block(kinds[b]) or not self.can_block_it(kinds[a], kinds[b]):
                return False
            blocked[a] = blocked.get(a, 0) + 1
        return all(self.least_blockers(kinds[a]) <= n for a, n in blocked.items())

    def side(self, kind: Kind) -> KeywordSide:
        """The creature as the restrictions see it."""
        side = self.sides.get(kind)
        if side is None:
            if len(self.sides) >= REMEMBERED:
                self.forget()
            names, parameters, power, colors, types = kind
            spec = CreatureSpec("", "", "", power, 1, names, parameters, colors=colors, types=types)
            side = self.sides[kind] = spec_side(spec, self.registry, ())
        return side

    def forget(self) -> None:
        """Start the memory again."""
        for memory in (self.sides, self.attack_ok, self.block_ok, self.pair_ok, self.least):
            memory.clear()

    def can_attack(self, kind: Kind) -> bool:
        ok = self.attack_ok.get(kind)
        if ok is None:
            why = why_cannot_attack(self.side(kind), False, self.registry)
            ok = self.attack_ok[kind] = why is None
        return ok

    def can_block(self, kind: Kind) -> bool:
        ok = self.block_ok.get(kind)
        if ok is None:
            side = self.side(kind)
            ok = self.block_ok[kind] = all(
                r.test(side) for r in self.registry.restrictions_of("block")
            )
        return ok

    def can_block_it(self, attacker: Kind, blocker: Kind) -> bool:
        ok = self.pair_ok.get((attacker, blocker))
        if ok is None:
            theirs, mine = self.side(attacker), self.side(blocker)
            ok = self.pair_ok[attacker, blocker] = all(
                r.test(theirs, mine) for r in self.registry.restrictions_of("block-pair")
            )
        return ok

    def least_blockers(self, kind: Kind) -> int:
        need = self.least.get(kind)
        if need is None:
            n, rule = least_blockers(self.side(kind), self.registry)
            need = self.least[kind] = n if rule is not None else 1
        return need
