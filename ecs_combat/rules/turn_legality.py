"""Whether the phases of a turn happen (RULES 2, 8) and whether the attackers and blockers a turn file names for a combat phase can still attack
and block as that phase begins (508.1a, 509.1a; RULES.md section 8).

A creature that attacked without a keyword that keeps it untapped is tapped for the rest of
the turn, and one that left the battlefield stays gone: the file naming it in a later combat
phase is wrong. Only playing the turn tells, so each engine checks as the phase begins and
reports it with these messages, the same for both.
"""

from __future__ import annotations

from ecs_combat.errors import InputError

#: Why a creature that attacking tapped earlier in the turn can't attack or block.
TAPPED = "it is tapped: attacking earlier this turn tapped it (508.1f)"
#: Why a creature the file gives ``tapped = true`` can't attack or block (508.1a, 509.1a).
TAPPED_AT_START = "it is tapped (tapped = true) and nothing untapped it"
#: Why a creature that died (or otherwise left) earlier in the turn can't attack or block.
GONE = "it is not on the battlefield: it left earlier this turn"
#: Why a creature whose `enter` event or token-making spell never happened can't.
NEVER_ENTERED = "it is not on the battlefield: it never entered"


def cannot_attack(file: str, combat: int, creature: str, why: str) -> InputError:
    """The error for an attacker of combat phase `combat` (0-based) that can't attack."""
    return InputError(
        file,
        f"combats[{combat}].attackers.{creature}",
        f"{creature!r} can't attack in combat phase {combat + 1}: {why}",
    )


def not_allowed_to_attack(file: str, combat: int, creature: str, why: str) -> InputError:
    """The error for an attacker that a rule keeps from attacking (``why`` as
    :func:`ecs_combat.rules.legality.why_cannot_attack` says it), worded as in a one-combat
    scenario."""
    return InputError(
        file, f"combats[{combat}].attackers.{creature}", f"{creature!r}{why.removeprefix('it')}"
    )


def cannot_block(file: str, combat: int, creature: str, why: str) -> InputError:
    """The error for a blocker of combat phase `combat` (0-based) that can't block."""
    return InputError(
        file,
        f"combats[{combat}].blockers.{creature}",
        f"{creature!r} can't block in combat phase {combat + 1}: {why}",
    )


def left_the_game(player: str) -> str:
    """Why a creature can't attack a player who has lost (800.4a)."""
    return f"{player!r} has left the game"


#: Why a phase doesn't happen once the game is over (RULES 2).
GAME_OVER = "the game is over: fewer than two players remain (104.2a)"


def follows_skipped(n: int) -> str:
    """Why a phase added after phase `n` (1-based), which did not happen, doesn't either."""
    return f"it would follow phase {n}, which did not happen"


def source_gone(source: str, player: str, n: int) -> str:
    """Why a phase a creature's ability adds doesn't happen: the creature was not on the
    battlefield under its controller's control as phase `n` (1-based) ended (113.6)."""
    return (
        f"{source!r} was not on the battlefield under the control of {player!r} as phase "
        f"{n} ended (113.6)"
    )


def player_left(player: str) -> str:
    """Why a player's phase doesn't happen once they have left the game (800.4a)."""
    return f"{player!r} has left the game (800.4a)"
