"""Two test keywords whose attack triggers harm the defending player's creatures before
blockers are declared, written against the public plugin contract (both engines):

- ``blight``: whenever it attacks, put a -1/-1 counter on each creature the defending player
  controls (the counters can bring a declared blocker's toughness to 0: 704.5f);
- ``cull``: whenever it attacks, the defending player sacrifices each creature it controls
  with toughness 1 or less (a sacrifice at the attack point, 701.17).

They stand for any plugin's attack trigger (annihilator, a third party's) in the tests of
RULES 11.3: a listed blocker that leaves before blocks doesn't block, and state-based actions
are checked after each attack trigger.
"""

from __future__ import annotations

import numpy as np

from ecs_combat import (
    AttackDeclaration,
    BatchAttackDeclaration,
    BatchContext,
    BatchTriggers,
    CombatContext,
    Keyword,
    System,
    Trigger,
    hookimpl,
)

BLIGHT = "blight"
CULL = "cull"
MINUS = "-1/-1"


def _victims(combat: CombatContext, trigger: Trigger, most_toughness: int | None) -> list[int]:
    defender = combat.defending_player(trigger.source)
    return [
        c
        for c in combat.creatures()
        if combat.on_battlefield(c)
        and combat.controller(c) == defender
        and (most_toughness is None or combat.toughness(c) <= most_toughness)
    ]


def _victim_rows(batch: BatchContext, triggers: BatchTriggers, most: int | None) -> np.ndarray:
    defending = batch.defending_player()[triggers.source]
    players = np.zeros(batch.player_rows, np.bool_)
    players[defending[defending >= 0]] = True
    mine = batch.on_battlefield() & players[batch.controller()]
    if most is not None:
        mine &= batch.toughness() <= most
    return np.flatnonzero(mine)


def blight(combat: CombatContext, trigger: Trigger) -> None:
    for c in _victims(combat, trigger, None):
        combat.add_counters(c, MINUS, 1)


def blight_batched(batch: BatchContext, triggers: BatchTriggers) -> None:
    batch.add_counters(_victim_rows(batch, triggers, None), MINUS, 1)


def cull(combat: CombatContext, trigger: Trigger) -> None:
    combat.sacrifice(list(_victims(combat, trigger, 1)))  # leave together (one group)


def cull_batched(batch: BatchContext, triggers: BatchTriggers) -> None:
    batch.sacrifice(_victim_rows(batch, triggers, 1))


class Harm:
    """The plugin object (``bundled_registry(extra=(Harm(),))``)."""

    __name__ = "harm"

    @hookimpl
    def register_keywords(self) -> list[Keyword]:
        return [
            Keyword(BLIGHT, rule="test", requires=frozenset({MINUS})),
            Keyword(CULL, rule="test"),
        ]

    @hookimpl
    def register_systems(self) -> list[System]:
        def blights(combat: CombatContext, declaration: AttackDeclaration) -> None:
            declaration.trigger_each_instance(combat, BLIGHT, blight)

        def blights_batched(batch: BatchContext, declaration: BatchAttackDeclaration) -> None:
            declaration.trigger_each_instance(batch, BLIGHT, blight_batched)

        def culls(combat: CombatContext, declaration: AttackDeclaration) -> None:
            declaration.trigger_each_instance(combat, CULL, cull)

        def culls_batched(batch: BatchContext, declaration: BatchAttackDeclaration) -> None:
            declaration.trigger_each_instance(batch, CULL, cull_batched)

        return [
            System("declare-attackers", "blight", blights, blights_batched, {BLIGHT}),
            System("declare-attackers", "cull", culls, culls_batched, {CULL}),
        ]
