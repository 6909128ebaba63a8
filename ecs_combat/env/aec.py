"""Races as a PettingZoo AEC environment (CONTRACT section 9, docs/env.md).

The agents are the race's two players. In each combat phase the attacking player declares an
attack, then (when something attacks) the defending player declares blocks; each is a
:class:`gymnasium.spaces.Discrete` action: an index into the legal declarations in RULES
section 9's tie order, with an ``action_mask`` of the legal ones. The observation is
``{"observation": int32 vector (.observe), "action_mask": int8 vector}``. At the end, the
winner is rewarded +1 and the loser -1 (0 each for a draw); a race ended by its turn limit is
truncated, one ended by a loss terminated.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import AECEnv

from ecs_combat.env.game import DivisionRule, Game
from ecs_combat.env.observe import LIMIT, Observation
from ecs_combat.env.setup import RaceSource, Setup
from ecs_combat.plugin.registry import Registry
from ecs_combat.rules.race import Decided


class RaceEnv(AECEnv[str, dict[str, npt.NDArray[Any]], int | None]):
    """A PettingZoo AEC environment of races (see the module's docstring).

    `races`: a race file, a :class:`~ecs_combat.scenario.race.RaceScenario`, or several (each
    reset draws one with the seed's generator). `divisions`: how damage is divided (see
    :mod:`.game`). `max_actions`: the action space's size (default: the bound the races
    need, :func:`action_bound`)."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "ecs_combat_race_v0",
        "render_modes": ("ansi", "human"),
        "is_parallelizable": False,
    }

    def __init__(
        self,
        races: RaceSource | Sequence[RaceSource],
        registry: Registry | None = None,
        *,
        engine: str = "batched",
        divisions: DivisionRule = "best",
        max_actions: int | None = None,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        parts = Setup.of(races, registry, engine, divisions, max_actions)
        self.setup = parts
        self.registry, self.races, self.max_actions = parts.registry, parts.races, parts.max_actions
        self.rules, self.resolve, self.layout = parts.rules, parts.resolve, parts.layout
        modes: tuple[str, ...] = self.metadata["render_modes"]
        if render_mode is not None and render_mode not in modes:
            raise ValueError(f"render_mode must be one of {', '.join(modes)}, not {render_mode!r}")
        self.render_mode = render_mode
        self.possible_agents = list(self.races[0].players)
        box = spaces.Box(-LIMIT, LIMIT, (self.layout.size,), np.int32)
        mask = spaces.Box(0, 1, (self.max_actions,), np.int8)
        self.observation_spaces = {
            a: spaces.Dict({"observation": box, "action_mask": mask}) for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(self.max_actions) for a in self.possible_agents}
        self._rng = np.random.default_rng()
        self.game: Game | None = None

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a race: ``options={"race": i}`` the i-th of the environment's races, else
        one drawn among them by the seed's generator."""
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        chosen = (options or {}).get("race")
        if chosen is None:
            chosen = int(self._rng.integers(len(self.races))) if len(self.races) > 1 else 0
        race = self.races[chosen]
        self.game = self.rules.begin(race)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.game.player
        self.setup.check_options(self.game)

    def observe(self, agent: str) -> dict[str, npt.NDArray[Any]]:
        game = self._game()
        mask = np.zeros(self.max_actions, np.int8)
        if not game.over and agent == game.player:
            mask[: len(game.options)] = 1
        return {"observation": self.layout.observe(game, agent), "action_mask": mask}

    def observation(self, agent: str) -> Observation:
        """The observation vector alone (``observe(agent)["observation"]``)."""
        return self.layout.observe(self._game(), agent)

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} must declare: an action, not None")
        game = self._game()
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        nxt = self.rules.declare(game, int(action))
        if isinstance(nxt, Decided):
            result = self.resolve([self.rules.turn(game, nxt)])[0]
            nxt = self.rules.advance(game, nxt, result)
        self.game = nxt
        if nxt.over:
            self._finish(nxt)
        else:
            self.setup.check_options(nxt)
            self.agent_selection = nxt.player
        self._accumulate_rewards()

    def _finish(self, game: Game) -> None:
        winner = game.state.winner
        lost = any(p.lost for p in game.state.final_players.values())
        for a in self.agents:
            self.rewards[a] = 0.0 if winner is None else (1.0 if a == winner else -1.0)
            self.terminations[a] = lost
            self.truncations[a] = not lost
        self.agent_selection = next(a for a in self.agents if a != self.agent_selection)

    def _game(self) -> Game:
        if self.game is None:
            raise RuntimeError("call reset() first")
        return self.game

    def render(self) -> str | None:
        """The board as text (``ansi``: returned; ``human``: printed)."""
        if self.render_mode is None:
            return None
        text = describe(self._game())
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        self.game = None


def describe(game: Game) -> str:
    """A short account of a game: turn, life totals, creatures, who is to declare what."""
    s = game.state
    lines = [f"turn {min(s.turn, s.settings.turns)} of {s.settings.turns}"]
    for pid, p in game.board.players.items():
        lines.append(f"{pid}: life {p.life}")
    for cid, c in game.board.creatures.items():
        marks = [m for m, on in (("tapped", c.tapped), ("sick", c.summoning_sick)) if on]
        if game.attack and cid in game.attack:
            marks.append("attacking")
        extra = f" ({', '.join(marks)})" if marks else ""
        lines.append(f"  {cid} [{c.controller}] {c.power}/{c.toughness}{extra}")
    if s.over:
        lines.append(f"over: {'winner ' + s.winner if s.winner else 'nobody won'}")
    else:
        lines.append(f"{game.player} to {game.role}: {len(game.options)} declarations")
    return "\n".join(lines)


__all__ = ["RaceEnv", "describe"]
