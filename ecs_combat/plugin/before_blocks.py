"""What a ``declare-attackers`` system does to the creatures before blockers are declared, as
data the rules core evaluates (docs/plugins.md, "Before blocks"): no engine is played.

The scenario reader and the decision search judge a block with the creatures as blockers are
declared (RULES 4): after the attack triggers (exalted's +1/+1, provoke's requirement). A
system tells them what it does through :class:`BeforeBlocks`: a pure function from the board
as attackers are declared (:class:`DeclaredAttack`, characteristics only) to the
:class:`Changes` it makes. Every part is read from that one board, so the rules core adds
them up only when no part reads what some part changes (``reads``); otherwise, or when a
part answers None (a case it does not say), or a system that may change creatures has no
part, an engine plays the declaration.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field

from ecs_combat.plugin.definitions import parameter_number

#: What a part may read that a part may change: the characteristics :class:`Changes` writes
#: (``battlefield``: which creatures are still there). Keywords (instances) are read by every
#: part; a change of them (a keyword counter) always asks an engine.
READABLE = frozenset({"power", "toughness", "counters", "tapped", "battlefield"})

#: A keyword instance's parameter as a scenario gives it.
Parameter = int | str | None


@dataclass(frozen=True)
class DeclaredAttack:
    """A one-combat board as its attackers are declared: the creatures as the scenario
    gives them (counters and their changes counted), before any system of the step."""

    #: The creatures' ids in file order.
    creatures: tuple[str, ...]
    #: Each creature's controller (a player id).
    controller: Mapping[str, str]
    #: Each attacker's id -> the player it attacks.
    attacks: Mapping[str, str]
    #: Each creature's power and toughness.
    power: Mapping[str, int]
    toughness: Mapping[str, int]
    #: Each creature's keyword instances (printed, then one per keyword counter kind).
    keywords: Mapping[str, tuple[tuple[str, Parameter], ...]]
    #: Each creature's targets by keyword, one per instance (``targets`` in a scenario).
    targets: Mapping[str, Mapping[str, tuple[str, ...]]]
    #: Each player's life total, by player id, in file order.
    life: Mapping[str, int]
    #: Each creature's value for choices (RULES 9: its ``value``, else power plus toughness as
    #: the scenario gives them).
    value: Mapping[str, int] = field(default_factory=dict)
    #: The scenario's ``sacrifices``: by player id, the creatures they choose, in order.
    sacrifices: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def instances(self, creature: str, keyword: str) -> list[int]:
        """The numbers of the creature's instances of `keyword` as a trigger's ``data["n"]``
        gives them (0 without one); [] without it."""
        return [
            max(parameter_number(p), 0) for name, p in self.keywords[creature] if name == keyword
        ]

    def attackers(self) -> list[str]:
        """The attacking creatures, in file order."""
        return [c for c in self.creatures if c in self.attacks]

    def chosen_sacrifices(
        self, player: str, n: int, taken: int = 0, gone: Collection[str] = ()
    ) -> list[str]:
        """The (at most) `n` creatures `player` sacrifices, as the engines' contexts choose
        them (``chosen_sacrifices``) when the player's earlier sacrifices took `taken` of the
        scenario's named ones and the creatures `gone` have left: the next `n` named, those
        still theirs on the battlefield; then the least valuable of their others, the last
        listed on ties, creatures named for later sacrifices last."""
        named = self.sacrifices.get(player, ())
        later = set(named[taken + n :])
        place = {c: i for i, c in enumerate(self.creatures)}

        def mine(c: str) -> bool:
            return c not in gone and self.controller.get(c) == player

        chosen = [c for c in named[taken : taken + n] if mine(c)]
        others = sorted(
            (c for c in self.creatures if mine(c) and c not in chosen),
            key=lambda c: (c in later, self.value[c], -place[c]),
        )
        return chosen + others[: max(0, n - len(chosen))]


@dataclass(frozen=True)
class Changes:
    """What happens to the creatures before blockers are declared, by creature id: each
    creature's +power/+toughness until end of turn, the counters put on it, the creatures
    untapped (or attacking without tapping), the blocks required (509.1c: blocker,
    attacker, the keyword that requires it), and the creatures that leave the battlefield
    (sacrificed: they neither block nor are blocked, RULES 11.3)."""

    pump: Mapping[str, tuple[int, int]] = field(default_factory=dict)
    counters: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    untap: frozenset[str] = frozenset()
    require: tuple[tuple[str, str, str], ...] = ()
    leave: frozenset[str] = frozenset()

    def __add__(self, other: Changes) -> Changes:
        pump = dict(self.pump)
        for c, (p, t) in other.pump.items():
            was = pump.get(c, (0, 0))
            pump[c] = (was[0] + p, was[1] + t)
        counters = {c: dict(k) for c, k in self.counters.items()}
        for c, kinds in other.counters.items():
            mine = counters.setdefault(c, {})
            for kind, n in kinds.items():
                mine[kind] = mine.get(kind, 0) + n
        return Changes(
            pump,
            counters,
            self.untap | other.untap,
            (*self.require, *other.require),
            self.leave | other.leave,
        )


#: A part: the changes a system makes on a board, or None where it does not say (an engine
#: then plays the declaration).
ChangesOf = Callable[[DeclaredAttack], Changes | None]


@dataclass(frozen=True)
class BeforeBlocks:
    """A ``declare-attackers`` system's part for the rules core: `changes` (pure: the same
    board gives the same changes) and what of :data:`READABLE` it `reads`, besides keywords,
    controllers, attacks, targets and life (which no part changes)."""

    changes: ChangesOf
    reads: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        unknown = sorted(set(self.reads) - READABLE)
        if unknown:
            raise ValueError(f"BeforeBlocks reads {unknown}: not among {sorted(READABLE)}")
        object.__setattr__(self, "reads", frozenset(self.reads))


#: The part of a system that changes no creature before blocks (it sets up a delayed
#: trigger, or only explains).
UNCHANGED = BeforeBlocks(lambda board: Changes())

#: The creatures whose instances trigger, chosen on the board as attackers are declared
#: (None: a case the part does not say).
Chooser = Callable[[DeclaredAttack], "list[str] | None"]


def each_instance(
    keyword: str,
    one: Callable[[str, int], Changes],
    creatures: Chooser | None = None,
    reads: frozenset[str] = frozenset(),
) -> BeforeBlocks:
    """The part of an attack trigger: `one(source, n)` for each instance of `keyword` on each
    attacker (or each of `creatures(board)`), as ``trigger_each_instance`` triggers."""

    def changes(board: DeclaredAttack) -> Changes | None:
        out = Changes()
        chosen = board.attackers() if creatures is None else creatures(board)
        if chosen is None:
            return None
        for c in chosen:
            for n in board.instances(c, keyword):
                out = out + one(c, n)
        return out

    return BeforeBlocks(changes, reads)
