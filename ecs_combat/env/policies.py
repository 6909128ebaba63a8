"""Policies that play a :class:`~.game.Game`: each gives the action (an index into
``game.options``) for the player to act."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from ecs_combat.decisions.race import OptimalPolicy as RaceOptimal
from ecs_combat.env.game import Game, Rules
from ecs_combat.plugin.registry import Registry


class OptimalPolicy:
    """RULES section 12's optimal policy: the attack section 9's minimax chooses (over this
    combat, or this combat and the next: `horizon`), and the best blocks against whatever
    attack was declared. `budget`: seconds at most per decision."""

    def __init__(
        self, registry: Registry, horizon: str = "combat", budget: float | None = None
    ) -> None:
        self.rules = Rules(registry)
        self.policy = RaceOptimal(registry, horizon, budget)

    def act(self, game: Game) -> int:
        """The action of the player to act."""
        if game.attack is None:
            decided = self.policy.attack(game.state)
            return self.rules.index_of(game, decided.declaration.attackers)
        decided = self.policy.block(game.state, game.attack)
        return self.rules.index_of(game, decided.declaration.blockers)

    def act_many(self, games: Sequence[Game]) -> npt.NDArray[np.int64]:
        """:meth:`act` for each game (of a vector environment)."""
        return np.array([self.act(g) for g in games], np.int64)


class RandomPolicy:
    """Uniformly at random among the legal declarations, from a seeded generator."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, game: Game) -> int:
        return int(self.rng.integers(len(game.options)))

    def act_many(self, games: Sequence[Game]) -> npt.NDArray[np.int64]:
        counts = np.array([len(g.options) for g in games], np.int64)
        return np.floor(self.rng.random(len(games)) * counts).astype(np.int64)


__all__ = ["OptimalPolicy", "RandomPolicy"]
