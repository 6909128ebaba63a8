"""The payloads of the damage points: ``assign-damage`` (how each creature will assign its
damage, who divides it) and ``deal-damage`` (the damage as dealt), in the reference and batched
forms (:mod:`ecs_combat.plugin.payloads` has them all by name)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ecs_combat.plugin.context import BoolArray, IntArray


@dataclass
class Assignment:
    """How one creature will assign its damage in a step (reference engine)."""

    source: int
    #: The creatures it assigns damage among, in the order the default division uses.
    recipients: list[int]
    #: The player it attacks, for an attacker; None for a blocker.
    defender: int | None
    #: Damage beyond lethal may go to the defender (and all of it, with no recipient left):
    #: the keyword that allows it (:meth:`allow_excess`), or None.
    player_gets_excess: str | None = None
    #: Any nonzero amount from this source is lethal damage: the keyword that makes it so
    #: (:meth:`make_one_lethal`), or None.
    one_is_lethal: str | None = None
    #: The damage it assigns: its power as the step's damage is assigned (510.1a).
    amount: int = 0
    #: Set by :meth:`divide_by`: the player who divides its damage (None: its controller,
    #: 510.1c-d), and the keyword that says so.
    divided_by: int | None = None
    any_split: str | None = None

    def divide_by(self, player: int, keyword: str) -> None:
        """`player` divides this creature's damage, any way among its `recipients` (the
        creatures in that fight), none to a player, whatever would send excess on
        (702.22j-k). Where that is a choice among two or more recipients, a scenario must
        give it in ``combat.divide`` (else an input error naming the source), and decisions
        search it as that player's choice."""
        self.divided_by = player
        self.any_split = keyword

    def allow_excess(self, keyword: str) -> None:
        """Let this attacker assign damage beyond lethal to the player it attacks (702.19b),
        as :meth:`BatchDamageAssignment.allow_excess` does for rows; nothing for a blocker.
        `keyword` names the rule for the account and errors."""
        if self.defender is not None:
            self.player_gets_excess = keyword

    def make_one_lethal(self, keyword: str) -> None:
        """Make any nonzero amount from this source lethal damage (702.2c), as
        :meth:`BatchDamageAssignment.make_one_lethal` does for rows."""
        self.one_is_lethal = keyword


@dataclass
class DamageAssignment:
    """``assign-damage`` (reference): every creature that assigns damage in the step. Switch
    rules on through each :class:`Assignment`'s methods, as the batched payload's do for a
    row mask."""

    step: str
    assignments: list[Assignment]


@dataclass
class BatchDamageAssignment:
    """``assign-damage`` (batched): row masks over sources, switched on through the methods,
    which also record the keyword for the account and errors."""

    step: str
    #: Row mask of the creatures that deal damage in this step.
    dealers: BoolArray
    #: Attackers whose damage beyond lethal may go to the player they attack.
    player_gets_excess: BoolArray
    #: Sources for which any nonzero amount is lethal damage.
    one_is_lethal: BoolArray
    excess_by: list[tuple[str, BoolArray]] = field(default_factory=list)
    lethal_by: list[tuple[str, BoolArray]] = field(default_factory=list)
    #: Set by the engine: what :attr:`amount`, :attr:`blockers` and :attr:`attackers` are,
    #: worked out when a system first asks (most steps' systems never do).
    fights: Callable[[], tuple[IntArray, IntArray, IntArray]] | None = field(
        default=None, repr=False, compare=False
    )
    _fights: tuple[IntArray, IntArray, IntArray] | None = field(
        default=None, init=False, repr=False, compare=False
    )
    #: Per row: the player row who divides its damage, -1 for its controller (510.1c-d);
    #: set through :meth:`divide_by`.
    divided_by: IntArray = field(default_factory=lambda: np.zeros(0, np.int64))
    #: Row mask of the sources whose damage may be split any way among the creatures in
    #: their fight, none to a player (702.22j-k).
    any_split: BoolArray = field(default_factory=lambda: np.zeros(0, np.bool_))
    split_by: list[tuple[str, BoolArray]] = field(default_factory=list)

    def _fight(self) -> tuple[IntArray, IntArray, IntArray]:
        if self._fights is None:
            empty = np.zeros(0, np.int64)
            none = (np.zeros(len(self.dealers), np.int64), empty, empty)
            self._fights = none if self.fights is None else self.fights()
        return self._fights

    @property
    def amount(self) -> IntArray:
        """Per row: the damage it assigns (its power; 0 for a creature not dealing damage)."""
        return self._fight()[0]

    @property
    def blockers(self) -> IntArray:
        """The blocks in effect (the blocker still blocking, the attacker still attacking):
        their blocker rows, grouped by attacker in declaration order."""
        return self._fight()[1]

    @property
    def attackers(self) -> IntArray:
        """The attacker rows of the blocks in effect, parallel to :attr:`blockers`."""
        return self._fight()[2]

    def recipients(self) -> tuple[IntArray, IntArray]:
        """Every (source, creature recipient) pair of the step: each dealing attacker with
        its blockers, then each dealing blocker with its attackers, as parallel rows."""
        att = self.dealers[self.attackers]
        blk = self.dealers[self.blockers]
        sources = np.concatenate([self.attackers[att], self.blockers[blk]])
        recipients = np.concatenate([self.blockers[att], self.attackers[blk]])
        return sources, recipients

    def divide_by(self, rows: BoolArray, players: IntArray, keyword: str) -> None:
        """The player rows `players` (one element per creature row, read where the row mask
        `rows` holds) divide those creatures' damage: as :meth:`Assignment.divide_by`."""
        if len(self.divided_by) != len(rows):
            self.divided_by = np.full(len(rows), -1, np.int64)
            self.any_split = np.zeros(len(rows), np.bool_)
        self.divided_by[rows] = players[rows]
        self.any_split |= rows
        self.split_by.append((keyword, rows))

    def allow_excess(self, rows: BoolArray, keyword: str) -> None:
        """Let these attackers assign damage beyond lethal to the player (row mask)."""
        self.player_gets_excess |= rows
        self.excess_by.append((keyword, rows))

    def make_one_lethal(self, rows: BoolArray, keyword: str) -> None:
        """Make any nonzero amount from these sources lethal damage (row mask)."""
        self.one_is_lethal |= rows
        self.lethal_by.append((keyword, rows))


@dataclass
class Dealt:
    """One amount of combat damage from a source to a recipient (reference engine)."""

    source: int
    #: A creature or player entity.
    recipient: int
    to_player: bool
    amount: int
    #: For a creature: the damage is marked on it (a replacement may turn it into counters).
    marked: bool = True
    #: For a player: they lose that much life (a replacement may turn it into counters).
    loses_life: bool = True


@dataclass
class DamageEvent:
    """``deal-damage`` (reference): all combat damage of a step, dealt at once (510.2).

    Set an amount to 0 to prevent it. Life changes added to `life` (player entity -> change)
    happen together with the damage's life loss; `life_gained` lists (player, source, amount)
    for the output.
    """

    step: str
    dealt: list[Dealt]
    life: dict[int, int] = field(default_factory=dict)
    life_gained: list[tuple[int, int, int]] = field(default_factory=list)


@dataclass
class BatchDamageEvent:
    """``deal-damage`` (batched): all combat damage of a step as parallel arrays.

    ``recipient`` is a creature row, or ``-1 - player_row`` for a player. Set an amount to
    0 to prevent it. Systems append life gains as (player rows, source rows, amounts) to
    `gains`; the engine applies them with the damage.
    """

    step: str
    source: IntArray
    recipient: IntArray
    amount: IntArray
    #: Per entry: marked as damage (creatures) / lost as life (players).
    marked: BoolArray
    loses_life: BoolArray
    gains: list[tuple[IntArray, IntArray, IntArray]] = field(default_factory=list)
