"""The creatures of a combat as attackers and as blockers are declared, played in a reference
world: the reference engine's :class:`~ecs_combat.rules.declaring.DeclarationPlayer`.

The scenario reader and the decisions name the batched engine's player
(:func:`ecs_combat.batched.play_declarations`), which plays a board the batched engine refuses
(a system without a batched form) here; the tests compare the rules core's judgement from the
plugins' ``before_blocks`` parts with this one.
"""

from __future__ import annotations

import esper

from ecs_combat.plugin.definitions import color_mask
from ecs_combat.plugin.registry import Registry
from ecs_combat.reference.board import Board
from ecs_combat.reference.combat import Combat
from ecs_combat.reference.components import Attacking, Stats, Tapped
from ecs_combat.reference.views import EntitySide
from ecs_combat.reference.world import isolated_world
from ecs_combat.rules.declaring import Declared
from ecs_combat.rules.sides import KeywordSide
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


def play_declarations(
    scenario: Scenario, registry: Registry, attackers_tapped: bool = True
) -> Declared:
    """The creatures as attackers are declared and as blockers are declared, in one world:
    the combat set up, the scenario's attackers declared and the declare-attackers step's
    systems run (its blockers are not read). All of them run whatever `attackers_tapped`."""
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
