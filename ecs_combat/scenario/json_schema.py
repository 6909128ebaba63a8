"""The JSON Schema (draft 2020-12) of the scenario format, built from its tables of keys
(:mod:`ecs_combat.scenario.schema`) and the plugin registry (``ecs-combat schema``)."""

from __future__ import annotations

import copy
from typing import Any

from ecs_combat.plugin.definitions import CARD_TYPES, COLORS, FROM_WORDS, LAND_TYPES, Card
from ecs_combat.plugin.registry import Registry
from ecs_combat.scenario.checks import LIMIT
from ecs_combat.scenario.events import DECLARE_BLOCKERS, event_actions
from ecs_combat.scenario.schema import (
    ACTION,
    AMOUNTS,
    ATTACKERS,
    BANDS,
    BLOCKERS,
    BOOLEAN,
    CARD,
    CAST,
    CASTS,
    COLOR_LIST,
    COMBAT,
    COMBAT_PHASE,
    COMBAT_TABLE,
    COMBATS,
    COUNTERS,
    CREATURE,
    CREATURE_CARD,
    CREATURES,
    DECISION_KIND,
    DIVISION,
    DIVISIONS,
    ENTERING,
    EVENT,
    EVENTS,
    HORIZON,
    INTEGER,
    JSON_SCHEMA_DIALECT,
    KEYWORDS,
    LAND_LIST,
    ONE_OF_OPTIONAL,
    PLAYER,
    PLAYERS,
    POINT,
    RACE,
    RACE_SCENARIO,
    RACE_TABLE,
    SACRIFICES,
    SCENARIO,
    STEP,
    TARGETS,
    TEXT,
    TURN,
    TURN_SCENARIO,
    TURN_TABLE,
    TYPE_LIST,
    Key,
    creature_table,
    player_table,
)


def _escape(c: str) -> str:
    """A character as a regular expression that both Python and editors' JavaScript read."""
    return "\\" + c if c in r"\^$.|?*+()[]{}/" else c


def _escape_all(text: str) -> str:
    return "".join(map(_escape, text))


def _any_case(text: str) -> str:
    """A regular expression matching `text` in any letter case."""
    return "".join(
        f"[{c.upper()}{c.lower()}]" if c.upper() != c.lower() else _escape(c) for c in text
    )


def _words(names: list[str], any_case: bool) -> str:
    """A pattern matching any of `names`, words separated by any whitespace, as the loader
    normalises them."""
    spelled = [
        r"\s+".join(_any_case(w) if any_case else "".join(map(_escape, w)) for w in n.split())
        for n in names
    ]
    return r"^\s*(" + "|".join(spelled) + r")\s*$" if spelled else "^(?!)"


#: The schemas of the kinds of value that depend on nothing (the others depend on the
#: registry or the key).
_FIXED: dict[str, dict[str, Any]] = {
    BOOLEAN: {"type": "boolean"},
    PLAYERS: {
        "type": "object",
        "minProperties": 2,
        "additionalProperties": {"$ref": "#/$defs/player"},
    },
    CREATURES: {"type": "object", "additionalProperties": {"$ref": "#/$defs/creature"}},
    COMBAT: {"$ref": "#/$defs/combat"},
    DIVISIONS: {"type": "array", "items": {"$ref": "#/$defs/division"}},
    EVENTS: {"type": "array", "items": {"$ref": "#/$defs/event"}},
    ENTERING: {"$ref": "#/$defs/entering_creature"},
    TURN: {"$ref": "#/$defs/turn"},
    CASTS: {"type": "array", "items": {"$ref": "#/$defs/cast"}},
    COMBATS: {"type": "array", "items": {"$ref": "#/$defs/combat_phase"}},
    RACE: {"$ref": "#/$defs/race"},
    DECISION_KIND: {"enum": ["optimal", "drawn"]},
    HORIZON: {"enum": ["combat", "two combats"]},
}


class _Builder:
    def __init__(self, registry: Registry) -> None:
        self.reg = registry
        self.steps = registry.step_names
        self.keywords = list(registry.keywords)
        self.counter_keywords = [k.name for k in registry.keywords.values() if k.counter]
        self.counter_kinds = list(registry.counter_kinds)

    def integer(self, minimum: int | None) -> dict[str, Any]:
        return {
            "type": "integer",
            "minimum": max(minimum, -LIMIT) if minimum is not None else -LIMIT,
            "maximum": LIMIT,
        }

    def keyword_name(self, names: list[str]) -> dict[str, Any]:
        return {
            "type": "string",
            "pattern": _words(names, any_case=True),
            "examples": sorted(names),
        }

    def keyword_entry(self) -> dict[str, Any]:
        """One entry of a keyword list: a name, with its number, or its color or quality, where
        it takes one."""
        kws = self.reg.keywords.values()
        plain = [k.name for k in kws if not k.parameter]
        numbered = [k.name for k in kws if k.parameter == "number"]
        colored = [k.name for k in kws if k.parameter == "color"]
        bonus = [k.name for k in kws if k.parameter == "pt"]
        patterns = [_words(plain, any_case=True)]
        if bonus:
            patterns.append(
                _words(bonus, any_case=True).replace(r")\s*$", r")\s+\+[0-9]{1,3}/\+[0-9]{1,3}\s*$")
            )
        if numbered:
            patterns.append(_words(numbered, any_case=True).replace(r")\s*$", r")\s+[0-9]+\s*$"))
        if colored:
            colors = "(" + "|".join(_any_case(c) for c in FROM_WORDS) + ")"
            patterns.append(
                _words(colored, any_case=True).replace(
                    r")\s*$", r")\s+" + _any_case("from") + r"\s+" + colors + r"\s*$"
                )
            )
        entry: dict[str, Any] = {"type": "string", "examples": sorted(self.keywords)}
        if len(patterns) == 1:
            entry["pattern"] = patterns[0]
        else:
            entry["anyOf"] = [{"pattern": p} for p in patterns]
        return entry

    def value(self, key: Key) -> dict[str, Any]:
        """The JSON Schema of a key's value."""
        text: dict[str, Any] = {"type": "string", "pattern": r"\S"}
        kind = key.kind
        if kind in _FIXED:
            return copy.deepcopy(_FIXED[kind])
        if kind == INTEGER:
            return self.integer(key.minimum)
        if kind in (TEXT, PLAYER, CREATURE):
            return text
        if kind == KEYWORDS:
            return {"type": "array", "items": self.keyword_entry()}
        if kind == COUNTERS:
            keyword_counters = _words(self.counter_keywords, any_case=True)
            kinds = "^(" + "|".join(map(_escape_all, self.counter_kinds)) + ")$"
            return {
                "type": "object",
                "propertyNames": {"anyOf": [{"pattern": keyword_counters}, {"pattern": kinds}]}
                if self.counter_kinds
                else {"pattern": keyword_counters},
                "additionalProperties": self.integer(key.minimum),
            }
        if kind == COLOR_LIST:
            # as the loader reads them: any case and spacing, a color listed twice counts once
            colors = {"type": "string", "pattern": _words(list(COLORS), any_case=True)}
            return {"type": "array", "items": {**colors, "examples": list(COLORS)}}
        if kind in (TYPE_LIST, LAND_LIST):
            allowed = CARD_TYPES if kind == TYPE_LIST else LAND_TYPES
            pattern = _words(list(allowed), any_case=True)
            return {"type": "array", "items": {"type": "string", "pattern": pattern}}
        if kind == STEP:
            return {"enum": self.steps}
        if kind == POINT:
            points = [DECLARE_BLOCKERS, *(f"after {s}" for s in self.steps)]
            return {"type": "string", "pattern": _words(points, any_case=False), "examples": points}
        if kind == ACTION:
            return {"enum": list(event_actions(self.reg))}
        if kind == CARD:
            names = [c.name for c in self.reg.spells()]
            pattern = "^(" + "|".join(_any_case(n) for n in names) + ")$" if names else "^(?!)"
            return {"type": "string", "pattern": pattern, "examples": names}
        if kind == CREATURE_CARD:  # the database's names are too many to list
            plugin = [c.name for c in self.reg.library() if isinstance(c, Card) and c.is_creature]
            return {**text, "examples": [*plugin, "Serra Angel"]}
        if kind == ATTACKERS:
            return {"type": "object", "additionalProperties": text}
        if kind == SACRIFICES:
            ids = {"type": "array", "items": text, "uniqueItems": True}
            return {"type": "object", "additionalProperties": ids}
        if kind == TARGETS:
            several = {"type": "array", "items": text, "minItems": 1}
            return {"type": "object", "additionalProperties": {"anyOf": [text, several]}}
        if kind == BLOCKERS:
            several = {"type": "array", "items": text, "minItems": 1, "uniqueItems": True}
            return {"type": "object", "additionalProperties": {"anyOf": [text, several]}}
        if kind == BANDS:
            band = {"type": "array", "items": text, "minItems": 1, "uniqueItems": True}
            return {"type": "array", "items": band}
        if kind == AMOUNTS:
            return {"type": "object", "additionalProperties": self.integer(0)}
        raise ValueError(f"no schema for kind {kind!r}")  # pragma: no cover - tables are fixed

    def table(self, keys: dict[str, Key], required: tuple[str, ...] = ()) -> dict[str, Any]:
        """A closed object of `keys`: unknown keys are errors, as in the loader."""
        props = {}
        for name, key in keys.items():
            prop = {"description": key.doc, **self.value(key)}
            if key.default is not None:
                prop["default"] = key.default
            props[name] = prop
        needed = [n for n, k in keys.items() if k.required] + list(required)
        out: dict[str, Any] = {"type": "object", "properties": props, "additionalProperties": False}
        if needed:
            out["required"] = needed
        return out

    def event(self) -> dict[str, Any]:
        """An event: `at` and `action`, and the fields of its action (EVENT_ACTIONS)."""
        out = self.table(EVENT)
        out["allOf"] = []
        for action, (required, optional) in event_actions(self.reg).items():
            allowed = ["at", "action", *sorted(required | optional)]
            then: dict[str, Any] = {
                "required": sorted(required),
                "propertyNames": {"enum": allowed},
            }
            if action in ONE_OF_OPTIONAL:  # pump: power or toughness
                then["anyOf"] = [{"required": [k]} for k in sorted(optional)]
            out["allOf"].append(
                {
                    "if": {"properties": {"action": {"const": action}}, "required": ["action"]},
                    "then": then,
                }
            )
        return out

    def schema(self) -> dict[str, Any]:
        player = self.table(player_table(self.reg))
        creature = creature_table(self.reg)
        entering = self.table(creature, required=("id",))
        for key, f in self.reg.state_fields("creature").items():
            if f.kind == "creature":  # only creatures there as combat begins
                del entering["properties"][key]
        either = [{"required": [k]} for k in TURN_SCENARIO]
        return {
            "$schema": JSON_SCHEMA_DIALECT,
            "title": "ecs-combat scenario",
            "description": "One combat (docs/scenarios.md), or a turn (docs/turns.md).",
            **self.table({**SCENARIO, **TURN_SCENARIO, **RACE_SCENARIO}),
            # A turn has `turn` or `combats` in place of `combat` and `events`; a race has
            # `race` in place of all of them.
            "allOf": [
                {
                    "not": {
                        "allOf": [
                            {"anyOf": either},
                            {"anyOf": [{"required": ["combat"]}, {"required": ["events"]}]},
                        ]
                    }
                },
                {
                    "if": {"required": ["race"]},
                    "then": {
                        "not": {
                            "anyOf": [
                                {"required": [k]} for k in ("combat", "events", "turn", "combats")
                            ]
                        },
                        "properties": {"players": {"minProperties": 2, "maxProperties": 2}},
                    },
                },
            ],
            "$defs": {
                "player": player,
                "creature": _with_card(self.table(creature)),
                "entering_creature": _with_card(entering),
                "combat": self.table(COMBAT_TABLE),
                "division": self.table(DIVISION),
                "event": self.event(),
                "turn": self.table(TURN_TABLE),
                "cast": self.table(CAST),
                "combat_phase": self.table(COMBAT_PHASE),
                "race": self.table(RACE_TABLE),
            },
        }


def _with_card(table: dict[str, Any]) -> dict[str, Any]:
    """A creature table: power and toughness are required unless it names a card."""
    table["anyOf"] = [{"required": ["card"]}, {"required": ["power", "toughness"]}]
    return table


def scenario_schema(registry: Registry) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of a scenario, with the registry's keywords, cards and
    damage steps. It checks keys and types; the loader also checks what refers to what and the
    rules (an illegal block, a division that doesn't total the power)."""
    return _Builder(registry).schema()
