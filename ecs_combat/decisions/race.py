"""The decisions of a race (RULES section 12): the declarations a race state allows, and the
policies that choose among them: :class:`OptimalPolicy` (section 9's minimax for this combat,
or over this combat and the next one: :mod:`.horizon`) and :class:`DrawnPolicy` (uniformly
at random among the legal declarations).

A policy (:class:`Policy`) answers ``attack(state)`` (the attack, with the blocks and divisions
it expects) and ``block(state, attackers)``, each a :class:`~ecs_combat.rules.race.Decided` for
the state's current combat phase; a program may play either side with its own
(:func:`play_race` takes one per player).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from ecs_combat.decisions.attacks import best_attacks, best_attacks_many
from ecs_combat.decisions.bounds import Clock, SearchTooLarge
from ecs_combat.decisions.decide import best_blocks
from ecs_combat.decisions.declarations import (
    BlockDeclarations,
    attackers_able,
    block_declarations,
)
from ecs_combat.decisions.declarations import block_options as options_of
from ecs_combat.decisions.horizon import TwoCombats, decided_of
from ecs_combat.errors import InputError
from ecs_combat.plugin.registry import Registry
from ecs_combat.rules.race import (
    Decided,
    Declaration,
    RaceState,
    TurnResolver,
    combat_scenario,
    only_attackers,
    play,
    start,
)
from ecs_combat.scenario.race import RaceScenario


@runtime_checkable
class Policy(Protocol):
    """Chooses a race's declarations: the attacking player's :meth:`attack` (with the
    blocks and divisions it expects in answer) and the defending player's :meth:`block`."""

    def attack(self, state: RaceState) -> Decided:
        """The current combat phase's attack, with the blocks and divisions it expects."""
        ...

    def block(self, state: RaceState, attackers: Mapping[str, str]) -> Decided:
        """The blocks (and divisions) against `attackers` in the current combat phase."""
        ...


def attack_options(state: RaceState, registry: Registry) -> list[dict[str, str]]:
    """Every legal attack declaration of the current combat phase (508.1): each set of the
    creatures able to attack, attacking the defending player, in the order ties are shown
    (fewest attackers first, then file order)."""
    scenario = combat_scenario(state, registry)
    able = _able(state, registry)
    defender = state.defending_player
    masks = range(1 << len(able))
    attacks = [{c: defender for i, c in enumerate(able) if m >> i & 1} for m in masks]
    ids = list(scenario.creatures)
    return sorted(attacks, key=lambda a: (len(a), [ids.index(c) for c in a]))


def block_options(
    state: RaceState, attackers: Mapping[str, str], registry: Registry
) -> list[dict[str, str | list[str]]]:
    """Every legal block declaration (509.1, requirements obeyed as far as possible: 509.1c)
    against `attackers` in the current combat phase, in the order ties are shown."""
    decls = block_declarations_of(state, attackers, registry)
    ids = list(combat_scenario(state, registry).creatures)
    order = np.argsort(decls.tie_order, kind="stable")
    return [blockers_of(decls, int(d), ids) for d in order]


def _able(state: RaceState, registry: Registry) -> list[str]:
    scenario = combat_scenario(state, registry)
    able = attackers_able(scenario, registry, state.attacking_player)
    only = only_attackers(state)
    return [c for c in able if only is None or c in only]


def block_declarations_of(
    state: RaceState, attackers: Mapping[str, str], registry: Registry
) -> BlockDeclarations:
    """The legal block declarations against `attackers` in the current combat phase."""
    scenario = combat_scenario(state, registry)
    declared = dataclasses.replace(scenario, attackers=dict(attackers))
    return block_declarations(options_of(declared, registry, state.defending_player), scenario.file)


def blockers_of(decls: BlockDeclarations, d: int, ids: Sequence[str]) -> dict[str, str | list[str]]:
    """Declaration `d` as ``combat.blockers`` takes it (`ids`: the board's creature ids)."""
    o = decls.options
    attacker_ids = [ids[int(i)] for i in o.attackers]
    out: dict[str, str | list[str]] = {}
    for j, cid in enumerate(o.blocker_ids):
        mask = int(decls.masks[d, j])
        blocked = [attacker_ids[i] for i in range(len(attacker_ids)) if mask >> i & 1]
        if blocked:
            out[cid] = blocked[0] if len(blocked) == 1 else blocked
    return out


#: Boards searched together at most by :meth:`OptimalPolicy.attacks` (their first level's
#: creature rows stay under the search's level size, resolved in one piece).
BULK_BOARDS = 64


class OptimalPolicy:
    """RULES section 12's optimal policy: each declaration is section 9's minimax for this
    combat (`horizon` ``"combat"``), or over this combat and the next one (``"two
    combats"``; one combat in the race's last turn). `budget`: seconds of search at most
    over all the policy's decisions, from its making (a race's whole search: a decision made
    once it ran out is the best found first, and not optimal)."""

    def __init__(
        self, registry: Registry, horizon: str = "combat", budget: float | None = None
    ) -> None:
        self.registry = registry
        self.horizon = horizon
        self.clock = Clock(budget)
        self._two = TwoCombats(registry, self.clock) if horizon == "two combats" else None
        self._resolved = 0

    @property
    def combats_resolved(self) -> int:
        """Candidate combats the policy's searches resolved so far (for measurements)."""
        return self._resolved + (self._two.combats_resolved if self._two is not None else 0)

    def attack(self, state: RaceState) -> Decided:
        """The best attack, with the best blocks and divisions that answer it."""
        if self._two is not None and not state.last_turn:
            return self._two.decide(state)
        scenario = combat_scenario(state, self.registry)
        decision = best_attacks(
            scenario, self.registry, top=1, budget=self.clock.left(), only=only_attackers(state)
        )
        self._resolved += decision.combats_resolved
        return decided_of(decision)

    def attacks(self, states: Sequence[RaceState]) -> list[Decided]:
        """:meth:`attack` of each state: with the per-combat horizon and no budget, the
        searches of all of them together (:func:`~.attacks.best_attacks_many`, the same
        decisions), else one by one."""
        if self._two is not None or self.clock.seconds is not None:
            return [self.attack(s) for s in states]
        out: list[Decided] = []
        for lo in range(0, len(states), BULK_BOARDS):
            some = states[lo : lo + BULK_BOARDS]
            try:
                decisions = best_attacks_many(
                    [combat_scenario(s, self.registry) for s in some],
                    self.registry,
                    top=1,
                    only=[only_attackers(s) for s in some],
                )
            except SearchTooLarge:  # too large together: alone, each refused in its name
                out += [self.attack(s) for s in some]
                continue
            self._resolved += sum(d.combats_resolved for d in decisions)
            out += [decided_of(d) for d in decisions]
        return out

    def block(self, state: RaceState, attackers: Mapping[str, str]) -> Decided:
        """The best blocks against `attackers`, with the attacking player's best divisions."""
        if self._two is not None and not state.last_turn:
            return self._two.decide(state, attackers)
        scenario = dataclasses.replace(
            combat_scenario(state, self.registry), attackers=dict(attackers)
        )
        if not attackers:
            return Decided(Declaration(), None, True)
        decision = best_blocks(scenario, self.registry, top=1, budget=self.clock.left())
        self._resolved += decision.combats_resolved
        return decided_of(decision, attackers)

    def __call__(self, state: RaceState) -> Decided:
        return self.attack(state)


class DrawnPolicy:
    """Attackers and blocks drawn uniformly at random among the legal declarations (the
    default divisions), from a seeded generator."""

    def __init__(self, registry: Registry, seed: int) -> None:
        self.registry = registry
        self.rng = np.random.default_rng(seed)

    def attack(self, state: RaceState) -> Decided:
        attacks = attack_options(state, self.registry)
        attackers = attacks[int(self.rng.integers(len(attacks)))]
        return self.block(state, attackers)

    def block(self, state: RaceState, attackers: Mapping[str, str]) -> Decided:
        decls = block_declarations_of(state, attackers, self.registry)
        ids = list(combat_scenario(state, self.registry).creatures)
        blockers = (
            blockers_of(decls, int(self.rng.integers(decls.count)), ids) if decls.count else {}
        )
        return Decided(Declaration(dict(attackers), blockers, ()))

    def __call__(self, state: RaceState) -> Decided:
        return self.attack(state)


def policy_for(race: RaceScenario, registry: Registry, budget: float | None = None) -> Policy:
    """The policy the race's settings name (its ``decisions`` and ``horizon``)."""
    s = race.settings
    if s.decisions == "drawn":
        return DrawnPolicy(registry, s.seed)
    return OptimalPolicy(registry, s.horizon, budget)


def play_race(
    race: RaceScenario,
    registry: Registry,
    resolve: TurnResolver,
    policies: Mapping[str, Policy] | Policy | None = None,
    budget: float | None = None,
) -> RaceState:
    """Play a race to its end: in each combat phase the attacking player's policy attacks
    and the defending player's blocks (:func:`decide`; `policies`: one per player, one for
    both, or None: the race's own, with `budget` seconds of search in all), each turn
    resolved by `resolve`. Returns the final state (``state.history`` holds every turn)."""
    own = policies if isinstance(policies, Policy) else policy_for(race, registry, budget)
    chosen: dict[str, Policy] = {p: own for p in race.players}
    if isinstance(policies, Mapping):
        for pid, policy in policies.items():
            if pid not in race.players:
                raise InputError(race.file, "players", f"unknown player {pid!r} in policies")
            chosen[pid] = policy
    state = start(race, registry)
    while not state.over:
        state = play(state, decide(state, chosen), registry, resolve)
    return state


def decide(state: RaceState, policies: Mapping[str, Policy]) -> Decided:
    """The current combat phase's declarations: the attacking player's policy attacks; the
    defending player's blocks (the attacking player's own answer when both are one policy)."""
    attacking = policies[state.attacking_player]
    blocking = policies[state.defending_player]
    chosen = attacking.attack(state)
    if blocking is attacking:
        return chosen
    return blocking.block(state, chosen.declaration.attackers)


__all__ = [
    "DrawnPolicy",
    "OptimalPolicy",
    "Policy",
    "attack_options",
    "block_declarations_of",
    "block_options",
    "blockers_of",
    "decide",
    "play_race",
    "policy_for",
]
