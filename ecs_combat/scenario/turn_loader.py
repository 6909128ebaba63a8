"""Turn files (CONTRACT.md section 6): a ``[turn]`` table and ``[[combats]]`` in place of
``[combat]`` and ``[[events]]``, read from TOML, JSON or JSON Lines and validated.

Each ``[[combats]]`` entry is validated as a one-combat scenario would be (attackers,
blockers, divisions, events), with the combat phase's attacking player as the active player;
its problems are named ``combats[i].attackers.wolf``, ``combats[i].events[0].target``, ... What
only the turn can tell (the attacking player of each combat phase, the creatures a Throat Wolf
combat allows, more entries than combat phases) is checked here. Whether a creature is still
untapped and on the battlefield when a later combat phase comes is known only as the turn is
played: the engines check it then.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from ecs_combat.errors import InputError
from ecs_combat.plugin.definitions import Card
from ecs_combat.plugin.phases import COMBAT, MAIN, TURN, CastInMain, Phase
from ecs_combat.plugin.registry import Registry
from ecs_combat.rules.turn_schedule import schedule, seat_order
from ecs_combat.scenario import documents
from ecs_combat.scenario.checks import type_name
from ecs_combat.scenario.documents import is_turn, is_turn_file
from ecs_combat.scenario.events import token_creature
from ecs_combat.scenario.loader import Parser
from ecs_combat.scenario.model import CreatureSpec, Scenario
from ecs_combat.scenario.turns import TurnScenario
from ecs_combat.suggest import did_you_mean

#: The top-level keys of a turn document.
TURN_KEYS = frozenset({"players", "creatures", "turn", "combats"})
#: The keys of one ``[[combats]]`` entry.
COMBAT_KEYS = frozenset({"attackers", "blockers", "divide", "bands", "events", "sacrifices"})
#: The keys of one ``[[turn.casts]]`` entry.
CAST_KEYS = frozenset({"card", "caster", "main", "target", "token"})


def iter_turns(
    path: str | Path, registry: Registry, combats: bool = True
) -> Iterator[TurnScenario]:
    """Read and validate the turns of a file one at a time (a .jsonl file line by line).
    With `combats` False, the ``[[combats]]`` entries are left unread (the phases alone)."""
    found = False
    for where, doc in documents.read_documents(path, "scenario"):
        found = True
        if not is_turn(doc):
            raise InputError(
                where,
                "",
                "this is one combat, not a turn (no `turn` or `combats`): a file holds either "
                "turns or combats",
            )
        if not combats and isinstance(doc, Mapping):
            doc = {k: v for k, v in doc.items() if k != "combats"} | {"turn": doc.get("turn", {})}
        yield parse_turn(doc, registry, where)
    if not found:
        raise InputError(str(path), "", "the file holds no turn")


def load_turns(path: str | Path, registry: Registry) -> list[TurnScenario]:
    """Read and validate every turn in a file."""
    return list(iter_turns(path, registry))


def load_turn(path: str | Path, registry: Registry) -> TurnScenario:
    """Read and validate a file holding exactly one turn."""
    turns = load_turns(path, registry)
    if len(turns) != 1:
        raise InputError(str(path), "", f"expected one turn, found {len(turns)}")
    return turns[0]


def parse_turn(doc: Any, registry: Registry, file: str = "<turn>") -> TurnScenario:
    """Validate a raw turn document (a dict as read from TOML or JSON)."""
    return _TurnParser(doc, registry, file).parse_turn()


class _TurnParser(Parser):
    def parse_turn(self) -> TurnScenario:
        for key, what in (("combat", "attackers and blockers"), ("events", "events")):
            if key in self.doc:
                raise self.c.fail(
                    key,
                    f"a turn gives each combat phase's {what} in its entry of `combats`, not in "
                    f"`{key}` (docs/turns.md)",
                )
        self.c.keys(self.doc, "", TURN_KEYS)
        self.parse_sides()
        turn = self.c.table(self.doc.get("turn", {}), "turn")
        self.c.keys(turn, "turn", {"active", "casts"})
        order = list(self.players)
        active = self.player_ref(turn["active"], "turn.active") if "active" in turn else order[0]
        raw_combats = self.doc.get("combats", [])
        if not isinstance(raw_combats, list):
            raise self.c.fail("combats", f"must be a list of tables, not {type_name(raw_combats)}")
        entered = self._entered_in_combats(raw_combats)
        casts, tokens = self._casts(turn.get("casts", []), entered)
        phases = schedule(order, active, self.creatures, casts, self.registry.phase_rules)
        mains = sum(p.kind == MAIN for p in phases)
        for cast in casts:
            if cast.main > mains:
                raise self.c.fail(
                    f"{cast.path}.main",
                    f"main phase {cast.main} never happens: the turn has {_count(mains, 'main phase')} "
                    "(`ecs-combat phases FILE` lists them)",
                )
        combat_phases = [p for p in phases if p.kind == COMBAT]
        if len(raw_combats) > len(combat_phases):
            raise self.c.fail(
                f"combats[{len(combat_phases)}]",
                f"{len(raw_combats)} combats listed, but the turn has "
                f"{_count(len(combat_phases), 'combat phase')} "
                f"({', '.join(_describe(p) for p in combat_phases)}; `ecs-combat phases FILE` "
                "lists them)",
            )
        out = TurnScenario(
            self.file, self.players, self.creatures, active, phases, [], casts, tokens
        )
        cast_before = out.casts_before()
        raw_creatures = dict(self.c.table(self.doc.get("creatures", {}), "creatures"))
        extra: dict[str, CreatureSpec] = {}
        for i, phase in enumerate(combat_phases):
            for cast in cast_before[i]:
                if cast.token is not None:
                    extra[cast.token] = tokens[cast.token]
                    raw_creatures[cast.token] = _raw_token(self._card(cast.card), cast.caster)
            raw = raw_combats[i] if i < len(raw_combats) else {}
            scenario = self._combat(i, phase, raw, raw_creatures, order, extra)
            for ev in scenario.events:  # creatures that enter stay for the later phases
                if ev.creature is None:
                    continue
                extra[ev.creature.id] = ev.creature
                if ev.token is not None and ev.card is not None and ev.caster is not None:
                    raw_creatures[ev.creature.id] = _raw_token(self._card(ev.card), ev.caster)
                else:
                    raw_creatures[ev.creature.id] = _raw_entered(raw, ev.index)
            out.combats.append(scenario)
        return out

    # -- combats --------------------------------------------------------------------------

    def _combat(
        self,
        i: int,
        phase: Phase,
        raw: Any,
        raw_creatures: dict[str, Any],
        order: list[str],
        extra: dict[str, CreatureSpec],
    ) -> Scenario:
        """One combat phase's entry, validated as a one-combat scenario whose active player is
        the phase's attacking player."""
        where = f"combats[{i}]"
        t = self.c.table(raw, where)
        self.c.keys(t, where, COMBAT_KEYS)
        attackers = t.get("attackers", {})
        if isinstance(attackers, Mapping):
            known = {**self.creatures, **extra}
            for cid in attackers:
                spec = known.get(cid)
                path = f"{where}.attackers.{cid}"
                if spec is None:
                    raise self.c.fail(path, f"unknown creature {cid!r}{did_you_mean(cid, known)}")
                if spec.controller != phase.player:
                    raise self.c.fail(
                        path,
                        f"{cid!r} is controlled by {spec.controller!r}, but {phase.player!r} is "
                        f"the attacking player of this combat phase ({_describe(phase)}; 506.2)",
                    )
                if phase.only_attackers is not None and cid not in phase.only_attackers:
                    allowed = ", ".join(repr(c) for c in sorted(phase.only_attackers))
                    raise self.c.fail(
                        path,
                        f"only {allowed} can attack in this combat phase ({_describe(phase)})",
                    )
        doc = {
            "players": {pid: self.doc["players"][pid] for pid in seat_order(order, phase.player)},
            "creatures": raw_creatures,
            "combat": {k: v for k, v in t.items() if k not in ("events", "sacrifices")},
            "events": t.get("events", []),
            "sacrifices": t.get("sacrifices", {}),
        }
        parser = Parser(doc, self.registry, self.file)
        parser.check_legality = False  # the engines check as the phase declares them
        try:
            scenario = parser.parse()
        except InputError as exc:
            raise InputError(exc.file, _in_combat(exc.path, where), exc.message) from None
        # Key paths as the turn file's (``combats[i].divide[0]``, ``combats[i].events[0]``).
        scenario.combat_path = where
        scenario.divisions = [
            dataclasses.replace(d, path=_in_combat(d.path, where)) for d in scenario.divisions
        ]
        scenario.events = [
            dataclasses.replace(ev, path=_in_combat(ev.path, where)) for ev in scenario.events
        ]
        # The turn's own players and creatures (one object each), in this phase's seat order.
        scenario.players = {pid: self.players[pid] for pid in scenario.players}
        scenario.creatures = {**self.creatures, **extra}
        return scenario

    def _entered_in_combats(self, raw_combats: list[Any]) -> set[str]:
        """Ids of the creatures the combats' events bring in (`enter`, and tokens of `cast`):
        main-phase spells may target them."""
        ids: set[str] = set()
        for raw in raw_combats:
            events = raw.get("events", []) if isinstance(raw, Mapping) else []
            for ev in events if isinstance(events, list) else []:
                creature = ev.get("creature") if isinstance(ev, Mapping) else None
                if isinstance(creature, Mapping) and isinstance(creature.get("id"), str):
                    ids.add(creature["id"])
                if isinstance(ev, Mapping) and isinstance(ev.get("token"), str):
                    ids.add(ev["token"])
        return ids

    # -- casts ----------------------------------------------------------------------------

    def _casts(
        self, raw: Any, entered: set[str]
    ) -> tuple[list[CastInMain], dict[str, CreatureSpec]]:
        """The spells cast in main phases, and the tokens they create."""
        if not isinstance(raw, list):
            raise self.c.fail("turn.casts", f"must be a list of tables, not {type_name(raw)}")
        casts: list[CastInMain] = []
        tokens: dict[str, CreatureSpec] = {}
        for i, item in enumerate(raw):
            path = f"turn.casts[{i}]"
            t = self.c.table(item, path)
            self.c.keys(t, path, CAST_KEYS)
            for key in ("card", "caster", "main"):
                if key not in t:
                    raise self.c.fail(f"{path}.{key}", "missing")
            card = self._spell(t["card"], f"{path}.card")
            caster = self.player_ref(t["caster"], f"{path}.caster")
            main = self.c.integer(t["main"], f"{path}.main", 1)
            token = self._token(card, t.get("token"), path, caster, tokens, entered)
            if token is not None:
                tokens[token.id] = token
            known = set(self.creatures) | set(tokens) | entered
            target = self._target(card, t.get("target"), f"{path}.target", known)
            casts.append(
                CastInMain(card.name, caster, main, target, token.id if token else None, path)
            )
        return casts, tokens

    def _card(self, name: str) -> Card:
        """A spell already validated."""
        card = self.registry.spell(name)
        assert card is not None
        return card

    def _spell(self, value: Any, path: str) -> Card:
        name = self.c.string(value, path)
        card = self.registry.spell(name)
        if card is None:
            raise self.c.fail(path, self.registry.unknown_card_reason(name))
        for kw in sorted(card.keywords):
            if self.registry.keyword(kw) is None:
                raise self.c.fail(
                    path, f"{card.name} needs {self.registry.unknown_keyword_reason(kw)}"
                )
        return card

    def _target(self, card: Card, value: Any, path: str, creatures: set[str]) -> str | None:
        """A cast's target: a creature, or for "any target" a creature or a player; none for a
        spell without one."""
        kind = card.target.kind
        if kind == "none":
            if value is not None:
                raise self.c.fail(path, f"{card.name} has no target")
            return None
        if value is None:
            raise self.c.fail(path, f"missing ({card.name} needs a target)")
        target = self.c.string(value, path)
        if target in creatures:
            return target
        if target in self.players:
            if kind == "any":
                return target
            raise self.c.fail(path, f"{target!r} is a player; {card.name} targets a creature")
        known = sorted(creatures | (set(self.players) if kind == "any" else set()))
        raise self.c.fail(path, f"unknown creature {target!r}{did_you_mean(target, known)}")

    def _token(
        self,
        card: Card,
        value: Any,
        path: str,
        caster: str,
        tokens: dict[str, CreatureSpec],
        entered: set[str],
    ) -> CreatureSpec | None:
        """The creature a cast creates, with the id ``token`` gives it."""
        where = f"{path}.token"
        if card.creates is None:
            if value is not None:
                raise self.c.fail(where, f"{card.name} creates no token")
            return None
        if value is None:
            raise self.c.fail(where, f"missing ({card.name} creates a token: give its id)")
        tid = self.c.string(value, where)
        if tid in self.players or tid in self.creatures or tid in tokens or tid in entered:
            raise self.c.fail(where, f"duplicate id {tid!r}")
        try:
            return token_creature(card, tid, caster, self.registry, where)
        except ValueError as exc:
            raise self.c.fail(f"{path}.card", f"{card.name}'s token: {exc}") from None


def _raw_token(card: Card, caster: str) -> dict[str, Any]:
    """The creature token a card creates, as a creature table, for validating the combat
    phases after it enters."""
    made = card.creates
    assert made is not None
    return {
        "name": made.name,
        "controller": caster,
        "power": made.power,
        "toughness": made.toughness,
        "keywords": list(made.keywords),
        "colors": list(made.colors),
        "summoning_sick": True,
    }


def _raw_entered(raw_combat: Any, index: int) -> dict[str, Any]:
    """A creature that entered in an earlier combat phase, as a creature table: it came under
    its controller's control this turn."""
    creature = dict(raw_combat["events"][index]["creature"])
    creature.pop("id", None)
    return {**creature, "summoning_sick": True}


def _in_combat(path: str, where: str) -> str:
    """A one-combat scenario's key path as the turn file's: ``combat.attackers.x`` and
    ``events[0]`` of combat i are ``combats[i].attackers.x`` and ``combats[i].events[0]``."""
    if path == "combat":
        return where
    if path.startswith("combat."):
        return f"{where}.{path.removeprefix('combat.')}"
    if path.startswith("events"):
        return f"{where}.{path}"
    return path


def _describe(phase: Phase) -> str:
    made = "the turn's own" if phase.created_by == TURN else f"created by {phase.created_by}"
    return f"{phase.player} attacks; {made}"


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'' if n == 1 else 's'}"


__all__ = [
    "CAST_KEYS",
    "COMBAT_KEYS",
    "TURN_KEYS",
    "is_turn",
    "is_turn_file",
    "iter_turns",
    "load_turn",
    "load_turns",
    "parse_turn",
    "seat_order",
]
