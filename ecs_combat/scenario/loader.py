"""Scenario files (CONTRACT.md section 1): reading TOML, JSON and JSON Lines, and validating them.

Every problem is an :class:`InputError` naming the file, the key path and what is wrong. This
module reads the players, creatures and combat; :mod:`ecs_combat.scenario.events` reads the
events, and :mod:`ecs_combat.scenario.model` holds what both build.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ecs_combat.errors import InputError
from ecs_combat.plugin.definitions import (
    CARD_TYPES,
    COLORS,
    LAND_TYPES,
    StateField,
    normalize_keyword,
)
from ecs_combat.plugin.registry import Registry
from ecs_combat.rules.characteristics import check_declarations_now
from ecs_combat.rules.declaring import Declared
from ecs_combat.rules.legality import check_targets, starting_toughness, toughness_message
from ecs_combat.scenario import documents
from ecs_combat.scenario.bands import parse_bands
from ecs_combat.scenario.checks import Checker, check_document
from ecs_combat.scenario.declared import parse_attackers, parse_blockers, parse_divisions
from ecs_combat.scenario.events import entered_ids, parse_events
from ecs_combat.scenario.instances import Instance, Parameter, parse_instance
from ecs_combat.scenario.model import CreatureSpec, PlayerSpec, Scenario
from ecs_combat.scenario.sacrifices import parse_sacrifices
from ecs_combat.suggest import did_you_mean

if TYPE_CHECKING:
    from ecs_combat.cards.library import CreatureCard

# ---------------------------------------------------------------------------------------------
# Reading files


def read_documents(path: str | Path) -> Iterator[tuple[str, Any]]:
    """Yield (location, raw document) for each scenario in a .toml, .json or .jsonl file (a
    .jsonl file one line at a time: location ``FILE:LINE``)."""
    return documents.read_documents(path, "scenario")


def iter_scenarios(path: str | Path, registry: Registry) -> Iterator[Scenario]:
    """Read and validate the scenarios of a file one at a time (a .jsonl file a few lines at a
    time, so that memory stays bounded however long it is; its common lines read quickly:
    :mod:`ecs_combat.scenario.quick`)."""
    found = False
    quick = None
    if str(path).lower().endswith(".jsonl"):  # only lines are read quickly (orjson)
        from ecs_combat.scenario.quick import QuickReader

        quick = QuickReader(registry).read
    for where, doc in documents.read_documents(path, "scenario", quick):
        found = True
        yield doc if isinstance(doc, Scenario) else parse_scenario(doc, registry, where)
    if not found:
        raise InputError(str(path), "", "the file holds no scenario")


def load_scenarios(path: str | Path, registry: Registry) -> list[Scenario]:
    """Read and validate every scenario in a file (the cyclic garbage collector paused: the
    scenarios are many small acyclic objects, which it would rescan as they accumulate)."""
    from ecs_combat.scenario.quick_rows import collector_paused

    with collector_paused():
        return list(iter_scenarios(path, registry))


def load_scenario(path: str | Path, registry: Registry) -> Scenario:
    """Read and validate a file holding exactly one scenario."""
    scenarios = load_scenarios(path, registry)
    if len(scenarios) != 1:
        raise InputError(str(path), "", f"expected one scenario, found {len(scenarios)}")
    return scenarios[0]


def engine_declarations(scenario: Scenario, registry: Registry, attackers_tapped: bool) -> Declared:
    """The creatures as attackers and as blockers are declared, played by the batched engine
    (:class:`~ecs_combat.rules.declaring.DeclarationPlayer`), imported when first asked: only
    for a board whose plugins' ``before_blocks`` parts can't say it."""
    from ecs_combat.batched import play_declarations

    return play_declarations(scenario, registry, attackers_tapped)


# ---------------------------------------------------------------------------------------------
# Validation


class Parser:
    """Reads and checks one scenario document key by key, naming the place of each error (the
    turn loader and the events reader build on it)."""

    def __init__(self, doc: Any, registry: Registry, file: str) -> None:
        self.c = Checker(file)
        self.registry = registry
        self.file = file
        self.doc = self.c.table(doc, "")
        check_document(self.doc, file)
        self.players: dict[str, PlayerSpec] = {}
        self.creatures: dict[str, CreatureSpec] = {}
        #: Whether attacks and blocks are checked here (a turn's engines check them as each
        #: combat phase declares them).
        self.check_legality = True
        #: Whether the blocks are left for a decision to choose (``ecs-combat blocks``): the
        #: attacks are checked, the blocks (none given) are not held to requirements.
        self.blocks_to_decide = False

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

    def targets(
        self, value: Any, keywords: tuple[str, ...], path: str
    ) -> dict[str, tuple[str, ...]]:
        """A ``targets`` table: keyword -> a creature id, or a list of them (one per instance);
        the ids are checked once every creature is known (:func:`check_targets`)."""
        out: dict[str, tuple[str, ...]] = {}
        for key, raw in self.c.table(value, path).items():
            where = f"{path}.{key}"
            kw = self.registry.keyword(key)
            if kw is None:
                raise self.c.fail(where, self.registry.unknown_keyword_reason(key))
            if not kw.target:
                raise self.c.fail(where, f"{kw.name!r} has no trigger that targets")
            if kw.name not in keywords:
                raise self.c.fail(where, f"the creature has no {kw.name!r} among its keywords")
            ids = [raw] if isinstance(raw, str) else self.c.string_list(raw, where)
            if len(ids) > keywords.count(kw.name):
                raise self.c.fail(
                    where,
                    f"{len(ids)} targets for {keywords.count(kw.name)} instance(s) of {kw.name!r}",
                )
            out[kw.name] = tuple(ids)
        return out

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

    def names(self, value: Any, path: str, allowed: tuple[str, ...], what: str) -> tuple[str, ...]:
        """A list of names from `allowed`, any case, each once, in `allowed` order."""
        given: set[str] = set()
        for i, item in enumerate(self.c.string_list(value, path)):
            name = normalize_keyword(item)
            if name not in allowed:
                raise self.c.fail(
                    f"{path}[{i}]",
                    f"unknown {what} {item!r} (the {what}s: {', '.join(allowed)})"
                    f"{did_you_mean(name, allowed)}",
                )
            given.add(name)
        return tuple(n for n in allowed if n in given)

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
                    later = " (it enters only later)" if other in entered_ids(self.doc) else ""
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
            "summoning_sick", "tapped", "colors", "types", "card", "value", "targets",
            *self.registry.state_fields("creature"),
        }  # fmt: skip
        self.c.keys(t, path, allowed)
        card = self.creature_card(t["card"], f"{path}.card") if "card" in t else None
        if card is not None:
            from ecs_combat.cards.library import card_keys

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
            types=self.names(t.get("types", []), f"{path}.types", CARD_TYPES, "card type"),
            state=self.state("creature", t, path),
            summoning_sick=self.c.boolean(t.get("summoning_sick", False), f"{path}.summoning_sick"),
            tapped=self.c.boolean(t.get("tapped", False), f"{path}.tapped"),
            path=path,
            card=None if card is None else card.name,
            ignored_text=() if card is None else card.ignored,
            value=self.c.integer(t["value"], f"{path}.value") if "value" in t else None,
            targets=self.targets(t.get("targets", {}), names, f"{path}.targets"),
        )
        if spec.toughness <= 0:
            raise self.c.fail(
                f"{path}.toughness", toughness_message(spec.toughness, spec.toughness)
            )
        toughness = starting_toughness(spec.toughness, spec.counters, self.registry)
        if toughness <= 0:  # RULES 11.2: scenarios start legal
            raise self.c.fail(f"{path}.counters", toughness_message(toughness, spec.toughness))
        return spec

    def creature_card(self, value: Any, path: str) -> CreatureCard:
        """The creature card a creature names: a plugin's, else the card database's (the
        card library is imported here: most scenarios name no card)."""
        from ecs_combat.cards.library import creature_card, no_creature_card

        name = self.c.string(value, path)
        card = creature_card(name, self.registry)
        if card is None:
            raise self.c.fail(path, no_creature_card(name, self.registry))
        return card

    # -- sections -------------------------------------------------------------------------

    def parse(self) -> Scenario:
        self.c.keys(self.doc, "", {"players", "creatures", "combat", "events", "sacrifices"})
        self.parse_sides()
        combat = self.c.table(self.doc.get("combat", {}), "combat")
        self.c.keys(combat, "combat", {"attackers", "blockers", "divide", "bands"})
        attackers = parse_attackers(self, combat.get("attackers", {}))
        blockers = parse_blockers(self, combat.get("blockers", {}), attackers)
        scenario = Scenario(self.file, self.players, self.creatures, attackers, blockers)
        scenario.bands = parse_bands(self, combat.get("bands", []), scenario)
        scenario.events = parse_events(self, scenario)
        scenario.divisions = parse_divisions(self, combat.get("divide", []), scenario)
        scenario.sacrifices = parse_sacrifices(self, self.doc.get("sacrifices", {}), scenario)
        self.check_state(scenario)
        check_targets(scenario, self.registry)
        if self.check_legality:
            # with the creatures as attackers and as blockers are declared (RULES 4)
            check_declarations_now(
                scenario,
                self.registry,
                engine_declarations,
                blocks=not self.blocks_to_decide,
            )
        return scenario

    def parse_sides(self) -> None:
        """The ``players`` and ``creatures`` tables."""
        players = self.c.table(self.doc.get("players", {}), "players")
        if len(players) < 2:
            raise self.c.fail("players", "a combat needs at least two players")
        for pid, raw in players.items():
            path = f"players.{pid}"
            t = self.c.table(raw, path)
            self.c.keys(t, path, {"life", "lands", *self.registry.state_fields("player")})
            self.players[pid] = PlayerSpec(
                pid,
                self.c.integer(t.get("life", 20), f"{path}.life"),
                self.state("player", t, path),
                self.names(t.get("lands", []), f"{path}.lands", LAND_TYPES, "land type"),
            )
            if self.players[pid].life <= 0:
                raise self.c.fail(f"{path}.life", "a player at 0 or less life has lost (704.5a)")

        creatures = self.c.table(self.doc.get("creatures", {}), "creatures")
        for cid in creatures:
            if cid in self.players:
                raise self.c.fail(f"creatures.{cid}", f"id {cid!r} is already a player's")
        for cid, raw in creatures.items():
            self.creatures[cid] = self.creature(cid, raw, f"creatures.{cid}")


def parse_scenario(
    doc: Any, registry: Registry, file: str = "<scenario>", *, blocks_to_decide: bool = False
) -> Scenario:
    """Validate a raw scenario document (a dict as read from TOML or JSON). With
    `blocks_to_decide`, its blocks are left for a decision to choose (docs/decisions.md): the
    blocks it lacks are not held to requirements such as lure's (509.1c)."""
    parser = Parser(doc, registry, file)
    parser.blocks_to_decide = blocks_to_decide
    return parser.parse()


__all__ = [
    "iter_scenarios",
    "load_scenario",
    "load_scenarios",
    "parse_scenario",
    "read_documents",
]
