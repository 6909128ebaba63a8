"""Write the JSON Lines files that `ecs-combat resolve FILE.jsonl --engine batched --json` is
measured on (docs/performance.md, "Resolving users' JSON Lines quickly"):

    python benchmarks/json_lines.py pairs many.jsonl           # 100,000 lines of pairs_document(1)
    python benchmarks/json_lines.py varied varied.jsonl        # 100,000 varied common lines
    python benchmarks/json_lines.py mixed mixed.jsonl -n 20000 # and a tenth of unusual lines

`pairs`: the same two-creature line (`pairs_document(1)` of test_loading.py) on every line.
`varied`: lines of the common shape that differ: one to three attackers, up to four blockers
(several on one attacker), keywords (trample, deathtouch, lifelink, first strike, ...), life
totals, names, damage, colors, types, values, ids that change from line to line. `mixed`: the
varied lines and, one line in ten, valid lines of other shapes (counters, events, divisions, a
tapped creature, a blocker of two attackers, three players, text that is not ASCII), which the
quick paths leave to the full reader. Each drawn line is kept only if the full reader takes it,
so every file resolves; the same seed gives the same file.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

from ecs_combat.errors import InputError
from ecs_combat.plugin.loading import load_registry
from ecs_combat.plugin.registry import Registry
from ecs_combat.scenario.loader import parse_scenario

KEYWORDS = [
    "flying", "reach", "trample", "deathtouch", "lifelink", "first strike", "double strike",
    "menace", "bushido 2", "protection from red", "indestructible", "infect",
    "wither", "persist", "rampage 1", "flanking", "last strike", "firstest strike",
]  # fmt: skip
COLORS = ["white", "blue", "black", "red", "green"]


def varied_document(rng: random.Random, line: int) -> dict[str, Any]:
    """A line of the common shape, drawn."""
    tag = str(line) if rng.random() < 0.5 else ""
    players: dict[str, Any] = {f"alice{tag}": {}, f"bob{tag}": {}}
    attacker_side, defender = list(players)
    if rng.random() < 0.3:
        players[defender]["life"] = rng.randint(1, 20)
    creatures: dict[str, Any] = {}
    attackers: dict[str, str] = {}
    blockers: dict[str, str] = {}
    for i in range(rng.randint(1, 3)):
        cid = f"a{i}{tag}"
        creatures[cid] = creature(rng, attacker_side)
        attackers[cid] = defender
    for i in range(rng.randint(0, 4)):
        cid = f"b{i}{tag}"
        creatures[cid] = creature(rng, defender)
        if rng.random() < 0.8:
            blockers[cid] = rng.choice(list(attackers))
    return {
        "players": players,
        "creatures": creatures,
        "combat": {"attackers": attackers, "blockers": blockers},
    }


def creature(rng: random.Random, controller: str) -> dict[str, Any]:
    toughness = rng.randint(1, 6)
    t: dict[str, Any] = {"controller": controller, "power": rng.randint(0, 6)}
    t["toughness"] = toughness
    if rng.random() < 0.5:
        t["keywords"] = rng.sample(KEYWORDS, rng.randint(1, 2))
    if rng.random() < 0.1:
        t["name"] = rng.choice(["Grizzly Bears", "Hill Giant", "Elite Vanguard"])
    if rng.random() < 0.1:
        t["damage"] = rng.randint(0, toughness - 1)
    if rng.random() < 0.1:
        t["colors"] = sorted(rng.sample(COLORS, rng.randint(1, 2)), key=COLORS.index)
    if rng.random() < 0.05:
        t["types"] = ["artifact"]
    if rng.random() < 0.05:
        t["value"] = rng.randint(1, 5)
    return t


def unusual_document(rng: random.Random, line: int) -> dict[str, Any]:
    """A valid line of another shape, drawn."""
    doc = varied_document(rng, line)
    creatures = doc["creatures"]
    first = next(iter(creatures))
    kind = rng.randrange(7)
    if kind == 0:
        creatures[first]["counters"] = {"+1/+1": rng.randint(1, 2)}
    elif kind == 1:
        doc["events"] = [{"at": "declare-blockers", "action": "pump", "target": first, "power": 1}]
    elif kind == 2:
        blockers = doc["combat"]["blockers"]
        attackers = doc["combat"]["attackers"]
        if blockers and len(attackers) > 1:
            blocker = next(iter(blockers))
            creatures[blocker]["keywords"] = ["can block an additional creature"]
            blockers[blocker] = list(attackers)[:2]
    elif kind == 3:
        doc["players"]["carol"] = {"life": 7}
    elif kind == 4:
        creatures[first]["name"] = "Ærøskald"
    elif kind == 5:
        creatures["idle"] = {"controller": list(doc["players"])[1], "power": 1, "toughness": 1}
        creatures["idle"]["tapped"] = True
    else:
        creatures[first]["keywords"] = ["exalted"]
    return doc


def valid(doc: dict[str, Any], registry: Registry) -> bool:
    try:
        parse_scenario(json.loads(json.dumps(doc)), registry, "drawn")
    except InputError:
        return False
    return True


def lines(kind: str, n: int, seed: int, registry: Registry) -> list[str]:
    if kind == "pairs":
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from test_loading import pairs_document

        return [json.dumps(pairs_document(1))] * n
    rng = random.Random(seed)
    out: list[str] = []
    while len(out) < n:
        unusual = kind == "mixed" and rng.random() < 0.1
        doc = (unusual_document if unusual else varied_document)(rng, len(out))
        if valid(doc, registry):
            out.append(json.dumps(doc))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("kind", choices=["pairs", "varied", "mixed"])
    parser.add_argument("out")
    parser.add_argument("-n", type=int, default=100_000, help="lines (100,000)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    text = "".join(f"{line}\n" for line in lines(args.kind, args.n, args.seed, load_registry()))
    Path(args.out).write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
