"""Many races stepped at once, in Gymnasium's vector conventions (docs/env.md).

Each of the `num_envs` races waits for its player to act (``observations["player"]``: the
seat, 0 or 1, in :attr:`RaceVectorEnv.agents` order). :meth:`RaceVectorEnv.step` takes one
action per race; the turns of every race whose combat phase is then fully declared are
resolved by the engine as one batch. Rewards are per seat (shape ``(num_envs, 2)``): +1 to the
winner and -1 to the loser as a race ends. A race that ends is started again in the same step
(Gymnasium's ``SAME_STEP`` autoreset): the observation is then the new race's first one and
``infos["final"]`` marks it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from ecs_combat.env.game import DivisionRule, Game
from ecs_combat.env.observe import LIMIT
from ecs_combat.env.setup import RaceSource, Setup
from ecs_combat.plugin.registry import Registry
from ecs_combat.rules.race import Decided

Observations = dict[str, npt.NDArray[Any]]


class RaceVectorEnv(VectorEnv[Observations, npt.NDArray[np.int64], npt.NDArray[Any]]):
    """`num_envs` races stepped at once (see the module's docstring); the arguments as
    :class:`~.aec.RaceEnv`'s."""

    metadata: dict[str, Any] = {  # noqa: RUF012 (gymnasium declares it an instance variable)
        "autoreset_mode": AutoresetMode.SAME_STEP,
        "render_modes": (),
    }

    def __init__(
        self,
        races: RaceSource | Sequence[RaceSource],
        num_envs: int,
        registry: Registry | None = None,
        *,
        engine: str = "batched",
        divisions: DivisionRule = "best",
        max_actions: int | None = None,
    ) -> None:
        if num_envs < 1:
            raise ValueError(f"num_envs must be 1 or more, not {num_envs}")
        parts = Setup.of(races, registry, engine, divisions, max_actions)
        self.setup = parts
        self.registry, self.races, self.max_actions = parts.registry, parts.races, parts.max_actions
        self.rules, self.resolve, self.layout = parts.rules, parts.resolve, parts.layout
        self.num_envs = num_envs
        self.agents = tuple(self.races[0].players)
        self.single_observation_space = spaces.Dict(
            {
                "observation": spaces.Box(-LIMIT, LIMIT, (self.layout.size,), np.int32),
                "action_mask": spaces.Box(0, 1, (self.max_actions,), np.int8),
                "player": spaces.Discrete(2),
            }
        )
        self.single_action_space = spaces.Discrete(self.max_actions)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._rng = np.random.default_rng()
        self.games: list[Game] = []

    def reset(
        self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observations, dict[str, Any]]:
        """Start every race (drawn among the races by the seed's generator)."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        self.games = [self._new() for _ in range(self.num_envs)]
        return self._observations(), {}

    def step(
        self, actions: npt.NDArray[np.int64]
    ) -> tuple[
        Observations,
        npt.NDArray[np.float32],
        npt.NDArray[np.bool_],
        npt.NDArray[np.bool_],
        dict[str, Any],
    ]:
        """One declaration in every race (see the module's docstring)."""
        if not self.games:
            raise RuntimeError("call reset() first")
        acts = np.asarray(actions, np.int64).reshape(self.num_envs)
        games: list[Game | Decided] = [
            self.rules.declare(g, int(a)) for g, a in zip(self.games, acts, strict=True)
        ]
        played = [i for i, g in enumerate(games) if isinstance(g, Decided)]
        turns = [self.rules.turn(self.games[i], games[i]) for i in played]  # type: ignore[arg-type]
        for i, result in zip(played, self.resolve(turns) if turns else [], strict=True):
            games[i] = self.rules.advance(self.games[i], games[i], result)  # type: ignore[arg-type]
        rewards = np.zeros((self.num_envs, 2), np.float32)
        terminated = np.zeros(self.num_envs, np.bool_)
        truncated = np.zeros(self.num_envs, np.bool_)
        for i, g in enumerate(games):
            assert isinstance(g, Game)
            if g.over:
                winner = g.state.winner
                if winner is not None:
                    won = self.agents.index(winner)
                    rewards[i, won], rewards[i, 1 - won] = 1.0, -1.0
                lost = any(p.lost for p in g.state.final_players.values())
                terminated[i], truncated[i] = lost, not lost
                g = self._new()
            self.games[i] = g
        infos: dict[str, Any] = {"final": terminated | truncated}
        return self._observations(), rewards, terminated, truncated, infos

    def _new(self) -> Game:
        n = len(self.races)
        race = self.races[int(self._rng.integers(n))] if n > 1 else self.races[0]
        return self.rules.begin(race)

    def _observations(self) -> Observations:
        n = self.num_envs
        obs = np.zeros((n, self.layout.size), np.int32)
        mask = np.zeros((n, self.max_actions), np.int8)
        player = np.zeros(n, np.int64)
        for i, g in enumerate(self.games):
            self.setup.check_options(g)
            obs[i] = self.layout.observe(g, g.player)
            mask[i, : len(g.options)] = 1
            player[i] = self.agents.index(g.player)
        return {"observation": obs, "action_mask": mask, "player": player}


__all__ = ["RaceVectorEnv"]
