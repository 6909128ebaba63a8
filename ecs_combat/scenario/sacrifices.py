"""A scenario's top-level ``sacrifices`` (RULES 13): player -> the creature ids that player
chooses, in order, when an effect makes them sacrifice creatures (annihilator's trigger)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ecs_combat.scenario.model import Scenario
from ecs_combat.suggest import did_you_mean

if TYPE_CHECKING:
    from ecs_combat.scenario.loader import Parser

KEY = "sacrifices"


def parse_sacrifices(p: Parser, raw: Any, scenario: Scenario) -> dict[str, tuple[str, ...]]:
    """The ``sacrifices`` table: each id a creature its player controls as the combat
    begins, named once, and no more ids than the triggers that make that player sacrifice
    take (the sum of N of the instances of keywords with ``Keyword.defender_sacrifices`` on
    the creatures attacking the player)."""
    table = p.c.table(raw, KEY)
    out: dict[str, tuple[str, ...]] = {}
    for pid, value in table.items():
        path = f"{KEY}.{pid}"
        p.player_ref(pid, path)
        ids = p.c.string_list(value, path)
        for cid in ids:
            spec = scenario.creatures.get(cid)
            if spec is None:
                hint = did_you_mean(cid, sorted(scenario.creatures))
                raise p.c.fail(path, f"unknown creature {cid!r}{hint}")
            if spec.controller != pid:
                raise p.c.fail(path, f"{cid!r} is controlled by {spec.controller!r}, not {pid!r}")
        if len(set(ids)) < len(ids):
            twice = next(c for c in ids if ids.count(c) > 1)
            raise p.c.fail(path, f"{twice!r} is named twice: a creature is sacrificed once")
        taken = demanded(p, scenario, pid)
        if len(ids) > taken:
            raise p.c.fail(
                path,
                f"{len(ids)} creatures named, but the triggers that make {pid!r} sacrifice "
                f"take {taken}",
            )
        out[pid] = tuple(ids)
    return out


def demanded(p: Parser, scenario: Scenario, player: str) -> int:
    """How many creatures the attack triggers make a player sacrifice: N for each instance
    of a keyword with ``defender_sacrifices`` on a creature attacking that player."""
    total = 0
    for cid, defender in scenario.attackers.items():
        if defender != player:
            continue
        spec = scenario.creatures[cid]
        for name, parameter in zip(spec.keywords, spec.parameters, strict=True):
            kw = p.registry.keyword(name)
            if kw is not None and kw.defender_sacrifices and isinstance(parameter, int):
                total += parameter
    return total
