"""A SPEC's ``[[casts]]`` tables: cards of the card library cast on drawn creatures (format in
docs/simulate.md), read with the SPEC reader's checks."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ecs_combat.scenario.checks import type_name
from ecs_combat.simulation.spec import CAST_TARGETS, CastSpec
from ecs_combat.suggest import did_you_mean

if TYPE_CHECKING:
    from ecs_combat.simulation.spec_reader import SpecReader


def parse_casts(reader: SpecReader, raw: Any) -> tuple[CastSpec, ...]:
    """The ``[[casts]]`` tables: cards cast on drawn creatures, each with its probability
    and the creatures it may target."""
    if not isinstance(raw, list):
        raise reader.fail("casts", f"must be a list of tables ([[casts]]), not {type_name(raw)}")
    out = []
    for i, item in enumerate(raw):
        path = f"casts[{i}]"
        t = reader.table(item, path)
        reader.keys(t, path, frozenset({"card", "probability", "target"}))
        for required in ("card", "probability"):
            if required not in t:
                raise reader.fail(f"{path}.{required}", "missing")
        name = t["card"]
        if not isinstance(name, str) or not name.strip():
            raise reader.fail(f"{path}.card", f"must be a card name, not {type_name(name)}")
        card = reader.registry.spell(name)
        if card is None:
            names = sorted(c.name for c in reader.registry.spells())
            known = ", ".join(names) or "none"
            raise reader.fail(
                f"{path}.card",
                f"no card {name!r} in the card library (loaded: {known})"
                f"{did_you_mean(name, names)}",
            )
        for kw in sorted(card.keywords):
            if reader.registry.keyword(kw) is None:
                raise reader.fail(
                    f"{path}.card",
                    f"{card.name} needs {reader.registry.unknown_keyword_reason(kw)}",
                )
        if card.target.kind == "none" or card.creates is not None:
            raise reader.fail(
                f"{path}.card",
                f"{card.name} can't be drawn here: a SPEC casts cards on target creatures, "
                f"and {card.name} "
                + ("creates a creature token" if card.creates else "has no target"),
            )
        target = t.get("target", CAST_TARGETS[0])
        if target not in CAST_TARGETS:
            shown = repr(target) if isinstance(target, str) else type_name(target)
            raise reader.fail(
                f"{path}.target",
                f"must be one of {', '.join(repr(c) for c in CAST_TARGETS)}, not {shown}",
            )
        out.append(
            CastSpec(card.name, reader.probability(t["probability"], f"{path}.probability"), target)
        )
    return tuple(out)
