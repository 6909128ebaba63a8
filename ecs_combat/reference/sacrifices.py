"""Which creatures a player sacrifices when an effect makes them choose (annihilator's
trigger, RULES 13): the scenario's ``sacrifices`` first, then the least valuable."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ecs_combat.reference.playing import Playing


def choose_sacrifices(combat: Playing, player: int, n: int) -> list[int]:
    """The (at most) `n` creatures `player` chooses to sacrifice now: the next `n` ids of the
    scenario's ``sacrifices`` for that player (each call takes its own), those still on the
    battlefield under that player's control; then, for the rest, the least valuable of that
    player's other creatures (RULES 9's value), the last listed on ties, creatures named
    for later sacrifices last."""
    board = combat.board
    pid = board.pid(player)
    named = combat.now.scenario.sacrifices.get(pid, ())
    taken = combat.now.sacrifices_taken.get(pid, 0)
    combat.now.sacrifices_taken[pid] = taken + n
    later = set(named[taken + n :])

    def mine(e: int) -> bool:
        return board.on_battlefield(e) and board.controller(e) == player

    chosen = [board.creatures[c] for c in named[taken : taken + n] if mine(board.creatures[c])]

    def key(e: int) -> tuple[bool, int, int]:
        spec = board.specs[board.cid(e)]
        value = spec.power + spec.toughness if spec.value is None else spec.value
        return board.cid(e) in later, value, -board.order(e)

    others = sorted((e for e in board.creature_entities() if mine(e) and e not in chosen), key=key)
    return chosen + others[: max(0, n - len(chosen))]
