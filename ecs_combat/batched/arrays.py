"""Many combats as numpy structure-of-arrays: the batched engine's input and output.

Rows are players, creatures, blocks, divisions and events; every index is a global row
number. The rows of one battle are contiguous and battles appear in ascending order, so
per-battle work is a segmented operation, never a Python loop.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
MaskArray = npt.NDArray[np.uint64]

#: Event action codes (``CombatBatch.event_action``), in CONTRACT.md order.
EVENT_ACTIONS = (
    "grant",
    "remove",
    "counters",
    "pump",
    "damage",
    "enter",
    "remove-from-combat",
    "destroy",
    "cast",
)
ACTION_CODE = {name: code for code, name in enumerate(EVENT_ACTIONS)}


def action_names(plugin_actions: Sequence[str]) -> tuple[str, ...]:
    """Every action code's name: the core's (:data:`EVENT_ACTIONS`), then the plugins' event
    actions (``Registry.event_actions``) in registry order."""
    return (*EVENT_ACTIONS, *plugin_actions)


#: ``division_recipient`` of the one row that stands for a division with no amounts at all.
NO_RECIPIENT = np.iinfo(np.int64).min


@dataclass
class CombatBatch:
    """Many combats at once.

    Keyword masks use bit ``i`` for ``keyword_names[i]``: the keywords the batch uses, at
    most 64. Counter columns are ``counter_names``: the keyword names (whether or not they may
    be counters), then other kinds of counters (``+1/+1``).
    """

    n_battles: int
    keyword_names: tuple[str, ...]

    # -- players: [P] rows, contiguous per battle, in turn order (the first is active) -------
    player_battle: IntArray
    life: IntArray

    # -- creatures: [N] rows, contiguous per battle, in scenario order -------------------------
    battle: IntArray
    controller: IntArray  #: player row
    power: IntArray
    toughness: IntArray
    damage: IntArray  #: damage already marked
    keywords: MaskArray  #: printed keywords
    #: Colors as bit masks (bit i for ``definitions.COLORS[i]``).
    colors: IntArray
    #: Player row it attacks, or -1. Creatures that enter later have -1 here.
    attacking: IntArray
    #: False for creatures that enter the battlefield through an `enter` event.
    present: BoolArray

    # -- blocks: [B] rows, one per (blocker, attacker) ------------------------------------------
    #: Grouped by attacker; within an attacker, in the order the blockers were declared.
    block_blocker: IntArray
    block_attacker: IntArray
    #: Position of the attacker in its blocker's own declared list (0 for a single block).
    block_rank: IntArray

    #: Counters, [N, len(counter_names)], or None when no creature has any.
    counters: IntArray | None = None
    counter_names: tuple[str, ...] = ()
    #: Plugins' state by key: [N] per creature key (a creature reference: row or -1), [P] per
    #: player key.
    creature_state: dict[str, npt.NDArray[Any]] = field(default_factory=dict)
    player_state: dict[str, npt.NDArray[Any]] = field(default_factory=dict)
    #: Printed keyword instances of keywords with instances that differ (a parameter, or
    #: listed more than once): [I] rows, in creature row then file order. ``instance_keyword``
    #: is a bit index; ``instance_parameter`` a number, a color index, or -1.
    instance_row: IntArray = field(default_factory=lambda: np.zeros(0, np.int64))
    instance_keyword: IntArray = field(default_factory=lambda: np.zeros(0, np.int64))
    instance_parameter: IntArray = field(default_factory=lambda: np.zeros(0, np.int64))
    #: Targets of keyword instances' triggers (``targets``): [T] rows, in source row then
    #: instance order: the source row, the keyword's bit index, the instance's place among
    #: the source's instances of it, and the target creature row.
    target_source: IntArray = field(default_factory=lambda: np.zeros(0, np.int64))
    target_keyword: IntArray = field(default_factory=lambda: np.zeros(0, np.int64))
    target_instance: IntArray = field(default_factory=lambda: np.zeros(0, np.int64))
    target_row: IntArray = field(default_factory=lambda: np.zeros(0, np.int64))

    #: Rows reserved for token copies (``Keyword.tokens``: myriad's), present False: [K]
    #: sorted ``source row * n_players + player row`` keys and the token rows.
    token_key: IntArray = field(default_factory=lambda: np.zeros(0, np.int64))
    token_row: IntArray = field(default_factory=lambda: np.zeros(0, np.int64))
    #: The scenarios' ``sacrifices`` (RULES 13): [S] rows, grouped by player row ascending,
    #: each player's in the order listed: the player row and the creature row named.
    sacrifice_player: IntArray = field(default_factory=lambda: np.zeros(0, np.int64))
    sacrifice_row: IntArray = field(default_factory=lambda: np.zeros(0, np.int64))
    #: The creatures' ``value`` keys (RULES 9), where given: [V] creature rows and values;
    #: the others' value is power plus toughness as given.
    value_row: IntArray = field(default_factory=lambda: np.zeros(0, np.int64))
    value: IntArray = field(default_factory=lambda: np.zeros(0, np.int64))

    #: [N] the row of the first creature of the band it attacks in (``combat.bands``,
    #: 702.22c), or -1; None: no band.
    band: IntArray | None = None

    # -- explicit divisions: [D] rows, one per (step, source, recipient) ------------------------
    # The rows of one (step, source) are contiguous, recipients in the order the scenario gives
    # them (that order decides which bad recipient an error names); a division with no amounts
    # is one row with recipient NO_RECIPIENT.
    #: Index of the step in the registry's ordered step list.
    division_step: IntArray = field(default_factory=lambda: np.zeros(0, np.int64))
    division_source: IntArray = field(default_factory=lambda: np.zeros(0, np.int64))
    #: Creature row, or ``-1 - player_row`` for a player.
    division_recipient: IntArray = field(default_factory=lambda: np.zeros(0, np.int64))
    division_amount: IntArray = field(default_factory=lambda: np.zeros(0, np.int64))

    # -- events: [E] rows, sorted by (battle, point, file order) --------------------------------
    event_battle: IntArray = field(default_factory=lambda: np.zeros(0, np.int64))
    #: 0 = declare-blockers; k >= 1 = after the (k-1)-th step of the registry's ordered steps.
    event_point: IntArray = field(default_factory=lambda: np.zeros(0, np.int64))
    event_action: IntArray = field(default_factory=lambda: np.zeros(0, np.int64))
    #: Creature row (for `damage` to a player: ``-1 - player_row``); the new row for `enter`.
    event_target: IntArray = field(default_factory=lambda: np.zeros(0, np.int64))
    event_keywords: MaskArray = field(default_factory=lambda: np.zeros(0, np.uint64))
    #: For `counters`: [E, len(counter_names)] changes; None when there are no such events.
    event_counters: IntArray | None = None
    #: Keyword instances `grant` events give, as for printed ones: [G] rows, event rows.
    event_instance_event: IntArray = field(default_factory=lambda: np.zeros(0, np.int64))
    event_instance_keyword: IntArray = field(default_factory=lambda: np.zeros(0, np.int64))
    event_instance_parameter: IntArray = field(default_factory=lambda: np.zeros(0, np.int64))
    event_power: IntArray = field(default_factory=lambda: np.zeros(0, np.int64))
    event_toughness: IntArray = field(default_factory=lambda: np.zeros(0, np.int64))
    event_amount: IntArray = field(default_factory=lambda: np.zeros(0, np.int64))
    #: For `enter`: player row attacked. For `cast`: caster player row. Else -1.
    event_player: IntArray = field(default_factory=lambda: np.zeros(0, np.int64))
    #: For `cast`: index into `card_names`. Else -1.
    event_card: IntArray = field(default_factory=lambda: np.zeros(0, np.int64))
    card_names: tuple[str, ...] = ()
    #: For `cast`: the row of the creature token the card creates (present False), else -1;
    #: None when no event creates one.
    event_token: IntArray | None = None

    # -- names, for output and for plugins that read them (None in bulk simulations) -----------
    creature_ids: list[str] | None = None
    #: [N] card types besides creature as bit masks (``definitions.CARD_TYPES``), [P] the land
    #: types players control (``definitions.LAND_TYPES``); None: none (bulk simulations).
    types: IntArray | None = None
    player_lands: IntArray | None = None
    #: [N] tapped as the combat begins (``tapped = true``); None: none is.
    tapped: BoolArray | None = None
    creature_names: list[str] | None = None
    player_ids: list[str] | None = None

    # -- where rows come from, for error messages and skipped-event lists (None in bulk) -------
    #: [D] index of the division in its scenario's ``combat.divide`` list.
    division_index: IntArray | None = None
    #: [E] index of the event in its scenario's ``events`` list (file order).
    event_index: IntArray | None = None
    #: Per battle: the file (``file:line`` for JSON Lines) it was read from.
    battle_files: Sequence[str] | None = None

    @property
    def n_creatures(self) -> int:
        """Number of creature rows."""
        return int(self.battle.shape[0])

    @property
    def n_players(self) -> int:
        """Number of player rows."""
        return int(self.player_battle.shape[0])


@dataclass
class BatchOutcome:
    """The end of many combats: the final state, plus per-step damage totals."""

    alive: BoolArray  #: [N] on the battlefield at the end of combat
    damage: IntArray  #: [N] damage marked at the end of combat
    power: IntArray  #: [N]
    toughness: IntArray  #: [N]
    life: IntArray  #: [P]
    lost: BoolArray  #: [P]
    #: [N] whether each creature died in a damage step's state-based actions.
    died_in_step: BoolArray
    #: Per battle: total combat damage dealt to players.
    damage_to_players: IntArray
    #: [N] combat damage each creature dealt to players; None if the engine doesn't say.
    dealt_to_players: IntArray | None = None
    #: [N] life its controller gained from each creature's combat damage (lifelink); None if
    #: the engine doesn't say.
    life_gained: IntArray | None = None
    #: [N] whether each creature was on the battlefield at some point (False for a creature
    #: whose `enter` event never happened); None if the engine doesn't say.
    entered: BoolArray | None = None
    #: [S, n_battles] whether each damage step (registry order) took place; None if not said.
    steps_taken: BoolArray | None = None
    #: Plugins' player state at the end, by key ([P] each); None if the engine doesn't say.
    player_state: dict[str, npt.NDArray[Any]] | None = None
    #: [N] power plus toughness of each creature as it last returned to the battlefield as a
    #: new object (400.7: persist, undying), -1 if it never did; None if the engine doesn't say.
    returned: IntArray | None = None


@dataclass(frozen=True)
class StepDivisions:
    """How the creatures dealing damage in one step could divide it (510.1c-d), recorded on
    request (:meth:`BatchedEngine.resolve_batch` with ``divisions=True``) for decision search.

    Arrays are [N] per creature row as the step's damage is assigned, after the
    ``assign-damage`` systems; blocks are those still in effect (the blocker still blocking,
    the attacker still attacking), grouped by attacker in declaration order.
    """

    step: int  #: index in the registry's ordered steps
    deals: BoolArray  #: assigns combat damage in this step
    power: IntArray
    #: Toughness minus damage already marked, never below 0 (lethal damage, 702.19b).
    remaining: IntArray
    #: 1 damage from this source is lethal (702.2c).
    one_is_lethal: BoolArray
    #: This attacker may assign damage beyond lethal to the player it attacks (702.19b).
    player_gets_excess: BoolArray
    block_blocker: IntArray
    block_attacker: IntArray
    #: Position of the attacker in its blocker's declared list.
    block_rank: IntArray
    #: Sources whose damage a player may split any way among the creatures in their fight,
    #: none to a player (702.22j-k); None: none.
    any_split: BoolArray | None = None
    #: Per row: whether the attacking player (rather than the defending player) divides
    #: its damage; None: each player divides their own creatures' (510.1c-d).
    by_attacking: BoolArray | None = None
