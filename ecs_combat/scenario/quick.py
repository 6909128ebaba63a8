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
- the attacks and blocks are checked against the plugins' restrictions with the creatures as
  the scenario declares them (:func:`~ecs_combat.rules.sides.spec_side`), remembering the
  answer for each kind of creature; a line the reference world would be needed for (a
  declare-attackers system for its creatures, a keyword with a static ability, a block
  requirement such as lure's) is left to the full reader.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from ecs_combat.plugin.definitions import CARD_TYPES, COLORS
from ecs_combat.plugin.registry import Registry
from ecs_combat.rules.legality import least_blockers, why_cannot_attack
from ecs_combat.rules.sides import KeywordSide, spec_side
from ecs_combat.rules.usage import attack_system_keywords, static_ability_keywords
from ecs_combat.scenario.checks import LIMIT
from ecs_combat.scenario.instances import Instance, Parameter, parse_instance
from ecs_combat.scenario.model import CreatureSpec, PlayerSpec, Scenario

_TOP = frozenset({"players", "creatures", "combat"})
_PLAYER = frozenset({"life"})
_CREATURE = frozenset(
    {"name", "controller", "power", "toughness", "keywords", "damage", "colors", "types", "value"}
    | {"tapped", "summoning_sick"}
)
_COMBAT = frozenset({"attackers", "blockers"})
#: Kinds of creature whose answers are remembered, before the memory starts again.
_REMEMBERED = 100_000

#: A creature as legality reads it here: its keyword instances, power, colors and types.
_Kind = tuple[tuple[str, ...], tuple[Parameter, ...], int, tuple[str, ...], tuple[str, ...]]


class _Unusual(Exception):
    """The line is not of the common shape: the full reader reads it."""


class QuickReader:
    """Reads the common lines of JSON Lines files for one registry."""

    def __init__(self, registry: Registry) -> None:
        self.registry = registry
        self.instances: dict[str, Instance | None] = {}
        self.player_state = _defaults(registry, "player")
        self.creature_state = _defaults(registry, "creature")
        self.checks = [
            f.check
            for owner in ("player", "creature")
            for f in registry.state_fields(owner).values()
            if f.check is not None
        ]
        # a creature reference with a default would be checked by the full reader
        self.usable = all(
            f.kind != "creature" or f.default is None
            for f in registry.state_fields("creature").values()
        )
        #: Keywords whose static abilities the reference world gives (a plugin's static
        #: ability belongs to its keywords), and keywords with a declare-attackers system:
        #: a line with them is left to the full reader; None: every line is.
        self.static_keywords = static_ability_keywords(registry)
        self.attack_keywords = attack_system_keywords(registry)
        self.requirement_keywords = frozenset(
            r.keyword for r in registry.restrictions_of("block-requirement")
        )
        self.sides: dict[_Kind, KeywordSide] = {}
        self.attack_ok: dict[_Kind, bool] = {}
        self.block_ok: dict[_Kind, bool] = {}
        self.pair_ok: dict[tuple[_Kind, _Kind], bool] = {}
        self.least: dict[_Kind, int] = {}

    def scenario(self, raw: bytes, file: str) -> Scenario | None:
        """The scenario of one line read at `file` (``FILE:LINE``), or None for the full
        reader."""
        if not self.usable or not raw.isascii() or b"\\" in raw or b"\x7f" in raw:
            return None
        try:
            doc = orjson.loads(raw)
            return self._scenario(doc, file, raw.count(b'"'))
        except (_Unusual, orjson.JSONDecodeError):
            return None

    # -- the document ----------------------------------------------------------------------

    def _scenario(self, doc: Any, file: str, quotes: int) -> Scenario:
        if type(doc) is not dict or not doc.keys() <= _TOP:
            raise _Unusual
        strings = len(doc)
        players_doc = _table(doc.get("players", {}))
        creatures_doc = _table(doc.get("creatures", {}))
        combat = _table(doc.get("combat", {}))
        if len(players_doc) < 2 or not combat.keys() <= _COMBAT:
            raise _Unusual
        strings += len(players_doc) + len(creatures_doc) + len(combat)
        players: dict[str, PlayerSpec] = {}
        for pid, t in players_doc.items():
            _id(pid)
            if type(t) is not dict or not t.keys() <= _PLAYER:
                raise _Unusual
            strings += len(t)
            life = _integer(t.get("life", 20))
            if life <= 0:
                raise _Unusual
            players[pid] = PlayerSpec(pid, life, dict(self.player_state), ())
        creatures: dict[str, CreatureSpec] = {}
        for cid, t in creatures_doc.items():
            _id(cid)
            if cid in players or type(t) is not dict or not t.keys() <= _CREATURE:
                raise _Unusual
            strings += len(t)
            creatures[cid], n = self._creature(cid, t, players)
            strings += n
        attackers_doc = _table(combat.get("attackers", {}))
        blockers_doc = _table(combat.get("blockers", {}))
        strings += 2 * len(attackers_doc) + 2 * len(blockers_doc)
        if 2 * strings != quotes:  # a key given twice, or a string this did not count
            raise _Unusual
        attackers = self._attackers(attackers_doc, creatures, players)
        blockers = self._blockers(blockers_doc, attackers, creatures)
        scenario = Scenario(file, players, creatures, attackers, blockers)
        for check in self.checks:
            if check(scenario) is not None:
                raise _Unusual
        if not self._legal(scenario):
            raise _Unusual
        return scenario

    def _creature(
        self, cid: str, t: dict[str, Any], players: Mapping[str, PlayerSpec]
    ) -> tuple[CreatureSpec, int]:
        """A creature and how many strings its table holds besides its keys."""
        if "controller" not in t or "power" not in t or "toughness" not in t:
            raise _Unusual
        controller = t["controller"]
        if type(controller) is not str or controller not in players:
            raise _Unusual
        strings = 1
        name = cid
        if "name" in t:
            name = t["name"]
            if type(name) is not str or not name.strip():
                raise _Unusual
            strings += 1
        power = _integer(t["power"])
        toughness = _integer(t["toughness"])
        if toughness <= 0:
            raise _Unusual
        damage = _integer(t.get("damage", 0))
        if not 0 <= damage < toughness:  # lethal damage (704.5g): the full reader says so
            raise _Unusual
        value = _integer(t["value"]) if "value" in t else None
        if t.get("tapped", False) is not False or t.get("summoning_sick", False) is not False:
            raise _Unusual
        colors = _names(t.get("colors", ()), COLORS)
        types = _names(t.get("types", ()), CARD_TYPES)
        strings += len(colors) + len(types)
        names: tuple[str, ...] = ()
        parameters: tuple[Parameter, ...] = ()
        if "keywords" in t:
            texts = t["keywords"]
            if type(texts) is not list:
                raise _Unusual
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
            raise _Unusual
        if text not in self.instances:
            try:
                found = parse_instance(text, self.registry) if text.strip() else None
            except ValueError:
                found = None
            self.instances[text] = found
        instance = self.instances[text]
        if instance is None:
            raise _Unusual
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
                raise _Unusual
            if pid == spec.controller or spec.controller != active:
                raise _Unusual
        return table

    @staticmethod
    def _blockers(
        table: dict[str, Any], attackers: Mapping[str, str], creatures: Mapping[str, CreatureSpec]
    ) -> dict[str, tuple[str, ...]]:
        out: dict[str, tuple[str, ...]] = {}
        for cid, attacker in table.items():
            spec = creatures.get(cid)
            if spec is None or cid in attackers or type(attacker) is not str:
                raise _Unusual
            if attacker not in attackers or attackers[attacker] != spec.controller:
                raise _Unusual
            out[cid] = (attacker,)
        return out

    # -- legality (RULES 4: as the scenario declares the creatures) ------------------------

    def _legal(self, sc: Scenario) -> bool:
        """Whether the attacks and blocks are surely legal, with nothing for the reference
        world to change first; False sends the line to the full check."""
        specs = sc.creatures
        if not any(s.keywords for s in specs.values()):
            # a restriction is checked only where its keyword is (Restriction.keyword), and
            # these creatures can't be tapped or summoning sick
            return True
        static, attack = self.static_keywords, self.attack_keywords
        if static is None or any(not static.isdisjoint(s.keywords) for s in specs.values()):
            return False
        if sc.attackers and (
            attack is None or any(not attack.isdisjoint(s.keywords) for s in specs.values())
        ):
            return False
        for cid in sc.attackers:
            spec = specs[cid]
            if not self.requirement_keywords.isdisjoint(spec.keywords):
                return False
            if not self._attack_ok(_kind(spec)):
                return False
        blocked: dict[str, int] = {}
        for cid, (aid,) in sc.blockers.items():
            mine, theirs = _kind(specs[cid]), _kind(specs[aid])
            if not self._block_ok(mine) or not self._pair_ok(theirs, mine):
                return False
            blocked[aid] = blocked.get(aid, 0) + 1
        return all(self._least(_kind(specs[aid])) <= n for aid, n in blocked.items())

    def _side(self, kind: _Kind) -> KeywordSide:
        side = self.sides.get(kind)
        if side is None:
            if len(self.sides) >= _REMEMBERED:
                self._forget()
            names, parameters, power, colors, types = kind
            spec = CreatureSpec("", "", "", power, 1, names, parameters, colors=colors, types=types)
            side = self.sides[kind] = spec_side(spec, self.registry, ())
        return side

    def _forget(self) -> None:
        for memory in (self.sides, self.attack_ok, self.block_ok, self.pair_ok, self.least):
            memory.clear()

    def _attack_ok(self, kind: _Kind) -> bool:
        ok = self.attack_ok.get(kind)
        if ok is None:
            why = why_cannot_attack(self._side(kind), False, self.registry)
            ok = self.attack_ok[kind] = why is None
        return ok

    def _block_ok(self, kind: _Kind) -> bool:
        ok = self.block_ok.get(kind)
        if ok is None:
            side = self._side(kind)
            ok = self.block_ok[kind] = all(
                r.test(side) for r in self.registry.restrictions_of("block")
            )
        return ok

    def _pair_ok(self, attacker: _Kind, blocker: _Kind) -> bool:
        ok = self.pair_ok.get((attacker, blocker))
        if ok is None:
            theirs, mine = self._side(attacker), self._side(blocker)
            ok = self.pair_ok[attacker, blocker] = all(
                r.test(theirs, mine) for r in self.registry.restrictions_of("block-pair")
            )
        return ok

    def _least(self, kind: _Kind) -> int:
        need = self.least.get(kind)
        if need is None:
            n, rule = least_blockers(self._side(kind), self.registry)
            need = self.least[kind] = n if rule is not None else 1
        return need


def _kind(spec: CreatureSpec) -> _Kind:
    return (spec.keywords, spec.parameters, spec.power, spec.colors, spec.types)


def _names(value: Any, allowed: tuple[str, ...]) -> tuple[str, ...]:
    """Colors or card types as the full reader keeps them (each once, in `allowed` order),
    when written exactly so."""
    if type(value) not in (list, tuple) or list(value) != [n for n in allowed if n in value]:
        raise _Unusual
    return tuple(value)


def _table(value: Any) -> dict[str, Any]:
    if type(value) is not dict:
        raise _Unusual
    return value


def _id(value: str) -> None:
    """An id the full reader takes as it is, and that no message would need to quote."""
    if not value.strip() or not value.isprintable():
        raise _Unusual


def _integer(value: Any) -> int:
    if type(value) is not int or abs(value) > LIMIT:
        raise _Unusual
    return value


def _defaults(registry: Registry, owner: str) -> dict[str, Any]:
    """The plugins' state of a creature or player given nothing (as the full reader fills
    it)."""
    out: dict[str, Any] = {}
    for key, f in registry.state_fields(owner).items():
        out[key] = out[f.default_from] if f.default_from is not None else f.default
    return out
