"""Many validated scenarios added to a :class:`~ecs_combat.batched.builder.BatchBuilder`
column by column: each column in one pass over every row (what ``scenarios_to_batch`` does;
turns add their battles row by row with the builder's own methods)."""

from __future__ import annotations

from collections.abc import Sequence
from operator import itemgetter
from typing import TYPE_CHECKING

from ecs_combat.plugin.definitions import FROM_WORDS, color_mask, land_mask, type_mask
from ecs_combat.scenario.model import CreatureSpec, PlayerSpec, Scenario
from ecs_combat.scenario.tokens import reserved_tokens

if TYPE_CHECKING:
    from ecs_combat.batched.builder import BatchBuilder


def add_scenarios(builder: BatchBuilder, scenarios: Sequence[Scenario]) -> None:
    """Battles ``0..n-1``: the scenarios, each column in one pass over every row (the same
    rows as :meth:`BatchBuilder.add` of each in turn); what only some have (creature references,
    targets, divisions, events) scenario by scenario."""
    players = [p for sc in scenarios for p in sc.players.values()]
    makers = builder.registry.token_makers
    tokens: dict[int, list[tuple[str, str]]] = {}  # battle: its reserved tokens
    specs: list[CreatureSpec] = []
    prows: list[dict[str, int]] = []
    crows: list[dict[str, int]] = []
    row_battle: list[int] = []
    controller: list[int] = []
    p0 = len(builder.player_battle)
    r0 = len(builder.battle)
    for b, sc in enumerate(scenarios):
        builder.files.append(sc.file)
        prow = {pid: p0 + i for i, pid in enumerate(sc.players)}
        p0 += len(prow)
        here = list(sc.creatures.values())
        entering = builder.entering(sc) if sc.events else []
        pairs = reserved_tokens(sc, builder.registry) if makers else []
        if pairs:  # made as attackers are declared: before the creatures events bring
            entering = builder.reserved(sc, pairs) + entering
            tokens[b] = pairs
        builder.present.extend([True] * len(here))
        if entering:
            here += entering
            builder.present.extend([False] * len(entering))
        crow = {spec.id: r0 + i for i, spec in enumerate(here)}
        r0 += len(here)
        controller.extend([prow[spec.controller] for spec in here])
        row_battle.extend([b] * len(here))
        specs += here
        prows.append(prow)
        crows.append(crow)
    add_player_columns(builder, players, scenarios)
    start = len(builder.battle)
    builder.battle += row_battle
    builder.controller += controller
    add_creature_columns(builder, specs, start)
    for key, f in builder.creature_fields.items():  # creature ids: rows
        if f.kind == "creature":
            column = builder.creature_state[key]
            column[start:] = [
                -1 if v is None else crows[b][v] if isinstance(v, str) else v
                for v, b in zip(column[start:], row_battle, strict=True)
            ]
    builder.attacking.extend([-1] * (len(builder.battle) - len(builder.attacking)))
    for b, sc in enumerate(scenarios):
        crow, prow = crows[b], prows[b]
        if any(spec.targets for spec in sc.creatures.values()):
            builder.add_targets(sc.creatures.values(), crow)
        if b in tokens:
            builder.add_tokens(tokens[b], prow, crow)
        if sc.divisions or sc.events:
            builder.add_combat(b, sc, prow, crow)
            continue
        if sc.sacrifices or any(spec.value is not None for spec in sc.creatures.values()):
            builder.add_choices(sc, prow, crow)
        for cid, defender in sc.attackers.items():  # what add_combat does of the rest
            builder.attacking[crow[cid]] = prow[defender]
        if sc.bands:
            builder.add_bands(sc, crow)
        if sc.blockers:
            add_blocks(builder, sc, crow)


def add_blocks(builder: BatchBuilder, sc: Scenario, crow: dict[str, int]) -> None:
    """A scenario's blocks: grouped by attacker in attack order, each attacker's blockers
    in declaration order (as :meth:`Scenario.blockers_of` gives them)."""
    place = {a: i for i, a in enumerate(sc.attackers)}
    found = sorted(
        (
            (place[a], crow[blocker], crow[a], attacked.index(a))
            for blocker, attacked in sc.blockers.items()
            for a in dict.fromkeys(attacked)
            if a in place
        ),
        key=itemgetter(0),
    )
    builder.block_blocker += [f[1] for f in found]
    builder.block_attacker += [f[2] for f in found]
    builder.block_rank += [f[3] for f in found]


def add_player_columns(
    builder: BatchBuilder, players: list[PlayerSpec], scenarios: Sequence[Scenario]
) -> None:
    """The players' rows, in battle and turn order."""
    for b, sc in enumerate(scenarios):
        builder.player_battle.extend([b] * len(sc.players))
    builder.life += [p.life for p in players]
    builder.lands += [land_mask(p.lands) if p.lands else 0 for p in players]
    for key, column in builder.player_state.items():
        column += [p.state[key] for p in players]
    builder.player_ids += [p.id for p in players]


def add_creature_columns(builder: BatchBuilder, specs: list[CreatureSpec], start: int) -> None:
    """The creatures' rows from row `start` on (their battles and controllers given)."""
    masks: dict[tuple[str, ...], int] = {(): 0}
    for spec in specs:
        if spec.keywords not in masks:
            masks[spec.keywords] = builder.mask(spec.keywords)
    builder.power += [spec.power for spec in specs]
    builder.toughness += [spec.toughness for spec in specs]
    builder.damage += [spec.damage for spec in specs]
    builder.keywords += [masks[spec.keywords] for spec in specs]  # at most 64 bits
    builder.colors += [color_mask(spec.colors) if spec.colors else 0 for spec in specs]
    builder.types += [type_mask(spec.types) if spec.types else 0 for spec in specs]
    builder.tapped += [spec.tapped for spec in specs]
    for key, column in builder.creature_state.items():
        column += [spec.state[key] for spec in specs]
    bit = {name: b.bit_length() - 1 for name, b in builder.bits.items()}
    builder.instances += [
        (row, bit[name], -1 if p is None else FROM_WORDS.index(p) if isinstance(p, str) else p)
        for row, spec in enumerate(specs, start)
        if spec.keywords
        for name, p in zip(spec.keywords, spec.parameters, strict=True)
    ]
    builder.creature_ids += [spec.id for spec in specs]
    builder.creature_names += [spec.name for spec in specs]
    builder.counters += [
        (row, builder.column[kw], count)
        for row, spec in enumerate(specs, start)
        if spec.counters
        for kw, count in spec.counters.items()
    ]
