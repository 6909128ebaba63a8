"""The damage-step pipeline: which steps exist and which creatures strike in each.

This is RULES.md section 2 generalised over the steps and keywords plugins register. Both
engines use these plans; the batched engine evaluates them over keyword bitmasks.
"""

from __future__ import annotations

from collections.abc import Iterable, Set
from dataclasses import dataclass

from ecs_combat.plugin.definitions import DamageStep
from ecs_combat.plugin.registry import Registry


@dataclass(frozen=True)
class StepPlan:
    """One damage step with the keywords that decide it."""

    step: DamageStep
    #: A creature with any of these keywords as the step begins strikes in it.
    strike_keywords: frozenset[str]
    #: In a default step: a creature with any of these (and no strike keyword) sits it out.
    withhold_keywords: frozenset[str]

    @property
    def name(self) -> str:
        """The step's name."""
        return self.step.name

    def exists(self, combatant_keywords: Iterable[Set[str]]) -> bool:
        """Whether the step takes place, given each attacking or blocking creature's keywords."""
        if self.step.default:
            return True
        return any(not self.strike_keywords.isdisjoint(k) for k in combatant_keywords)

    def is_striker(self, keywords: Set[str]) -> bool:
        """Whether a creature with these keywords as the step begins is a striker of the step."""
        return not self.strike_keywords.isdisjoint(keywords)

    def deals(self, keywords: Set[str], struck_earlier: Iterable[str]) -> tuple[bool, str]:
        """Whether a combatant deals damage in this step, and why, in the game's words.

        `struck_earlier` lists the earlier steps of this combat it was a striker of.
        """
        having = sorted(self.strike_keywords & keywords)
        if having:
            return True, f"had {_words(having, 'and')} as the {self.name} step began"
        if not self.step.default:
            wanted = _words(sorted(self.strike_keywords), "or")
            return False, f"had no {wanted} as the {self.name} step began"
        earlier = list(struck_earlier)
        if earlier:
            without = _words(sorted(self.strike_keywords), "or") or "a keyword that strikes again"
            return False, f"a striker of an earlier step ({', '.join(earlier)}), without {without}"
        withheld = sorted(self.withhold_keywords & keywords)
        if withheld:
            return False, f"has {_words(withheld, 'and')}: sits out the {self.name} step"
        return True, "struck in no earlier step"


def _words(items: list[str], joiner: str) -> str:
    """'a', 'a or b', 'a, b or c'."""
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} {joiner} {items[-1]}"


def plan_steps(registry: Registry) -> list[StepPlan]:
    """Build the ordered step plans from the registered steps and keywords."""
    plans = []
    for step in registry.steps:
        strike = frozenset(k.name for k in registry.keywords.values() if step.name in k.strikes_in)
        withhold = frozenset(
            k.name for k in registry.keywords.values() if step.name in k.withholds_from
        )
        plans.append(StepPlan(step, strike, withhold if step.default else frozenset()))
    return plans
