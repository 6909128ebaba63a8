"""Races for outside programs (CONTRACT section 9, docs/env.md): a PettingZoo AEC environment
(:class:`RaceEnv`), a vector form stepping many races at once (:class:`RaceVectorEnv`) and
policies to play against (:class:`OptimalPolicy`, :class:`RandomPolicy`).

Needs the ``rl`` extra (``pip install "ecs-combat[rl]"``: gymnasium and pettingzoo).
"""

from __future__ import annotations

try:
    import gymnasium  # noqa: F401
    import pettingzoo  # noqa: F401
except ImportError as missing:  # pragma: no cover - the test extra installs both
    raise ImportError(
        f"ecs_combat.env needs gymnasium and pettingzoo ({missing.name} is missing): "
        'pip install "ecs-combat[rl]"'
    ) from missing

from ecs_combat.env.aec import RaceEnv, describe
from ecs_combat.env.game import Game, Rules
from ecs_combat.env.observe import CREATURE_FEATURES, GAME_FEATURES, Layout
from ecs_combat.env.policies import OptimalPolicy, RandomPolicy
from ecs_combat.env.setup import MOST_ACTIONS, Setup, action_bound
from ecs_combat.env.vector import RaceVectorEnv

__all__ = [
    "CREATURE_FEATURES",
    "GAME_FEATURES",
    "MOST_ACTIONS",
    "Game",
    "Layout",
    "OptimalPolicy",
    "RaceEnv",
    "RaceVectorEnv",
    "RandomPolicy",
    "Rules",
    "Setup",
    "action_bound",
    "describe",
]
