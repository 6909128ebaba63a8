"""Scenario files (CONTRACT.md section 1): reading TOML, JSON and JSON Lines, and validating them.

Every problem is an :class:`InputError` naming the file, the key path and what is wrong.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ecs_combat.cards.library import CreatureCard, card_keys, creature_card, no_creature_card
from ecs_combat.errors import InputError
from ecs_combat.plugin.definitions import (
    COLORS,
    REGULAR_STEP,
    Card,
    StateField,
    normalize_keyword,
)
from ecs_combat.plugin.registry import Registry
from ecs_combat.rules.legality import check_declarations
from ecs_combat.scenario import documents
from ecs_combat.scenario.checks import Checker, check_document, type_name
from ecs_combat.scenario.instances import Instance, Parameter, parse_instance

EVENT_ACTIONS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    # action: (required fields, optional fields)
    "grant": (frozenset({"target", "keywords"}), frozenset()),
    "remove": (frozenset({"target", "keywords"}), frozenset()),
    "counters": (frozenset({"target", "counters"}), frozenset()),
    "pump": (frozenset({"target"}), frozenset({"power", "toughness"})),
    "damage": (frozenset({"target", "amount"}), frozenset()),
    "enter": (frozenset({"creature", "attacking"}), frozenset()),
    "remove-from-combat": (frozenset({"target"}), frozenset()),
    "destroy": (frozenset({"target"}), frozenset()),
    # `target` unless the card targets nothing; `token` for a card that creates a creature
    "cast": (frozenset({"card", "caster"}), frozenset({"target", "token"})),
}
DECLARE_BLOCKERS = "declare-blockers"


@dataclass
class PlayerSpec:
    """A player: life total, and the state plugins add (``poison``, ``hat``, ...)."""

    id: str
    life: int = 20
    state: dict[str, Any] = field(default_factory=dict)


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
    #: The state plugins add (``hat``, ``paired_with``, ...), by scenario key.
    state: dict[str, Any] = field(default_factory=dict)
    #: It came under its controller's control this turn: it can't attack without a keyword
    #: that lets it (302.6). Creatures that enter through events always did.
    summoning_sick: bool = False
    path: str = ""
    #: The card it was made from (``card = "Serra Angel"``), or None.
    card: str | None = None
    #: The card's rules text that no loaded plugin models (an approximate card).
    ignored_text: tuple[str, ...] = ()


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
    #: The blockers of each attacker, built on first use from `blockers` as it is then (a new
    #: or resized `blockers` dict rebuilds it), so that asking for every attacker is linear.
    _blockers_index: tuple[object, int, dict[str, list[str]]] | None = field(
        default=None, init=False, repr=False, compare=False
    )

    @property
    def active_player(self) -> str:
        """The attacking player: the first player listed."""
        return next(iter(self.players))

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


# ---------------------------------------------------------------------------------------------
# Reading files


def read_documents(path: str | Path) -> Iterator[tuple[str, Any]]:
    """Yield (location, raw document) for each scenario in a .toml, .json or .jsonl file (a
    .jsonl file one line at a time: location ``FILE:LINE``)."""
    return documents.read_documents(path, "scenario")


def iter_scenarios(path: str | Path, registry: Registry) -> Iterator[Scenario]:
    """Read and validate the scenarios of a file one at a time (a .jsonl file line by line, so
    that memory stays bounded however long it is)."""
    found = False
    for where, doc in read_documents(path):
        found = True
        yield parse_scenario(doc, registry, where)
    if not found:
        raise InputError(str(path), "", "the file holds no scenario")


def load_scenarios(path: str | Path, registry: Registry) -> list[Scenario]:
    """Read and validate every scenario in a file."""
    return list(iter_scenarios(path, registry))


def load_scenario(path: str | Path, registry: Registry) -> Scenario:
    """Read and validate a file holding exactly one scenario."""
    scenarios = load_scenarios(path, registry)
    if len(scenarios) != 1:
        raise InputError(str(path), "", f"expected one scenario, found {len(scenarios)}")
    return scenarios[0]


# ---------------------------------------------------------------------------------------------
# Validation


class _Parser:
    def __init__(self, doc: Any, registry: Registry, file: str) -> None:
        self.c = Checker(file)
        self.registry = registry
        self.file = file
        self.doc = self.c.table(doc, "")
        check_document(self.doc, file)
        self.players: dict[str, PlayerSpec] = {}
        self.creatures: dict[str, CreatureSpec] = {}

    # -- pieces ---------------------------------------------------------------------------

    def keyword(self, text: str, path: str) -> Instance:
        """One keyword instance: ``flanking``, ``bushido 2``, ``protection from red``."""
        try:
            return parse_instance(text, self.registry)
        except ValueError as exc:
            raise self.c.fail(path, str(exc)) from None

    def keywords(self, value: Any, path: str) -> tuple[tuple[str, ...], tuple[Parameter, ...]]:
        """A keyword list: the names and parameters of its instances."""
        found = [
            self.keyword(k, f"{path}[{i}]") for i, k in enumerate(self.c.string_list(value, path))
        ]
        return tuple(i.name for i in found), tuple(i.parameter for i in found)

    def counter_kind(self, text: str, path: str) -> str:
        """The name of a kind of counter: a keyword counter (122.1b) or a plugin's kind."""
        if text in self.registry.counter_kinds:
            return text
        kw = self.registry.keyword(text)
        if kw is None:
            kinds = ", ".join(self.registry.counter_kinds) or "none"
            raise self.c.fail(
                path,
                f"{self.registry.unknown_keyword_reason(text)} (counters that are not keyword "
                f"counters: {kinds})",
            )
        if not kw.counter:
            raise self.c.fail(path, f"{kw.name!r} can't be a keyword counter (122.1b)")
        return kw.name

    def counters(self, value: Any, path: str, minimum: int | None) -> dict[str, int]:
        table = self.c.table(value, path)
        out: dict[str, int] = {}
        for key, count in table.items():
            name = self.counter_kind(key, f"{path}.{key}")
            out[name] = out.get(name, 0) + self.c.integer(count, f"{path}.{key}", minimum)
        return out

    def colors(self, value: Any, path: str) -> tuple[str, ...]:
        out: list[str] = []
        for i, color in enumerate(self.c.string_list(value, path)):
            name = normalize_keyword(color)
            if name not in COLORS:
                raise self.c.fail(
                    f"{path}[{i}]", f"unknown color {color!r} (the colors: {', '.join(COLORS)})"
                )
            if name not in out:
                out.append(name)
        return tuple(out)

    def state(self, owner: str, t: dict[str, Any], path: str) -> dict[str, Any]:
        """The plugins' state of a creature or player: given values, else defaults."""
        out: dict[str, Any] = {}
        for key, f in self.registry.state_fields(owner).items():
            where = f"{path}.{key}"
            if key not in t:
                out[key] = out[f.default_from] if f.default_from is not None else f.default
            elif f.kind == "bool":
                out[key] = self.c.boolean(t[key], where)
            elif f.kind == "int":
                out[key] = self.c.integer(t[key], where, 0)
            else:
                out[key] = self.c.string(t[key], where)
        return out

    def check_state(self, scenario: Scenario) -> None:
        """Creature references in the plugins' state, then each plugin's own checks."""
        for spec in self.creatures.values():
            for key, f in self.registry.state_fields("creature").items():
                other = spec.state.get(key)
                if f.kind != "creature" or other is None:
                    continue
                if other == spec.id:
                    raise self.c.fail(f"{spec.path}.{key}", f"{key} can't name the creature itself")
                if other not in self.creatures:
                    later = " (it enters only later)" if other in self._entered_ids() else ""
                    raise self.c.fail(f"{spec.path}.{key}", f"unknown creature {other!r}{later}")
        for ev in scenario.events:
            if ev.creature is None:
                continue
            for key, f in self.registry.state_fields("creature").items():
                if f.kind == "creature" and ev.creature.state.get(key) is not None:
                    raise self.c.fail(
                        f"{ev.creature.path}.{key}",
                        f"only creatures on the battlefield as combat begins can have {key}",
                    )
        fields: list[StateField] = [
            *self.registry.state_fields("player").values(),
            *self.registry.state_fields("creature").values(),
        ]
        for f in fields:
            problem = f.check(scenario) if f.check is not None else None
            if problem is not None:
                raise self.c.fail(*problem)

    def player_ref(self, value: Any, path: str) -> str:
        pid = self.c.string(value, path)
        if pid not in self.players:
            if pid in self.creatures:
                raise self.c.fail(path, f"{pid!r} is a creature, not a player")
            raise self.c.fail(path, f"unknown player {pid!r}")
        return pid

    def creature(self, cid: str, raw: Any, path: str) -> CreatureSpec:
        """Validate a creature table; ``card = "Name"`` gives the keys that are not given."""
        t = self.c.table(raw, path)
        allowed = {
            "name", "controller", "power", "toughness", "keywords", "counters", "damage", "id",
            "summoning_sick", "colors", "card", *self.registry.state_fields("creature"),
        }  # fmt: skip
        self.c.keys(t, path, allowed)
        card = self.creature_card(t["card"], f"{path}.card") if "card" in t else None
        if card is not None:
            t = {**card_keys(card), **t}
        names, parameters = self.keywords(t.get("keywords", []), f"{path}.keywords")
        for required in ("controller", "power", "toughness"):
            if required not in t:
                raise self.c.fail(f"{path}.{required}", "missing")
        spec = CreatureSpec(
            id=cid,
            name=self.c.string(t["name"], f"{path}.name") if "name" in t else cid,
            controller=self.player_ref(t["controller"], f"{path}.controller"),
            power=self.c.integer(t["power"], f"{path}.power"),
            toughness=self.c.integer(t["toughness"], f"{path}.toughness"),
            keywords=names,
            parameters=parameters,
            counters=self.counters(t.get("counters", {}), f"{path}.counters", 0),
            damage=self.c.integer(t.get("damage", 0), f"{path}.damage", 0),
            colors=self.colors(t.get("colors", []), f"{path}.colors"),
            state=self.state("creature", t, path),
            summoning_sick=self.c.boolean(t.get("summoning_sick", False), f"{path}.summoning_sick"),
            path=path,
            card=None if card is None else card.name,
            ignored_text=() if card is None else card.ignored,
        )
        if spec.toughness <= 0:
            raise self.c.fail(
                f"{path}.toughness",
                f"toughness {spec.toughness}: a creature with toughness 0 or less "
                "can't be on the battlefield (704.5f)",
            )
        return spec

    def creature_card(self, value: Any, path: str) -> CreatureCard:
        """The creature card a creature names: a plugin's, else the card database's."""
        name = self.c.string(value, path)
        card = creature_card(name, self.registry)
        if card is None:
            raise self.c.fail(path, no_creature_card(name, self.registry))
        return card

    # -- sections -------------------------------------------------------------------------

    def parse(self) -> Scenario:
        self.c.keys(self.doc, "", {"players", "creatures", "combat", "events"})
        self.parse_sides()
        combat = self.c.table(self.doc.get("combat", {}), "combat")
        self.c.keys(combat, "combat", {"attackers", "blockers", "divide"})
        attackers = self._attackers(combat.get("attackers", {}))
        blockers = self._blockers(combat.get("blockers", {}), attackers)
        scenario = Scenario(self.file, self.players, self.creatures, attackers, blockers)
        check_declarations(scenario, self.registry)
        scenario.events = self._events(scenario)
        scenario.divisions = self._divisions(combat.get("divide", []), scenario)
        self.check_state(scenario)
        return scenario

    def parse_sides(self) -> None:
        """The ``players`` and ``creatures`` tables."""
        players = self.c.table(self.doc.get("players", {}), "players")
        if len(players) < 2:
            raise self.c.fail("players", "a combat needs at least two players")
        for pid, raw in players.items():
            path = f"players.{pid}"
            t = self.c.table(raw, path)
            self.c.keys(t, path, {"life", *self.registry.state_fields("player")})
            self.players[pid] = PlayerSpec(
                pid,
                self.c.integer(t.get("life", 20), f"{path}.life"),
                self.state("player", t, path),
            )
            if self.players[pid].life <= 0:
                raise self.c.fail(f"{path}.life", "a player at 0 or less life has lost (704.5a)")

        creatures = self.c.table(self.doc.get("creatures", {}), "creatures")
        for cid in creatures:
            if cid in self.players:
                raise self.c.fail(f"creatures.{cid}", f"id {cid!r} is already a player's")
        for cid, raw in creatures.items():
            self.creatures[cid] = self.creature(cid, raw, f"creatures.{cid}")

    def _entered_ids(self) -> list[str]:
        raw = self.doc.get("events", [])
        ids: list[str] = []
        if isinstance(raw, list):
            for ev in raw:
                if isinstance(ev, Mapping) and isinstance(ev.get("creature"), Mapping):
                    cid = ev["creature"].get("id")
                    if isinstance(cid, str):
                        ids.append(cid)
                if isinstance(ev, Mapping) and isinstance(ev.get("token"), str):
                    ids.append(ev["token"])
        return ids

    def _attackers(self, raw: Any) -> dict[str, str]:
        table = self.c.table(raw, "combat.attackers")
        out: dict[str, str] = {}
        for cid, defender in table.items():
            path = f"combat.attackers.{cid}"
            spec = self.creatures.get(cid)
            if spec is None:
                raise self.c.fail(path, f"unknown creature {cid!r}")
            pid = self.player_ref(defender, path)
            if pid == spec.controller:
                raise self.c.fail(path, f"{cid!r} can't attack its own controller {pid!r}")
            if spec.controller != next(iter(self.players)):
                raise self.c.fail(
                    path,
                    f"{cid!r} is controlled by {spec.controller!r}, but only the active "
                    f"player {next(iter(self.players))!r} attacks (506.2)",
                )
            out[cid] = pid
        return out

    def _blockers(self, raw: Any, attackers: dict[str, str]) -> dict[str, tuple[str, ...]]:
        table = self.c.table(raw, "combat.blockers")
        out: dict[str, tuple[str, ...]] = {}
        for cid, value in table.items():
            path = f"combat.blockers.{cid}"
            spec = self.creatures.get(cid)
            if spec is None:
                raise self.c.fail(path, f"unknown creature {cid!r}")
            if cid in attackers:
                raise self.c.fail(path, f"{cid!r} is attacking and can't block")
            targets = [value] if isinstance(value, str) else self.c.string_list(value, path)
            if not targets:
                raise self.c.fail(path, "a blocker must block at least one attacker")
            if len(set(targets)) != len(targets):
                raise self.c.fail(path, "the same attacker is listed twice")
            for attacker in targets:
                if attacker not in attackers:
                    known = (
                        "an unknown creature" if attacker not in self.creatures else "not attacking"
                    )
                    raise self.c.fail(path, f"{attacker!r} is {known}")
                if attackers[attacker] != spec.controller:
                    raise self.c.fail(
                        path,
                        f"{cid!r} is controlled by {spec.controller!r}, but {attacker!r} "
                        f"attacks {attackers[attacker]!r} (509.1a)",
                    )
            out[cid] = tuple(targets)
        return out

    def _divisions(self, raw: Any, scenario: Scenario) -> list[Division]:
        if not isinstance(raw, list):
            raise self.c.fail("combat.divide", f"must be a list of tables, not {type_name(raw)}")
        seen: set[tuple[str, str]] = set()
        out: list[Division] = []
        step_names = self.registry.step_names
        all_creatures = set(self.creatures) | {
            e.creature.id for e in scenario.events if e.creature is not None
        }
        for i, item in enumerate(raw):
            path = f"combat.divide[{i}]"
            t = self.c.table(item, path)
            self.c.keys(t, path, {"step", "source", "amounts"})
            for required in ("step", "source", "amounts"):
                if required not in t:
                    raise self.c.fail(f"{path}.{required}", "missing")
            step = self.c.string(t["step"], f"{path}.step")
            if step not in step_names:
                raise self.c.fail(
                    f"{path}.step", f"unknown damage step {step!r} (known: {', '.join(step_names)})"
                )
            source = self.c.string(t["source"], f"{path}.source")
            if source not in all_creatures:
                raise self.c.fail(f"{path}.source", f"unknown creature {source!r}")
            if (step, source) in seen:
                raise self.c.fail(path, f"a second division for {source!r} in the {step} step")
            seen.add((step, source))
            if source in scenario.attackers:
                allowed = set(scenario.blockers_of(source)) | {scenario.attackers[source]}
            elif source in scenario.blockers:
                allowed = set(scenario.blockers[source])
            else:
                raise self.c.fail(f"{path}.source", f"{source!r} is neither attacking nor blocking")
            table = self.c.table(t["amounts"], f"{path}.amounts")
            amounts: dict[str, int] = {}
            for rid, amount in table.items():
                where = f"{path}.amounts.{rid}"
                if rid not in allowed:
                    raise self.c.fail(
                        where,
                        f"{source!r} can assign damage only to "
                        f"{', '.join(sorted(allowed)) or 'nobody'}, not {rid!r} (510.1)",
                    )
                amounts[rid] = self.c.integer(amount, where, 0)
            out.append(Division(step, source, amounts, path))
        return out

    def _events(self, scenario: Scenario) -> list[Event]:
        raw = self.doc.get("events", [])
        if not isinstance(raw, list):
            raise self.c.fail("events", f"must be a list of tables, not {type_name(raw)}")
        step_names = self.registry.step_names
        points = [DECLARE_BLOCKERS, *(f"after {s}" for s in step_names)]
        parsed: list[Event] = []
        for i, item in enumerate(raw):
            path = f"events[{i}]"
            t = self.c.table(item, path)
            for key in ("at", "action"):
                if key not in t:
                    raise self.c.fail(f"{path}.{key}", "missing")
            at = " ".join(self.c.string(t["at"], f"{path}.at").split())
            if at not in points:
                raise self.c.fail(
                    f"{path}.at", f"unknown point {at!r} (known: {', '.join(points)})"
                )
            action = self.c.string(t["action"], f"{path}.action")
            if action not in EVENT_ACTIONS:
                raise self.c.fail(
                    f"{path}.action",
                    f"unknown action {action!r} (known: {', '.join(EVENT_ACTIONS)})",
                )
            required, optional = EVENT_ACTIONS[action]
            self.c.keys(t, path, required | optional | {"at", "action"})
            for key in sorted(required):
                if key not in t:
                    raise self.c.fail(f"{path}.{key}", f"missing (the {action} action needs it)")
            parsed.append(Event(index=i, at=at, action=action, path=path))
            self._event_fields(parsed[-1], t)

        # Check references in the order events happen, so a creature entering later can't be
        # the target of an earlier event.
        order = {p: n for n, p in enumerate(points)}
        present: set[str] = set(self.creatures)
        for ev in sorted(parsed, key=lambda e: (order[e.at], e.index)):
            self._event_refs(ev, scenario, present)
        return parsed

    def _event_fields(self, ev: Event, t: dict[str, Any]) -> None:
        path = ev.path
        if "keywords" in t:
            names = self.c.string_list(t["keywords"], f"{path}.keywords")
            if not names:
                raise self.c.fail(f"{path}.keywords", "must name at least one keyword")
            ev.keywords, ev.parameters = self.keywords(names, f"{path}.keywords")
        if "counters" in t:
            ev.counters = self.counters(t["counters"], f"{path}.counters", None)
        if ev.action == "pump":
            if "power" not in t and "toughness" not in t:
                raise self.c.fail(path, "the pump action needs power or toughness")
            ev.power = self.c.integer(t.get("power", 0), f"{path}.power")
            ev.toughness = self.c.integer(t.get("toughness", 0), f"{path}.toughness")
        if "amount" in t:
            ev.amount = self.c.integer(t["amount"], f"{path}.amount", 0)
        if "card" in t:
            name = self.c.string(t["card"], f"{path}.card")
            card = self.registry.spell(name)
            if card is None:
                raise self.c.fail(f"{path}.card", self.registry.unknown_card_reason(name))
            for kw in sorted(card.keywords):
                if self.registry.keyword(kw) is None:
                    raise self.c.fail(
                        f"{path}.card",
                        f"{card.name} needs {self.registry.unknown_keyword_reason(kw)}",
                    )
            ev.card = card.name
        if "caster" in t:
            ev.caster = self.player_ref(t["caster"], f"{path}.caster")
        if ev.action == "cast":
            self._cast_fields(ev, t)
        if "attacking" in t:
            ev.attacking = self.player_ref(t["attacking"], f"{path}.attacking")
        if "target" in t:
            ev.target = self.c.string(t["target"], f"{path}.target")
        if "creature" in t:
            raw = self.c.table(t["creature"], f"{path}.creature")
            if "id" not in raw:
                raise self.c.fail(f"{path}.creature.id", "missing")
            cid = self.c.string(raw["id"], f"{path}.creature.id")
            ev.creature = self.creature(cid, raw, f"{path}.creature")

    def _cast_fields(self, ev: Event, t: dict[str, Any]) -> None:
        """A `cast` event's `target` and `token`, as its card asks (CONTRACT.md section 6)."""
        path = ev.path
        assert ev.card is not None and ev.caster is not None
        card = self.registry.spell(ev.card)
        assert card is not None
        kind = card.target.kind
        if kind == "none" and "target" in t:
            raise self.c.fail(f"{path}.target", f"{card.name} has no target")
        if kind != "none" and "target" not in t:
            what = "a creature or a player" if kind == "any" else "a creature"
            raise self.c.fail(f"{path}.target", f"missing ({card.name} targets {what})")
        if card.creates is None:
            if "token" in t:
                raise self.c.fail(f"{path}.token", f"{card.name} creates no creature token")
            return
        if "token" not in t:
            raise self.c.fail(
                f"{path}.token",
                f"missing: the id of the {card.creates.name} token {card.name} creates",
            )
        ev.token = self.c.string(t["token"], f"{path}.token")
        try:
            ev.creature = token_creature(card, ev.token, ev.caster, self.registry, f"{path}.token")
        except ValueError as exc:
            raise self.c.fail(f"{path}.card", f"{card.name}'s token: {exc}") from None

    def _event_refs(self, ev: Event, scenario: Scenario, present: set[str]) -> None:
        path = ev.path
        if ev.creature is not None and ev.token is not None:
            if ev.token in present or ev.token in self.players:
                raise self.c.fail(f"{path}.token", f"duplicate id {ev.token!r}")
            present.add(ev.token)
        elif ev.creature is not None:
            cid = ev.creature.id
            if cid in present or cid in self.players:
                raise self.c.fail(f"{path}.creature.id", f"duplicate id {cid!r}")
            assert ev.attacking is not None
            if ev.attacking == ev.creature.controller:
                raise self.c.fail(
                    f"{path}.attacking", f"{cid!r} can't attack its own controller {ev.attacking!r}"
                )
            present.add(cid)
        if ev.target is None:
            return
        if ev.target in self.players and (ev.action == "damage" or self._any_target(ev)):
            return
        if ev.target not in present:
            if ev.target in self.players:
                raise self.c.fail(f"{path}.target", f"{ev.target!r} is a player, not a creature")
            later = " (it enters only later)" if ev.target in self._entered_ids() else ""
            raise self.c.fail(f"{path}.target", f"unknown creature {ev.target!r}{later}")

    def _any_target(self, ev: Event) -> bool:
        """A `cast` event whose card may target a player ("any target", 115.4)."""
        card = self.registry.spell(ev.card) if ev.card is not None else None
        return card is not None and card.target.kind == "any"


def token_creature(
    card: Card, token: str, caster: str, registry: Registry, path: str = ""
) -> CreatureSpec:
    """The creature token a card creates (`Card.creates`) with the id `token`: under the
    caster's control, summoning sick (302.6), not in combat, with the plugins' default state.
    ValueError if its keywords are not loaded."""
    made = card.creates
    if made is None:
        raise ValueError(f"{card.name} creates no creature token")
    found = [parse_instance(text, registry) for text in made.keywords]
    state: dict[str, Any] = {}
    for key, f in registry.state_fields("creature").items():
        state[key] = state[f.default_from] if f.default_from is not None else f.default
    return CreatureSpec(
        id=token,
        name=made.name,
        controller=caster,
        power=made.power,
        toughness=made.toughness,
        keywords=tuple(i.name for i in found),
        parameters=tuple(i.parameter for i in found),
        colors=made.colors,
        state=state,
        summoning_sick=True,
        path=path,
    )


def parse_scenario(doc: Any, registry: Registry, file: str = "<scenario>") -> Scenario:
    """Validate a raw scenario document (a dict as read from TOML or JSON)."""
    return _Parser(doc, registry, file).parse()


__all__ = [
    "DECLARE_BLOCKERS",
    "EVENT_ACTIONS",
    "REGULAR_STEP",
    "CreatureSpec",
    "Division",
    "Event",
    "PlayerSpec",
    "Scenario",
    "iter_scenarios",
    "load_scenario",
    "load_scenarios",
    "parse_scenario",
    "token_creature",
]
