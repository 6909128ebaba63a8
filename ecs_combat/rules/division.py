"""Division of combat damage among several recipients (510.1c-d, 702.19)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def lethal_damage(toughness: int, marked: int, one_is_lethal: bool) -> int:
    """Damage lethal to a creature: toughness minus marked damage, never below 0 (702.19b).

    From a source whose damage destroys (702.2b), 1 is lethal unless the creature already
    has lethal damage (702.2c).
    """
    remaining = max(toughness - marked, 0)
    return min(remaining, 1) if one_is_lethal else remaining


def default_division(
    power: int,
    recipients: Sequence[tuple[str, int]],
    excess_goes_to: str | None = None,
) -> dict[str, int]:
    """Divide `power` over `(recipient, lethal)` pairs in order, lethal first.

    What is left goes to `excess_goes_to` (the attacked player, 702.19b) if given, otherwise to the first
    recipient. With no recipients it goes to `excess_goes_to`, or nowhere.
    """
    out: dict[str, int] = {}
    left = max(power, 0)
    for rid, lethal in recipients:
        amount = min(lethal, left)
        out[rid] = out.get(rid, 0) + amount
        left -= amount
    if left > 0:
        target = (
            excess_goes_to
            if excess_goes_to is not None
            else (recipients[0][0] if recipients else None)
        )
        if target is not None:
            out[target] = out.get(target, 0) + left
    return {rid: n for rid, n in out.items() if n > 0}


def excess_shortfall(
    amounts: Mapping[str, int],
    player: str,
    lethal_needed: Mapping[str, int],
    from_others: Mapping[str, int],
) -> str | None:
    """Check the rule for excess damage to the player in an explicit division (702.19b).

    Damage may go to `player` only if each blocker in `lethal_needed` (blocker -> lethal
    damage from this source) is assigned lethal damage, counting what other creatures assign
    it in the same step (`from_others`). Returns the first blocker short of lethal, or None.
    """
    if amounts.get(player, 0) <= 0:
        return None
    for blocker, lethal in lethal_needed.items():
        if amounts.get(blocker, 0) + from_others.get(blocker, 0) < lethal:
            return blocker
    return None
