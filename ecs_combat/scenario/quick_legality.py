"""The attacks and blocks of a common JSON Lines line checked quickly (RULES 4): against the
plugins' restrictions with the creatures as the line declares them
(:func:`~ecs_combat.rules.sides.spec_side`, remembered for each kind of creature: its keyword
instances, power, colors and types).

A line whose creatures may change before blocks (a declare-attackers system for its creatures,
a keyword with a static ability, a block requirement such as lure's) is not legal here: the
full reader checks it, with its messages. The quick readers (:mod:`.quick`, :mod:`.quick_rows`)
share one :class:`KindLegality` per registry.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import chain

from ecs_combat.plugin.registry import Registry
from ecs_combat.plugin.restrictions import Restriction
from ecs_combat.rules.sides import KeywordSide, spec_side
from ecs_combat.rules.usage import attack_system_keywords, static_ability_keywords, with_required
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
    """Whether the attacks and blocks of lines are surely legal, with the creatures' sides
    remembered per kind.

    A restriction is checked only where its keyword can be (:class:`Restriction`: where no
    creature can have it, the rule is not checked; the batched engine checks those of the
    keywords its batch has bits for): a line's attacks and blocks are checked against the
    restrictions of the keywords its creatures have and those these require, which are few.
    """

    def __init__(self, registry: Registry) -> None:
        self.registry = registry
        #: Keywords with static abilities (a plugin's static
        #: ability belongs to its keywords), and keywords with a declare-attackers system:
        #: a line with them is left to the full reader; None: every line with keywords is.
        self.static_keywords = static_ability_keywords(registry)
        self.attack_keywords = attack_system_keywords(registry)
        self.requirement_keywords = frozenset(
            r.keyword for r in registry.restrictions_of("block-requirement")
        )
        self.sides: dict[Kind, KeywordSide] = {}
        #: The restrictions of each kind that a set of keywords brings.
        self.rules: dict[frozenset[str], dict[str, list[Restriction]]] = {}
        #: Each keyword's restrictions of each kind, and the keywords each requires.
        self.by_keyword: dict[str, dict[str, list[Restriction]]] = {}
        for kind in ("attack", "block", "block-pair", "blockers"):
            mine = self.by_keyword[kind] = {}
            for r in registry.restrictions_of(kind):
                mine.setdefault(r.keyword, []).append(r)
        self.requires: dict[str, frozenset[str]] = {}

    def required(self, keyword: str) -> frozenset[str]:
        """A keyword and those it requires."""
        found = self.requires.get(keyword)
        if found is None:
            found = self.requires[keyword] = frozenset(with_required(self.registry, [keyword]))
        return found

    def legal(
        self,
        kinds: Sequence[Kind],
        attackers: Iterable[int],
        blocks: Iterable[tuple[int, int]],
    ) -> bool:
        """Whether a line's attacks and blocks are surely legal with nothing to change the
        creatures first: `kinds` of its creatures, the places of its `attackers` among
        them, its `blocks` as (blocker, attacker) places, each blocker blocking one attacker.
        False sends the line to the full check."""
        names = [k[0] for k in kinds]
        keywords = frozenset(chain.from_iterable(names))
        if not keywords:
            # a restriction is checked only where its keyword is (Restriction.keyword), and
            # these creatures can't be tapped or summoning sick
            return True
        static, attack = self.static_keywords, self.attack_keywords
        if static is None or not static.isdisjoint(keywords):
            return False
        attacking = list(attackers)
        if attacking and (attack is None or not attack.isdisjoint(keywords)):
            return False
        if not self.requirement_keywords.isdisjoint(keywords) and any(
            not self.requirement_keywords.isdisjoint(names[a]) for a in attacking
        ):
            return False
        rules = self.rules_of(keywords)
        side = self.side
        if rules["attack"]:  # 508.1a
            for a in attacking:
                mine = side(kinds[a])
                if not all(r.test(mine) for r in rules["attack"]):
                    return False
        blocks = list(blocks)
        if rules["block"] or rules["block-pair"]:  # 509.1a-b
            for b, a in blocks:
                mine, theirs = side(kinds[b]), side(kinds[a])
                if not all(r.test(mine) for r in rules["block"]):
                    return False
                if not all(r.test(theirs, mine) for r in rules["block-pair"]):
                    return False
        if rules["blockers"] and blocks:  # 509.1b: at least so many blockers
            blocked: dict[int, int] = {}
            for _, a in blocks:
                blocked[a] = blocked.get(a, 0) + 1
            for a, n in blocked.items():
                theirs = side(kinds[a])
                if any(int(r.test(theirs)) > n for r in rules["blockers"]):
                    return False
        return True

    def known(self, keywords: frozenset[str], attacks: bool) -> bool | None:
        """What :meth:`legal` says of a line with these keywords (and attackers, if
        `attacks`) without looking at its creatures: False for a keyword that may change the
        creatures before blocks, True when the keywords bring no restriction, else None."""
        static, attack = self.static_keywords, self.attack_keywords
        if static is None or not static.isdisjoint(keywords):
            return False
        if attacks and (attack is None or not attack.isdisjoint(keywords)):
            return False
        if not self.requirement_keywords.isdisjoint(keywords):
            return None
        return None if any(self.rules_of(keywords).values()) else True

    def rules_of(self, keywords: frozenset[str]) -> dict[str, list[Restriction]]:
        """The restrictions a line's keywords (and those they require) bring, by kind."""
        found = self.rules.get(keywords)
        if found is None:
            if len(self.rules) >= REMEMBERED:
                self.rules.clear()
            possible = set().union(*(self.required(k) for k in keywords))
            found = self.rules[keywords] = {
                kind: [r for k in possible for r in self.by_keyword[kind].get(k, ())]
                for kind in self.by_keyword
            }
        return found

    def side(self, kind: Kind) -> KeywordSide:
        """The creature as the restrictions see it."""
        side = self.sides.get(kind)
        if side is None:
            if len(self.sides) >= REMEMBERED:
                self.sides.clear()
            names, parameters, power, colors, types = kind
            spec = CreatureSpec("", "", "", power, 1, names, parameters, colors=colors, types=types)
            side = self.sides[kind] = spec_side(spec, self.registry, ())
        return side
