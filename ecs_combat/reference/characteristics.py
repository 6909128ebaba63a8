"""A creature's characteristics at a moment of the combat, read from the reference world: the
one source every legality check reads (RULES 4).

The scenario loader and the decision search (which enumerates block declarations) call
:func:`sides_at_declare_blockers` so that a block is legal exactly when the engines accept it:
the creatures as blockers are declared, after the declare-attackers step (exalted's +1/+1,
static abilities). Each side is a :class:`~ecs_combat.rules.sides.KeywordSide`, which the
functions of :mod:`ecs_combat.rules.legality` take.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import esper

from ecs_combat.plugin.definitions import color_mask
from ecs_combat.plugin.registry import Registry
from ecs_combat.reference.board import Board
from ecs_combat.reference.combat import Combat
from ecs_combat.reference.components import Attacking, Stats, Tapped
from ecs_combat.reference.views import EntitySide
from ecs_combat.reference.world import isolated_world
from ecs_combat.rules.legality import check_declarations
from ecs_combat.rules.requirements import MadeRequirement
from ecs_combat.rules.sides import KeywordSide, spec_side
from ecs_combat.rules.usage import attack_system_keywords, static_ability_keywords
from ecs_combat.scenario.model import Scenario


def side_now(board: Board, entity: int) -> KeywordSide:
    """A creature of the reference world as it is now: its keywords (printed, granted,
    counters and static abilities), their instances, its colors and power."""
    instances = [
        (keyword, parameter)
        for keyword in sorted(board.keywords(entity))
        for parameter in board.instances(entity, keyword)
    ]
    power = esper.component_for_entity(entity, Stats).power
    seen = EntitySide(board, entity)
    return KeywordSide(
        instances,
        color_mask(board.colors(entity)),
        power=power,
        type_bits=seen.types,
        land_bits=seen.lands,
    )


def sides_at_declare_blockers(scenario: Scenario, registry: Registry) -> dict[str, KeywordSide]:
    """Every creature of the scenario, by id, as blockers are declared: after the scenario's
    attackers (``scenario.attackers``) are declared and the declare-attackers step's systems
    (attack triggers such as exalted) have run. Call it once per attack declaration; its
    blockers are not read. Raises :class:`~ecs_combat.errors.InputError` for a creature with
    lethal damage as the combat begins (704.5g)."""
    return _declaration_sides(scenario, registry).blocking


def at_declare_blockers(
    scenario: Scenario, registry: Registry, attackers_tapped: bool = True
) -> Declared:
    """The creatures as blockers are declared (:func:`sides_at_declare_blockers`), which are
    tapped then, and the block requirements the attack triggers made. Without
    `attackers_tapped` the caller reads only whether the defending player's creatures are
    tapped, not which attackers tapped (``tapped`` may then leave attackers out): the
    declare-attackers systems that change only that are not run."""
    return _declaration_sides(scenario, registry, attackers_tapped)


def check_declarations_now(scenario: Scenario, registry: Registry, blocks: bool = True) -> None:
    """Raise :class:`~ecs_combat.errors.InputError` for the first illegal attack or block of
    a one-combat scenario, with the creatures as attackers are declared (the combat begins:
    counters and static abilities count) and as blockers are declared; without `blocks`, of
    the attacks only."""
    at = _declaration_sides(scenario, registry)
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


@dataclass(frozen=True)
class Declared:
    """The creatures of a scenario as attackers and as blockers are declared."""

    attacking: dict[str, KeywordSide]
    blocking: dict[str, KeywordSide]
    #: The ids of the creatures tapped as blockers are declared: those tapped as the combat
    #: begins and the attackers that tapped (508.1f), less any an attack trigger untapped.
    tapped: set[str]
    #: Requirements the attack triggers made: (blocker, attacker, keyword) ids.
    made: list[MadeRequirement] = field(default_factory=list)
    #: The ids of the creatures that left before blockers are declared (an attack trigger,
    #: the state-based actions after it): off the battlefield, returned as new objects
    #: (400.7), or attackers no longer attacking. None of them blocks or is blocked (RULES
    #: 11.3).
    gone: set[str] = field(default_factory=set)


def _declaration_sides(
    scenario: Scenario, registry: Registry, attackers_tapped: bool = True
) -> Declared:
    """The creatures as attackers are declared and as blockers are declared, in one world,
    and the ids of those tapped as blockers are declared. When nothing can change them before
    the declarations (no static abilities, no declare-attackers system for these creatures)
    they are as the scenario declares them, and the world is not built: :func:`spec_side`
    reads the same characteristics."""
    if not _may_change(scenario, registry, attackers_tapped):
        sides = {
            cid: spec_side(spec, registry, scenario.players[spec.controller].lands)
            for cid, spec in scenario.creatures.items()
        }
        tapped = {cid for cid, spec in scenario.creatures.items() if spec.tapped}
        return Declared(sides, sides, tapped)
    with isolated_world():
        combat = Combat(registry, [], scenario)
        combat.set_up()
        board = combat.board
        attacking = {cid: side_now(board, e) for cid, e in board.creatures.items()}
        combat.declare_attackers()
        blocking = {cid: side_now(board, e) for cid, e in board.creatures.items()}
        tapped = {cid for cid, e in board.creatures.items() if esper.has_component(e, Tapped)}
        made = [(board.cid(b), board.cid(a), k) for b, a, k in combat.now.required_blocks]
        gone = {
            cid
            for cid, e in board.creatures.items()
            if not board.on_battlefield(e)
            or e in combat.now.returned
            or (cid in scenario.attackers and not esper.has_component(e, Attacking))
        }
    return Declared(attacking, blocking, tapped, made, gone)


def _may_change(scenario: Scenario, registry: Registry, attackers_tapped: bool = True) -> bool:
    """Whether static abilities or the declare-attackers step's systems may make a creature
    differ from how the scenario declares it (without `attackers_tapped`: other than which
    attackers tap)."""
    present = {k for spec in scenario.creatures.values() for k in (*spec.keywords, *spec.counters)}
    static = static_ability_keywords(registry)
    if static is None or not static.isdisjoint(present):
        return True
    if not scenario.attackers:
        return False
    attack = attack_system_keywords(registry, attackers_tapped)
    return attack is None or not attack.isdisjoint(present)
