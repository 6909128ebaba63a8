"""Soulbond pairs (702.95): two creatures a player controls may be paired.

The pairing itself (as a soulbond creature enters) is not modelled: a scenario says which
creatures are paired as combat begins with ``paired_with`` (one side is enough). Cards such
as Joint Assault read the pair as they resolve.
"""

from __future__ import annotations

from ecs_combat import Scenario, StateField, hookimpl

PAIRED_WITH = "paired_with"


def pairs_are_consistent(scenario: Scenario) -> tuple[str, str] | None:
    """Each creature is paired with at most one other, controlled by the same player."""
    creatures = scenario.creatures
    for spec in creatures.values():
        partner = creatures.get(spec.state.get(PAIRED_WITH) or "")
        if partner is None:
            continue
        theirs = partner.state.get(PAIRED_WITH)
        if theirs not in (None, spec.id):
            return f"{spec.path}.{PAIRED_WITH}", f"{partner.id!r} is paired with {theirs!r}"
        if partner.controller != spec.controller:
            return (
                f"{spec.path}.{PAIRED_WITH}",
                f"{partner.id!r} has another controller; soulbond pairs creatures you control "
                "(702.95)",
            )
    return None


@hookimpl
def register_state() -> list[StateField]:
    return [
        StateField(
            "creature",
            PAIRED_WITH,
            "creature",
            None,
            summary="its soulbond partner",
            check=pairs_are_consistent,
            check_defaults=False,  # no partner given: nothing to check
        )
    ]
