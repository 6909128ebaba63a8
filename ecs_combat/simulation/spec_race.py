"""A SPEC's ``[race]`` table: each drawn board played as a race (RULES section 12; format in
docs/simulate.md), read with the SPEC reader's checks."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ecs_combat.scenario.race import DECISIONS as RACE_DECISIONS
from ecs_combat.scenario.race import HORIZONS, MOST_TURNS, RACE_KEYS
from ecs_combat.simulation.spec import DEFAULT_RACE_TURNS, RaceSpec
from ecs_combat.suggest import did_you_mean

if TYPE_CHECKING:
    from ecs_combat.simulation.spec_reader import SpecReader


def refuse_beside_race(reader: SpecReader, doc: dict[str, Any]) -> None:
    """Refuse what a SPEC with ``[race]`` can't have beside it."""
    for key, why in (
        ("decisions", "a race's decisions are race.decisions"),
        ("turn", "a race plays whole turns itself"),
        ("casts", "a race casts no spells"),
    ):
        if key in doc:
            raise reader.fail(key, f"can't be given beside [race]: {why}")


def parse_race(reader: SpecReader, doc: dict[str, Any]) -> RaceSpec:
    """The ``[race]`` table: each drawn board played as a race (RULES section 12)."""
    t = reader.table(doc["race"], "race")
    if "first" in t:
        raise reader.fail(
            "race.first",
            "a SPEC's race is always begun by the drawn board's attacking player (A): "
            "leave `first` out",
        )
    for key in t:
        if key not in RACE_KEYS:
            raise reader.fail(f"race.{key}", f"unknown key{did_you_mean(key, sorted(RACE_KEYS))}")
    return RaceSpec(
        turns=reader.integer(t.get("turns", DEFAULT_RACE_TURNS), "race.turns", 1, MOST_TURNS),
        decisions=_choice(reader, t, "decisions", RACE_DECISIONS),
        horizon=_choice(reader, t, "horizon", HORIZONS),
        seed=reader.integer(t.get("seed", 0), "race.seed", 0),
    )


def _choice(reader: SpecReader, table: dict[str, Any], key: str, allowed: tuple[str, ...]) -> str:
    """One of `allowed` (the first is the default), or an error with the closest name."""
    if key not in table:
        return allowed[0]
    value = reader.string(table[key], f"race.{key}")
    if value not in allowed:
        shown = " or ".join(repr(a) for a in allowed)
        raise reader.fail(
            f"race.{key}",
            f"unknown {key} {value!r}{did_you_mean(value, list(allowed))} (one of {shown})",
        )
    return value
