"""Random boards for the decision benchmarks: power and toughness 1-6, keywords drawn about as
often as in examples/specs/melee.toml (blockers without trample or menace), every attacker
attacking the defending player."""

from __future__ import annotations

from typing import Any

import numpy as np

from ecs_combat import Registry, Scenario, parse_scenario

#: Probability of each keyword on a creature (examples/specs/melee.toml's).
KEYWORDS = {
    "first strike": 0.1,
    "double strike": 0.05,
    "deathtouch": 0.1,
    "trample": 0.1,
    "lifelink": 0.1,
    "indestructible": 0.02,
    "flying": 0.1,
    "reach": 0.1,
    "menace": 0.05,
}
ATTACKER_ONLY = {"trample", "menace"}


def board(rng: np.random.Generator, attackers: int, blockers: int) -> dict[str, Any]:
    """One board's scenario document, with its attackers declared."""
    creatures: dict[str, Any] = {}
    for side, n, player in (("a", attackers, "A"), ("b", blockers, "B")):
        for i in range(n):
            kws = [
                k
                for k, p in KEYWORDS.items()
                if rng.random() < p and not (side == "b" and k in ATTACKER_ONLY)
            ]
            creatures[f"{side}{i + 1}"] = {
                "controller": player,
                "power": int(rng.integers(1, 7)),
                "toughness": int(rng.integers(1, 7)),
                "keywords": kws,
            }
    return {
        "players": {"A": {}, "B": {}},
        "creatures": creatures,
        "combat": {"attackers": {f"a{i + 1}": "B" for i in range(attackers)}},
    }


def boards(
    registry: Registry, size: int, count: int, seed: int = 1, attacks: bool = False
) -> list[Scenario]:
    """`count` boards of `size` attackers against `size` blockers (without the attack for
    `attacks`)."""
    rng = np.random.default_rng(seed + 1000 * size)
    out = []
    for _ in range(count):
        doc = board(rng, size, size)
        if attacks:
            del doc["combat"]
        out.append(parse_scenario(doc, registry, f"board{size}.json"))
    return out
