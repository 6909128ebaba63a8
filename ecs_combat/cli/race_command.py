"""``ecs-combat race FILE``: a race played to its end (RULES section 12, CONTRACT section 9),
as JSON or as a readable account, turn by turn."""

from __future__ import annotations

import json
import time
from typing import Any

import click
from rich.console import Console

from ecs_combat.api_races import race
from ecs_combat.cli.decide_command import terms_legend
from ecs_combat.console import is_plain, print_line, shown
from ecs_combat.console.turn_account import render_turn
from ecs_combat.plugin.registry import Registry
from ecs_combat.reference.narration import Narrator
from ecs_combat.rules.race import RaceState
from ecs_combat.scenario.race import load_race
from ecs_combat.scenario.turn_loader import parse_turn


def run_race(
    registry: Registry,
    file: str,
    engine: str,
    as_json: bool,
    budget: float | None,
    console: Console,
) -> None:
    """Play the race in FILE and print it."""
    began = time.perf_counter()
    state = race(load_race(file, registry), registry, engine=engine, budget=budget)
    seconds = time.perf_counter() - began
    if as_json:
        click.echo(json.dumps(race_json(state, engine, seconds), indent=2))
        return
    render_race(state, registry, console)


def race_json(state: RaceState, engine: str, seconds: float) -> dict[str, Any]:
    """The JSON document of CONTRACT section 9."""
    decided = [d for t in state.history for d in t.decided]
    optimal = state.settings.decisions == "optimal" and all(d.optimal for d in decided)
    out: dict[str, Any] = {
        "race": state.settings.to_json(),
        "winner": state.winner,
        "turns_played": len(state.history),
        "optimal": optimal,
    }
    reasons = [d.reason for d in decided if d.reason]
    if reasons:
        out["reason"] = reasons[0]
    out["turns"] = [
        {
            "turn": t.number,
            "player": t.player,
            "phases": [p.to_json() for p in t.result.phases],
            "combats": [
                {**c.to_json(), "decided": d.to_json()}
                for c, d in zip(t.result.combats, t.decided, strict=True)
            ],
            "skipped_phases": [p.to_json() for p in t.result.skipped_phases],
        }
        for t in state.history
    ]
    last = state.history[-1].result.to_json() if state.history else {"players": {}}
    out["players"] = last["players"]
    out["creatures"] = {
        cid: {
            "alive": c.alive,
            "damage": c.damage,
            "power": c.power,
            "toughness": c.toughness,
            "counters": dict(c.counters),
            **c.state,
        }
        for cid, c in state.seen.items()
    }
    out["run"] = {"engine": engine, "seconds": round(seconds, 6)}
    return out


def render_race(state: RaceState, registry: Registry, console: Console) -> None:
    """The readable account: each turn's declarations and what happened, as ``resolve``
    shows a turn, then who won (the batched engine's turns worded by the reference engine, as
    ``resolve`` words them)."""
    narrator = Narrator(registry)
    s = state.settings
    horizon = f", horizon {s.horizon}" if s.decisions == "optimal" else f", seed {s.seed}"
    print_line(
        console,
        f"A race of at most {s.turns} turns, {shown(s.first)} first; decisions {s.decisions}"
        f"{horizon}",
    )
    for t in state.history:
        _rule(console, f"turn {t.number}: {shown(t.player)}'s turn")
        for c, d in zip(t.result.combats, t.decided, strict=True):
            dec = d.declaration
            attacks = ", ".join(f"{shown(a)} -> {shown(p)}" for a, p in dec.attackers.items())
            blocks = ", ".join(
                f"{shown(b)} blocks {shown(a if isinstance(a, str) else ', '.join(a))}"
                for b, a in dec.blockers.items()
            )
            score = (
                ""
                if d.score is None
                else " (score " + ", ".join(f"{k} {v}" for k, v in d.score.items()) + ")"
            )
            print_line(
                console,
                f"{shown(c.player)} attacks with {attacks or 'nothing'}; "
                f"blocks: {blocks or 'none'}{score}",
            )
        turn = parse_turn(t.document, registry, state.race.file)
        told = t.result if t.result.worded else narrator.turn(turn, t.result)
        render_turn(turn, told, console)
    if state.winner is not None:
        end = f"{shown(state.winner)} wins after {len(state.history)} turns"
    elif state.history and any(p.lost for p in state.history[-1].result.players.values()):
        end = f"both players lost in turn {len(state.history)}: a draw"
    else:
        end = f"nobody won within {s.turns} turns"
    _rule(console, end)
    lives = ", ".join(f"{shown(p)} {o.life}" for p, o in state.final_players.items())
    print_line(console, f"life: {lives}")
    terms = next((list(d.score) for t in state.history for d in t.decided if d.score), None)
    if terms:  # what the declarations' scores mean, as `attacks` says under its table
        print_line(console, terms_legend("the attacking player", "the defender", terms, registry))


def _rule(console: Console, text: str) -> None:
    if is_plain(console):
        print_line(console, f"== {text} ==")
    else:
        console.rule(text)
