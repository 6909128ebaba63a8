"""Creature tokens plugins create in the reference engine (``create_token``: myriad's)."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import esper

from ecs_combat.plugin.definitions import token_id
from ecs_combat.reference.components import Attacking, Player, Tapped
from ecs_combat.scenario.tokens import token_copy

if TYPE_CHECKING:
    from ecs_combat.reference.playing import Playing


def create_token(
    combat: Playing, controller: int, source: int, tapped: bool, attacking: int | None
) -> int | None:
    """A token copy of `source` enters under `controller`'s control (707.2, 111.1), tapped or
    not, attacking a player or not (506.3: only if that player is still in the game), with
    the id ``<source>~<player>`` (`attacking`, else `controller`). None if that token was
    made already (one per id)."""
    board = combat.board
    player = controller if attacking is None else attacking
    if token_id(board.cid(source), board.pid(player)) in board.creatures:
        return None
    spec = token_copy(board.specs[board.cid(source)], board.pid(player), combat.reg)
    entity = board.add_creature(dataclasses.replace(spec, controller=board.pid(controller)))
    if tapped:
        esper.add_component(entity, Tapped())
    if attacking is not None and not esper.component_for_entity(attacking, Player).lost:
        esper.add_component(entity, Attacking(attacking))
    return entity
