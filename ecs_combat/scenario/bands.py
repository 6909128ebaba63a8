"""A scenario's ``combat.bands``: attackers that attack in a band (702.22c-d).

Each band is a list of attacker ids, all attacking the same player, no creature in two bands.
Which creatures may band together is a rule of the plugins: a band may have at most one
creature that no ``band`` restriction allows (702.22c: any number with banding, and up to one
without). What a band does in combat (blocked as one, who divides damage) is the plugins'.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ecs_combat.rules.sides import spec_side
from ecs_combat.scenario.checks import type_name
from ecs_combat.scenario.model import Scenario
from ecs_combat.suggest import did_you_mean

if TYPE_CHECKING:
    from ecs_combat.scenario.loader import Parser

KEY = "combat.bands"


def parse_bands(p: Parser, raw: Any, scenario: Scenario, path: str = KEY) -> list[tuple[str, ...]]:
    """The ``bands`` list, checked: lists of attacker ids, each attacker in one band at most,
    a band's attackers attacking one player (702.22d), at most one creature per band that
    no ``band`` restriction allows (702.22c)."""
    if not isinstance(raw, list):
        raise p.c.fail(path, f"must be a list of lists of attacker ids, not {type_name(raw)}")
    rules = p.registry.restrictions_of("band")
    seen: dict[str, int] = {}
    out: list[tuple[str, ...]] = []
    for i, item in enumerate(raw):
        where = f"{path}[{i}]"
        ids = p.c.string_list(item, where)
        if not ids:
            raise p.c.fail(where, "a band has at least one attacker")
        for cid in ids:
            if cid not in scenario.attackers:
                known = (
                    f"unknown creature {cid!r}{did_you_mean(cid, sorted(scenario.creatures))}"
                    if cid not in scenario.creatures
                    else f"{cid!r} is not attacking"
                )
                raise p.c.fail(where, f"{known}: a band is made of attackers (702.22c)")
            if cid in seen:
                what = "twice in this band" if seen[cid] == i else f"also in {path}[{seen[cid]}]"
                raise p.c.fail(where, f"{cid!r} is {what}: a creature attacks in one band")
            seen[cid] = i
        defenders = sorted({scenario.attackers[cid] for cid in ids})
        if len(defenders) > 1:
            raise p.c.fail(
                where,
                f"a band's creatures attack the same player, but these attack "
                f"{', '.join(defenders)} (702.22d)",
            )
        lands = scenario.players[scenario.attackers[ids[0]]].lands
        outside = [
            cid
            for cid in ids
            if not any(
                bool(r.test(spec_side(scenario.creatures[cid], p.registry, lands))) for r in rules
            )
        ]
        if len(outside) > 1:
            allowed = sorted({r.keyword for r in rules})
            rule = ", ".join(sorted({r.rule for r in rules})) or "702.22c"
            needs = " or ".join(allowed) if allowed else "a keyword that lets creatures band"
            raise p.c.fail(
                where,
                f"{', '.join(outside)} have no {needs}: a band has at most one creature "
                f"without it ({rule})",
            )
        out.append(tuple(ids))
    return out
