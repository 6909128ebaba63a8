"""Token copies of creatures (707.2): what a keyword with ``Keyword.tokens`` may create
(myriad's), as a creature spec both engines use, and the ones a scenario may need."""

from __future__ import annotations

import dataclasses

from ecs_combat.plugin.definitions import token_id
from ecs_combat.plugin.registry import Registry
from ecs_combat.scenario.model import CreatureSpec, Scenario


def token_copy(source: CreatureSpec, player: str, registry: Registry) -> CreatureSpec:
    """The token copy of `source` made for `player` (id ``<source>~<player>``): its copiable
    values as printed (name, power, toughness, keywords, colors, types, printed state: 707.2),
    no counters, damage or other state; summoning sick, a token (111.8)."""
    state = dict(source.state)
    for key, f in registry.state_fields("creature").items():
        if not f.printed:
            state[key] = state[f.default_from] if f.default_from is not None else f.default
    return dataclasses.replace(
        source,
        id=token_id(source.id, player),
        counters={},
        damage=0,
        state=state,
        summoning_sick=True,
        tapped=False,
        value=None,
        targets={},
        token=True,
    )


def reserved_tokens(scenario: Scenario, registry: Registry) -> list[tuple[str, str]]:
    """(source id, player id) of every token copy a scenario's creatures may create: one per
    opponent of its controller for each creature with a token-making keyword."""
    makers = registry.token_makers
    if not makers:
        return []
    out: list[tuple[str, str]] = []
    for spec in scenario.creatures.values():
        if not makers.isdisjoint(spec.keywords):
            out += [(spec.id, p) for p in scenario.players if p != spec.controller]
    return out
