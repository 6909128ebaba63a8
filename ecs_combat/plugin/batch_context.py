"""What a system's batched form may read and do: the :class:`BatchContext` the batched engine
passes to plugins' systems, by the same names with the same meanings as the reference
engine's :class:`~ecs_combat.plugin.context.CombatContext` (the rule, and the values both
speak in: :mod:`ecs_combat.plugin.context`)."""

from __future__ import annotations

from typing import Protocol

import numpy.typing as npt

from ecs_combat.plugin.context import BoolArray, G, IntArray, StateArray


class BatchContext(Protocol):
    """Many combats at once (batched engine): what a system's batched form may read and do.

    Queries answer for every row at once (one element per creature row, player row or
    battle); actions take the rows they act on. Read-only arrays raise on writing; the ones
    documented as writable change the batch. There are no notes: the account is the
    reference engine's.
    """

    @property
    def rows(self) -> int:
        """The number of creature rows."""
        ...

    @property
    def player_rows(self) -> int:
        """The number of player rows."""
        ...

    @property
    def battles(self) -> int:
        """The number of battles."""
        ...

    def battle(self) -> IntArray:
        """Each creature row's battle."""
        ...

    def player_battle(self) -> IntArray:
        """Each player row's battle."""
        ...

    def creature_id(self, row: int) -> str:
        """A creature row's scenario id, for error messages."""
        ...

    def player_id(self, row: int) -> str:
        """A player row's id, for error messages."""
        ...

    # -- creatures now (one element per creature row) ----------------------------------------

    def on_battlefield(self) -> BoolArray:
        """Row mask: creatures on the battlefield."""
        ...

    def new_objects(self) -> BoolArray:
        """Row mask: creatures that returned as new objects (400.7) after the triggers now
        resolving were put on the stack, as :meth:`CombatContext.new_object`."""
        ...

    def attacking(self) -> BoolArray:
        """Row mask: attacking creatures (on the battlefield, not removed from combat)."""
        ...

    def blocking(self) -> BoolArray:
        """Row mask: blocking creatures (on the battlefield, not removed from combat)."""
        ...

    def defending_player(self) -> IntArray:
        """Per row: the player row an attacking creature attacks; -1 if it is not attacking."""
        ...

    def blocker_count(self) -> IntArray:
        """Per row: how many creatures still block it (509.1h: blocks in effect)."""
        ...

    def band(self) -> IntArray:
        """Per row: the row of the first creature of the band it was declared attacking in
        (``combat.bands``, 702.22c), its own if it is the first; -1 if none."""
        ...

    def controller(self) -> IntArray:
        """Per row: the player row controlling it."""
        ...

    def has(self, keyword: str) -> BoolArray:
        """Row mask: creatures that have a keyword now (printed, granted, counters, static)."""
        ...

    def instances(self, keyword: str) -> tuple[IntArray, IntArray]:
        """(rows, parameters) of the instances of a keyword creatures have now, in row order
        then printed, granted, counter order; a parameter is as
        :meth:`CombatContext.instances` gives it: a number, a color or quality index
        (``FROM_WORDS``) or -1. A keyword a row has with no listed instance (a static ability's,
        or a bulk simulation's one bit) counts once, with -1."""
        ...

    def power(self) -> IntArray:
        """Per row: power now."""
        ...

    def toughness(self) -> IntArray:
        """Per row: toughness now."""
        ...

    def damage(self) -> IntArray:
        """Per row: damage marked."""
        ...

    def colors(self) -> IntArray:
        """Per row: colors as a bit mask, bit i for ``COLORS[i]`` (``color_mask``)."""
        ...

    def types(self) -> IntArray:
        """Per row: card types besides creature as a bit mask, bit i for ``CARD_TYPES[i]``
        (``type_mask``)."""
        ...

    def lands(self) -> IntArray:
        """Per player row: land types as a bit mask, bit i for ``LAND_TYPES[i]``
        (``land_mask``)."""
        ...

    def tapped(self) -> BoolArray:
        """Row mask: tapped creatures."""
        ...

    def counters(self, kind: str) -> IntArray:
        """Per row: how many counters of a kind are on it."""
        ...

    def has_counters(self, kind: str) -> bool:
        """Whether any row may have counters of a kind (False: :meth:`counters` is 0 for
        every row, and reading it can be skipped)."""
        ...

    def creature_state(self, key: str) -> StateArray:
        """A plugin's state of every creature row (writable; a creature reference is a row or
        -1)."""
        ...

    def can_target(self, sources: IntArray, targets: IntArray) -> BoolArray:
        """Per pair: whether a triggered ability of the source row may target the target row
        beside it now, as :meth:`CombatContext.can_target`."""
        ...

    # -- players (one element per player row) and battles ----------------------------------

    def life(self) -> IntArray:
        """Per player row: life total."""
        ...

    def lost(self) -> BoolArray:
        """Per player row: whether the player has lost the game."""
        ...

    def player_state(self, key: str) -> StateArray:
        """A plugin's state of every player row (writable)."""
        ...

    def game_over(self) -> BoolArray:
        """Per battle: whether fewer than two players remain."""
        ...

    # -- actions ---------------------------------------------------------------------------

    def pump(self, rows: IntArray, power: IntArray | int, toughness: IntArray | int) -> None:
        """+power/+toughness until end of turn for some distinct rows."""
        ...

    def add_counters(self, rows: IntArray, kind: str, change: IntArray | int) -> None:
        """Put (positive) or remove (negative) counters of a kind on some distinct rows."""
        ...

    def tap(self, rows: IntArray) -> None:
        """Tap some rows."""
        ...

    def untap(self, rows: IntArray) -> None:
        """Untap some rows."""
        ...

    def targets(self, keyword: str) -> tuple[IntArray, IntArray, IntArray]:
        """(source rows, instance, target rows) of the targets scenarios give instances of a
        keyword (``targets``), in source row then instance order; instances without a target
        have no element."""
        ...

    def require_block(self, blockers: IntArray, attackers: IntArray, keyword: str) -> None:
        """Requirements (509.1c) triggers make: each blocker row must block the attacker row
        beside it if able. Blocks are checked as the scenario is loaded (by the rules core, from
        the systems' ``before_blocks`` parts or an engine's play), so the batched engine
        records them and resolves the declared blocks."""
        ...

    def leave_battlefield(self, rows: IntArray) -> None:
        """Creatures leave the battlefield, and so combat (506.4)."""
        ...

    def lose_life(self, players: IntArray, amount: IntArray | int) -> None:
        """Players (rows, may repeat) lose life (not damage, 119.3)."""
        ...

    def sacrifice(self, rows: IntArray) -> None:
        """Some distinct rows are sacrificed (701.17), as :meth:`CombatContext.sacrifice`:
        the `dies` systems run once for all of them."""
        ...

    def create_token(
        self,
        controllers: IntArray,
        characteristics: IntArray,
        tapped: bool = False,
        attacking: IntArray | None = None,
    ) -> IntArray:
        """Token copies enter, one per element: of the row ``characteristics[i]`` under the
        player row ``controllers[i]``, attacking ``attacking[i]`` if given, as
        :meth:`CombatContext.create_token` says. Their rows (-1 where that token exists
        already); a token the batch reserved no row for makes the engine refuse the batch."""
        ...

    def chosen_sacrifices(self, players: IntArray, n: IntArray) -> IntArray:
        """The rows the given players (distinct player rows) choose to sacrifice now, `n[i]`
        for ``players[i]``, as :meth:`CombatContext.chosen_sacrifices` says; all in one array
        (pass it to :meth:`sacrifice`)."""
        ...

    def destroy(self, rows: IntArray) -> BoolArray:
        """An effect destroys some distinct rows (701.8), as :meth:`CombatContext.destroy`:
        the `destroy` systems once for all of them, then those destroyed die together.
        Per row given: whether it was destroyed."""
        ...

    def remove_from_combat(self, rows: IntArray) -> None:
        """Some rows stop attacking or blocking (506.4), as
        :meth:`CombatContext.remove_from_combat`."""
        ...

    def remove_damage(self, rows: IntArray) -> None:
        """All damage marked on some rows is removed."""
        ...

    def return_to_battlefield(self, rows: IntArray) -> None:
        """Creatures that died (distinct rows) return to the battlefield as new objects
        (400.7), as :meth:`CombatContext.return_to_battlefield` says; tokens and rows on the
        battlefield stay as they are."""
        ...

    def marks(self, name: str, dtype: type[G]) -> npt.NDArray[G]:
        """A plugin's own per-creature column (writable), zeros until first written, kept for
        the batch (and the turn's later combat phases)."""
        ...

    def has_marks(self, name: str) -> bool:
        """Whether the column :meth:`marks` `name` exists yet."""
        ...
