"""ecs_combat.env: races as a PettingZoo environment and a vector form (CONTRACT section 9,
RULES section 12, docs/env.md)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import api_test
from pettingzoo.test.seed_test import check_environment_deterministic

from ecs_combat.decisions.race import play_race
from ecs_combat.env import (
    CREATURE_FEATURES,
    GAME_FEATURES,
    MOST_ACTIONS,
    OptimalPolicy,
    RaceEnv,
    RaceVectorEnv,
    RandomPolicy,
)
from ecs_combat.errors import InputError
from ecs_combat.plugin.registry import Registry
from ecs_combat.reference.engine import ReferenceEngine
from ecs_combat.scenario.race import RaceScenario, parse_race

# PettingZoo's api_test advises against what PettingZoo's own classic environments do:
# observations as {"observation", "action_mask"} dicts, agents named as the players are.
pytestmark = [
    pytest.mark.filterwarnings("ignore:Observation is not a NumPy array"),
    pytest.mark.filterwarnings("ignore:Observation space for each agent probably"),
    pytest.mark.filterwarnings("ignore:We recommend agents to be named"),
]

ROOT = Path(__file__).resolve().parent.parent
OGRE_AND_BEAR = ROOT / "examples" / "races" / "ogre-and-bear.toml"


def race(
    registry: Registry, creatures: dict[str, dict[str, object]], **table: object
) -> RaceScenario:
    doc = {
        "players": {"A": {"life": 5}, "B": {"life": 5}},
        "creatures": creatures,
        "race": table,
    }
    return parse_race(doc, registry)


def play(env: RaceEnv, policies: dict[str, OptimalPolicy | RandomPolicy]) -> int:
    """Play a reset environment to its end; the number of actions taken."""
    steps = 0
    for agent in env.agent_iter():
        _, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        assert env.game is not None
        env.step(policies[agent].act(env.game))
        steps += 1
    return steps


def test_pettingzoos_api_test_passes(registry: Registry) -> None:
    env = RaceEnv(OGRE_AND_BEAR, registry)
    api_test(env, num_cycles=40)
    many = race(
        registry,
        {
            "bear": {"controller": "A", "power": 2, "toughness": 2},
            "knight": {"controller": "A", "power": 2, "toughness": 2, "keywords": ["first strike"]},
            "wall": {"controller": "B", "power": 0, "toughness": 4, "keywords": ["defender"]},
            "elf": {"controller": "B", "power": 1, "toughness": 1, "keywords": ["deathtouch"]},
        },
        turns=6,
    )
    api_test(RaceEnv(many, registry), num_cycles=40)


def test_seeded_environments_play_alike(registry: Registry) -> None:
    check_environment_deterministic(
        RaceEnv(OGRE_AND_BEAR, registry), RaceEnv(OGRE_AND_BEAR, registry), 50
    )


def test_optimal_on_both_sides_plays_the_race_the_command_plays(registry: Registry) -> None:
    """RULES 12, worked by hand (docs/races.md): the 3/3 attacks, the 2/2 doesn't chump it
    (material before life), B at 2; the bear swings back (the ogre is tapped), A at 3; the
    ogre attacks again, the tapped bear can't block: B at -1, A wins in turn 3."""
    env = RaceEnv(OGRE_AND_BEAR, registry, engine="reference")
    env.reset(seed=0)
    optimal = OptimalPolicy(registry)
    rewards = {"A": 0.0, "B": 0.0}
    for agent in env.agent_iter():
        _, reward, terminated, truncated, _ = env.last()
        rewards[agent] += reward
        if terminated or truncated:
            assert terminated and not truncated  # a player lost: not the turn limit
            env.step(None)
            continue
        assert env.game is not None
        env.step(optimal.act(env.game))
    assert rewards == {"A": 1.0, "B": -1.0}
    assert env.game is not None
    state = env.game.state
    assert (state.winner, len(state.history)) == ("A", 3)
    assert {p: o.life for p, o in state.final_players.items()} == {"A": 3, "B": -1}
    resolve = ReferenceEngine(registry).resolve_turn
    same = play_race(env.races[0], registry, resolve)
    assert [t.document for t in same.history] == [t.document for t in state.history]


def test_actions_index_the_legal_declarations_in_tie_order(registry: Registry) -> None:
    """RULES 9's tie order: fewest creatures first, then file order. Two untapped attackers
    make 4 attacks; against one attacker, two blockers make 4 block declarations (none, the
    first alone, the second alone, both), and a flier can't be blocked by a non-flier."""
    board = race(
        registry,
        {
            "ogre": {"controller": "A", "power": 3, "toughness": 3},
            "bird": {"controller": "A", "power": 1, "toughness": 1, "keywords": ["flying"]},
            "bear": {"controller": "B", "power": 2, "toughness": 2},
            "cub": {"controller": "B", "power": 1, "toughness": 1},
        },
    )
    env = RaceEnv(board, registry)
    env.reset()
    assert env.game is not None
    assert env.agent_selection == "A" and env.game.role == "attack"
    assert env.game.options == ({}, {"ogre": "B"}, {"bird": "B"}, {"ogre": "B", "bird": "B"})
    mask = env.observe("A")["action_mask"]
    assert mask.tolist()[:4] == [1, 1, 1, 1] and mask.sum() == 4
    assert env.observe("B")["action_mask"].sum() == 0  # not B's turn to declare
    env.step(3)  # both attack
    assert env.agent_selection == "B" and env.game.role == "block"
    assert env.game.options == (
        {},
        {"bear": "ogre"},
        {"cub": "ogre"},
        {"bear": "ogre", "cub": "ogre"},
    )
    with pytest.raises(ValueError, match="action 4 is not legal"):
        env.step(4)


def test_observations_read_the_board_from_each_side(registry: Registry) -> None:
    board = race(
        registry,
        {
            "ogre": {"controller": "A", "power": 3, "toughness": 3, "counters": {"+1/+1": 1}},
            "bear": {
                "controller": "B",
                "power": 2,
                "toughness": 2,
                "keywords": ["first strike"],
                "tapped": True,
            },
        },
        turns=7,
    )
    env = RaceEnv(board, registry)
    env.reset()
    names = env.layout.names()
    obs_a = dict(zip(names, env.observe("A")["observation"].tolist(), strict=True))
    obs_b = dict(zip(names, env.observe("B")["observation"].tolist(), strict=True))
    assert len(names) == env.layout.size == env.observation_space("A")["observation"].shape[0]
    assert obs_a["my life"] == 5 and obs_a["turn"] == 1 and obs_a["turns left"] == 6
    assert obs_a["my turn"] == 1 and obs_b["my turn"] == 0
    assert obs_a["creature 0: mine"] == 1 and obs_b["creature 0: mine"] == 0
    # 122.1a: the counter counts: a 4/4
    assert (obs_a["creature 0: power"], obs_a["creature 0: toughness"]) == (4, 4)
    assert obs_a["creature 0: counters +1/+1"] == 1
    assert obs_a["creature 1: tapped"] == 1 and obs_a["creature 1: keyword first strike"] == 1
    assert obs_a["creature 0: keyword first strike"] == 0
    assert GAME_FEATURES[0] == "my life" and CREATURE_FEATURES[0] == "on battlefield"
    env.step(1)  # the ogre attacks; the tapped bear can't block: B declares nothing
    # no block to declare (only "no blocks" was legal? it is still B's choice of one)
    assert env.game is not None and env.game.role == "block" and len(env.game.options) == 1
    env.step(0)
    obs = dict(zip(names, env.observe("B")["observation"].tolist(), strict=True))
    assert obs["my life"] == 1 and obs["opponent life"] == 5  # 5 - 4


def test_the_vector_form_plays_as_the_single_environments_do(registry: Registry) -> None:
    """The same actions in a vector of races and in single environments give the same
    observations, rewards and ends; the finished races start again (SAME_STEP)."""
    n = 3
    vec = RaceVectorEnv(OGRE_AND_BEAR, n, registry, divisions="default")
    obs, _ = vec.reset(seed=5)
    singles = [RaceEnv(OGRE_AND_BEAR, registry, divisions="default") for _ in range(n)]
    for env in singles:
        env.reset()
    policy = RandomPolicy(7)
    ended = 0
    for _ in range(12):
        for i, env in enumerate(singles):
            assert env.game is not None
            me = env.game.player
            assert vec.agents[int(obs["player"][i])] == me
            np.testing.assert_array_equal(obs["observation"][i], env.observe(me)["observation"])
            np.testing.assert_array_equal(obs["action_mask"][i], env.observe(me)["action_mask"])
        actions = policy.act_many(vec.games)
        obs, rewards, terminated, truncated, infos = vec.step(actions)
        for i, env in enumerate(singles):
            env.step(int(actions[i]))
            if terminated[i] or truncated[i]:
                ended += 1
                assert env.game is not None and env.game.state.over
                winner = env.game.state.winner
                seat = {a: s for s, a in enumerate(vec.agents)}
                want = np.zeros(2, np.float32)
                if winner is not None:
                    want[seat[winner]], want[1 - seat[winner]] = 1, -1
                np.testing.assert_array_equal(rewards[i], want)
                env.reset()
            else:
                assert not rewards[i].any()
        assert (infos["final"] == (terminated | truncated)).all()
    assert ended >= 1
    assert vec.observation_space.shape is None  # a Dict space of batched Boxes
    assert vec.single_action_space.n == vec.max_actions


def test_boards_too_large_for_an_action_space_are_refused(registry: Registry) -> None:
    creatures: dict[str, dict[str, object]] = {
        f"a{i}": {"controller": "A", "power": 1, "toughness": 1} for i in range(7)
    }
    creatures |= {f"b{i}": {"controller": "B", "power": 1, "toughness": 1} for i in range(7)}
    with pytest.raises(InputError, match=f"up to 2,097,152 declarations.*\\({MOST_ACTIONS:,}\\)"):
        RaceEnv(race(registry, creatures), registry)


def test_random_play_never_breaks_the_rules(registry: Registry) -> None:
    """Random legal actions on both sides through whole races: every race ends within its
    turn limit with a winner or a draw, rewards summing to 0."""
    board = race(
        registry,
        {
            "ogre": {"controller": "A", "power": 3, "toughness": 3, "keywords": ["trample"]},
            "elf": {"controller": "A", "power": 1, "toughness": 1, "keywords": ["vigilance"]},
            "bear": {"controller": "B", "power": 2, "toughness": 2, "keywords": ["deathtouch"]},
            "cub": {"controller": "B", "power": 1, "toughness": 3},
        },
        turns=6,
    )
    env = RaceEnv(board, registry)
    for seed in range(3):
        env.reset(seed=seed)
        policy = RandomPolicy(seed)
        play(env, {"A": policy, "B": policy})
        assert env.game is not None and env.game.state.over
        assert len(env.game.state.history) <= 6


def test_the_documented_examples_run(tmp_path: Path) -> None:
    """docs/env.md: its Python blocks, in order, as one script from the repository's root
    (each block's asserts pin what the page says)."""
    import re
    import subprocess
    import sys

    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "docs" / "env.md").read_text(), re.S)
    assert len(blocks) >= 4
    script = tmp_path / "env_md.py"
    script.write_text("\n".join(blocks))
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, cwd=ROOT, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert "random: won" in done.stdout and "greedy: won" in done.stdout
