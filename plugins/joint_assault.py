"""Joint Assault ({G} instant): a pump for a creature and its soulbond partner.

"Target creature gets +2/+2 until end of turn. If it's paired with a creature, that creature
also gets +2/+2 until end of turn." The target need not be in combat. The pairing is the
soulbond plugin's ``paired_with`` state, checked only as the spell resolves; an illegal target
then makes the whole spell do nothing, so the partner gets nothing either (608.2b).
"""

from __future__ import annotations

import numpy as np

from ecs_combat import Card, EffectTarget, TargetRule, hookimpl

#: The soulbond plugin's state: a creature's partner.
PAIRED_WITH = "paired_with"


def resolve_joint_assault(target: EffectTarget) -> None:
    """+2/+2 to the target, and +2/+2 to the creature it is paired with, if any."""
    paired = target.related(PAIRED_WITH)
    target.pump(2, 2)
    target.pump(2, 2, via=PAIRED_WITH)
    target.note("it is paired: its partner gets +2/+2 too", where=paired)
    target.note("it is not paired with a creature", where=np.logical_not(paired))


JOINT_ASSAULT = Card(
    name="Joint Assault",
    cost="{G}",
    text=(
        "Target creature gets +2/+2 until end of turn. If it's paired with a creature, that "
        "creature also gets +2/+2 until end of turn."
    ),
    target=TargetRule(in_combat=False),
    resolve=resolve_joint_assault,
)


@hookimpl
def register_cards() -> list[Card]:
    return [JOINT_ASSAULT]
