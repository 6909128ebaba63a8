"""From validated scenarios to one :class:`CombatBatch`, for the batched engine's ``resolve``:
a :class:`~.builder.BatchBuilder` filled column by column (:mod:`.columns`), made into
arrays (:mod:`.builder_arrays`)."""

from __future__ import annotations

from collections.abc import Sequence

from ecs_combat.batched.arrays import CombatBatch
from ecs_combat.batched.builder import BatchBuilder
from ecs_combat.batched.builder_arrays import built_batch
from ecs_combat.batched.columns import add_scenarios
from ecs_combat.plugin.registry import Registry
from ecs_combat.rules.usage import used_keywords
from ecs_combat.scenario.model import Scenario


def scenarios_to_batch(
    scenarios: Sequence[Scenario], registry: Registry, cards: Sequence[str] = ()
) -> CombatBatch:
    """One batch holding every scenario, battle ``i`` being ``scenarios[i]``; with bits for
    the keywords the cards named in `cards` give (spells cast outside the scenarios' events)."""
    builder = BatchBuilder(registry, used_keywords(scenarios, registry, cards=cards))
    add_scenarios(builder, scenarios)
    return built_batch(builder, len(scenarios))
