"""Bulk races (a SPEC with ``[race]``, CONTRACT section 9): each drawn board played as a race
(RULES section 12), its attacking player (A) first, tallied per matchup.

The races of a chunk are played together, step by step (:class:`RacePlayer`): in each step
every race still running has its current combat phase declared (:meth:`RacePlayer.decide`,
one call over all of them), then all their turns, so declared, are resolved by the engine as
one batch (``resolve_turns``) and each race advances (:func:`~ecs_combat.rules.race.advance`).
Race `k` draws its ``drawn`` decisions from a generator seeded by (``race.seed``, `k`)
(:meth:`~ecs_combat.simulation.spec.RaceSpec.race_seed`), so a run's results depend only on
its SPEC, seed and number of races, never on chunks or workers; and race `k` is what
:func:`ecs_combat.races` plays for the same board.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from ecs_combat.batched import batch_to_scenarios
from ecs_combat.decisions.race import OptimalPolicy, Policy, decide, policy_for
from ecs_combat.plugin.registry import Registry
from ecs_combat.rules.race import (
    Decided,
    RaceState,
    advance,
    combat_scenario,
    only_attackers,
    start,
    turn_document,
)
from ecs_combat.rules.result import TurnResult
from ecs_combat.scenario.model import Scenario
from ecs_combat.scenario.race import RaceScenario, RaceSettings
from ecs_combat.scenario.turn_loader import parse_turn
from ecs_combat.scenario.turns import TurnScenario
from ecs_combat.scenario.writer import scenario_document
from ecs_combat.simulation.card_draw import CardDrawn
from ecs_combat.simulation.generate import Drawn, Generator, draw_battles
from ecs_combat.simulation.spec import BattleSpec, RaceSpec

I64 = np.int64
#: The players of a drawn board: A attacks in the drawn combat, so A takes the first turn.
FIRST = "A"
#: Tally columns of a race SPEC, per matchup: races, races won by the attacking side (A),
#: lost by it (B won), drawn (nobody won: the turn limit came, or both lost), and the turns
#: played summed over the races A won and over those B won.
RACE_COLUMNS = (
    "races",
    "race_wins",
    "race_losses",
    "race_draws",
    "turns_to_win",
    "turns_to_lose",
)


class TurnsResolver(Protocol):
    """An engine resolving many turns at once (both engines have ``resolve_turns``)."""

    def resolve_turns(self, turns: Sequence[TurnScenario]) -> list[TurnResult]:
        """Resolve each turn."""
        ...


def race_scenario(scenario: Scenario, race: RaceSpec, k: int) -> RaceScenario:
    """Drawn board `k` (its players and creatures; its declarations are not used) as the race
    of a SPEC's ``[race]``: player A first, drawn decisions seeded for race `k`."""
    settings = RaceSettings(FIRST, race.turns, race.decisions, race.horizon, race.race_seed(k))
    return RaceScenario(scenario.file, scenario.players, scenario.creatures, settings)


class RacePlayer:
    """Plays many races together (see the module's docstring), counting the combats played
    and the candidate combats the searches resolved to decide them."""

    def __init__(self, registry: Registry, engine: TurnsResolver) -> None:
        self.registry = registry
        self.engine = engine
        #: Combat phases played, over every race played.
        self.combats_played = 0
        #: Candidate combats resolved by the searches that chose them.
        self.combats_resolved = 0
        #: Combat phases declared as an earlier one on the same board was (:meth:`decide`).
        self.combats_recalled = 0
        #: Each board's declarations as the optimal per-combat policy chose them, by board.
        self._known: dict[str, Decided] = {}
        #: The per-combat optimal policy that searches the boards of those races together.
        self._searcher = OptimalPolicy(registry)

    def play(self, races: Sequence[RaceScenario]) -> list[RaceState]:
        """Each race played to its end (the final states, in order)."""
        registry = self.registry
        policies = [policy_for(r, registry) for r in races]
        states = [start(r, registry) for r in races]
        running = [i for i, s in enumerate(states) if not s.over]
        while running:
            chosen = self.decide([states[i] for i in running], [policies[i] for i in running])
            turns = [
                parse_turn(
                    turn_document(states[i], registry, (*states[i].declared, d)),
                    registry,
                    states[i].race.file,
                )
                for i, d in zip(running, chosen, strict=True)
            ]
            results = self.engine.resolve_turns(turns)
            for i, d, result in zip(running, chosen, results, strict=True):
                states[i] = advance(states[i], d, result, registry)
            self.combats_played += len(running)
            running = [i for i in running if not states[i].over]
        self._known.clear()
        self.combats_resolved += sum(
            p.combats_resolved for p in [*policies, self._searcher] if isinstance(p, OptimalPolicy)
        )
        self._searcher = OptimalPolicy(registry)
        return states

    def decide(self, states: Sequence[RaceState], policies: Sequence[Policy]) -> list[Decided]:
        """The current combat phase's declarations of each race (its policy's, both sides').
        One call for all the races of a step: the races with the per-combat optimal policy
        are searched together (:meth:`OptimalPolicy.attacks`, the decisions each gets
        alone); the others one by one. With the per-combat horizon a decision depends on the
        combat's board alone (RULES section 9), so a board seen before, in this race or
        another (two players holding back turn after turn), is declared as it was then."""
        out: list[Decided | None] = []
        asked: dict[str, list[int]] = {}  # boards to search: their places in `out`
        searched: list[RaceState] = []
        for s, p in zip(states, policies, strict=True):
            if not self._recallable(s, p):
                out.append(decide(s, {pid: p for pid in s.race.players}))
                continue
            key = self._board_key(s)
            known = self._known.get(key)
            if known is not None or key in asked:
                self.combats_recalled += 1
            if key in asked:
                asked[key].append(len(out))
            elif known is None:
                asked[key] = [len(out)]
                searched.append(s)
            out.append(known)
        decided = self._searcher.attacks(searched)
        for (key, places), chosen in zip(asked.items(), decided, strict=True):
            self._known[key] = chosen
            for i in places:
                out[i] = chosen
        return [d for d in out if d is not None]

    @staticmethod
    def _recallable(state: RaceState, policy: Policy) -> bool:
        """Whether the race's decision depends on its combat's board alone: the optimal
        policy looking one combat ahead."""
        return (
            isinstance(policy, OptimalPolicy)
            and policy.horizon == "combat"
            and policy.clock.seconds is None
        )

    def _board_key(self, state: RaceState) -> str:
        """The current combat as it begins (the attacking player first, every creature's
        state), and the creatures that may attack in it, as text."""
        scenario = combat_scenario(state, self.registry)
        board = scenario_document(scenario, self.registry)
        del board["combat"]
        cards = [c.card for c in scenario.creatures.values()]
        only = only_attackers(state)
        return json.dumps([board, cards, None if only is None else sorted(only)])


#: A card's side in a race (card pools): its side moved first (the drawn attacking side, A)
#: or second (B).
ORDERS = ("first", "second")


def race_card_counts(played: PlayedChunk, n_cards: int) -> npt.NDArray[np.int64]:
    """[card, order, :data:`RACE_COLUMNS`] the races of a chunk counted per creature
    row, for its card, from its side (a card twice on a board counts twice)."""
    drawn = played.drawn
    assert isinstance(drawn, CardDrawn)
    battle = drawn.batch.battle
    # each race from A's side: its result (0 won, 1 lost, 2 drawn) and turns played
    result = np.array(
        [0 if s.winner == FIRST else 2 if s.winner is None else 1 for s in played.states], I64
    )
    turns = np.array([len(s.history) for s in played.states], I64)
    order = (~drawn.attacking_side).astype(I64)  # 0: A's creature, 1: B's
    mine = result[battle]
    mine = np.where((order == 1) & (mine < 2), 1 - mine, mine)  # B's side sees it reversed
    key = drawn.card * 2 + order
    size = n_cards * 2
    out = np.zeros((size, len(RACE_COLUMNS)), I64)
    out[:, 0] = np.bincount(key, minlength=size)
    for column, outcome in ((1, 0), (2, 1), (3, 2)):
        out[:, column] = np.bincount(key[mine == outcome], minlength=size)
    out[:, 4] = np.bincount(key[mine == 0], weights=turns[battle][mine == 0], minlength=size)
    out[:, 5] = np.bincount(key[mine == 1], weights=turns[battle][mine == 1], minlength=size)
    return out.reshape(n_cards, 2, len(RACE_COLUMNS))


def race_counts(
    states: Sequence[RaceState], attacker_code: npt.NDArray[Any], blocker_code: npt.NDArray[Any]
) -> dict[tuple[int, int], npt.NDArray[np.int64]]:
    """The :data:`RACE_COLUMNS` counts of finished races, per matchup (attacker code, blocker
    code)."""
    counts: dict[tuple[int, int], npt.NDArray[np.int64]] = {}
    for s, a, b in zip(states, attacker_code.tolist(), blocker_code.tolist(), strict=True):
        row = counts.setdefault((int(a), int(b)), np.zeros(len(RACE_COLUMNS), I64))
        turns = len(s.history)
        row[0] += 1
        if s.winner == FIRST:
            row[1] += 1
            row[4] += turns
        elif s.winner is not None:
            row[2] += 1
            row[5] += turns
        else:
            row[3] += 1
    return counts


@dataclass(frozen=True)
class PlayedChunk:
    """Races ``start`` to ``stop - 1`` of a run, played (:func:`play_chunk`)."""

    #: The boards as drawn.
    drawn: Drawn
    #: Each race's final state, in order.
    states: list[RaceState]
    #: The :data:`RACE_COLUMNS` counts per matchup.
    counts: dict[tuple[int, int], npt.NDArray[np.int64]]
    #: The player that played them (its counts of combats).
    player: RacePlayer
    #: Seconds spent playing them.
    seconds: float


def play_chunk(
    generator: Generator, engine: TurnsResolver, seed: int, start: int, stop: int
) -> PlayedChunk:
    """Races ``start`` to ``stop - 1`` of the run with `seed`, played together."""
    spec = generator.spec
    assert isinstance(spec, BattleSpec) and spec.race is not None
    registry = generator.bits.registry
    drawn = draw_battles(generator, seed, start, stop)
    races = []
    for k, scenario in enumerate(batch_to_scenarios(drawn.batch, registry), start=start):
        scenario.file = f"battle {k}"
        races.append(race_scenario(scenario, spec.race, k))
    began = time.perf_counter()
    player = RacePlayer(registry, engine)
    states = player.play(races)
    seconds = time.perf_counter() - began
    counts = race_counts(states, drawn.attacker_code, drawn.blocker_code)
    return PlayedChunk(drawn, states, counts, player, seconds)


#: Columns of the per-race table (``--out FILE.csv``): the race (its battle number), the
#: matchup labels, who won (``A``, ``B``, or empty: nobody), the turns played, and each
#: player's life as the race ended.
RACE_TABLE_COLUMNS = (
    "battle",
    "attacker",
    "blocker",
    "winner",
    "turns_played",
    "life_a",
    "life_b",
)
#: The ``winner`` column's codes as written: A, B, nobody.
WINNERS = ("A", "B", "")


def race_table(played: PlayedChunk, start: int, stop: int) -> dict[str, npt.NDArray[Any]]:
    """The per-race table of played races (:data:`RACE_TABLE_COLUMNS`; matchups and winners
    as codes: ``winner`` indexes :data:`WINNERS`)."""
    states = played.states
    return {
        "battle": np.arange(start, stop, dtype=I64),
        "attacker": played.drawn.attacker_code,
        "blocker": played.drawn.blocker_code,
        "winner": np.array([WINNERS.index(s.winner or "") for s in states], I64),
        "turns_played": np.array([len(s.history) for s in states], I64),
        "life_a": np.array([s.final_players["A"].life for s in states], I64),
        "life_b": np.array([s.final_players["B"].life for s in states], I64),
    }


def died_in_races(played: PlayedChunk) -> npt.NDArray[np.bool_]:
    """Per drawn creature (row), whether it died in its race (it was gone at the end: a
    persist creature that returned did not die for good)."""
    died = [not state.seen[cid].alive for state in played.states for cid in state.race.creatures]
    return np.array(died, np.bool_)


__all__ = [
    "FIRST",
    "ORDERS",
    "RACE_COLUMNS",
    "RACE_TABLE_COLUMNS",
    "WINNERS",
    "PlayedChunk",
    "RacePlayer",
    "died_in_races",
    "play_chunk",
    "race_card_counts",
    "race_counts",
    "race_scenario",
    "race_table",
]
