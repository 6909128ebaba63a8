"""The scenario model: players, creatures, divisions and events of one combat, as validated."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ecs_combat.scenario.instances import Parameter


@dataclass
class PlayerSpec:
    """A player: life total, and the state plugins add (``poison``, ``hat``, ...)."""

    id: str
    life: int = 20
    state: dict[str, Any] = field(default_factory=dict)
    #: The land types (and ``nonbasic``) of the lands they control, for landwalk.
    lands: tuple[str, ...] = ()


@dataclass
class CreatureSpec:
    """A creature as the scenario describes it."""

    id: str
    name: str
    controller: str
    power: int
    toughness: int
    #: One name per keyword instance (a keyword listed twice is there twice), in file order.
    keywords: tuple[str, ...] = ()
    #: Each instance's parameter (``bushido 2``: 2; ``protection from red``: "red"), or None.
    parameters: tuple[Parameter, ...] = ()
    #: Counters of any kind: keyword counters and the plugins' kinds (``+1/+1``).
    counters: dict[str, int] = field(default_factory=dict)
    damage: int = 0
    #: Its colors (105.1); none for a colorless creature.
    colors: tuple[str, ...] = ()
    #: Its card types besides creature (``artifact``), from ``types`` or its card.
    types: tuple[str, ...] = ()
    #: The state plugins add (``hat``, ``paired_with``, ...), by scenario key.
    state: dict[str, Any] = field(default_factory=dict)
    #: It came under its controller's control this turn: it can't attack without a keyword
    #: that lets it (302.6). Creatures that enter through events always did.
    summoning_sick: bool = False
    #: It is tapped as the combat (or the turn's first combat phase) begins: it can't attack
    #: or block unless something untaps it first (508.1a, 509.1a).
    tapped: bool = False
    path: str = ""
    #: The card it was made from (``card = "Serra Angel"``), or None.
    card: str | None = None
    #: The card's rules text that no loaded plugin models (an approximate card).
    ignored_text: tuple[str, ...] = ()
    #: Its value for decisions (RULES section 9), or None for power plus toughness.
    value: int | None = None
    #: The targets of its keywords' triggers (``targets = { <keyword> = "bear" }``): keyword ->
    #: creature ids, one per instance in order (fewer: the later instances have none).
    targets: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: It is a token (111.1), created by a card: once it leaves the battlefield it can't
    #: come back (111.8).
    token: bool = False


@dataclass
class Division:
    """An explicit division of one creature's damage in one step."""

    step: str
    source: str
    amounts: dict[str, int]
    path: str


@dataclass
class Event:
    """Something that happens at a point of the combat (CONTRACT.md section 1)."""

    index: int
    at: str
    action: str
    path: str
    target: str | None = None
    keywords: tuple[str, ...] = ()
    parameters: tuple[Parameter, ...] = ()
    counters: dict[str, int] = field(default_factory=dict)
    power: int = 0
    toughness: int = 0
    amount: int = 0
    creature: CreatureSpec | None = None
    attacking: str | None = None
    card: str | None = None
    caster: str | None = None
    #: For `cast`: the id of the creature token the card creates (its spec is `creature`).
    token: str | None = None

    def describe(self) -> str:
        """A short description for skipped-event lists and the readable account."""
        what = self.target or self.card or (self.creature.id if self.creature else "")
        return f"events[{self.index}] ({self.action} {what}) at {self.at}".replace("  ", " ")


@dataclass
class Scenario:
    """One validated combat scenario."""

    file: str
    players: dict[str, PlayerSpec]
    creatures: dict[str, CreatureSpec]
    attackers: dict[str, str]
    blockers: dict[str, tuple[str, ...]]
    divisions: list[Division] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    #: The creatures each player chooses, in order, when made to sacrifice (RULES 13).
    sacrifices: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: Attackers that attack in a band (``combat.bands``, 702.22c), each band in file order.
    bands: list[tuple[str, ...]] = field(default_factory=list)
    #: Key path of its combat in messages (``combats[1]`` for a turn's combat phase).
    combat_path: str = "combat"
    #: The blockers of each attacker, built on first use from `blockers` as it is then (a new
    #: or resized `blockers` dict rebuilds it), so that asking for every attacker is linear.
    _blockers_index: tuple[object, int, dict[str, list[str]]] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    @property
    def active_player(self) -> str:
        """The attacking player: the first player listed."""
        return next(iter(self.players))

    def band_of(self, attacker: str) -> tuple[str, ...]:
        """The attackers of its band, itself included (just itself outside a band)."""
        for band in self.bands:
            if attacker in band:
                return band
        return (attacker,)

    def blockers_of(self, attacker: str) -> list[str]:
        """Blockers of an attacker in declaration order."""
        cached = self._blockers_index
        if cached is None or cached[0] is not self.blockers or cached[1] != len(self.blockers):
            index: dict[str, list[str]] = {}
            for blocker, attacked in self.blockers.items():
                for a in dict.fromkeys(attacked):
                    index.setdefault(a, []).append(blocker)
            cached = self._blockers_index = (self.blockers, len(self.blockers), index)
        return list(cached[2].get(attacker, ()))
