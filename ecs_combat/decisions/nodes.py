"""The nodes of the decision tree (:mod:`.tree`) as the search holds them: levels of nodes
resolved together, their resolutions, and the nodes expanded into children."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ecs_combat.batched import Copies, IntArray
from ecs_combat.decisions.divisions import StepChoices, StepRecord

I64 = np.int64


@dataclass
class Level:
    """Nodes resolved together in one batch."""

    first: int  #: id of the level's first node
    decl: IntArray
    start_step: IntArray  #: the first step whose divisions are not chosen yet
    #: Chosen divisions (CSR by node): step, source, recipient (creature place, or
    #: ``-1 - player place``), amount.
    div_start: IntArray
    div: IntArray  #: [R, 4]
    #: A view of some nodes of a level already added (resolved again to expand them): their
    #: node ids; None for a level of its own (node ids from `first`).
    ids: IntArray | None = None

    def node_ids(self, places: IntArray) -> IntArray:
        """The node ids of some places in the level."""
        return self.first + places if self.ids is None else self.ids[places]


@dataclass
class Expansion:
    """A node whose first undecided division step was expanded into children."""

    node: int
    first_child: int
    n_attacking: int  #: joint divisions of the attacking player
    n_defending: int  #: replies of the defending player to each
    choices: StepChoices
    attacking: IntArray  #: [n_attacking, slots] amounts
    defending: IntArray
    #: First creature and player rows of the node's battle (rows minus these: places).
    creature_start: int
    player_start: int
    #: The reply each child plays (an illegal reply plays the first legal one: 702.19c).
    replies: IntArray
    #: The attacking choice and the defending reply that are the default division (RULES
    #: section 3), preferred among equals so that the line shown changes only what matters.
    default_attacking: int = -1
    default_defending: int = -1


@dataclass(frozen=True)
class Resolved:
    """A level resolved: its battles, scores and step records, and each node's first step
    (record index) with a choice at or after its own start, or -1 (a leaf). Values, records
    and `first` are by node; the batch's battles are its nodes in the order `node_battle`
    gives (None: node i is battle i)."""

    copies: Copies
    values: IntArray
    records: list[StepRecord]
    first: IntArray
    node_battle: IntArray | None = None

    def starts(self) -> tuple[list[int], list[int]]:
        """Each node's first creature and player rows in the batch."""
        cs, ps = self.copies.creature_start, self.copies.player_start
        if self.node_battle is not None:
            cs, ps = cs[self.node_battle], ps[self.node_battle]
        return cs.tolist(), ps.tolist()
