"""The creatures as blockers are declared, from the plugins' parts (RULES 4): each
``declare-attackers`` system's :class:`~ecs_combat.plugin.before_blocks.BeforeBlocks`
evaluated on the board as attackers are declared, no engine played.

:func:`from_parts` answers only when that is exact: no static ability of a keyword on the
board, every system that may change a creature there with a part, every part saying its
changes, none reading what some part changes (they are all read from one board, so their
order cannot matter), no keyword counter put (it changes keywords, which every part reads)
no toughness lowered (a creature could die before blocks, 704.5f), no state-based action of
a keyword on the board (checked after each trigger), and no ``dies`` system that may run for
a creature that leaves (a sacrifice: persist's return, legacy's counters).
Otherwise it answers None and the caller asks an engine.
"""

from __future__ import annotations

import dataclasses

from ecs_combat.plugin.before_blocks import BeforeBlocks, Changes, DeclaredAttack
from ecs_combat.plugin.registry import Registry
from ecs_combat.rules.declaring import Declared
from ecs_combat.rules.sides import KeywordSide, spec_side
from ecs_combat.rules.usage import static_ability_keywords
from ecs_combat.scenario.model import Scenario


def declared_attack(scenario: Scenario, registry: Registry) -> DeclaredAttack:
    """The scenario's board as its attackers are declared, as the parts read it."""
    kinds = registry.counter_kinds
    power, toughness = {}, {}
    for cid, spec in scenario.creatures.items():
        counted = [(kinds[k], n) for k, n in spec.counters.items() if k in kinds]
        power[cid] = spec.power + sum(kind.power * n for kind, n in counted)
        toughness[cid] = spec.toughness + sum(kind.toughness * n for kind, n in counted)
    return DeclaredAttack(
        creatures=tuple(scenario.creatures),
        controller={cid: spec.controller for cid, spec in scenario.creatures.items()},
        attacks=dict(scenario.attackers),
        power=power,
        toughness=toughness,
        keywords={
            cid: (
                *zip(spec.keywords, spec.parameters, strict=True),
                *((k, None) for k, n in spec.counters.items() if n > 0 and k not in kinds),
            )
            for cid, spec in scenario.creatures.items()
        },
        targets={cid: dict(spec.targets) for cid, spec in scenario.creatures.items()},
        life={pid: player.life for pid, player in scenario.players.items()},
        value={
            cid: spec.power + spec.toughness if spec.value is None else spec.value
            for cid, spec in scenario.creatures.items()
        },
        sacrifices=dict(scenario.sacrifices),
    )


def parts_at_declaration(
    scenario: Scenario, registry: Registry, attackers_tapped: bool = True
) -> list[BeforeBlocks] | None:
    """The parts of the ``declare-attackers`` systems that may change a creature of the
    scenario (without `attackers_tapped`: other than which attackers tap), in the order
    they run; None if one has no part or a static ability of a keyword there may change one."""
    present = {k for spec in scenario.creatures.values() for k in (*spec.keywords, *spec.counters)}
    static = static_ability_keywords(registry)
    if static is None or not static.isdisjoint(present):
        return None
    parts = []
    for scheduled in registry.systems_at("declare-attackers"):
        system = scheduled.system
        if system.keywords and system.keywords.isdisjoint(present):
            continue
        if system.only_writes and (
            not system.writes or (not attackers_tapped and system.writes <= {"taps"})
        ):
            continue
        if system.before_blocks is None:
            return None
        parts.append(system.before_blocks)
    return parts


def from_parts(
    scenario: Scenario, registry: Registry, attackers_tapped: bool = True
) -> Declared | None:
    """The creatures as attackers and as blockers are declared, from the plugins' parts, or
    None where an engine must play the declaration (module docstring)."""
    parts = parts_at_declaration(scenario, registry, attackers_tapped)
    if parts is None:
        return None
    board = declared_attack(scenario, registry)
    total = Changes()
    for part in parts:
        found = part.changes(board)
        if found is None:
            return None
        total = total + found
    written = _written(total, scenario, registry)
    if written is None or any(part.reads & written for part in parts):
        return None
    if _keyword_systems_apply(scenario, registry, "state-based-actions", keywordless=False):
        return None
    if total.leave and _keyword_systems_apply(scenario, registry, "dies", keywordless=True):
        return None
    return _applied(total, scenario, registry)


def _keyword_systems_apply(
    scenario: Scenario, registry: Registry, point: str, keywordless: bool
) -> bool:
    """Whether a system at `point` runs for a keyword of the scenario (or, with
    `keywordless`, names none and runs for every creature). The engines run the
    state-based actions after each attack trigger and the ``dies`` systems for a creature
    sacrificed: what a keyword's does then (persist's return, legacy's counters) only an
    engine knows. The keywordless state-based actions (704.5h deathtouch, 704.5c poison,
    704.5q counters) change nothing before blocks that a part does not say."""
    present = {k for spec in scenario.creatures.values() for k in (*spec.keywords, *spec.counters)}
    return any(
        (keywordless and not s.system.keywords) or not s.system.keywords.isdisjoint(present)
        for s in registry.systems_at(point)
    )


def _written(changes: Changes, scenario: Scenario, registry: Registry) -> set[str] | None:
    """What of :data:`~ecs_combat.plugin.before_blocks.READABLE` the changes write; None if
    they name an unknown creature or counter kind, put a keyword counter or lower a
    toughness."""
    kinds = registry.counter_kinds
    named = {*changes.pump, *changes.counters, *changes.untap, *changes.leave}
    named |= {c for b, a, _ in changes.require for c in (b, a)}
    if not named <= scenario.creatures.keys():
        return None
    written = set()
    for p, t in changes.pump.values():
        if t < 0:
            return None
        written |= {"power"} if p else set()
        written |= {"toughness"} if t else set()
    for counters in changes.counters.values():
        for kind, n in counters.items():
            if kind not in kinds or n < 0 or kinds[kind].toughness < 0:
                return None
            if n:
                written.add("counters")
                written |= {"power"} if kinds[kind].power else set()
                written |= {"toughness"} if kinds[kind].toughness else set()
    if changes.untap:
        written.add("tapped")
    if changes.leave:
        written.add("battlefield")
    return written


def _applied(changes: Changes, scenario: Scenario, registry: Registry) -> Declared:
    """The scenario's creatures with the changes made, as blockers are declared."""
    kinds = registry.counter_kinds
    attacking: dict[str, KeywordSide] = {}
    blocking: dict[str, KeywordSide] = {}
    for cid, spec in scenario.creatures.items():
        side = spec_side(spec, registry, scenario.players[spec.controller].lands)
        attacking[cid] = side
        gain = changes.pump.get(cid, (0, 0))[0] + sum(
            kinds[k].power * n for k, n in changes.counters.get(cid, {}).items()
        )
        blocking[cid] = dataclasses.replace(side, power=side.power + gain) if gain else side
    tapped = {cid for cid, spec in scenario.creatures.items() if spec.tapped}
    tapped |= set(scenario.attackers)  # 508.1f
    tapped -= changes.untap
    return Declared(attacking, blocking, tapped, list(changes.require), set(changes.leave))
