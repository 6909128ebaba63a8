"""The best blocks of a scenario (RULES section 9), and what decisions answer: each choice
written into its scenario with its outcome (the best attacks: :mod:`.attacks`)."""

from __future__ import annotations

import dataclasses

import numpy as np

from ecs_combat.batched import (
    BatchedEngine,
    BoolArray,
    CombatBatch,
    IntArray,
    ReferenceBatchEngine,
    Segments,
    scenarios_to_batch,
)
from ecs_combat.cards.notes import result_json
from ecs_combat.decisions.answers import Choice, Decision
from ecs_combat.decisions.bounds import Clock
from ecs_combat.decisions.declarations import (
    BlockDeclarations,
    block_declarations,
    block_options,
    check_board_size,
)
from ecs_combat.decisions.divisions import Divider
from ecs_combat.decisions.nodes import Expansion
from ecs_combat.decisions.objective import Objective, Sides
from ecs_combat.decisions.partial import PIECEWISE_ABOVE, best_in_pieces, possible_declarations
from ecs_combat.decisions.search import BoardResults, ranked_declarations, search_blocks
from ecs_combat.decisions.tree import Continuation
from ecs_combat.errors import InputError, RefusedError
from ecs_combat.plugin.registry import Registry
from ecs_combat.rules.division import default_division
from ecs_combat.scenario.model import Division, Scenario

I64 = np.int64


_ENGINES: dict[int, tuple[Registry, BatchedEngine]] = {}


def engine_for(registry: Registry) -> BatchedEngine:
    """The batched engine of a registry, made once (its step plans and masks are reused)."""
    held = _ENGINES.get(id(registry))
    if held is None or held[0] is not registry:
        if len(_ENGINES) >= 8:
            _ENGINES.clear()
        held = _ENGINES[id(registry)] = (registry, BatchedEngine(registry))
    return held[1]


def players_of(scenario: Scenario) -> tuple[str, str]:
    """The attacking (first listed) and the defending player; other than two is an error."""
    players = list(scenario.players)
    if len(players) != 2:
        raise InputError(
            scenario.file,
            "players",
            f"a decision is between two players (one attacking, one defending), not {len(players)}",
        )
    return players[0], players[1]


def best_blocks(
    scenario: Scenario,
    registry: Registry,
    *,
    top: int = 3,
    objective: Objective | None = None,
    budget: float | None = None,
    exhaustive: bool = False,
    continuation: Continuation | None = None,
    declarations: BlockDeclarations | None = None,
) -> Decision:
    """The defending player's best block declarations against the scenario's attackers, each
    with the attacking player's best divisions (RULES section 9). `exhaustive` searches every
    declaration to the end, without the bounds that skip those that can't be best (the same
    answer, slower: for measuring). `continuation` values each candidate combat past its end
    (:attr:`~.tree.Tree.continuation`: the two-combat horizon). `declarations`: search only
    these (default: every legal one; :meth:`BlockDeclarations.only` gives one declaration's
    best divisions)."""
    clock = Clock(budget)
    check_board_size(len(scenario.creatures), scenario.file)
    attacker, defender = players_of(scenario)
    objective = objective or Objective.default(registry)
    if declarations is None:
        options = block_options(scenario, registry, defender)
        if (
            budget is not None
            and options.requirements is None
            and possible_declarations(options) > PIECEWISE_ABOVE
        ):  # listed and searched a piece at a time, the clock read before each

            def piece(decls: BlockDeclarations, left: float | None) -> Decision:
                return best_blocks(
                    scenario, registry, top=top, objective=objective, budget=left,
                    exhaustive=exhaustive, continuation=continuation, declarations=decls,
                )  # fmt: skip

            return best_in_pieces(scenario, options, clock, top, piece)
    engine = engine_for(registry)
    template = _template(scenario, registry)
    decls = declarations or block_declarations(options, scenario.file)
    sides = _sides(scenario, template, template, attacker, defender)
    results = search_blocks(
        engine, objective, template, sides, [decls], top, clock, bounds=not exhaustive,
        record=True, continuation=continuation, guard=scenario.file or "",
    )  # fmt: skip
    ranked = ranked_declarations(results, 0, decls.tie_order)
    best_value = results.values[ranked[0]] if len(ranked) else None
    ids = list(template.creature_ids or [])
    choices = with_outcomes(
        [choice_of(scenario, ids, objective, results, int(d), None) for d in ranked[:top]],
        results,
    )
    optimal = results.complete(0)
    return Decision(
        "blocks",
        attacker,
        defender,
        objective.terms,
        optimal,
        decls.count,
        tied_count(results, ranked, best_value),
        choices,
        None if optimal else reason_of(results, clock, "block declarations"),
        clock.elapsed,
        results.tree.evaluated,
    )


# -- boards ------------------------------------------------------------------------------------


def _template(scenario: Scenario, registry: Registry) -> CombatBatch:
    """The scenario as a one-battle batch, without blocks or divisions."""
    bare = dataclasses.replace(scenario, blockers={}, divisions=[])
    return scenarios_to_batch([bare], registry)


def attackers_of(ids: list[str], able: IntArray, mask: int, defender: str) -> dict[str, str]:
    return {ids[int(p)]: defender for i, p in enumerate(able) if mask >> i & 1}


def with_attackers(scenario: Scenario, attackers: dict[str, str]) -> Scenario:
    return dataclasses.replace(scenario, attackers=attackers, blockers={}, divisions=[])


def _sides(
    scenario: Scenario, template: CombatBatch, boards: CombatBatch, attacker: str, defender: str
) -> Sides:
    """Players and creature values of boards copied from the one-battle `template`
    (:func:`values_of`)."""
    ps = Segments.of(boards.player_battle, boards.n_battles).start
    players = list(scenario.players)
    value, keyed = values_of(
        scenario, list(template.creature_ids or []), template.power, template.toughness
    )
    return Sides(
        ps + players.index(attacker),
        ps + players.index(defender),
        np.tile(value, boards.n_battles),
        np.tile(keyed, boards.n_battles),
    )


def values_of(
    scenario: Scenario, ids: list[str], power: IntArray, toughness: IntArray
) -> tuple[IntArray, BoolArray]:
    """Each creature row's value (RULES section 9: `value`, else power plus toughness as
    given, before counters; for a creature that enters during combat, as it enters), and
    whether it is its `value` key; `ids`, `power`, `toughness`: the rows of the scenario's
    battle."""
    specs = {**scenario.creatures}
    for ev in scenario.events:
        if ev.creature is not None:
            specs[ev.creature.id] = ev.creature
    given = [specs[c].value if c in specs else None for c in ids]
    value = power + toughness
    out = np.array([v if v is not None else int(d) for v, d in zip(given, value, strict=True)], I64)
    return out, np.array([v is not None for v in given], np.bool_)


# -- answers -----------------------------------------------------------------------------------


def tied_count(results: BoardResults, ranked: IntArray, best: IntArray | None) -> int:
    """How many of the `ranked` declarations share the `best` value (0 without one)."""
    if best is None:
        return 0
    return int((results.values[ranked] == best).all(axis=1).sum())


def reason_of(results: BoardResults, clock: Clock, what: str) -> str:
    left = int((~(results.solved | results.cut)).sum())
    return (
        f"the budget of {clock.seconds:g} s ran out: {left:,} of {len(results.solved):,} "
        f"{what} were not searched to the end; the best shown are the best solved"
    )


def choice_of(
    scenario: Scenario,
    ids: list[str],
    objective: Objective,
    results: BoardResults,
    d: int,
    attackers: dict[str, str] | None,
) -> Choice:
    """Declaration `d` (a root node) with its best line, written into the scenario (its
    outcome still to be resolved: :func:`_with_outcomes`); `ids` are the board's row ids."""
    registry = results.tree.engine.registry
    players = list(scenario.players)
    b = results.tree.blocks
    lo, hi = int(b.start[d]), int(b.start[d + 1])
    declared: dict[str, list[str]] = {}
    for blocker, attacker in sorted(
        zip(b.blocker[lo:hi].tolist(), b.attacker[lo:hi].tolist(), strict=True)
    ):
        declared.setdefault(ids[blocker], []).append(ids[attacker])
    divide: list[Division] = []
    for e, a, reply in results.tree.line(d):
        divide += _divisions(e, e.choices.attacking, e.attacking[a], ids, players, registry)
        divide += _divisions(e, e.choices.defending, e.defending[reply], ids, players, registry)
    for i, div in enumerate(divide):
        div.path = f"combat.divide[{i}]"
    written = dataclasses.replace(
        scenario,
        blockers={k: tuple(v) for k, v in declared.items()},
        divisions=divide,
    )
    return Choice(
        attackers,
        {k: v[0] if len(v) == 1 else v for k, v in declared.items()},
        [{"step": x.step, "source": x.source, "amounts": x.amounts} for x in divide],
        {t: int(v) for t, v in zip(objective.terms, results.values[d], strict=True)},
        {},
        written,
        d,
    )


def with_outcomes(choices: list[Choice], results: BoardResults) -> list[Choice]:
    """The choices with their outcomes, as ``resolve --json`` prints them: those the search
    recorded (the batched engine's results of the best lines' leaves, which resolve as the
    choices' scenarios do), else resolved together by the batched engine (identical to the
    reference engine's, which resolves what the batched engine refuses, through the batched
    engine's public face: :class:`~ecs_combat.batched.ReferenceBatchEngine`)."""
    tree = results.tree
    leaves = tree.best_leaves(np.array([c.declaration for c in choices], I64)).tolist()
    found = tree.results_of(leaves, notes=False)  # the JSON document has no strike notes
    if found is None:
        scenarios = [c.scenario for c in choices]
        registry = tree.engine.registry
        try:
            found = engine_for(registry).resolve_many(scenarios)
        except RefusedError:
            found = ReferenceBatchEngine(registry).resolve_many(scenarios)
    return [
        dataclasses.replace(c, outcome=result_json(c.scenario, r))
        for c, r in zip(choices, found, strict=True)
    ]


def _divisions(
    e: Expansion,
    dividers: tuple[Divider, ...],
    amounts: IntArray,
    ids: list[str],
    players: list[str],
    registry: Registry,
) -> list[Division]:
    """The divisions chosen for some dividers that differ from the default division (and
    every one of a divider whose split has no default, 702.22j-k)."""
    out = []
    start = 0
    step = registry.steps[e.choices.step].name
    for dv in dividers:
        names = [ids[r - e.creature_start] for r in dv.recipients]
        player = None if dv.player is None else players[dv.player - e.player_start]
        width = len(names) + (player is not None)
        chosen = amounts[start : start + width].tolist()
        start += width
        given = {
            n: int(x)
            for n, x in zip([*names, *([player] if player else [])], chosen, strict=True)
            if x > 0
        }
        default = default_division(dv.power, list(zip(names, dv.lethal, strict=True)), player)
        if given != default or dv.any_split:  # a split any way has no default (702.22j-k)
            out.append(Division(step, ids[dv.source - e.creature_start], given, ""))
    return out
