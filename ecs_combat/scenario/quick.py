"""A quick reader for the common line of a JSON Lines file: players with at most ``life``,
creatures with at most a name, controller, power, toughness, keywords, damage (not lethal),
colors and types (each once, in the order the format lists them), a value, and ``tapped`` and
``summoning_sick`` false; and a combat of attackers, each blocker blocking one attacker.

:meth:`QuickReader.scenario` gives the same :class:`Scenario` the full reader
(:func:`ecs_combat.scenario.loader.parse_scenario` of the decoded line) gives, or None whenever
anything is unusual: then the full reader reads the line, with its messages. It never raises.
What it skips of the full reader, and why it may:

- the line is ASCII without a backslash or DEL, so it holds no escape, no lone surrogate and
  no control character, and every ``"`` opens or closes a string: a duplicate key (which
  orjson would keep silently) shows as fewer keys and strings than quotes;
- nesting is fixed by the shape, far under the depth limit;
- the attacks and blocks are checked against the restrictions of the line's keywords with the
  creatures as the scenario declares them (:class:`~.quick_legality.KindLegality`); a line the
  reference world would be needed for (a declare-attackers system for its creatures, a keyword
  with a static ability, a block requirement such as lure's) is left to the full reader;
- the plugins' scenario checks run, but those that say they find nothing without state keys
  (``StateField.check_defaults``), which these lines never give.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import orjson

from ecs_combat.plugin.definitions import CARD_TYPES, COLORS
from ecs_combat.plugin.registry import Registry
from ecs_combat.scenario.checks import LIMIT
from ecs_combat.scenario.instances import Instance, Parameter, parse_instance
from ecs_combat.scenario.model import CreatureSpec, PlayerSpec, Scenario
from ecs_combat.scenario.quick_legality import KindLegality, kind_of

_TOP = frozenset({"players", "creatures", "combat"})
_PLAYER = frozenset({"life"})
_CREATURE = frozenset(
    {"name", "controller", "power", "toughness", "keywords", "damage", "colors", "types", "value"}
    | {"tapped", "summoning_sick"}
)
_COMBAT = frozenset({"attackers", "blockers"})


class Unusual(Exception):
    """The line is not of the common shape: the full reader reads it."""


def given_name(table: Mapping[str, Any]) -> str | None:
    """A creature table's `name`, None without one; :class:`Unusual` unless a nonblank
    string."""
    if "name" not in table:
        return None
    name = table["name"]
    if type(name) is not str or not name.strip():
        raise Unusual
    return name


class QuickReader:
    """Reads the common lines of JSON Lines files for one registry."""

    def __init__(self, registry: Registry, legality: KindLegality | None = None) -> None:
        self.registry = registry
        self.instances: dict[str, Instance | None] = {}
        self.player_state = state_defaults(registry, "player")
        self.creature_state = state_defaults(registry, "creature")
        self.checks = quick_checks(registry)
        # a creature reference with a default would be checked by the full reader
        self.usable = all(
            f.kind != "creature" or f.default is None
            for f in registry.state_fields("creature").values()
        )
        self.legality = legality or KindLegality(registry)

    def scenario(self, raw: bytes, file: str) -> Scenario | None:
        """The scenario of one line read at `file` (``FILE:LINE``), or None for the full
        reader."""
        if not self.usable or not raw.isascii() or b"\\" in raw or b"\x7f" in raw:
            return None
        try:
            doc = orjson.loads(raw)
            return self._scenario(doc, file, raw.count(b'"'))
        except (Unusual, orjson.JSONDecodeError):
            return None

    # -- the document ----------------------------------------------------------------------

    def _scenario(self, doc: Any, file: str, quotes: int) -> Scenario:
        if type(doc) is not dict or not doc.keys() <= _TOP:
            raise Unusual
        strings = len(doc)
        players_doc = _table(doc.get("players", {}))
        creatures_doc = _table(doc.get("creatures", {}))
        combat = _table(doc.get("combat", {}))
        if len(players_doc) < 2 or not combat.keys() <= _COMBAT:
            raise Unusual
        strings += len(players_doc) + len(creatures_doc) + len(combat)
        players: dict[str, PlayerSpec] = {}
        for pid, t in players_doc.items():
            _id(pid)
            if type(t) is not dict or not t.keys() <= _PLAYER:
                raise Unusual
            strings += len(t)
            life = _integer(t.get("life", 20))
            if life <= 0:
                raise Unusual
            players[pid] = PlayerSpec(pid, life, dict(self.player_state), ())
        creatures: dict[str, CreatureSpec] = {}
        for cid, t in creatures_doc.items():
            _id(cid)
            if cid in players or type(t) is not dict or not t.keys() <= _CREATURE:
                raise Unusual
            strings += len(t)
            creatures[cid], n = self._creature(cid, t, players)
            strings += n
        attackers_doc = _table(combat.get("attackers", {}))
        blockers_doc = _table(combat.get("blockers", {}))
        strings += 2 * len(attackers_doc) + 2 * len(blockers_doc)
        if 2 * strings != quotes:  # a key given twice, or a string this did not count
            raise Unusual
        attackers = self._attackers(attackers_doc, creatures, players)
        blockers = self._blockers(blockers_doc, attackers, creatures)
        scenario = Scenario(file, players, creatures, attackers, blockers)
        for check in self.checks:
            if check(scenario) is not None:
                raise Unusual
        if not self._legal(scenario):
            raise Unusual
        return scenario

    def _creature(
        self, cid: str, t: dict[str, Any], players: Mapping[str, PlayerSpec]
    ) -> tuple[CreatureSpec, int]:
        """A creature and how many strings its table holds besides its keys."""
        if "controller" not in t or "power" not in t or "toughness" not in t:
            raise Unusual
        controller = t["controller"]
        if type(controller) is not str or controller not in players:
            raise Unusual
        name = given_name(t)
        strings = 1 if name is None else 2
        name = cid if name is None else name
        power = _integer(t["power"])
        toughness = _integer(t["toughness"])
        if toughness <= 0:
            raise Unusual
        damage = _integer(t.get("damage", 0))
        if not 0 <= damage < toughness:  # lethal damage (704.5g): the full reader says so
            raise Unusual
        value = _integer(t["value"]) if "value" in t else None
        if t.get("tapped", False) is not False or t.get("summoning_sick", False) is not False:
            raise Unusual
        colors = _names(t.get("colors", ()), COLORS)
        types = _names(t.get("types", ()), CARD_TYPES)
        strings += len(colors) + len(types)
        names: tuple[str, ...] = ()
        parameters: tuple[Parameter, ...] = ()
        if "keywords" in t:
            texts = t["keywords"]
            if type(texts) is not list:
                raise Unusual
            found = [self._instance(text) for text in texts]
            names = tuple(i.name for i in found)
            parameters = tuple(i.parameter for i in found)
            strings += len(texts)
        spec = CreatureSpec(
            id=cid,
            name=name,
            controller=controller,
            power=power,
            toughness=toughness,
            keywords=names,
            parameters=parameters,
            counters={},
            damage=damage,
            colors=colors,
            types=types,
            state=dict(self.creature_state),
            path=f"creatures.{cid}",
            value=value,
            targets={},
        )
        return spec, strings

    def _instance(self, text: Any) -> Instance:
        if type(text) is not str:
            raise Unusual
        if text not in self.instances:
            try:
                found = parse_instance(text, self.registry) if text.strip() else None
            except ValueError:
                found = None
            self.instances[text] = found
        instance = self.instances[text]
        if instance is None:
            raise Unusual
        return instance

    @staticmethod
    def _attackers(
        table: dict[str, Any],
        creatures: Mapping[str, CreatureSpec],
        players: Mapping[str, PlayerSpec],
    ) -> dict[str, str]:
        active = next(iter(players))
        for cid, pid in table.items():
            spec = creatures.get(cid)
            if spec is None or type(pid) is not str or pid not in players:
                raise Unusual
            if pid == spec.controller or spec.controller != active:
                raise Unusual
        return table

    @staticmethod
    def _blockers(
        table: dict[str, Any], attackers: Mapping[str, str], creatures: Mapping[str, CreatureSpec]
    ) -> dict[str, tuple[str, ...]]:
        out: dict[str, tuple[str, ...]] = {}
        for cid, attacker in table.items():
            spec = creatures.get(cid)
            if spec is None or cid in attackers or type(attacker) is not str:
                raise Unusual
            if attacker not in attackers or attackers[attacker] != spec.controller:
                raise Unusual
            out[cid] = (attacker,)
        return out

    def _legal(self, sc: Scenario) -> bool:
        """Whether the attacks and blocks are surely legal (:class:`KindLegality`)."""
        specs = list(sc.creatures.values())
        place = {spec.id: i for i, spec in enumerate(specs)}
        return self.legality.legal(
            [kind_of(spec) for spec in specs],
            [place[cid] for cid in sc.attackers],
            [(place[cid], place[aid]) for cid, (aid,) in sc.blockers.items()],
        )


def _names(value: Any, allowed: tuple[str, ...]) -> tuple[str, ...]:
    """Colors or card types as the full reader keeps them (each once, in `allowed` order),
    when written exactly so."""
    if type(value) not in (list, tuple) or list(value) != [n for n in allowed if n in value]:
        raise Unusual
    return tuple(value)


def _table(value: Any) -> dict[str, Any]:
    if type(value) is not dict:
        raise Unusual
    return value


def _id(value: str) -> None:
    """An id the full reader takes as it is, and that no message would need to quote."""
    if not value.strip() or not value.isprintable():
        raise Unusual


def _integer(value: Any) -> int:
    if type(value) is not int or abs(value) > LIMIT:
        raise Unusual
    return value


def quick_checks(registry: Registry) -> list[Callable[[Any], tuple[str, str] | None]]:
    """The plugins' scenario checks a line that gives no state key needs (those that may find
    a problem when every creature and player has the defaults)."""
    return [
        f.check
        for owner in ("player", "creature")
        for f in registry.state_fields(owner).values()
        if f.check is not None and f.check_defaults
    ]


def state_defaults(registry: Registry, owner: str) -> dict[str, Any]:
    """The plugins' state of a creature or player given nothing (as the full reader fills
    it)."""
    out: dict[str, Any] = {}
    for key, f in registry.state_fields(owner).items():
        out[key] = out[f.default_from] if f.default_from is not None else f.default
    return out
