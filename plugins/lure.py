"""Lure (509.1c): "All creatures able to block this creature do so."

A requirement, not a restriction: every creature able to block it must, unless that breaks a
restriction or another requirement it obeys instead (a blocker obeys one requirement per
attacker it may block). The scenario loader refuses blocks that obey fewer requirements than
they could, naming the requirement and its source (``lure (goblin)``).
"""

from __future__ import annotations

from ecs_combat import Keyword, Restriction, Side, Verdict, hookimpl

LURE = "lure"


def must_block(attacker: Side, _blocker: Side) -> Verdict:
    return attacker.has(LURE)


@hookimpl
def register_keywords() -> list[Keyword]:
    return [Keyword(LURE, rule="509.1c", summary="all creatures able to block it do so")]


@hookimpl
def register_restrictions() -> list[Restriction]:
    return [
        Restriction(
            "block-requirement",
            LURE,
            "509.1c",
            must_block,
            "all creatures able to block {attacker} do so",
        )
    ]
