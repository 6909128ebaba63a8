"""The two-combat horizon (RULES section 12) against a brute force: every attack and every
block of this combat played as a race turn on the reference engine, the next combat solved by
section 9's search from the board the race leaves, the scores summed by hand; minimax over it
all. The turns are played on each engine in turn. The horizon itself searches on the batched engine, leaves valued through the search tree
(decisions/horizon.py), so the two share only section 9's one-combat search.

The boards keep combat 1 free of damage divisions (the defending player has one creature, no
trample), so brute force needs no division search."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ecs_combat.api_races
from ecs_combat.decisions.attacks import best_attacks
from ecs_combat.decisions.horizon import TwoCombats
from ecs_combat.decisions.race import attack_options, block_options
from ecs_combat.plugin.registry import Registry
from ecs_combat.rules.race import Decided, Declaration, RaceState, combat_scenario, play, start
from ecs_combat.scenario.race import parse_race

TERMS = ("game", "material", "life", "poison")
KEYWORDS = ["flying", "first strike", "deathtouch", "vigilance", "lifelink", "reach", "defender"]


def brute_force(state: RaceState, registry: Registry, engine: str) -> tuple[int, ...]:
    """The two-combat minimax value of the current combat, for its attacking player, each
    candidate turn played on `engine`."""
    resolve = ecs_combat.api_races.turn_resolver(engine, registry)
    me, them = state.attacking_player, state.defending_player
    value = {c: s.value if s.value is not None else s.power + s.toughness
             for c, s in state.creatures.items()}  # fmt: skip
    best: tuple[int, ...] | None = None
    for attack in attack_options(state, registry):
        worst: tuple[int, ...] | None = None
        for blocks in block_options(state, attack, registry):
            after = play(state, Decided(Declaration(attack, blocks)), registry, resolve)
            result = after.history[-1].result
            died = {c for c, o in result.creatures.items() if not o.alive}
            lost = {p for p, o in result.players.items() if o.lost}
            material = sum(value[c] for c in died if state.creatures[c].controller == them)
            material -= sum(value[c] for c in died if state.creatures[c].controller == me)
            life = state.players[them].life - result.players[them].life
            life -= state.players[me].life - result.players[me].life
            game = (them in lost) - (me in lost)
            total = [game, material, life, 0]
            if not lost:  # the opponent's next combat, from its own side
                nxt = best_attacks(combat_scenario(after, registry), registry, top=1)
                total = [total[i] - nxt.best[0].score[t] for i, t in enumerate(TERMS)]
            if worst is None or tuple(total) < worst:
                worst = tuple(total)
        assert worst is not None
        if best is None or worst > best:
            best = worst
    assert best is not None
    return best


def side(draw: st.DrawFn, controller: str, n: int) -> dict[str, dict[str, Any]]:
    out = {}
    for i in range(n):
        out[f"{controller.lower()}{i}"] = {
            "controller": controller,
            "power": draw(st.integers(0, 4)),
            "toughness": draw(st.integers(1, 4)),
            "keywords": draw(st.lists(st.sampled_from(KEYWORDS), max_size=2, unique=True)),
        }
    return out


@st.composite
def boards(draw: st.DrawFn) -> dict[str, Any]:
    creatures = side(draw, "A", draw(st.integers(1, 3))) | side(draw, "B", 1)
    return {
        "players": {"A": {"life": draw(st.integers(1, 8))}, "B": {"life": draw(st.integers(1, 8))}},
        "creatures": creatures,
        "race": {"horizon": "two combats"},
    }


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=boards())
def test_the_horizon_is_the_brute_force_minimax(
    registry: Registry, engine: str, doc: dict[str, Any]
) -> None:
    state = start(parse_race(doc, registry, "race.toml"), registry)
    decided = TwoCombats(registry).decide(state)
    assert decided.optimal and decided.score is not None
    assert tuple(decided.score[t] for t in TERMS) == brute_force(state, registry, engine)
