"""Race files (RULES section 12, CONTRACT section 9): a ``[race]`` table in place of
``[combat]``: two players take turns, each combat decided by the players, until one loses or
the turn limit. This module reads and validates them; the race itself is
:mod:`ecs_combat.rules.race`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ecs_combat.errors import InputError
from ecs_combat.plugin.registry import Registry
from ecs_combat.scenario import documents
from ecs_combat.scenario.documents import is_race
from ecs_combat.scenario.loader import Parser, parse_scenario
from ecs_combat.scenario.model import CreatureSpec, PlayerSpec
from ecs_combat.suggest import did_you_mean

#: The top-level keys of a race document.
RACE_DOCUMENT_KEYS = frozenset({"players", "creatures", "race"})
#: The keys of the ``[race]`` table.
RACE_KEYS = frozenset({"first", "turns", "decisions", "horizon", "seed"})
#: How each combat is decided (RULES section 12).
DECISIONS = ("optimal", "drawn")
#: How far the optimal policy looks: this combat, or this one and the next one.
HORIZONS = ("combat", "two combats")
#: Turns a race may last at most.
MOST_TURNS = 200
DEFAULT_TURNS = 20


@dataclass(frozen=True)
class RaceSettings:
    """The ``[race]`` table with every default filled in."""

    #: The player who takes the first turn.
    first: str
    turns: int = DEFAULT_TURNS
    decisions: str = "optimal"
    horizon: str = "combat"
    #: The seed of the ``drawn`` decisions.
    seed: int = 0

    def to_json(self) -> dict[str, Any]:
        """The table as played (CONTRACT section 9's echoed ``race``)."""
        return {
            "first": self.first,
            "turns": self.turns,
            "decisions": self.decisions,
            "horizon": self.horizon,
            "seed": self.seed,
        }


@dataclass
class RaceScenario:
    """One validated race: the board as the race begins, and how it is played."""

    file: str
    #: The two players, in turn order from the first player to move.
    players: dict[str, PlayerSpec]
    creatures: dict[str, CreatureSpec]
    settings: RaceSettings

    @property
    def order(self) -> tuple[str, str]:
        """The players in the order they take turns, the first player first."""
        a, b = self.players
        return (a, b) if a == self.settings.first else (b, a)


def is_race_file(path: str | Path) -> bool:
    """Whether a scenario file's first document is a race."""
    for _, doc in documents.read_documents(path, "scenario"):
        return is_race(doc)
    return False


def load_race(path: str | Path, registry: Registry) -> RaceScenario:
    """Read and validate a file holding one race."""
    found = [
        parse_race(doc, registry, where)
        for where, doc in documents.read_documents(path, "scenario")
    ]
    if len(found) != 1:
        raise InputError(str(path), "", f"expected one race, found {len(found)}")
    return found[0]


def parse_race(doc: Any, registry: Registry, file: str = "<race>") -> RaceScenario:
    """Validate a raw race document (a dict as read from TOML or JSON)."""
    parser = Parser(doc, registry, file)
    raw = parser.doc
    for key in ("combat", "events", "turn", "combats"):
        if key in raw:
            raise parser.c.fail(
                key,
                f"a race decides every combat itself: `{key}` can't be given beside `race` "
                "(docs/races.md)",
            )
    if "race" not in raw:
        raise parser.c.fail("race", "missing")
    parser.c.keys(raw, "", RACE_DOCUMENT_KEYS)
    players = parser.c.table(raw.get("players", {}), "players")
    if len(players) != 2:
        raise parser.c.fail("players", f"a race is between exactly two players, not {len(players)}")
    board = parse_scenario(
        {k: v for k, v in raw.items() if k in ("players", "creatures")}, registry, file
    )
    table = parser.c.table(raw["race"], "race")
    for key in table:
        if key not in RACE_KEYS:
            raise parser.c.fail(f"race.{key}", f"unknown key{did_you_mean(key, sorted(RACE_KEYS))}")
    for spec in board.creatures.values():
        if spec.targets:
            raise parser.c.fail(
                f"{spec.path}.targets",
                "a race decides who attacks each turn: its triggers' targets can't be fixed in "
                "advance (leave `targets` out: each trigger then takes its default target)",
            )
    parser.players = board.players
    order = list(board.players)
    first = parser.player_ref(table["first"], "race.first") if "first" in table else order[0]
    turns = parser.c.integer(table.get("turns", DEFAULT_TURNS), "race.turns")
    if not 1 <= turns <= MOST_TURNS:
        raise parser.c.fail("race.turns", f"must be from 1 to {MOST_TURNS}, not {turns}")
    decisions = _choice(parser, table, "decisions", DECISIONS)
    horizon = _choice(parser, table, "horizon", HORIZONS)
    seed = parser.c.integer(table.get("seed", 0), "race.seed", 0)
    settings = RaceSettings(first, turns, decisions, horizon, seed)
    return RaceScenario(file, board.players, board.creatures, settings)


def _choice(parser: Parser, table: dict[str, Any], key: str, allowed: tuple[str, ...]) -> str:
    """One of `allowed` (the first is the default), or an error with the closest name."""
    if key not in table:
        return allowed[0]
    value = parser.c.string(table[key], f"race.{key}")
    if value not in allowed:
        shown = " or ".join(repr(a) for a in allowed)
        raise parser.c.fail(
            f"race.{key}", f"unknown {key} {value!r}{did_you_mean(value, allowed)} (one of {shown})"
        )
    return value


__all__ = [
    "DECISIONS",
    "HORIZONS",
    "MOST_TURNS",
    "RACE_KEYS",
    "RaceScenario",
    "RaceSettings",
    "is_race",
    "is_race_file",
    "load_race",
    "parse_race",
]
