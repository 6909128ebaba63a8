"""Turns built in tests from combat scenarios (TurnScenario), without a turn-file loader: one
combat document per combat phase, sharing the turn's players and creatures, and the phases
from the turn schedule (RULES.md section 8)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from ecs_combat import CastInMain, Registry, parse_scenario
from ecs_combat.plugin.phases import COMBAT
from ecs_combat.rules.turn_schedule import schedule
from ecs_combat.scenario.turns import TurnScenario


def build_turn(
    registry: Registry,
    players: dict[str, dict[str, Any]],
    creatures: dict[str, dict[str, Any]],
    combats: Sequence[dict[str, Any]] = (),
    active: str | None = None,
    casts: Sequence[CastInMain] = (),
    file: str = "turn.toml",
) -> TurnScenario:
    """A turn: `creatures` may name a ``card`` (kept as ``CreatureSpec.card``); each entry of
    `combats` holds ``attackers``, ``blockers`` and ``events`` of one combat phase in order."""
    cards = {cid: c.get("card") for cid, c in creatures.items()}
    plain = {cid: {k: v for k, v in c.items() if k != "card"} for cid, c in creatures.items()}
    base = parse_scenario({"players": players, "creatures": plain}, registry, file)
    specs = {
        cid: dataclasses.replace(spec, card=cards[cid]) for cid, spec in base.creatures.items()
    }
    order = list(players)
    active = active or order[0]
    phases = schedule(order, active, specs, list(casts), registry.phase_rules)
    combat_phases = [p for p in phases if p.kind == COMBAT]
    scenarios = []
    entered: dict[str, dict[str, Any]] = {}  # creatures entering in earlier combats, for parsing
    for k, phase in enumerate(combat_phases):
        entry = combats[k] if k < len(combats) else {}
        seated = {phase.player: players[phase.player]}
        seated.update({p: v for p, v in players.items() if p != phase.player})
        doc: dict[str, Any] = {
            "players": seated,
            "creatures": {**plain, **entered},
            "combat": {
                "attackers": entry.get("attackers", {}),
                "blockers": entry.get("blockers", {}),
            },
        }
        if entry.get("divide"):
            doc["combat"]["divide"] = entry["divide"]
        if entry.get("events"):
            doc["events"] = entry["events"]
        sc = parse_scenario(doc, registry, file)
        for ev in entry.get("events", []):
            if ev.get("action") == "enter":
                new = {key: v for key, v in ev["creature"].items() if key != "id"}
                entered[ev["creature"]["id"]] = new
        scenarios.append(dataclasses.replace(sc, players=base.players, creatures=specs))
    return TurnScenario(
        file=file,
        players=base.players,
        creatures=specs,
        active=active,
        phases=phases,
        combats=scenarios,
        casts=list(casts),
    )
