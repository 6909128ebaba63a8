"""A brute-force oracle for decisions (RULES section 9), independent of ecs_combat.decisions.

Every assignment of the defending player's creatures to nothing or to a set of attackers (one;
one more per "can block an additional creature", any number with "can block any number of
creatures", 509.1a) is tried; the loader's own check keeps the legal ones. For each, every
explicit division of every creature that may have to divide (an attacker with two or more
blockers, or trample and a blocker; a blocker of two or more attackers) in every damage step is
tried, one reference-engine resolution per line: in each step the attacking player chooses
first, then the defending player (510.1c-d), so the value is max-min over the steps in order.
The engine refuses the divisions that are not legal then. The score is computed here from the
JSON outcome, from the rules' words. Banding moves a division to the other player
(702.22j-k); bands are not modelled. It is slow: small boards only, with keywords whose
creatures' power does not change between damage steps.
"""

from __future__ import annotations

import dataclasses
import itertools
from typing import Any

from ecs_combat import InputError, Registry, Scenario
from ecs_combat.reference.engine import ReferenceEngine
from ecs_combat.rules.legality import check_declarations
from ecs_combat.scenario.model import Division


def compositions(total: int, parts: int) -> list[tuple[int, ...]]:
    """Every tuple of `parts` amounts of 0 or more adding up to `total`."""
    if parts == 1:
        return [(total,)]
    return [(i, *rest) for i in range(total + 1) for rest in compositions(total - i, parts - 1)]


def score(scenario: Scenario, outcome: dict[str, Any], terms: tuple[str, ...]) -> tuple[int, ...]:
    """RULES section 9, from the attacking player's side."""
    a, d = list(scenario.players)
    players = outcome["players"]
    out = []
    for term in terms:
        if term == "game":
            out.append(int(players[d]["lost"]) - int(players[a]["lost"]))
        elif term == "material":
            total = 0
            for cid, result in outcome["creatures"].items():
                spec = scenario.creatures[cid]
                if not result["alive"]:
                    worth = spec.value if spec.value is not None else spec.power + spec.toughness
                    total += worth if spec.controller == d else -worth
            out.append(total)
        elif term == "life":
            lost_d = scenario.players[d].life - players[d]["life"]
            lost_a = scenario.players[a].life - players[a]["life"]
            out.append(lost_d - lost_a)
        elif term == "poison":
            grew_d = players[d].get("poison", 0) - scenario.players[d].state.get("poison", 0)
            grew_a = players[a].get("poison", 0) - scenario.players[a].state.get("poison", 0)
            out.append(grew_d - grew_a)
    return tuple(out)


#: 509.1a, as RULES section 10 words it: how many attackers one blocker may block.
ADDITIONAL = "can block an additional creature"
ANY_NUMBER = "can block any number of creatures"


def capacity(scenario: Scenario, blocker: str) -> int:
    keywords = scenario.creatures[blocker].keywords
    if ANY_NUMBER in keywords:
        return len(scenario.attackers)
    return 1 + keywords.count(ADDITIONAL)


def legal_blocks(scenario: Scenario, registry: Registry) -> list[dict[str, tuple[str, ...]]]:
    """Every legal block declaration, as the loader judges it; a blocker's attackers in file
    order."""
    _, defender = list(scenario.players)
    mine = [c for c, s in scenario.creatures.items() if s.controller == defender]
    attackers = list(scenario.attackers)
    choices = [
        [
            group
            for n in range(capacity(scenario, b) + 1)
            for group in itertools.combinations(attackers, n)
        ]
        for b in mine
    ]
    out = []
    for groups in itertools.product(*choices):
        blockers = {b: g for b, g in zip(mine, groups, strict=True) if g}
        try:
            check_declarations(dataclasses.replace(scenario, blockers=blockers), registry)
        except InputError:
            continue
        out.append(blockers)
    return out


def banding(scenario: Scenario, creature: str) -> bool:
    """Whether a creature has banding (702.22j-k: its controller divides the damage of the
    creatures it fights; bands, 702.22h, are not modelled here)."""
    return "banding" in scenario.creatures[creature].keywords


def _divisions(source: str, recipients: list[str], power: int, step: str) -> list[Division | None]:
    """The default (None) and every explicit division of `power` among `recipients`."""
    choices: list[Division | None] = [None]
    for amounts in compositions(power, len(recipients)):
        given = {r: n for r, n in zip(recipients, amounts, strict=True) if n > 0}
        choices.append(Division(step, source, given, "combat.divide"))
    return choices


def best_line_value(
    scenario: Scenario, registry: Registry, terms: tuple[str, ...]
) -> tuple[int, ...]:
    """The minimax score over every legal line of divisions: in each step the attacking
    player's choice (maximising), then the defending player's (minimising)."""
    engine = ReferenceEngine(registry)
    # the steps and powers, from a resolution without banding (whose splits have no default)
    plain = {}
    for cid, spec in scenario.creatures.items():
        kept = [
            (k, p) for k, p in zip(spec.keywords, spec.parameters, strict=True) if k != "banding"
        ]
        plain[cid] = dataclasses.replace(
            spec, keywords=tuple(k for k, _ in kept), parameters=tuple(p for _, p in kept)
        )
    default = engine.resolve(dataclasses.replace(scenario, creatures=plain)).to_json()
    steps = [s["name"] for s in default["steps"]]
    final = default["creatures"]
    per_step: list[tuple[list[list[Division | None]], list[list[Division | None]]]] = []
    for step in steps:
        mine: list[list[Division | None]] = []
        theirs: list[list[Division | None]] = []
        for attacker in scenario.attackers:
            blockers = scenario.blockers_of(attacker)
            power = final[attacker]["power"]
            if any(banding(scenario, b) for b in blockers):  # 702.22j: B divides, no player
                if len(blockers) >= 2:
                    theirs.append(_divisions(attacker, list(blockers), power, step))
                continue
            trample = "trample" in scenario.creatures[attacker].keywords
            if len(blockers) >= 2 or (trample and blockers):
                recipients = [*blockers, *([scenario.attackers[attacker]] if trample else [])]
                mine.append(_divisions(attacker, recipients, power, step))
        for blocker, attacked in scenario.blockers.items():
            if len(attacked) >= 2:
                split = _divisions(blocker, list(attacked), final[blocker]["power"], step)
                banded = any(banding(scenario, a) for a in attacked)  # 702.22k: A divides
                (mine if banded else theirs).append(split)
        per_step.append((mine, theirs))

    def value(k: int, chosen: list[Division]) -> tuple[int, ...] | None:
        if k == len(per_step):
            try:
                out = engine.resolve(dataclasses.replace(scenario, divisions=chosen)).to_json()
            except InputError:
                return None
            return score(scenario, out, terms)
        mine, theirs = per_step[k]
        best: tuple[int, ...] | None = None
        for line in itertools.product(*mine):
            worst: tuple[int, ...] | None = None
            for reply in itertools.product(*theirs):
                got = value(k + 1, [*chosen, *(d for d in (*line, *reply) if d is not None)])
                if got is not None and (worst is None or got < worst):
                    worst = got
            if worst is not None and (best is None or worst > best):
                best = worst
        return best

    best = value(0, [])
    assert best is not None
    return best


def tie_key(scenario: Scenario, blockers: dict[str, tuple[str, ...]]) -> tuple[Any, ...]:
    """RULES section 9: fewest creatures declared, then the (creature, attacker) pairs by
    their places in the file."""
    place = {cid: i for i, cid in enumerate(scenario.creatures)}
    pairs = sorted((place[b], place[a]) for b, targets in blockers.items() for a in targets)
    return (len(blockers), pairs)


def brute_blocks(
    scenario: Scenario, registry: Registry, terms: tuple[str, ...]
) -> tuple[tuple[int, ...], int, int, dict[str, tuple[str, ...]]]:
    """(best score, declarations compared, how many share the best, the first best)."""
    values = []
    for blockers in legal_blocks(scenario, registry):
        declared = dataclasses.replace(scenario, blockers=blockers)
        values.append(
            (best_line_value(declared, registry, terms), tie_key(scenario, blockers), blockers)
        )
    best = min(v for v, _, _ in values)
    tied = sorted((v for v in values if v[0] == best), key=lambda v: v[1])
    return best, len(values), len(tied), tied[0][2]


def brute_attacks(
    scenario: Scenario, registry: Registry, terms: tuple[str, ...]
) -> tuple[tuple[int, ...], int, int, dict[str, str]]:
    """(best score, attack declarations compared, how many share the best, the first best):
    every set of the attacking player's creatures that the loader lets attack, each answered
    by brute force's best blocks."""
    attacker, defender = list(scenario.players)
    mine = [c for c, s in scenario.creatures.items() if s.controller == attacker]
    values = []
    for chosen in itertools.product([False, True], repeat=len(mine)):
        attackers = {c: defender for c, on in zip(mine, chosen, strict=True) if on}
        declared = dataclasses.replace(scenario, attackers=attackers, blockers={})
        try:
            check_declarations(declared, registry)
        except InputError:
            continue
        value = brute_blocks(declared, registry, terms)[0]
        place = {cid: i for i, cid in enumerate(scenario.creatures)}
        values.append((value, (len(attackers), sorted(place[c] for c in attackers)), attackers))
    best = max(v for v, _, _ in values)
    tied = sorted((v for v in values if v[0] == best), key=lambda v: v[1])
    return best, len(values), len(tied), tied[0][2]
