"""What the output says about creatures made from approximate cards: the text that is ignored.

Both engines' results go through here, in one place outside the engines, so that their output
stays identical: the JSON document gets ``ignored_text`` on such creatures (:func:`result_json`)
and the readable account a line per creature (:func:`ignored_text_lines`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ecs_combat.rules.result import CombatResult
    from ecs_combat.scenario.model import CreatureSpec, Scenario

#: The key of a creature's JSON object that lists its card's ignored rules text.
IGNORED_TEXT = "ignored_text"


def scenario_creatures(scenario: Scenario) -> list[CreatureSpec]:
    """Every creature of a scenario: those there as combat begins, then those entering."""
    entering = [ev.creature for ev in scenario.events if ev.creature is not None]
    return [*scenario.creatures.values(), *entering]


def approximate(creatures: Iterable[CreatureSpec]) -> list[CreatureSpec]:
    """The creatures made from a card with rules text no loaded plugin models."""
    return [c for c in creatures if c.card is not None and c.ignored_text]


def add_ignored_text(doc: dict[str, Any], creatures: Iterable[CreatureSpec]) -> dict[str, Any]:
    """Add ``ignored_text`` (a list of lines) to the JSON objects in ``doc["creatures"]`` of the
    creatures made from approximate cards; return `doc`."""
    shown = doc.get("creatures", {})
    for spec in approximate(creatures):
        if spec.id in shown:
            shown[spec.id][IGNORED_TEXT] = list(spec.ignored_text)
    return doc


def result_json(scenario: Scenario, result: CombatResult) -> dict[str, Any]:
    """The JSON document of a combat's result (CONTRACT section 2), with ``ignored_text``."""
    return add_ignored_text(result.to_json(), scenario_creatures(scenario))


def ignored_text_lines(creatures: Iterable[CreatureSpec]) -> list[str]:
    """One sentence per creature made from an approximate card, quoting the ignored text:
    ``boar is Brindle Boar, modeled approximately: ignored 'Sacrifice Brindle Boar: ...'``."""
    return [
        f"{spec.id} is {spec.card}, modeled approximately: ignored "
        + "; ".join(repr(line) for line in spec.ignored_text)
        for spec in approximate(creatures)
    ]
