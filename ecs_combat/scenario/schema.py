"""The scenario format as data: every key, its type and its meaning, and its JSON Schema.

The loader (:mod:`ecs_combat.scenario.loader`) validates documents itself; these tables describe the
same keys for people and editors (docs/scenarios.md, ``ecs-combat schema``). The tests check
that the loader and these tables accept exactly the same keys, so the schema can't drift.
Keyword, card, step and point names, kinds of counters and the keys plugins add to players and
creatures (``hat``, ``paired_with``, ``poison``) come from the plugin registry, as they do for
the loader.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ecs_combat.plugin.definitions import CARD_TYPES, COLORS, FROM_WORDS, LAND_TYPES, Card
from ecs_combat.plugin.registry import Registry
from ecs_combat.scenario.checks import LIMIT
from ecs_combat.scenario.events import DECLARE_BLOCKERS, event_actions

JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"

# The kinds of value a key takes (each becomes one JSON Schema fragment in `_value`).
INTEGER = "integer"
BOOLEAN = "boolean"
TEXT = "text"  # a non-empty string
PLAYER = "player id"
CREATURE = "creature id"
KEYWORDS = "list of keywords"
COUNTERS = "counters"
COLOR_LIST = "list of colors"
TYPE_LIST = "list of card types"
LAND_LIST = "list of land types"
TARGETS = "targets table"
STEP = "damage step"
POINT = "point of the combat"
ACTION = "event action"
CARD = "card"
CREATURE_CARD = "creature card"
PLAYERS = "players table"
CREATURES = "creatures table"
COMBAT = "combat table"
ATTACKERS = "attackers table"
BLOCKERS = "blockers table"
DIVISIONS = "list of divisions"
BANDS = "list of bands"
AMOUNTS = "amounts table"
EVENTS = "list of events"
SACRIFICES = "sacrifices table"
ENTERING = "entering creature"
TURN = "turn table"
CASTS = "list of main-phase casts"
COMBATS = "list of combat phases"
RACE = "race table"
DECISION_KIND = "race decisions"
HORIZON = "race horizon"


@dataclass(frozen=True)
class Key:
    """One key of a table of the scenario format."""

    kind: str
    doc: str
    required: bool = False
    #: Smallest value of an integer, or of each count of a counters table.
    minimum: int | None = None
    default: Any = None


SCENARIO: dict[str, Key] = {
    "players": Key(PLAYERS, "The players, in turn order: the first is the attacking player.", True),
    "creatures": Key(CREATURES, "The creatures on the battlefield as combat begins, by id."),
    "combat": Key(COMBAT, "Attackers, blockers and explicit divisions of damage."),
    "events": Key(EVENTS, "Things that happen at points of the combat, in order."),
    "sacrifices": Key(
        SACRIFICES,
        "Player id -> the creature ids that player chooses, in order, when made to sacrifice "
        "creatures (annihilator: N per trigger, in trigger order).",
    ),
}

#: The core's keys of a player table; plugins add theirs (:func:`player_table`).
PLAYER_TABLE: dict[str, Key] = {
    "life": Key(INTEGER, "Life total as combat begins.", minimum=1, default=20),
    "lands": Key(
        LAND_LIST,
        "The land types of the lands they control (plains, island, swamp, mountain, forest) "
        "and nonbasic, any case, as restrictions on blocking read them.",
        default=[],
    ),
}

#: The core's keys of a creature table; plugins add theirs (:func:`creature_table`).
CREATURE_TABLE: dict[str, Key] = {
    "name": Key(TEXT, "Display name; defaults to the id."),
    "controller": Key(PLAYER, "The player who controls it.", True),
    "card": Key(
        CREATURE_CARD,
        "A creature card (exact name, any case: docs/cards.md): name, power, toughness, colors "
        "and keywords come from it; keys given beside it override.",
    ),
    "power": Key(INTEGER, "Power (required without card)."),
    "toughness": Key(INTEGER, "Toughness (1 or more; required without card).", minimum=1),
    "keywords": Key(
        KEYWORDS,
        "Printed keywords, one entry per instance, with a number or a color where the keyword "
        "takes one (a keyword N, or a keyword from a color).",
        default=[],
    ),
    "counters": Key(
        COUNTERS,
        "Counters: keyword counters and other kinds (+1/+1) -> count.",
        minimum=0,
        default={},
    ),
    "damage": Key(INTEGER, "Damage already marked on it.", minimum=0, default=0),
    "colors": Key(COLOR_LIST, "Its colors (white, blue, black, red, green); none: colorless."),
    "types": Key(
        TYPE_LIST, "Its card types besides creature (artifact, enchantment, land).", default=[]
    ),
    "summoning_sick": Key(
        BOOLEAN, "It came under its controller's control this turn.", default=False
    ),
    "targets": Key(
        TARGETS,
        "The targets of its keywords' triggers: keyword -> a creature id, or a list, one per "
        "instance.",
    ),
    "tapped": Key(
        BOOLEAN,
        "It is tapped as combat begins: it can't attack or block unless something untaps it.",
        default=False,
    ),
    "value": Key(
        INTEGER,
        "Its value for decisions (ecs-combat blocks / attacks); default: power plus toughness.",
    ),
    "id": Key(TEXT, "Its id: required in an enter event; in [creatures] the table key is the id."),
}

COMBAT_TABLE: dict[str, Key] = {
    "attackers": Key(ATTACKERS, "Attacking creature id -> the player it attacks.", default={}),
    "blockers": Key(
        BLOCKERS, "Blocking creature id -> an attacker id or a list of them.", default={}
    ),
    "divide": Key(DIVISIONS, "Explicit divisions of one creature's damage in one step."),
    "bands": Key(
        BANDS,
        "Attackers that attack in a band: a list of lists of attacker ids, all of a band "
        "attacking the same player (702.22c-d).",
        default=[],
    ),
}

DIVISION: dict[str, Key] = {
    "step": Key(STEP, "The damage step.", True),
    "source": Key(CREATURE, "The creature whose damage is divided.", True),
    "amounts": Key(AMOUNTS, "Recipient id -> damage; they total its power.", True),
}

EVENT: dict[str, Key] = {
    "at": Key(POINT, '"declare-blockers" or "after STEP".', True),
    "action": Key(ACTION, "What happens.", True),
    "target": Key(
        CREATURE,
        "The creature it happens to (a player too, for damage and an any-target card).",
    ),
    "keywords": Key(KEYWORDS, "Keywords granted or removed (at least one)."),
    "counters": Key(COUNTERS, "Keyword counters added (or removed, if negative)."),
    "power": Key(INTEGER, "Change of power until end of turn.", default=0),
    "toughness": Key(INTEGER, "Change of toughness until end of turn.", default=0),
    "amount": Key(INTEGER, "Noncombat damage dealt.", minimum=0),
    "creature": Key(ENTERING, "The creature that enters: a creature table with an id."),
    "attacking": Key(PLAYER, "The player the entering creature attacks."),
    "card": Key(CARD, "A card of the card library (docs/scenarios.md lists them)."),
    "caster": Key(PLAYER, "The player who casts it."),
    "token": Key(TEXT, "The id of the creature token the cast card creates (cast only)."),
}


#: Actions that need at least one of their optional fields (the others' are just optional).
ONE_OF_OPTIONAL = frozenset({"pump"})

#: The top-level keys of a turn with several combat phases (docs/turns.md), beside
#: `players` and `creatures`.
TURN_SCENARIO: dict[str, Key] = {
    "turn": Key(TURN, "Whose turn it is, and the spells cast in its main phases."),
    "combats": Key(COMBATS, "Each combat phase's attackers, blockers and events, in order."),
}
TURN_TABLE: dict[str, Key] = {
    "active": Key(PLAYER, "Whose turn it is; default: the first player listed."),
    "casts": Key(CASTS, "Spells cast during main phases, in order."),
}
CAST: dict[str, Key] = {
    "card": Key(CARD, "A card of the card library.", True),
    "caster": Key(PLAYER, "The player who casts it.", True),
    "main": Key(INTEGER, "The main phase it is cast in: 1 is the precombat main.", True, 1),
    "target": Key(TEXT, "Its target: a creature, or a player for any target."),
    "token": Key(TEXT, "The id of the creature token it creates."),
}
COMBAT_PHASE: dict[str, Key] = {
    **COMBAT_TABLE,
    "events": Key(EVENTS, "Things that happen at points of this combat phase, in order."),
    "sacrifices": Key(
        SACRIFICES, "Player id -> the creature ids that player chooses when made to sacrifice."
    ),
}

#: The top-level key of a race (docs/races.md), beside `players` and `creatures`.
RACE_SCENARIO: dict[str, Key] = {
    "race": Key(RACE, "Play turns until a player loses, each combat decided: a race."),
}
RACE_TABLE: dict[str, Key] = {
    "first": Key(PLAYER, "The player who takes the first turn; default: the first listed."),
    "turns": Key(INTEGER, "The most turns played (1 to 200).", minimum=1, default=20),
    "decisions": Key(
        DECISION_KIND, "How combats are decided: optimal, or drawn at random.", default="optimal"
    ),
    "horizon": Key(
        HORIZON,
        "How far the optimal decisions look: this combat, or two combats.",
        default="combat",
    ),
    "seed": Key(INTEGER, "The seed of drawn decisions.", minimum=0, default=0),
}

_STATE_KINDS = {"bool": BOOLEAN, "int": INTEGER, "creature": CREATURE}


def _plugin_keys(registry: Registry, owner: str) -> dict[str, Key]:
    """The keys plugins add to players or creatures."""
    return {
        key: Key(
            _STATE_KINDS[f.kind],
            f.summary or f"Added by a plugin ({f.kind}).",
            minimum=0 if f.kind == "int" else None,
            default=f.default,
        )
        for key, f in registry.state_fields(owner).items()
    }


def player_table(registry: Registry) -> dict[str, Key]:
    """Every key of a player table: the core's and the plugins'."""
    return {**PLAYER_TABLE, **_plugin_keys(registry, "player")}


def creature_table(registry: Registry) -> dict[str, Key]:
    """Every key of a creature table: the core's and the plugins'."""
    return {**CREATURE_TABLE, **_plugin_keys(registry, "creature")}


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
        if kind == INTEGER:
            return self.integer(key.minimum)
        if kind == BOOLEAN:
            return {"type": "boolean"}
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
        if kind == PLAYERS:
            return {
                "type": "object",
                "minProperties": 2,
                "additionalProperties": {"$ref": "#/$defs/player"},
            }
        if kind == CREATURES:
            return {"type": "object", "additionalProperties": {"$ref": "#/$defs/creature"}}
        if kind == COMBAT:
            return {"$ref": "#/$defs/combat"}
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
        if kind == DIVISIONS:
            return {"type": "array", "items": {"$ref": "#/$defs/division"}}
        if kind == BANDS:
            band = {"type": "array", "items": text, "minItems": 1, "uniqueItems": True}
            return {"type": "array", "items": band}
        if kind == AMOUNTS:
            return {"type": "object", "additionalProperties": self.integer(0)}
        if kind == EVENTS:
            return {"type": "array", "items": {"$ref": "#/$defs/event"}}
        if kind == ENTERING:
            return {"$ref": "#/$defs/entering_creature"}
        if kind == TURN:
            return {"$ref": "#/$defs/turn"}
        if kind == CASTS:
            return {"type": "array", "items": {"$ref": "#/$defs/cast"}}
        if kind == COMBATS:
            return {"type": "array", "items": {"$ref": "#/$defs/combat_phase"}}
        if kind == RACE:
            return {"$ref": "#/$defs/race"}
        if kind == DECISION_KIND:
            return {"enum": ["optimal", "drawn"]}
        if kind == HORIZON:
            return {"enum": ["combat", "two combats"]}
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


def tables(registry: Registry) -> dict[str, dict[str, Key]]:
    """Every table of the format: where it is in a document, and its keys."""
    return {
        **TABLES,
        "players.ID": player_table(registry),
        "creatures.ID": creature_table(registry),
    }


#: The tables of a turn (docs/turns.md) beside those of one combat: where each is, its keys.
TURN_TABLES: dict[str, dict[str, Key]] = {
    "": TURN_SCENARIO,
    "turn": TURN_TABLE,
    "turn.casts[i]": CAST,
    "combats[i]": COMBAT_PHASE,
}

#: The tables of a race (docs/races.md) beside `players` and `creatures`.
RACE_TABLES: dict[str, dict[str, Key]] = {"": RACE_SCENARIO, "race": RACE_TABLE}

#: Every table of the format with the core's keys only: where it is in a document, its keys.
TABLES: dict[str, dict[str, Key]] = {
    "": SCENARIO,
    "players.ID": PLAYER_TABLE,
    "creatures.ID": CREATURE_TABLE,
    "combat": COMBAT_TABLE,
    "combat.divide[i]": DIVISION,
    "events[i]": EVENT,
}
