"""Combat decisions: the best blocks, attacks and damage divisions, searched exactly by
resolving candidate combats in bulk with the batched engine (RULES section 9; docs/decisions.md).

    >>> decision = best_blocks(scenario, registry)
    >>> decision.best[0].blockers, decision.best[0].score
"""

from ecs_combat.decisions.answers import Choice, Decision
from ecs_combat.decisions.attacks import best_attacks
from ecs_combat.decisions.blocks_many import best_blocks_many
from ecs_combat.decisions.decide import best_blocks
from ecs_combat.decisions.objective import Objective

__all__ = ["Choice", "Decision", "Objective", "best_attacks", "best_blocks", "best_blocks_many"]
