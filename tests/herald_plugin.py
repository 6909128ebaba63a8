"""A test keyword whose "dies" trigger shows the order triggers resolve in, written against
the public plugin contract (both engines):

- ``herald N``: when it dies, every player's ``heralds`` becomes ``heralds * 10 + N``; so
  after heralds 2, 1 and 4 resolve, in that order, each player's ``heralds`` is 214;
- ``revive``: when it dies, return it to the battlefield (no condition, and no look at
  whether it is still the object that died: the contexts' ``return_to_battlefield`` must do
  nothing to a new object, 400.7).

It stands for any plugin's "dies" trigger in the tests of RULES 11.5 (APNAP, sources in
``creatures`` order, one creature's instances in list order).
"""

from __future__ import annotations

import numpy as np

from ecs_combat import (
    BatchContext,
    BatchDeaths,
    BatchTriggers,
    CombatContext,
    Deaths,
    Keyword,
    StateField,
    System,
    Trigger,
    hookimpl,
)

HERALD = "herald"
REVIVE = "revive"
HERALDS = "heralds"


def herald(combat: CombatContext, trigger: Trigger) -> None:
    for player in combat.players():
        value = combat.player_state(player, HERALDS)
        assert isinstance(value, int)
        combat.set_player_state(player, HERALDS, value * 10 + trigger.data["n"])


def herald_batched(batch: BatchContext, triggers: BatchTriggers) -> None:
    n = np.zeros(batch.battles, np.int64)
    told = np.zeros(batch.battles, np.bool_)
    battle = batch.battle()[triggers.source]  # one trigger per battle at most
    n[battle] = triggers.data["n"]
    told[battle] = True
    rows = np.flatnonzero(told[batch.player_battle()] & ~batch.lost())
    state = batch.player_state(HERALDS)
    state[rows] = state[rows] * 10 + n[batch.player_battle()[rows]]


def revive(combat: CombatContext, trigger: Trigger) -> None:
    combat.return_to_battlefield(trigger.source)


def revive_batched(batch: BatchContext, triggers: BatchTriggers) -> None:
    batch.return_to_battlefield(triggers.source)


class Herald:
    """The plugin object (``bundled_registry(extra=(Herald(),))``)."""

    __name__ = "herald"

    @hookimpl
    def register_keywords(self) -> list[Keyword]:
        return [Keyword(HERALD, rule="test", parameter="number"), Keyword(REVIVE, rule="test")]

    @hookimpl
    def register_state(self) -> list[StateField]:
        return [StateField("player", HERALDS, "int", 0, output=True, summary="test: the order")]

    @hookimpl
    def register_systems(self) -> list[System]:
        def heralds(combat: CombatContext, deaths: Deaths) -> None:
            deaths.trigger_each_instance(combat, HERALD, herald)

        def heralds_batched(batch: BatchContext, deaths: BatchDeaths) -> None:
            deaths.trigger_each_instance(batch, HERALD, herald_batched)

        def revives(combat: CombatContext, deaths: Deaths) -> None:
            deaths.trigger_each_instance(combat, REVIVE, revive)

        def revives_batched(batch: BatchContext, deaths: BatchDeaths) -> None:
            deaths.trigger_each_instance(batch, REVIVE, revive_batched)

        return [
            System("dies", "herald", heralds, heralds_batched, {HERALD}),
            System("dies", "revive", revives, revives_batched, {REVIVE}),
        ]
