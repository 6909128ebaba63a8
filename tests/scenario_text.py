"""Builders for scenarios written inline in tests, as TOML text."""

from __future__ import annotations

import json


def toml_value(value: object) -> str:
    """A Python value as a TOML value (strings, integers, booleans, lists, inline tables)."""
    if isinstance(value, dict):
        inner = ", ".join(f"{json.dumps(k)} = {toml_value(v)}" for k, v in value.items())
        return "{ " + inner + " }"
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return json.dumps(value)


def creature(
    cid: str, controller: str, power: int, toughness: int, *keywords: str, **extra: object
) -> str:
    """A creature table in TOML."""
    fields: dict[str, object] = {
        "controller": controller,
        "power": power,
        "toughness": toughness,
        "keywords": list(keywords),
        **extra,
    }
    return f"[creatures.{cid}]\n" + "".join(f"{k} = {toml_value(v)}\n" for k, v in fields.items())


def combat(attackers: dict[str, str], blockers: dict[str, str | list[str]] | None = None) -> str:
    """The combat table in TOML."""
    text = f"[combat]\nattackers = {toml_value(attackers)}\n"
    if blockers:
        text += f"blockers = {toml_value(blockers)}\n"
    return text


def divide(step_name: str, source: str, amounts: dict[str, int]) -> str:
    """A [[combat.divide]] entry in TOML."""
    return (
        f'[[combat.divide]]\nstep = "{step_name}"\nsource = "{source}"\n'
        f"amounts = {toml_value(amounts)}\n"
    )


def event(at: str, action: str, **fields: object) -> str:
    """An [[events]] entry in TOML."""
    body = "".join(f"{k} = {toml_value(v)}\n" for k, v in fields.items())
    return f'[[events]]\nat = "{at}"\naction = "{action}"\n{body}'


#: A 4/4 double striker against two 0/9 walls: both survive the first-strike step whatever
#: the division, so the regular step has choices too (510.1c, 702.4b).
DOUBLE_STRIKE = """
[players.A]
[players.B]
[creatures.knight]
controller = "A"
power = 4
toughness = 4
keywords = ["double strike"]
[creatures.wall1]
controller = "B"
power = 0
toughness = 9
[creatures.wall2]
controller = "B"
power = 0
toughness = 9
[combat]
attackers = { knight = "B" }
"""
