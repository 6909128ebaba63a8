"""A race played turn by turn (RULES section 12): typed state apart from the step function.

A :class:`RaceState` is the race between two combat phases: the board as the current turn
began (after its untap step), the combat phases of the turn declared so far and what they did,
and the turns played before. :func:`play` takes the current combat phase's
:class:`Declaration` (attackers, blockers, divisions) and returns the next state; nothing else
changes a state. The declarations a state allows are :func:`attack_options` and
:func:`block_options`; the policies that choose them (the optimal one, drawn ones) are in
:mod:`ecs_combat.decisions.race`.

Every turn is played as a turn file (docs/turns.md) written from the state, resolved by an
engine (:data:`TurnResolver`): so each turn of a race replays with ``ecs-combat resolve`` to
exactly what the race did. Between turns: cleanup (514.2: damage removed, "until end of turn"
effects end, counters stay), then the next active player's untap step (502.3). Summoning
sickness (302.6): the creatures a race starts with may attack in their controller's first turn
unless ``summoning_sick = true``; a creature that enters later (a returned persist creature)
may attack from its controller's next turn on.

    >>> state = start(race, registry)
    >>> while not state.over:
    ...     state = play(state, policy(state), registry, resolve)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ecs_combat.plugin.phases import COMBAT, Phase
from ecs_combat.plugin.registry import Registry
from ecs_combat.rules.result import CreatureOutcome, PlayerOutcome, TurnResult
from ecs_combat.rules.turn_schedule import schedule, seat_order
from ecs_combat.scenario.model import CreatureSpec, PlayerSpec, Scenario
from ecs_combat.scenario.race import RaceScenario, RaceSettings
from ecs_combat.scenario.turn_loader import parse_turn
from ecs_combat.scenario.turns import TurnScenario
from ecs_combat.scenario.writer import scenario_document

#: Resolves one turn (an engine's ``resolve_turn``).
TurnResolver = Callable[[TurnScenario], TurnResult]


@dataclass(frozen=True)
class Declaration:
    """One combat phase's declarations, as a ``[[combats]]`` entry takes them."""

    #: Attacking creature id -> the player it attacks.
    attackers: Mapping[str, str] = field(default_factory=dict)
    #: Blocking creature id -> the attacker it blocks, or a list of them.
    blockers: Mapping[str, str | list[str]] = field(default_factory=dict)
    #: Explicit divisions: ``{"step", "source", "amounts"}`` entries (``combat.divide``).
    divide: Sequence[Mapping[str, Any]] = ()

    def entry(self) -> dict[str, Any]:
        """The ``[[combats]]`` entry of a turn file."""
        out: dict[str, Any] = {"attackers": dict(self.attackers)}
        if self.blockers:
            out["blockers"] = {
                b: a if isinstance(a, str) else list(a) for b, a in self.blockers.items()
            }
        if self.divide:
            out["divide"] = [
                {"step": d["step"], "source": d["source"], "amounts": dict(d["amounts"])}
                for d in self.divide
            ]
        return out


@dataclass(frozen=True)
class Decided:
    """A policy's choice for one combat phase: the declaration, and its score when a search
    chose it (from the attacking player's side; None for drawn declarations)."""

    declaration: Declaration
    score: Mapping[str, int] | None = None
    #: Proven optimal (False: drawn, or the search ran out of budget).
    optimal: bool = False
    #: Why it is not optimal, when a search was cut short.
    reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The ``decided`` object of CONTRACT section 9."""
        d = self.declaration
        out: dict[str, Any] = {
            "attackers": dict(d.attackers),
            "blockers": {b: a if isinstance(a, str) else list(a) for b, a in d.blockers.items()},
            "divide": [dict(x) for x in d.divide],
        }
        if self.score is not None:
            out["score"] = dict(self.score)
        return out


@dataclass(frozen=True)
class PlayedTurn:
    """One turn of the race, played."""

    number: int
    #: Whose turn it was.
    player: str
    #: The turn file it was played as (docs/turns.md), declarations written in.
    document: dict[str, Any]
    result: TurnResult
    #: Each combat phase that happened: its choice (in the order of ``result.combats``).
    decided: tuple[Decided, ...]


@dataclass(frozen=True)
class RaceState:
    """A race between two combat phases (see the module's docstring)."""

    race: RaceScenario
    #: The players as the current turn began.
    players: Mapping[str, PlayerSpec]
    #: The creatures on the battlefield as the current turn began, after its untap step.
    creatures: Mapping[str, CreatureSpec]
    #: The current turn's number (1 for the first); past the last turn once the race is over.
    turn: int
    #: The current turn's phases, as its schedule is computed as it begins.
    phases: tuple[Phase, ...]
    #: The choices of the current turn's combat phases so far, one per combat phase of the
    #: schedule up to the current one (a phase that does not happen has an empty one).
    declared: tuple[Decided, ...] = ()
    #: The current turn resolved with `declared` (None before its first combat phase).
    now: TurnResult | None = None
    history: tuple[PlayedTurn, ...] = ()
    #: Every creature of the race as last seen, by id (for the final account).
    seen: Mapping[str, CreatureOutcome] = field(default_factory=dict)
    #: The players as they last were.
    final_players: Mapping[str, PlayerOutcome] = field(default_factory=dict)
    over: bool = False
    #: The player who won, or None (not over, both lost, or the turn limit came).
    winner: str | None = None

    @property
    def settings(self) -> RaceSettings:
        return self.race.settings

    @property
    def active(self) -> str:
        """Whose turn it is."""
        return self.race.order[(self.turn - 1) % 2]

    @property
    def combat_phases(self) -> list[Phase]:
        return [p for p in self.phases if p.kind == COMBAT]

    @property
    def phase(self) -> Phase | None:
        """The combat phase to be declared now, or None once the race is over."""
        if self.over:
            return None
        return self.combat_phases[len(self.declared)]

    @property
    def attacking_player(self) -> str:
        """The current combat phase's attacking player."""
        phase = self.phase
        assert phase is not None, "the race is over"
        return phase.player

    @property
    def defending_player(self) -> str:
        return next(p for p in self.race.order if p != self.attacking_player)

    @property
    def last_turn(self) -> bool:
        """Whether the current turn is the race's last."""
        return self.turn >= self.settings.turns


def start(race: RaceScenario, registry: Registry) -> RaceState:
    """The race as its first turn begins, after the first player's untap step."""
    seen = {
        cid: CreatureOutcome(True, c.damage, c.power, c.toughness, counters=dict(c.counters))
        for cid, c in race.creatures.items()
    }
    return _begin_turn(race, registry, 1, race.players, race.creatures, (), seen, {})


def _begin_turn(
    race: RaceScenario,
    registry: Registry,
    number: int,
    players: Mapping[str, PlayerSpec],
    creatures: Mapping[str, CreatureSpec],
    history: tuple[PlayedTurn, ...],
    seen: Mapping[str, CreatureOutcome],
    final_players: Mapping[str, PlayerOutcome],
) -> RaceState:
    """Turn `number` as it begins: its untap step (502.3) and its schedule."""
    active = race.order[(number - 1) % 2]
    untapped = untap(creatures, active)
    phases = schedule(list(race.order), active, untapped, [], registry.phase_rules)
    return RaceState(
        race, players, untapped, number, tuple(phases), (), None, history, seen, final_players
    )


def turn_document(
    state: RaceState, registry: Registry, declared: Sequence[Decided] = ()
) -> dict[str, Any]:
    """The current turn as a turn file (docs/turns.md): the board as it began, whose turn it
    is, and `declared` as its ``[[combats]]`` entries (default: those declared so far)."""
    chosen = declared or state.declared
    board = Scenario(state.race.file, dict(state.players), dict(state.creatures), {}, {})
    doc = scenario_document(board, registry)
    del doc["combat"]
    for cid, spec in state.creatures.items():
        if spec.card is not None:  # its card's abilities (a Throat Wolf's extra combats)
            doc["creatures"][cid] = {"card": spec.card, **doc["creatures"][cid]}
    doc["turn"] = {"active": state.active}
    doc["combats"] = [d.declaration.entry() for d in chosen]
    return doc


def resolve_with(
    state: RaceState, registry: Registry, resolve: TurnResolver, declared: Sequence[Decided]
) -> TurnResult:
    """The current turn resolved with `declared` for its first combat phases."""
    turn = parse_turn(turn_document(state, registry, declared), registry, state.race.file)
    return resolve(turn)


def play(
    state: RaceState, decided: Decided, registry: Registry, resolve: TurnResolver
) -> RaceState:
    """Declare the current combat phase as `decided` says and play it; the next state: the
    turn's next combat phase that happens, or the next turn (after cleanup and untap), or the
    race over."""
    assert not state.over, "the race is over"
    result = resolve_with(state, registry, resolve, (*state.declared, decided))
    return advance(state, decided, result, registry)


def advance(
    state: RaceState, decided: Decided, result: TurnResult, registry: Registry
) -> RaceState:
    """:func:`play` once the current turn, declared so far and then as `decided`, resolved
    to `result` (a caller may resolve the turns of many races as one batch)."""
    declared = (*state.declared, decided)
    combats = state.combat_phases
    index = [i for i, p in enumerate(state.phases) if p.kind == COMBAT]
    skipped = {s.index for s in result.skipped_phases}
    nxt = len(declared)
    while nxt < len(combats) and index[nxt] in skipped:
        declared = (*declared, Decided(Declaration()))
        nxt += 1
    if nxt < len(combats):
        return dataclasses.replace(state, declared=declared, now=result)
    return _end_turn(state, registry, declared, result)


def _end_turn(
    state: RaceState, registry: Registry, declared: tuple[Decided, ...], result: TurnResult
) -> RaceState:
    """The turn's cleanup (514.2) and the race's next turn, or its end."""
    active = state.active
    index = [i for i, p in enumerate(state.phases) if p.kind == COMBAT]
    skipped = {s.index for s in result.skipped_phases}
    happened = tuple(d for d, i in zip(declared, index, strict=True) if i not in skipped)
    played = PlayedTurn(
        state.turn, active, turn_document(state, registry, declared), result, happened
    )
    seen = {**state.seen, **result.creatures}
    history = (*state.history, played)
    lost = [pid for pid in state.race.order if result.players[pid].lost]
    players, creatures = after_turn(
        state.players, state.creatures, result.players, result.creatures, active
    )
    if lost or state.last_turn:
        others = [p for p in state.race.order if p not in lost]
        winner = others[0] if len(lost) == 1 else None
        return dataclasses.replace(
            state,
            players=players,
            creatures=creatures,
            declared=declared,
            now=result,
            history=history,
            seen=seen,
            final_players=dict(result.players),
            over=True,
            winner=winner,
        )
    return _begin_turn(
        state.race,
        registry,
        state.turn + 1,
        players,
        creatures,
        history,
        seen,
        dict(result.players),
    )


def after_turn(
    players: Mapping[str, PlayerSpec],
    creatures: Mapping[str, CreatureSpec],
    player_outcomes: Mapping[str, PlayerOutcome],
    outcomes: Mapping[str, CreatureOutcome],
    active: str,
    untapping: str | None = None,
) -> tuple[dict[str, PlayerSpec], dict[str, CreatureSpec]]:
    """The board after `active`'s turn and its cleanup (514.2): `players` and `creatures` as
    the turn began, changed by what it did (`player_outcomes` and `outcomes`, by id): life
    and the plugins' state; creatures that left are gone; damage removed and "until end of
    turn" effects ended (power, toughness and keywords as printed), counters and tapped
    creatures stay. The active player's creatures are no longer summoning sick (302.6); a
    creature that returned (persist, undying) is valued as it returned (RULES 12). With
    `untapping`, that player's untap step (502.3) follows: their creatures untap."""
    after_players = {
        pid: dataclasses.replace(
            p, life=player_outcomes[pid].life, state={**p.state, **player_outcomes[pid].state}
        )
        for pid, p in players.items()
    }
    after: dict[str, CreatureSpec] = {}
    for cid, spec in creatures.items():
        out = outcomes.get(cid)
        if out is None or not out.alive:
            continue
        after[cid] = dataclasses.replace(
            spec,
            damage=0,
            counters=dict(out.counters),
            tapped=bool(out.tapped) and spec.controller != untapping,
            summoning_sick=spec.summoning_sick and spec.controller != active,
            state={**spec.state, **out.state},
            value=spec.value if spec.value is not None or out.returned is None else out.returned,
        )
    return after_players, after


def untap(creatures: Mapping[str, CreatureSpec], player: str) -> dict[str, CreatureSpec]:
    """`player`'s untap step (502.3): their creatures untap."""
    return {
        cid: dataclasses.replace(c, tapped=False) if c.controller == player else c
        for cid, c in creatures.items()
    }


# -- the current combat phase as one combat ---------------------------------------------------


def combat_scenario(state: RaceState, registry: Registry) -> Scenario:
    """The current combat phase as one combat scenario as it begins (RULES section 9's
    board): the attacking player first, the creatures on the battlefield then, no
    declarations. In the turn's first combat phase this is the board as the turn began; in a
    later one (a Throat Wolf's), the creatures as the turn so far left them: damage marked,
    power and toughness with the turn's effects, counters, tapped; a creature that returned
    this turn is summoning sick."""
    phase = state.phase
    assert phase is not None, "the race is over"
    seats = seat_order(list(state.race.order), phase.player)
    if state.now is None:
        players = {pid: state.players[pid] for pid in seats}
        return Scenario(state.race.file, players, dict(state.creatures), {}, {})
    now = state.now
    players = {
        pid: dataclasses.replace(
            state.players[pid],
            life=now.players[pid].life,
            state={**state.players[pid].state, **now.players[pid].state},
        )
        for pid in seats
    }
    creatures = {}
    kinds = registry.counter_kinds
    for cid, spec in state.creatures.items():
        out = now.creatures.get(cid)
        if out is None or not out.alive:
            continue
        dp = sum(kinds[k].power * n for k, n in out.counters.items() if k in kinds)
        dt = sum(kinds[k].toughness * n for k, n in out.counters.items() if k in kinds)
        creatures[cid] = dataclasses.replace(
            spec,
            power=out.power - dp,
            toughness=out.toughness - dt,
            damage=out.damage,
            counters=dict(out.counters),
            tapped=bool(out.tapped),
            summoning_sick=spec.summoning_sick or out.returned is not None,
            state={**spec.state, **out.state},
        )
    return Scenario(state.race.file, players, creatures, {}, {})


def only_attackers(state: RaceState) -> frozenset[str] | None:
    """The only creatures that may attack in the current combat phase (a Throat Wolf's), or
    None: any of the attacking player's."""
    phase = state.phase
    return None if phase is None else phase.only_attackers


__all__ = [
    "Decided",
    "Declaration",
    "PlayedTurn",
    "RaceState",
    "TurnResolver",
    "advance",
    "after_turn",
    "combat_scenario",
    "only_attackers",
    "play",
    "resolve_with",
    "start",
    "turn_document",
    "untap",
]
