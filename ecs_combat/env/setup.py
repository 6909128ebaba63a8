"""What both environments are made of: the races, the action space's size, the rules that
step a game, the engine that resolves its turns and the observations' layout."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ecs_combat.env.game import DivisionRule, Game, Rules
from ecs_combat.env.observe import Layout
from ecs_combat.errors import InputError
from ecs_combat.plugin.registry import Registry
from ecs_combat.rules.result import TurnResult
from ecs_combat.scenario.race import RaceScenario, load_race
from ecs_combat.scenario.turns import TurnScenario

#: Resolves a batch of turns (an engine's ``resolve_turns``).
TurnsResolver = Callable[[Sequence[TurnScenario]], list[TurnResult]]
#: Boards with more possible declarations than this are refused (the action space's size).
MOST_ACTIONS = 1 << 16

RaceSource = RaceScenario | str | Path


def load_races(races: RaceSource | Sequence[RaceSource], registry: Registry) -> list[RaceScenario]:
    """Race files or races, as races; every race between the same two players."""
    many = [races] if isinstance(races, RaceScenario | str | Path) else list(races)
    out = [r if isinstance(r, RaceScenario) else load_race(r, registry) for r in many]
    if not out:
        raise InputError("<races>", "", "an environment needs at least one race")
    first = set(out[0].players)
    for r in out[1:]:
        if set(r.players) != first:
            raise InputError(
                r.file,
                "players",
                f"every race must be between {sorted(first)}, not {sorted(r.players)}",
            )
    return out


def action_bound(races: Sequence[RaceScenario]) -> int:
    """How many declarations a player may have to choose among at most, in these races: an
    attack is a set of its creatures; blocks give each of its creatures one attacker or
    none (a creature able to block several attackers can exceed it: the environment then
    says so as it happens)."""
    most = 1
    for race in races:
        count = {p: 0 for p in race.players}
        for c in race.creatures.values():
            count[c.controller] += 1
        for p, n in count.items():
            others = sum(v for q, v in count.items() if q != p)
            most = max(most, 2**n, (1 + others) ** n)
    return most


def turn_resolver(registry: Registry, engine: str) -> TurnsResolver:
    """The engine's function resolving a batch of turns (``reference`` or ``batched``)."""
    if engine == "reference":
        from ecs_combat.reference.engine import ReferenceEngine

        return ReferenceEngine(registry).resolve_turns
    if engine == "batched":
        from ecs_combat.batched import BatchedEngine

        return BatchedEngine(registry).resolve_turns
    raise ValueError(f"engine must be 'reference' or 'batched', not {engine!r}")


@dataclass(frozen=True)
class Setup:
    """An environment's parts (see the module's docstring)."""

    registry: Registry
    races: list[RaceScenario]
    max_actions: int
    rules: Rules
    resolve: TurnsResolver
    layout: Layout

    @staticmethod
    def of(
        races: RaceSource | Sequence[RaceSource],
        registry: Registry | None,
        engine: str,
        divisions: DivisionRule,
        max_actions: int | None,
    ) -> Setup:
        """The parts, the races' action bound checked (:data:`MOST_ACTIONS`)."""
        if registry is None:
            from ecs_combat.plugin.loading import load_registry

            registry = load_registry()
        loaded = load_races(races, registry)
        bound = action_bound(loaded)
        if max_actions is None and bound > MOST_ACTIONS:
            raise InputError(
                loaded[0].file,
                "creatures",
                f"a board with up to {bound:,} declarations to choose among is more than an "
                f"environment's action space takes ({MOST_ACTIONS:,})",
            )
        return Setup(
            registry,
            loaded,
            max_actions or bound,
            Rules(registry, divisions),
            turn_resolver(registry, engine),
            Layout(registry, max(len(r.creatures) for r in loaded)),
        )

    def check_options(self, game: Game) -> None:
        """Refuse a game whose player has more declarations than the action space."""
        if len(game.options) > self.max_actions:
            raise InputError(
                game.state.race.file,
                "creatures",
                f"{game.player} has {len(game.options):,} declarations to choose among, more "
                f"than the action space's {self.max_actions:,} (give max_actions)",
            )
