"""What a system may read and do: the contexts the engines pass to plugins' systems.

A system's reference form receives a :class:`CombatContext` (one combat, one creature or
player at a time: here); its batched form a
:class:`~ecs_combat.plugin.batch_context.BatchContext` (many combats at once, one
element per creature row, player row or battle). Both have the **same names with the same
meanings**, by one rule: where the reference context takes a creature (or player), the batched
one answers for every row at once (queries drop the argument and return an array) or acts on
the rows it is given (actions take an array of rows). So ``power(creature)`` is one creature's
power and ``power()`` every row's; ``pump(creature, 1, 1)`` pumps one creature and
``pump(rows, 1, 1)`` the given rows. Both speak in the same values: colors, card types and
land types are bit masks (``color_mask``, ``type_mask``, ``land_mask``), a keyword instance's
parameter is an integer (a number, a ``FROM_WORDS`` index, or -1).

Creatures and players of the reference context are opaque handles (:data:`Creature`,
:data:`Player`): compare them, use them as keys, pass them back; never build one. Rows of the
batched context are global row numbers (the rows of one battle are contiguous). Nothing else
of either engine is part of the contract; a plugin imports neither engine.
"""

from __future__ import annotations

from collections.abc import MutableMapping, Sequence
from typing import Protocol, TypeVar

import numpy as np
import numpy.typing as npt

#: A creature of the reference engine (an opaque handle).
Creature = int
#: A player of the reference engine (an opaque handle).
Player = int
#: One boolean per creature row (a row mask), per player row or per battle.
BoolArray = npt.NDArray[np.bool_]
#: Integers per row, or a list of rows.
IntArray = npt.NDArray[np.int64]
#: A value kept for a creature or player in the reference engine (:meth:`CombatContext.marks`).
MarkValue = int | bool | str | None
#: A plugin's state of a creature or player in the reference engine: an int, a bool, or (a
#: creature reference) a :data:`Creature` or None.
StateValue = int | bool | None
#: A plugin's state of every creature or player row in the batched engine: int64 for ``int``
#: and ``creature`` state (a row, or -1), bool for ``bool`` state.
StateArray = npt.NDArray[np.int64] | npt.NDArray[np.bool_]
#: The element type of a plugin's column (:meth:`BatchContext.marks`): ``np.bool_``,
#: ``np.int64``.
G = TypeVar("G", bound=np.generic)


class CombatContext(Protocol):
    """One combat (reference engine): what a system's reference form may read and do.

    The same context serves every point and every triggered ability of a combat (and of the
    combat phases of one turn); marks (:meth:`marks`) last as long.
    """

    # -- who is there --------------------------------------------------------------------

    def creatures(self) -> list[Creature]:
        """Every creature of the combat, on the battlefield or not, in scenario order (those
        that entered later last)."""
        ...

    def players(self) -> list[Player]:
        """The players still seated in the combat, in turn order (the attacking player first)."""
        ...

    def creature_id(self, creature: Creature) -> str:
        """The creature's scenario id (``goblin``), for notes."""
        ...

    def player_id(self, player: Player) -> str:
        """The player's scenario id, for notes."""
        ...

    def name(self, creature: Creature) -> str:
        """The creature's name."""
        ...

    # -- a creature now --------------------------------------------------------------------

    def on_battlefield(self, creature: Creature) -> bool:
        """Whether the creature is on the battlefield."""
        ...

    def new_object(self, creature: Creature) -> bool:
        """Whether the creature returned to the battlefield as a new object (400.7) after the
        trigger now resolving was put on the stack: to that trigger it is gone (a second
        "dies" trigger of a creature the first returned finds a new object and does nothing).
        False outside triggers."""
        ...

    def attacking(self, creature: Creature) -> bool:
        """Whether it is an attacking creature (on the battlefield, not removed from combat)."""
        ...

    def blocking(self, creature: Creature) -> bool:
        """Whether it is a blocking creature (on the battlefield, not removed from combat)."""
        ...

    def defending_player(self, creature: Creature) -> Player | None:
        """The player an attacking creature attacks; None if it is not attacking."""
        ...

    def blocker_count(self, creature: Creature) -> int:
        """How many creatures still block an attacker (509.1h: blocks in effect)."""
        ...

    def band(self, creature: Creature) -> Creature | None:
        """The first creature of the band it was declared attacking in (``combat.bands``,
        702.22c), itself if it is the first; None if it attacks in no band."""
        ...

    def controller(self, creature: Creature) -> Player:
        """The player controlling the creature."""
        ...

    def has(self, creature: Creature, keyword: str) -> bool:
        """Whether the creature has a keyword now (printed, granted, counters, static)."""
        ...

    def instances(self, creature: Creature, keyword: str) -> list[int]:
        """The parameters of the creature's instances of a keyword it has now, in printed,
        granted, counter order, as the batched context gives them: a number, a color or
        quality's index in ``FROM_WORDS`` (``protection from red``: 3), or -1 without one. A
        keyword only a static ability gives counts once, with -1; [] without the keyword."""
        ...

    def power(self, creature: Creature) -> int:
        """Its power now (printed, counters, pumps)."""
        ...

    def toughness(self, creature: Creature) -> int:
        """Its toughness now (printed, counters, pumps)."""
        ...

    def damage(self, creature: Creature) -> int:
        """The damage marked on it."""
        ...

    def colors(self, creature: Creature) -> int:
        """Its colors (105.1) as a bit mask, bit i for ``COLORS[i]`` (``color_mask``); 0 for a
        colorless one."""
        ...

    def types(self, creature: Creature) -> int:
        """Its card types besides creature as a bit mask, bit i for ``CARD_TYPES[i]``
        (``type_mask``)."""
        ...

    def lands(self, player: Player) -> int:
        """The land types of the lands the player controls as a bit mask, bit i for
        ``LAND_TYPES[i]`` (``land_mask``)."""
        ...

    def tapped(self, creature: Creature) -> bool:
        """Whether it is tapped."""
        ...

    def summoning_sick(self, creature: Creature) -> bool:
        """Whether it came under its controller's control this turn (302.6). Reference only,
        for notes: both engines check summoning sickness as attackers are declared."""
        ...

    def counters(self, creature: Creature, kind: str) -> int:
        """How many counters of a kind (a keyword, ``+1/+1``, ...) are on it."""
        ...

    def creature_state(self, creature: Creature, key: str) -> StateValue:
        """A plugin's state of the creature (a creature reference is a :data:`Creature` or
        None)."""
        ...

    def can_target(self, source: Creature, target: Creature) -> bool:
        """Whether a triggered ability of `source` may target the creature `target` now
        (115.4, 608.2b): it is on the battlefield and no ``target`` restriction forbids it to
        a creature source with `source`'s colors and controller (hexproof, protection)."""
        ...

    # -- players ---------------------------------------------------------------------------

    def life(self, player: Player) -> int:
        """The player's life total."""
        ...

    def lost(self, player: Player) -> bool:
        """Whether the player has lost the game."""
        ...

    def player_state(self, player: Player, key: str) -> StateValue:
        """A plugin's state of the player."""
        ...

    def game_over(self) -> bool:
        """Whether fewer than two players remain: the game is over (RULES.md: end of game)."""
        ...

    # -- actions ---------------------------------------------------------------------------

    def pump(self, creature: Creature, power: int, toughness: int) -> None:
        """+power/+toughness until end of turn."""
        ...

    def add_counters(self, creature: Creature, kind: str, change: int) -> None:
        """Put (positive) or remove (negative) counters of a kind; a count never goes below 0.
        Keyword counters give their keyword (122.1b), others their power and toughness."""
        ...

    def tap(self, creature: Creature) -> None:
        """Tap the creature (it stays in combat: 506.4)."""
        ...

    def untap(self, creature: Creature) -> None:
        """Untap the creature."""
        ...

    def targets(self, creature: Creature, keyword: str) -> list[Creature | None]:
        """The targets the scenario gives a creature's instances of a keyword (its ``targets``
        key), one per instance in order; None for an instance without one."""
        ...

    def require_block(self, blocker: Creature, attacker: Creature, keyword: str) -> None:
        """A requirement (509.1c) a trigger makes: the blocker must block the
        attacker if it is able to. The blocks are checked against it as they are declared;
        `keyword` names it in messages."""
        ...

    def leave_battlefield(self, creature: Creature) -> None:
        """The creature leaves the battlefield without dying (exiled, say; a sacrifice is
        :meth:`sacrifice`) and so combat (506.4)."""
        ...

    def lose_life(self, player: Player, amount: int) -> None:
        """The player loses life (not damage, 119.3)."""
        ...

    def sacrifice(self, creatures: Sequence[Creature]) -> None:
        """Their controllers sacrifice creatures (701.17): they leave the battlefield together
        and die (700.4), so the `dies` systems run once for the whole group, then state-based
        actions are checked (704.3). Nothing for those off the battlefield."""
        ...

    def create_token(
        self,
        controller: Player,
        characteristics: Creature,
        tapped: bool = False,
        attacking: Player | None = None,
    ) -> Creature | None:
        """A token copy of the creature `characteristics` (its copiable values as printed:
        name, power, toughness, keywords, colors; 707.2) enters the battlefield under
        `controller`'s control, summoning sick, tapped if `tapped`, attacking the player
        `attacking` if given and still in the game (506.3). Its id is
        ``<characteristics>~<player>`` (`attacking`, else `controller`): one token per id,
        None if it exists already. A token doesn't return to the battlefield (111.8). The
        keyword that makes it must declare ``Keyword.tokens`` (the batched engine reserves
        its rows)."""
        ...

    def chosen_sacrifices(self, player: Player, n: int) -> list[Creature]:
        """The creatures (at most `n`) the player chooses to sacrifice now, for an effect that
        makes them sacrifice `n` (annihilator): the next `n` ids of the scenario's
        ``sacrifices`` for that player (each call takes its own, in the order triggers
        resolve) still on the battlefield under their control, then the least valuable of
        their other creatures (RULES 9's value; the last listed on ties). Choosing doesn't
        sacrifice them: pass them to :meth:`sacrifice`."""
        ...

    def destroy(self, creature: Creature) -> bool:
        """An effect destroys the creature (701.8): through the `destroy` systems first
        (indestructible, regeneration may keep it), then it dies as :meth:`sacrifice` says.
        Whether it was destroyed (False for one off the battlefield)."""
        ...

    def remove_from_combat(self, creature: Creature) -> None:
        """It stops being an attacking or blocking creature (506.4); an attacker it blocked
        stays blocked (509.1h)."""
        ...

    def remove_damage(self, creature: Creature) -> None:
        """All damage marked on it is removed (regeneration, 701.19; cleanup, 514.2)."""
        ...

    def return_to_battlefield(self, creature: Creature) -> None:
        """A creature that died returns to the battlefield under its controller's control as
        a new object (400.7): untapped, not in combat, summoning sick, with no damage,
        counters, until-end-of-turn effects or marks (:meth:`marks`), its plugin state the
        default (but ``printed`` state) and every creature reference to it cleared (a soulbond
        pair is broken on both sides); it keeps its handle and id. To a trigger put on the
        stack before it returned, it is gone (:meth:`new_object`): ``on_battlefield`` is False
        and actions on it, returning it again included, do nothing. Nothing happens to a token (111.8) or a creature on the battlefield."""
        ...

    def set_creature_state(self, creature: Creature, key: str, value: StateValue) -> None:
        """Change a plugin's state of a creature."""
        ...

    def set_player_state(self, player: Player, key: str, value: StateValue) -> None:
        """Change a plugin's state of a player."""
        ...

    def marks(self, name: str) -> MutableMapping[int, MarkValue]:
        """A plugin's own per-creature (or per-player) values, by creature or player, kept for
        the combat (and the turn's later combat phases): empty until first written. Name it
        after the plugin (``"deathtouch: dealt damage"``)."""
        ...

    def note(self, text: str) -> None:
        """Say what happened, for the readable account (after the step it follows)."""
        ...
