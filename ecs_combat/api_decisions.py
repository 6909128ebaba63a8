"""The decisions of the Python API (docs/python.md, "Decisions"): the best blocks and the best
attacks of a scenario, as ``ecs-combat blocks`` and ``ecs-combat attacks`` find them
(docs/decisions.md). Exported from :mod:`ecs_combat`."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ecs_combat.decisions import Choice, Decision, Objective
from ecs_combat.decisions import best_attacks as search_attacks
from ecs_combat.decisions import best_blocks as search_blocks
from ecs_combat.decisions import best_blocks_many as search_blocks_many
from ecs_combat.errors import InputError
from ecs_combat.plugin.loading import load_registry
from ecs_combat.plugin.registry import Registry
from ecs_combat.scenario.loader import iter_scenarios
from ecs_combat.scenario.model import Scenario
from ecs_combat.scenario.turn_loader import is_turn_file

#: What `objective` may be: the terms' names (a list, or one string ``"life,game"``), an
#: :class:`Objective`, or None for the default terms.
Terms = str | Sequence[str] | Objective | None


def best_blocks(
    scenario: str | Path | Scenario,
    registry: Registry | None = None,
    *,
    top: int = 3,
    objective: Terms = None,
    budget: float | None = None,
) -> Decision:
    """The defending player's `top` best block declarations against the scenario's declared
    attackers, each with the attacking player's best divisions, as ``ecs-combat blocks``
    finds them. `scenario`: a scenario, or a file holding one, with ``combat.attackers`` and
    without ``combat.blockers`` or ``combat.divide``. `budget`: seconds to search at most
    (the answer is then marked ``optimal=False`` if it ran out). Bad input raises
    :class:`InputError`."""
    registry = registry if registry is not None else load_registry()
    chosen = decision_scenario(scenario, registry, "blocks")
    terms = _objective(objective, registry)
    _check(top, budget)
    return search_blocks(chosen, registry, top=top, objective=terms, budget=budget)


def best_blocks_many(
    scenarios: Sequence[str | Path | Scenario],
    registry: Registry | None = None,
    *,
    top: int = 3,
    objective: Terms = None,
) -> list[Decision]:
    """:func:`best_blocks` of each scenario, in order: the same decisions, the boards
    searched together (a few dozen small boards in one search), so each costs less than a
    call of its own. `seconds` is that of the search that decided the board with others.
    There is no budget; bad input raises :class:`InputError` for the first board that has
    it."""
    registry = registry if registry is not None else load_registry()
    chosen = [decision_scenario(s, registry, "blocks") for s in scenarios]
    terms = _objective(objective, registry)
    _check(top, None)
    return search_blocks_many(chosen, registry, top=top, objective=terms)


def best_attacks(
    scenario: str | Path | Scenario,
    registry: Registry | None = None,
    *,
    top: int = 3,
    objective: Terms = None,
    budget: float | None = None,
) -> Decision:
    """The attacking player's `top` best attack declarations, each answered by the defending
    player's best blocks and both players' best divisions, as ``ecs-combat attacks`` finds
    them. `scenario`: a scenario, or a file holding one, without attackers, blockers or
    divisions; the other arguments as for :func:`best_blocks`."""
    registry = registry if registry is not None else load_registry()
    chosen = decision_scenario(scenario, registry, "attacks")
    terms = _objective(objective, registry)
    _check(top, budget)
    return search_attacks(chosen, registry, top=top, objective=terms, budget=budget)


def decision_scenario(given: str | Path | Scenario, registry: Registry, decision: str) -> Scenario:
    """The one scenario of `given`, checked for what the decision chooses itself."""
    if isinstance(given, Scenario):
        scenario = given
    else:
        path = str(given)
        if is_turn_file(path):
            raise InputError(path, "", "a decision is about one combat, not a turn file")
        found = list(iter_scenarios(path, registry))
        if len(found) != 1:
            raise InputError(
                path,
                "",
                f"holds {len(found)} scenarios: decide one at a time "
                "(ecs_combat.load gives each of them)",
            )
        scenario = found[0]
    chooses = "attacks, blocks and divisions" if decision == "attacks" else "blocks and divisions"
    given_keys = [
        key
        for key, value in (
            ("attackers", scenario.attackers if decision == "attacks" else {}),
            ("blockers", scenario.blockers),
            ("divide", scenario.divisions),
        )
        if value
    ]
    if given_keys:
        raise InputError(
            scenario.file,
            f"combat.{given_keys[0]}",
            f"best_{decision} chooses the {chooses} itself: leave combat.{given_keys[0]} out",
        )
    if decision == "blocks" and not scenario.attackers:
        raise InputError(
            scenario.file,
            "combat.attackers",
            "missing: best_blocks answers declared attackers (to choose the attacks too, use "
            "best_attacks)",
        )
    return scenario


def _objective(objective: Terms, registry: Registry) -> Objective | None:
    if objective is None or isinstance(objective, Objective):
        return objective
    if isinstance(objective, str):
        objective = [t.strip() for t in objective.split(",") if t.strip()]
    return Objective.of(list(objective), registry, "objective")


def _check(top: int, budget: float | None) -> None:
    if top < 1:
        raise InputError(None, "top", f"must be 1 or more, not {top}")
    if budget is not None and not budget > 0:
        raise InputError(None, "budget", f"must be a positive number of seconds, not {budget:g}")


__all__ = [
    "Choice",
    "Decision",
    "Objective",
    "Terms",
    "best_attacks",
    "best_blocks",
    "best_blocks_many",
]
