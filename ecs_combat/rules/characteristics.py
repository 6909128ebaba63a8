"""A creature's characteristics as attackers and as blockers are declared, and the legality of
a scenario's declarations judged from them (RULES 4): what the scenario reader and the
decisions read.

The creatures as the scenario gives them are their characteristics at both declarations
unless a plugin says otherwise: a static ability (``static_keywords``) of a keyword some
creature has, or a ``declare-attackers`` system of one (``System.keywords``; those that only
change which attackers tap, ``only_writes`` ``taps``, when the caller reads no attacker's
tapped). Then the systems' parts (``System.before_blocks``: data and pure functions of
the characteristics) say what they change (:mod:`ecs_combat.rules.before_blocks`); where a
system has none, or the parts can't say it exactly, the combat is played to the declaration
of blockers by an engine (a :class:`~ecs_combat.rules.declaring.DeclarationPlayer` the
caller names: the batched engine's). Each side is a
:class:`~ecs_combat.rules.sides.KeywordSide`, which :mod:`ecs_combat.rules.legality` reads.
"""

from __future__ import annotations

from ecs_combat.plugin.registry import Registry
from ecs_combat.rules.before_blocks import from_parts
from ecs_combat.rules.declaring import DeclarationPlayer, Declared
from ecs_combat.rules.legality import check_declarations
from ecs_combat.rules.sides import KeywordSide, spec_side
from ecs_combat.rules.usage import attack_system_keywords, static_ability_keywords
from ecs_combat.scenario.model import Scenario


def at_declare_blockers(
    scenario: Scenario,
    registry: Registry,
    player: DeclarationPlayer,
    attackers_tapped: bool = True,
) -> Declared:
    """The creatures as attackers and as blockers are declared, which are tapped then, and
    the block requirements the attack triggers made. Without `attackers_tapped` the caller
    reads only whether the defending player's creatures are tapped, not which attackers
    tapped (``tapped`` may then leave attackers out). When a plugin may change a creature
    first (:func:`may_change`), the plugins' parts say how
    (:func:`~ecs_combat.rules.before_blocks.from_parts`); where they can't, the engine
    `player` plays the combat."""
    if not may_change(scenario, registry, attackers_tapped):
        return as_given(scenario, registry)
    found = from_parts(scenario, registry, attackers_tapped)
    return found if found is not None else player(scenario, registry, attackers_tapped)


def sides_at_declare_blockers(
    scenario: Scenario, registry: Registry, player: DeclarationPlayer
) -> dict[str, KeywordSide]:
    """Every creature of the scenario, by id, as blockers are declared: after the scenario's
    attackers (``scenario.attackers``) are declared and the declare-attackers step's systems
    have run. Its blockers are not read."""
    return at_declare_blockers(scenario, registry, player).blocking


def check_declarations_now(
    scenario: Scenario, registry: Registry, player: DeclarationPlayer, blocks: bool = True
) -> None:
    """Raise :class:`~ecs_combat.errors.InputError` for the first illegal attack or block of
    a one-combat scenario, with the creatures as attackers are declared (the combat begins:
    counters and static abilities count) and as blockers are declared; without `blocks`, of
    the attacks only."""
    at = at_declare_blockers(scenario, registry, player)
    check_declarations(
        scenario,
        registry,
        blocking=at.blocking,
        attacking=at.attacking,
        blocks=blocks,
        tapped_at_blocks=at.tapped,
        made=at.made,
        gone=at.gone,
    )


def as_given(scenario: Scenario, registry: Registry) -> Declared:
    """The creatures as the scenario gives them, at both declarations (nothing changes them
    before: :func:`may_change` is false)."""
    sides = {
        cid: spec_side(spec, registry, scenario.players[spec.controller].lands)
        for cid, spec in scenario.creatures.items()
    }
    tapped = {cid for cid, spec in scenario.creatures.items() if spec.tapped}
    return Declared(sides, sides, tapped)


def may_change(scenario: Scenario, registry: Registry, attackers_tapped: bool = True) -> bool:
    """Whether static abilities or the declare-attackers step's systems may make a creature
    differ from how the scenario declares it (without `attackers_tapped`: other than which
    attackers tap), by the keywords the plugins give their systems and static abilities."""
    present = {k for spec in scenario.creatures.values() for k in (*spec.keywords, *spec.counters)}
    static = static_ability_keywords(registry)
    if static is None or not static.isdisjoint(present):
        return True
    if not scenario.attackers:
        return False
    attack = attack_system_keywords(registry, attackers_tapped)
    return attack is None or not attack.isdisjoint(present)
