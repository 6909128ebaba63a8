"""A race (RULES section 12) as a game of discrete declarations: the environment's typed
state apart from its step.

A :class:`Game` is a race waiting for one player's declaration: the attacking player's attack,
or the defending player's blocks against the attack just declared. Its :attr:`Game.options`
are the legal declarations in the order RULES section 9 shows ties, so an action is an index
into them. :meth:`Rules.declare` takes an action and gives either the next game (blocks are
still to be declared) or the combat phase's full :class:`~ecs_combat.rules.race.Decided`,
which :meth:`Rules.turn` writes as the turn file to resolve and :meth:`Rules.advance` turns
into the next game once an engine resolved it. Turns of many games can be resolved as one
batch (:mod:`.vector`).

Damage divisions are not actions: the attacking player divides its attackers' damage as
section 9's search would for the blocks declared (`divisions = "best"`), or by the default
division (`"default"`); the defending player's blockers divide theirs the same way.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

import numpy as np

from ecs_combat.decisions.decide import best_blocks
from ecs_combat.decisions.declarations import BlockDeclarations
from ecs_combat.decisions.race import attack_options, block_declarations_of, blockers_of
from ecs_combat.errors import InputError
from ecs_combat.plugin.registry import Registry
from ecs_combat.rules.race import (
    Decided,
    Declaration,
    RaceState,
    advance,
    combat_scenario,
    start,
    turn_document,
)
from ecs_combat.rules.result import TurnResult
from ecs_combat.scenario.model import Scenario
from ecs_combat.scenario.race import RaceScenario
from ecs_combat.scenario.turn_loader import parse_turn
from ecs_combat.scenario.turns import TurnScenario

#: Who divides damage how (see the module's docstring).
DivisionRule = Literal["best", "default"]
#: What the player to act declares.
Role = Literal["attack", "block"]

Attack = Mapping[str, str]
Blocks = Mapping[str, "str | list[str]"]


@dataclass(frozen=True)
class Game:
    """A race waiting for one declaration."""

    state: RaceState
    #: The current combat phase's board as its attackers are declared (RULES 9's board).
    board: Scenario
    #: The attack declared in this combat phase, waiting for blocks; None: the attacking
    #: player is to declare it.
    attack: Attack | None
    #: The legal declarations of the player to act, in RULES 9's tie order.
    options: tuple[Attack, ...] | tuple[Blocks, ...]
    #: The block declarations behind `options` (block decisions only).
    blocks: BlockDeclarations | None = None
    #: Place in `blocks` of each option.
    order: tuple[int, ...] = ()

    @property
    def over(self) -> bool:
        return self.state.over

    @property
    def role(self) -> Role:
        return "attack" if self.attack is None else "block"

    @property
    def player(self) -> str:
        """The player to act: the attacking player, then the defending player."""
        s = self.state
        return s.attacking_player if self.attack is None else s.defending_player


class Rules:
    """Makes and steps :class:`Game` objects for one registry."""

    def __init__(self, registry: Registry, divisions: DivisionRule = "best") -> None:
        if divisions not in ("best", "default"):
            raise ValueError(f"divisions must be 'best' or 'default', not {divisions!r}")
        self.registry = registry
        self.divisions = divisions

    def begin(self, race: RaceScenario) -> Game:
        """The race as its first combat phase's attack is to be declared."""
        return self.waiting(start(race, self.registry))

    def waiting(self, state: RaceState) -> Game:
        """The game at a race state: its attack to be declared (or over)."""
        if state.over:
            return Game(state, combat_board(state), None, ())
        board = combat_scenario(state, self.registry)
        return Game(state, board, None, tuple(attack_options(state, self.registry)))

    def declare(self, game: Game, action: int) -> Game | Decided:
        """The player to act declares option `action`: the game waiting for blocks, or the
        combat phase's whole declaration (to resolve)."""
        if game.over:
            raise ValueError("the race is over")
        if not 0 <= action < len(game.options):
            raise ValueError(
                f"action {action} is not legal: {len(game.options)} declarations "
                f"(0-{len(game.options) - 1}) are"
            )
        if game.attack is None:
            attack = game.options[action]
            if not attack:
                return Decided(Declaration())
            return self._blocking(game, dict(attack))  # type: ignore[arg-type]
        assert game.blocks is not None
        return self._answer(game, game.attack, game.order[action])

    def _blocking(self, game: Game, attack: dict[str, str]) -> Game:
        decls = block_declarations_of(game.state, attack, self.registry)
        order = np.argsort(decls.tie_order, kind="stable").tolist()
        ids = list(game.board.creatures)
        shown = tuple(blockers_of(decls, d, ids) for d in order)
        return Game(game.state, game.board, attack, shown, decls, tuple(order))

    def _answer(self, game: Game, attack: Attack, d: int) -> Decided:
        """Blocks `d` with the divisions the rule gives."""
        assert game.blocks is not None
        ids = list(game.board.creatures)
        blockers = blockers_of(game.blocks, d, ids)
        if self.divisions == "default" or not blockers:
            return Decided(Declaration(dict(attack), blockers))
        declared = dataclasses.replace(game.board, attackers=dict(attack))
        best = best_blocks(declared, self.registry, top=1, declarations=game.blocks.only(d))
        choice = best.best[0]
        return Decided(Declaration(dict(attack), choice.blockers, choice.divide))

    def turn(self, game: Game, decided: Decided) -> TurnScenario:
        """The current turn as the turn file to resolve with `decided` for this phase."""
        state = game.state
        doc = turn_document(state, self.registry, (*state.declared, decided))
        return parse_turn(doc, self.registry, state.race.file)

    def advance(self, game: Game, decided: Decided, result: TurnResult) -> Game:
        """The next game once :meth:`turn` resolved to `result`."""
        return self.waiting(advance(game.state, decided, result, self.registry))

    def index_of(self, game: Game, declared: Attack | Blocks) -> int:
        """The action that declares `declared` (an attack, or blocks), for policies that
        choose declarations (the optimal policy)."""
        want = _canonical(declared)
        for i, option in enumerate(game.options):
            if _canonical(option) == want:
                return i
        raise InputError(game.state.race.file, "", f"{dict(declared)} is not a legal declaration")


def combat_board(state: RaceState) -> Scenario:
    """The board as the race ended (no combat phase left to declare)."""
    players = dict(state.players)
    return Scenario(state.race.file, players, dict(state.creatures), {}, {})


def _canonical(declared: Attack | Blocks) -> frozenset[tuple[str, tuple[str, ...]]]:
    return frozenset(
        (k, (v,) if isinstance(v, str) else tuple(sorted(v))) for k, v in declared.items()
    )


__all__ = ["Attack", "Blocks", "DivisionRule", "Game", "Role", "Rules"]
