"""The best blocks of many scenarios searched together (ecs_combat.best_blocks_many;
docs/python.md, "Decisions"): by hand (RULES section 9's score), and board by board the same
decisions as best_blocks gives each board alone."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import ecs_combat
from ecs_combat import Decision, InputError, RefusedError, Registry, parse_scenario
from ecs_combat.decisions import blocks_many

ROOT = Path(__file__).resolve().parent.parent
DECISIONS = ROOT / "examples" / "decisions"
KEYWORDS = ["first strike", "double strike", "deathtouch", "trample", "lifelink", "flying"]


def _doc(creatures: dict[str, tuple[str, int, int, list[str]]]) -> dict[str, Any]:
    return {
        "players": {"A": {}, "B": {}},
        "creatures": {
            cid: {"controller": c, "power": p, "toughness": t, "keywords": kw}
            for cid, (c, p, t, kw) in creatures.items()
        },
        "combat": {"attackers": {cid: "B" for cid, v in creatures.items() if v[0] == "A"}},
    }


def _drawn(rng: np.random.Generator, size: int) -> dict[str, Any]:
    """`size` attackers against `size` blockers, power and toughness 1-4, a keyword each
    now and then (tramplers: divisions to choose)."""
    creatures: dict[str, tuple[str, int, int, list[str]]] = {}
    for side, player in (("a", "A"), ("b", "B")):
        for i in range(size):
            kws = [k for k in KEYWORDS if rng.random() < 0.15]
            power, toughness = (int(x) for x in rng.integers(1, 5, 2))
            creatures[f"{side}{i}"] = (player, power, toughness, kws)
    return _doc(creatures)


def _same(decision: Decision) -> str:
    """The decision as JSON, but for the time it took."""
    out = decision.to_json()
    out["run"].pop("seconds")
    return json.dumps(out, sort_keys=True)


def test_two_boards_by_hand(registry: Registry) -> None:
    """RULES section 9's score (game, material, life; the defending player wants it low):

    - a 3/3 against two 2/2s: both block it, it dies and kills one (material 4 - 6 = -2),
      better than one block (material 4) or none (life 3);
    - a 1/1 against a 2/2: the 2/2 blocks and kills it (material 0 - 2 = -2)."""
    giant = parse_scenario(
        _doc({"g": ("A", 3, 3, []), "x": ("B", 2, 2, []), "y": ("B", 2, 2, [])}), registry
    )
    small = parse_scenario(_doc({"s": ("A", 1, 1, []), "z": ("B", 2, 2, [])}), registry)
    first, second = ecs_combat.best_blocks_many([giant, small], registry, top=1)
    assert first.best[0].blockers == {"x": "g", "y": "g"}
    assert first.best[0].score["material"] == -2
    assert first.declarations == 4
    assert second.best[0].blockers == {"z": "s"}
    assert second.best[0].score["material"] == -2
    assert second.best[0].outcome["creatures"]["s"]["alive"] is False


@pytest.mark.parametrize("rows", [None, 100])
def test_the_same_decisions_as_one_board_at_a_time(
    registry: Registry, rows: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every board as best_blocks decides it alone; with `rows` (groups of at most that many
    creature rows), the larger boards decided alone and the others in several groups."""
    if rows is not None:
        monkeypatch.setattr(blocks_many, "RECORDED_ROWS", rows)
    rng = np.random.default_rng(11)
    boards: list[Any] = [p for p in sorted(DECISIONS.glob("*.toml")) if p.name != "race.toml"]
    boards += [parse_scenario(_drawn(rng, size), registry) for size in [1, 2, 3, 2, 3] * 5]
    together = ecs_combat.best_blocks_many(boards, registry)
    alone = [ecs_combat.best_blocks(b, registry) for b in boards]
    assert [_same(d) for d in together] == [_same(d) for d in alone]
    assert [[c.scenario for c in d.best] for d in together] == [
        [c.scenario for c in d.best] for d in alone
    ]


def test_bad_input_names_its_board(registry: Registry) -> None:
    good = parse_scenario(_doc({"s": ("A", 1, 1, []), "z": ("B", 2, 2, [])}), registry)
    declared = _doc({"s": ("A", 1, 1, []), "z": ("B", 2, 2, [])})
    declared["combat"]["blockers"] = {"z": "s"}
    with pytest.raises(InputError, match=r"combat\.blockers"):
        ecs_combat.best_blocks_many([good, parse_scenario(declared, registry)], registry)


def test_the_rules_scenarios_boards_decided_together(registry: Registry) -> None:
    """tests/scenarios' combats (their blocks and divisions left out: the decision chooses
    them), the many keywords, events and cards among them, each decided as alone."""
    scenarios, alone = [], []
    for path in sorted((ROOT / "tests" / "scenarios").glob("*.toml")):
        doc = tomllib.loads(path.read_text())
        combat = doc.get("combat")
        if "turn" in doc or not isinstance(combat, dict) or not combat.get("attackers"):
            continue
        combat.pop("blockers", None)
        combat.pop("divide", None)
        try:
            scenario = parse_scenario(doc, registry, str(path))
            alone.append(ecs_combat.best_blocks(scenario, registry))
        except (InputError, RefusedError):  # not a decision (more than two players, ...)
            continue
        scenarios.append(scenario)
    assert len(scenarios) > 100
    together = ecs_combat.best_blocks_many(scenarios, registry)
    assert [_same(d) for d in together] == [_same(d) for d in alone]
