"""The scenario format as data: every key, its type and its meaning (its JSON Schema:
:mod:`ecs_combat.scenario.json_schema`).

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

from ecs_combat.plugin.registry import Registry

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
