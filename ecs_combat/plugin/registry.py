"""The registry of what the loaded plugins provide (:func:`ecs_combat.plugin.loading.load_registry`
finds, loads and checks them)."""

from __future__ import annotations

from dataclasses import dataclass, field

import pluggy

from ecs_combat.plugin.definitions import (
    Card,
    CounterKind,
    DamageStep,
    Keyword,
    ScoreTerm,
    SplitCard,
    StateField,
    normalize_keyword,
    plugin_name_for,
)
from ecs_combat.plugin.kernels import KernelColumn, KernelPart
from ecs_combat.plugin.phases import PhaseRule
from ecs_combat.plugin.restrictions import Restriction
from ecs_combat.plugin.schedule import System
from ecs_combat.suggest import did_you_mean


@dataclass(frozen=True)
class PluginInfo:
    """One loaded plugin and what it contributes."""

    name: str
    distribution: str | None
    version: str | None
    module: str
    keywords: tuple[str, ...] = ()
    steps: tuple[str, ...] = ()
    cards: tuple[str, ...] = ()
    #: Systems it adds, as (point, system name).
    systems: tuple[tuple[str, str], ...] = ()
    #: State it adds, as "owner.key".
    state: tuple[str, ...] = ()


@dataclass(frozen=True)
class ScheduledSystem:
    """A system with the plugin that added it."""

    plugin: str
    system: System


@dataclass
class Registry:
    """Everything the loaded plugins define, read by both engines."""

    manager: pluggy.PluginManager
    plugins: list[PluginInfo] = field(default_factory=list)
    keywords: dict[str, Keyword] = field(default_factory=dict)
    keyword_plugin: dict[str, str] = field(default_factory=dict)
    steps: list[DamageStep] = field(default_factory=list)
    #: Cards by folded name; each half of a split card is here by its own name.
    cards: dict[str, Card] = field(default_factory=dict)
    #: Split cards by folded full name (``assault // battery``).
    split_cards: dict[str, SplitCard] = field(default_factory=dict)
    #: The rules that add phases to a turn, in plugin order.
    phase_rules: list[PhaseRule] = field(default_factory=list)
    blocked: frozenset[str] = frozenset()
    #: Keywords left out because a keyword they require is missing, with the reason.
    unavailable: dict[str, str] = field(default_factory=dict)
    #: The systems at each point, in the order they run.
    systems: dict[str, list[ScheduledSystem]] = field(default_factory=dict)
    #: Restrictions on attacking, blocking and targeting, by kind.
    restrictions: dict[str, list[Restriction]] = field(default_factory=dict)
    #: Kinds of counters other than keyword counters, by name.
    counter_kinds: dict[str, CounterKind] = field(default_factory=dict)
    #: Plugins' state by owner (``creature``, ``player``), then scenario key.
    state: dict[str, dict[str, StateField]] = field(default_factory=dict)
    #: Terms plugins add to the score of decisions, by name, in plugin order.
    score_terms: dict[str, ScoreTerm] = field(default_factory=dict)
    #: The kernel forms of systems, by (plugin, system name).
    kernel_parts: dict[tuple[str, str], KernelPart] = field(default_factory=dict)
    #: The columns each plugin's kernel parts share, by plugin.
    kernel_columns: dict[str, list[KernelColumn]] = field(default_factory=dict)

    def state_fields(self, owner: str) -> dict[str, StateField]:
        """The state plugins add to creatures or players, by scenario key."""
        return self.state.get(owner, {})

    def counter_names(self) -> list[str]:
        """Every kind of counter a creature may have: keyword counters, then the others."""
        return [k.name for k in self.keywords.values() if k.counter] + list(self.counter_kinds)

    def restrictions_of(self, kind: str) -> list[Restriction]:
        """The restrictions of one kind whose keyword is loaded."""
        return self.restrictions.get(kind, [])

    def systems_at(self, point: str) -> list[ScheduledSystem]:
        """The systems that run at a point, in order."""
        return self.systems.get(point, [])

    def without_batched_form(self) -> dict[str, str]:
        """Keyword -> plugin, for keywords whose systems have no batched form."""
        out: dict[str, str] = {}
        for scheduled in self.systems.values():
            for s in scheduled:
                if s.system.batched is None:
                    for kw in s.system.keywords or self.keywords.keys():
                        out.setdefault(kw, s.plugin)
        return out

    def kernel_part(self, scheduled: ScheduledSystem) -> KernelPart | None:
        """The kernel form of a scheduled system, or None."""
        return self.kernel_parts.get((scheduled.plugin, scheduled.system.name))

    @property
    def step_names(self) -> list[str]:
        """Names of the damage steps, in order."""
        return [s.name for s in self.steps]

    def keyword(self, name: str) -> Keyword | None:
        """Return the keyword definition for a name in any spelling, or None."""
        return self.keywords.get(normalize_keyword(name))

    def unknown_keyword_reason(self, name: str) -> str:
        """Explain why a keyword is not available (blocked, no plugin provides it, or it
        requires a keyword that is missing)."""
        words = normalize_keyword(name).split(" ")
        for n in range(len(words), 0, -1):  # "NAME 2": keyword "NAME" with a parameter
            if " ".join(words[:n]) in self.unavailable:
                return self.unavailable[" ".join(words[:n])]
        plugin = plugin_name_for(name)
        if plugin in self.blocked:
            return f"unknown keyword {name!r}: its plugin {plugin!r} is blocked"
        return f"unknown keyword {name!r}: no loaded plugin provides it{did_you_mean(name, self.keywords)}"

    def unknown_card_reason(self, name: str) -> str:
        """Explain why no spell of the card library has this name, naming blocked plugins if
        any."""
        card = self.card(name)
        if card is not None and card.is_creature:
            return (
                f"{card.name} is a creature card: a creature names it with `card`; spells are cast"
            )
        known = [card.name for card in self.spells()]
        reason = f"no card {name!r} in the card library{did_you_mean(name, known)}"
        if self.blocked:
            reason += f" (blocked plugins: {', '.join(sorted(self.blocked))})"
        return reason

    def card(self, name: str) -> Card | None:
        """Return a card of the card library by name (case-insensitive), or None; a split
        card's half by the half's name."""
        return self.cards.get(name.casefold())

    def spell(self, name: str) -> Card | None:
        """A card that can be cast (not a creature card) by name, case-insensitive, or None."""
        card = self.card(name)
        return None if card is None or card.is_creature else card

    def spells(self) -> list[Card]:
        """The cards that can be cast (each half of a split card by itself)."""
        return [c for c in self.cards.values() if not c.is_creature]

    def split_card_of(self, name: str) -> SplitCard | None:
        """The split card a half belongs to (or with that full name), or None."""
        folded = name.casefold()
        for split in self.split_cards.values():
            if folded == split.name.casefold() or any(
                folded == f.name.casefold() for f in split.faces
            ):
                return split
        return None

    def library(self) -> list[Card | SplitCard]:
        """Every card of the plugins' card library, split cards whole, in name order."""
        halves = {f.name.casefold() for s in self.split_cards.values() for f in s.faces}
        whole: list[Card | SplitCard] = [c for k, c in self.cards.items() if k not in halves]
        whole.extend(self.split_cards.values())
        return sorted(whole, key=lambda c: c.name.casefold())

    def wants(self, hook: str) -> bool:
        """Whether any loaded plugin implements the named runtime hook."""
        caller = getattr(self.manager.hook, hook)
        return bool(caller.get_hookimpls())

    def plugins_implementing(self, hook: str) -> list[str]:
        """Names of the plugins that implement a hook."""
        caller = getattr(self.manager.hook, hook)
        return [impl.plugin_name for impl in caller.get_hookimpls()]


#: The score terms of decisions that the core computes itself (RULES section 9).
CORE_SCORE_TERMS = ("game", "material", "life")
