"""A scenario's declarations read by the :class:`~ecs_combat.scenario.loader.Parser`: the
attackers and the players they attack, the blockers and the attackers they block, and the
divisions of damage (``combat.attackers``, ``combat.blockers``, ``combat.divide``), each
error naming its place."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ecs_combat.scenario.checks import type_name
from ecs_combat.scenario.model import Division, Scenario

if TYPE_CHECKING:
    from ecs_combat.scenario.loader import Parser


def parse_attackers(p: Parser, raw: Any) -> dict[str, str]:
    """``combat.attackers``: each attacker of the active player's and the player it attacks."""
    table = p.c.table(raw, "combat.attackers")
    out: dict[str, str] = {}
    for cid, defender in table.items():
        path = f"combat.attackers.{cid}"
        spec = p.creatures.get(cid)
        if spec is None:
            raise p.c.fail(path, f"unknown creature {cid!r}")
        pid = p.player_ref(defender, path)
        if pid == spec.controller:
            raise p.c.fail(path, f"{cid!r} can't attack its own controller {pid!r}")
        if spec.controller != next(iter(p.players)):
            raise p.c.fail(
                path,
                f"{cid!r} is controlled by {spec.controller!r}, but only the active "
                f"player {next(iter(p.players))!r} attacks (506.2)",
            )
        out[cid] = pid
    return out


def parse_blockers(p: Parser, raw: Any, attackers: dict[str, str]) -> dict[str, tuple[str, ...]]:
    """``combat.blockers``: each blocker and the attackers it blocks (509.1a)."""
    table = p.c.table(raw, "combat.blockers")
    out: dict[str, tuple[str, ...]] = {}
    for cid, value in table.items():
        path = f"combat.blockers.{cid}"
        spec = p.creatures.get(cid)
        if spec is None:
            raise p.c.fail(path, f"unknown creature {cid!r}")
        if cid in attackers:
            raise p.c.fail(path, f"{cid!r} is attacking and can't block")
        targets = [value] if isinstance(value, str) else p.c.string_list(value, path)
        if not targets:
            raise p.c.fail(path, "a blocker must block at least one attacker")
        if len(set(targets)) != len(targets):
            raise p.c.fail(path, "the same attacker is listed twice")
        for attacker in targets:
            if attacker not in attackers:
                known = "an unknown creature" if attacker not in p.creatures else "not attacking"
                raise p.c.fail(path, f"{attacker!r} is {known}")
            if attackers[attacker] != spec.controller:
                raise p.c.fail(
                    path,
                    f"{cid!r} is controlled by {spec.controller!r}, but {attacker!r} "
                    f"attacks {attackers[attacker]!r} (509.1a)",
                )
        out[cid] = tuple(targets)
    return out


def parse_divisions(p: Parser, raw: Any, scenario: Scenario) -> list[Division]:
    """``combat.divide``: how a source's damage is divided in a step (510.1)."""
    if not isinstance(raw, list):
        raise p.c.fail("combat.divide", f"must be a list of tables, not {type_name(raw)}")
    seen: set[tuple[str, str]] = set()
    out: list[Division] = []
    step_names = p.registry.step_names
    all_creatures = set(p.creatures) | {
        e.creature.id for e in scenario.events if e.creature is not None
    }
    for i, item in enumerate(raw):
        path = f"combat.divide[{i}]"
        t = p.c.table(item, path)
        p.c.keys(t, path, {"step", "source", "amounts"})
        for required in ("step", "source", "amounts"):
            if required not in t:
                raise p.c.fail(f"{path}.{required}", "missing")
        step = p.c.string(t["step"], f"{path}.step")
        if step not in step_names:
            raise p.c.fail(
                f"{path}.step", f"unknown damage step {step!r} (known: {', '.join(step_names)})"
            )
        source = p.c.string(t["source"], f"{path}.source")
        if source not in all_creatures:
            raise p.c.fail(f"{path}.source", f"unknown creature {source!r}")
        if (step, source) in seen:
            raise p.c.fail(path, f"a second division for {source!r} in the {step} step")
        seen.add((step, source))
        # a band is blocked as one where a plugin says so (702.22h): its members' blockers
        if source in scenario.attackers:
            band = scenario.band_of(source)
            allowed = {b for a in band for b in scenario.blockers_of(a)}
            allowed.add(scenario.attackers[source])
        elif source in scenario.blockers:
            allowed = {m for a in scenario.blockers[source] for m in scenario.band_of(a)}
        else:
            raise p.c.fail(f"{path}.source", f"{source!r} is neither attacking nor blocking")
        table = p.c.table(t["amounts"], f"{path}.amounts")
        amounts: dict[str, int] = {}
        for rid, amount in table.items():
            where = f"{path}.amounts.{rid}"
            if rid not in allowed:
                raise p.c.fail(
                    where,
                    f"{source!r} can assign damage only to "
                    f"{', '.join(sorted(allowed)) or 'nobody'}, not {rid!r} (510.1)",
                )
            amounts[rid] = p.c.integer(amount, where, 0)
        out.append(Division(step, source, amounts, path))
    return out
