"""Fixed-shape observations of a :class:`~.game.Game`, from one player's side.

An observation is one ``int32`` vector: the game's :data:`GAME_FEATURES`, then a block of
:attr:`Layout.creature_features` per creature slot (the race's creatures in file order, as the race began; a slot of a creature that left is all zeros). The
creature block is :data:`CREATURE_FEATURES`, then one count per keyword the registry knows
(instances: ``bushido 2`` twice is 2), one per kind of counter, and one per plugin's integer
or yes/no creature state. Players' plugin state (poison, ...) follows the game features, the
observing player's first. Every name comes from the registry, so a keyword a third party
installs is observed with no change here; :meth:`Layout.names` names every entry.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from ecs_combat.env.game import Game
from ecs_combat.plugin.registry import Registry

#: The game's own features, from the observing player's side.
GAME_FEATURES = (
    "my life",
    "opponent life",
    "turn",
    "turns left",
    "my turn",
    "to declare blocks",
)
#: Each creature slot's features before its keywords, counters and plugin state.
CREATURE_FEATURES = (
    "on battlefield",
    "mine",
    "power",
    "toughness",
    "damage",
    "tapped",
    "summoning sick",
    "attacking",
)
#: Every entry lies in [-LIMIT, LIMIT] (life and power are clipped there).
LIMIT = 1 << 20

Observation = npt.NDArray[np.int32]


class Layout:
    """Where each feature of an observation is, for a registry and the race's creatures."""

    def __init__(self, registry: Registry, slots: int) -> None:
        self.registry = registry
        #: Creature slots: slot i is the i-th creature of the race's file.
        self.slots = slots
        self.keywords = tuple(sorted(registry.keywords))
        self.counters = tuple(registry.counter_names())
        self.creature_state = _numeric(registry, "creature")
        self.player_state = _numeric(registry, "player")
        self.creature_features = (
            len(CREATURE_FEATURES)
            + len(self.keywords)
            + len(self.counters)
            + len(self.creature_state)
        )
        self.head = len(GAME_FEATURES) + 2 * len(self.player_state)
        self.size = self.head + slots * self.creature_features

    def names(self) -> list[str]:
        """The name of every entry, in order."""
        out = list(GAME_FEATURES)
        out += [f"my {k}" for k in self.player_state]
        out += [f"opponent {k}" for k in self.player_state]
        block = [
            *CREATURE_FEATURES,
            *(f"keyword {k}" for k in self.keywords),
            *(f"counters {k}" for k in self.counters),
            *self.creature_state,
        ]
        for slot in range(self.slots):
            out += [f"creature {slot}: {f}" for f in block]
        return out

    def observe(self, game: Game, player: str) -> Observation:
        """`game` from `player`'s side."""
        out = np.zeros(self.size, np.int32)
        state, board = game.state, game.board
        opponent = next(p for p in state.race.order if p != player)
        players = board.players
        me, them = players[player], players[opponent]
        settings = state.settings
        out[0] = me.life
        out[1] = them.life
        out[2] = min(state.turn, settings.turns)
        out[3] = max(settings.turns - state.turn, 0)
        out[4] = not state.over and state.active == player
        out[5] = game.attack is not None
        at = len(GAME_FEATURES)
        for i, key in enumerate(self.player_state):
            out[at + i] = int(me.state.get(key) or 0)
            out[at + len(self.player_state) + i] = int(them.state.get(key) or 0)
        kinds = self.registry.counter_kinds
        attacking = game.attack or {}
        for slot, cid in enumerate(state.race.creatures):
            spec = board.creatures.get(cid)
            if spec is None:
                continue
            at = self.head + slot * self.creature_features
            dp = sum(kinds[k].power * n for k, n in spec.counters.items() if k in kinds)
            dt = sum(kinds[k].toughness * n for k, n in spec.counters.items() if k in kinds)
            out[at : at + len(CREATURE_FEATURES)] = (
                1,
                spec.controller == player,
                spec.power + dp,
                spec.toughness + dt,
                spec.damage,
                spec.tapped,
                spec.summoning_sick,
                cid in attacking,
            )
            at += len(CREATURE_FEATURES)
            for k in spec.keywords:
                if k in self.keywords:
                    out[at + self.keywords.index(k)] += 1
            at += len(self.keywords)
            for k, n in spec.counters.items():
                if k in self.counters:
                    out[at + self.counters.index(k)] = n
            at += len(self.counters)
            for i, key in enumerate(self.creature_state):
                out[at + i] = int(spec.state.get(key) or 0)
        np.clip(out, -LIMIT, LIMIT, out=out)
        return out


def _numeric(registry: Registry, owner: str) -> tuple[str, ...]:
    """The plugins' integer and yes/no state keys of `owner`."""
    fields = registry.state_fields(owner)
    return tuple(sorted(k for k, f in fields.items() if f.kind in ("int", "bool")))


__all__ = ["CREATURE_FEATURES", "GAME_FEATURES", "LIMIT", "Layout", "Observation"]
