"""Invalid scenarios from the rules audit: exit status 2 and one clear message (CONTRACT.md 2).

Each case is a scenario that breaks a rule of RULES.md (an illegal attack or block, an illegal
explicit division, a keyword that can't be a counter, 122.1b) or the scenario format. The installed
``ecs-combat resolve`` must refuse it with both engines: exit status 2, nothing on standard output,
one line on standard error naming the file and the place in it (and, where given, the creatures and
the rule), and no traceback.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import NamedTuple

import pytest


class Case(NamedTuple):
    """One invalid scenario: its TOML text, the key path the message names, words it must contain."""

    id: str
    text: str
    keypath: str
    mentions: tuple[str, ...] = ()


CASES = [
    Case(
        "702.9-flying-blocked-by-ground-creature",
        """\
[players.A]
life = 20

[players.B]
life = 20

[creatures.drake]
controller = "A"
power = 2
toughness = 2
keywords = ["flying"]

[creatures.bear]
controller = "B"
power = 2
toughness = 2

[combat.attackers]
drake = "B"

[combat.blockers]
bear = "drake"
""",
        "combat.blockers.bear",
        ("'bear'", "'drake'", "flying", "702.9"),
    ),
    Case(
        "702.111-menace-blocked-by-one",
        """\
[players.A]
life = 20

[players.B]
life = 20

[creatures.m]
controller = "A"
power = 2
toughness = 2
keywords = ["menace"]

[creatures.bear]
controller = "B"
power = 2
toughness = 2

[combat.attackers]
m = "B"

[combat.blockers]
bear = "m"
""",
        "combat.blockers",
        ("'m'", "'bear'", "menace", "702.111"),
    ),
    Case(
        "702.111-menace-flying-one-legal-blocker",
        """\
[players.A]
life = 20

[players.B]
life = 20

[creatures.m]
controller = "A"
power = 2
toughness = 2
keywords = ["menace", "flying"]

[creatures.bird]
controller = "B"
power = 1
toughness = 1
keywords = ["flying"]

[creatures.bear]
controller = "B"
power = 2
toughness = 2

[combat.attackers]
m = "B"

[combat.blockers]
bird = "m"
bear = "m"
""",
        "combat.blockers.bear",
        ("'bear'", "'m'", "702.9"),
    ),
    Case(
        "702.28-shadow-attacker-blocked-by-non-shadow",
        """\
[players.A]
life = 20

[players.B]
life = 20

[creatures.s]
controller = "A"
power = 2
toughness = 2
keywords = ["shadow"]

[creatures.bear]
controller = "B"
power = 2
toughness = 2

[combat.attackers]
s = "B"

[combat.blockers]
bear = "s"
""",
        "combat.blockers.bear",
        ("'bear'", "'s'", "shadow", "702.28"),
    ),
    Case(
        "702.28-shadow-blocker-blocks-non-shadow",
        """\
[players.A]
life = 20

[players.B]
life = 20

[creatures.x]
controller = "A"
power = 2
toughness = 2

[creatures.s]
controller = "B"
power = 2
toughness = 2
keywords = ["shadow"]

[combat.attackers]
x = "B"

[combat.blockers]
s = "x"
""",
        "combat.blockers.s",
        ("'s'", "'x'", "shadow", "702.28"),
    ),
    Case(
        "702.28-shadow-counter-blocker-blocks-non-shadow",
        """\
[players.A]
life = 20

[players.B]
life = 20

[creatures.x]
controller = "A"
power = 2
toughness = 2

[creatures.s]
controller = "B"
power = 2
toughness = 2
counters = { "shadow" = 1 }

[combat.attackers]
x = "B"

[combat.blockers]
s = "x"
""",
        "combat.blockers.s",
        ("'s'", "'x'", "shadow", "702.28"),
    ),
    Case(
        "702.3-defender-attacks",
        """\
[players.A]
life = 20

[players.B]
life = 20

[creatures.wall]
controller = "A"
power = 0
toughness = 4
keywords = ["defender"]

[combat.attackers]
wall = "B"
""",
        "combat.attackers.wall",
        ("'wall'", "defender", "702.3"),
    ),
    Case(
        "702.147-decayed-blocks",
        """\
[players.A]
life = 20

[players.B]
life = 20

[creatures.x]
controller = "A"
power = 2
toughness = 2

[creatures.d]
controller = "B"
power = 2
toughness = 2
keywords = ["decayed"]

[combat.attackers]
x = "B"

[combat.blockers]
d = "x"
""",
        "combat.blockers.d",
        ("'d'", "decayed", "702.147"),
    ),
    Case(
        "702.147-decayed-counter-blocks",
        """\
[players.A]
life = 20

[players.B]
life = 20

[creatures.x]
controller = "A"
power = 2
toughness = 2

[creatures.d]
controller = "B"
power = 2
toughness = 2
counters = { "decayed" = 1 }

[combat.attackers]
x = "B"

[combat.blockers]
d = "x"
""",
        "combat.blockers.d",
        ("'d'", "decayed", "702.147"),
    ),
    Case(
        "510.1c-division-wrong-total",
        """\
[players.A]
life = 20

[players.B]
life = 20

[creatures.giant]
controller = "A"
power = 4
toughness = 4

[creatures.b1]
controller = "B"
power = 2
toughness = 2

[creatures.b2]
controller = "B"
power = 2
toughness = 2

[combat.attackers]
giant = "B"

[combat.blockers]
b1 = "giant"
b2 = "giant"

[[combat.divide]]
step = "regular"
source = "giant"
amounts = { "b1" = 2, "b2" = 1 }
""",
        "combat.divide[0]",
        ("giant", "510.1"),
    ),
    Case(
        "510.1c-division-too-much",
        """\
[players.A]
life = 20

[players.B]
life = 20

[creatures.giant]
controller = "A"
power = 4
toughness = 4

[creatures.b1]
controller = "B"
power = 2
toughness = 2

[creatures.b2]
controller = "B"
power = 2
toughness = 2

[combat.attackers]
giant = "B"

[combat.blockers]
b1 = "giant"
b2 = "giant"

[[combat.divide]]
step = "regular"
source = "giant"
amounts = { "b1" = 3, "b2" = 3 }
""",
        "combat.divide[0]",
        ("giant", "510.1"),
    ),
    Case(
        "702.19b-trample-to-player-without-lethal",
        """\
[players.A]
life = 20

[players.B]
life = 20

[creatures.t]
controller = "A"
power = 5
toughness = 5
keywords = ["trample"]

[creatures.b1]
controller = "B"
power = 2
toughness = 2

[creatures.b2]
controller = "B"
power = 2
toughness = 2

[combat.attackers]
t = "B"

[combat.blockers]
b1 = "t"
b2 = "t"

[[combat.divide]]
step = "regular"
source = "t"
amounts = { "b1" = 2, "b2" = 1, "B" = 2 }
""",
        "combat.divide[0]",
        ("b2", "702.19"),
    ),
    Case(
        "702.19b-trample-other-attacker-not-enough",
        """\
[players.A]
life = 20

[players.B]
life = 20

[creatures.t]
controller = "A"
power = 3
toughness = 3
keywords = ["trample"]

[creatures.y]
controller = "A"
power = 1
toughness = 1

[creatures.w]
controller = "B"
power = 0
toughness = 4

[combat.attackers]
t = "B"
y = "B"

[combat.blockers]
w = ["t", "y"]

[[combat.divide]]
step = "regular"
source = "t"
amounts = { "w" = 2, "B" = 1 }
""",
        "combat.divide[0]",
        ("w", "702.19"),
    ),
    Case(
        "702.19b-trample-first-strike-damage-is-not-same-step",
        """\
[players.A]
life = 20

[players.B]
life = 20

[creatures.t]
controller = "A"
power = 3
toughness = 3
keywords = ["trample", "first strike"]

[creatures.y]
controller = "A"
power = 2
toughness = 2

[creatures.w]
controller = "B"
power = 0
toughness = 4

[combat.attackers]
t = "B"
y = "B"

[combat.blockers]
w = ["t", "y"]

[[combat.divide]]
step = "first-strike"
source = "t"
amounts = { "w" = 2, "B" = 1 }
""",
        "combat.divide[0]",
        ("w", "702.19"),
    ),
    Case(
        "510.1c-division-to-player-without-trample",
        """\
[players.A]
life = 20

[players.B]
life = 20

[creatures.giant]
controller = "A"
power = 4
toughness = 4

[creatures.b1]
controller = "B"
power = 0
toughness = 2

[combat.attackers]
giant = "B"

[combat.blockers]
b1 = "giant"

[[combat.divide]]
step = "regular"
source = "giant"
amounts = { "b1" = 2, "B" = 2 }
""",
        "combat.divide[0]",
        (),
    ),
    Case(
        "510.1c-division-names-creature-not-blocking",
        """\
[players.A]
life = 20

[players.B]
life = 20

[creatures.giant]
controller = "A"
power = 4
toughness = 4

[creatures.b1]
controller = "B"
power = 0
toughness = 2

[creatures.b2]
controller = "B"
power = 0
toughness = 2

[combat.attackers]
giant = "B"

[combat.blockers]
b1 = "giant"

[[combat.divide]]
step = "regular"
source = "giant"
amounts = { "b1" = 2, "b2" = 2 }
""",
        "combat.divide[0]",
        (),
    ),
    Case(
        "702.19a-blocker-division-to-player",
        """\
[players.A]
life = 20

[players.B]
life = 20

[creatures.x]
controller = "A"
power = 1
toughness = 1

[creatures.blk]
controller = "B"
power = 3
toughness = 3
keywords = ["trample"]

[combat.attackers]
x = "B"

[combat.blockers]
blk = "x"

[[combat.divide]]
step = "regular"
source = "blk"
amounts = { "x" = 1, "A" = 2 }
""",
        "combat.divide[0]",
        (),
    ),
    Case(
        "122.1b-last-strike-counter",
        """\
[players.A]
life = 20

[players.B]
life = 20

[creatures.z]
controller = "A"
power = 2
toughness = 2
counters = { "last strike" = 1 }

[combat.attackers]
z = "B"
""",
        "creatures.z.counters",
        ("last strike", "122.1b"),
    ),
    Case(
        "122.1b-defender-counter",
        """\
[players.A]
life = 20

[players.B]
life = 20

[creatures.z]
controller = "A"
power = 2
toughness = 2
counters = { "defender" = 1 }

[combat.attackers]
z = "B"
""",
        "creatures.z.counters",
        ("defender", "122.1b"),
    ),
    Case(
        "122.1b-triple-strike-counter-event",
        """\
[players.A]
life = 20

[players.B]
life = 20

[creatures.z]
controller = "A"
power = 2
toughness = 2

[combat.attackers]
z = "B"

[[events]]
at = "declare-blockers"
action = "counters"
target = "z"
counters = { "triple strike" = 1 }
""",
        "events[0].counters",
        ("triple strike", "122.1b"),
    ),
    Case(
        "122.1b-firstest-strike-counter",
        """\
[players.A]
life = 20

[players.B]
life = 20

[creatures.z]
controller = "A"
power = 2
toughness = 2
counters = { "firstest strike" = 1 }

[combat.attackers]
z = "B"
""",
        "creatures.z.counters",
        ("firstest strike", "122.1b"),
    ),
    Case(
        "509.1a-blocker-of-other-defending-player",
        """\
[players.A]
life = 20

[players.B]
life = 20

[players.C]
life = 20

[creatures.x]
controller = "A"
power = 2
toughness = 2

[creatures.c]
controller = "C"
power = 2
toughness = 2

[combat.attackers]
x = "B"

[combat.blockers]
c = "x"
""",
        "combat.blockers.c",
        ("'c'", "'x'", "509.1a"),
    ),
    Case(
        "506.2-non-active-player-attacks",
        """\
[players.A]
life = 20

[players.B]
life = 20

[creatures.y]
controller = "B"
power = 2
toughness = 2

[combat.attackers]
y = "A"
""",
        "combat.attackers.y",
        ("'y'", "506.2"),
    ),
    Case(
        "508.1-attacker-attacks-its-controller",
        """\
[players.A]
life = 20

[players.B]
life = 20

[creatures.x]
controller = "A"
power = 2
toughness = 2

[combat.attackers]
x = "A"
""",
        "combat.attackers.x",
        (),
    ),
    Case(
        "509.1-blocker-controlled-by-attacker",
        """\
[players.A]
life = 20

[players.B]
life = 20

[creatures.x]
controller = "A"
power = 2
toughness = 2

[creatures.y]
controller = "A"
power = 2
toughness = 2

[combat.attackers]
x = "B"

[combat.blockers]
y = "x"
""",
        "combat.blockers.y",
        ("'y'", "509.1a"),
    ),
    Case(
        "509.1-attacker-blocks",
        """\
[players.A]
life = 20

[players.B]
life = 20

[creatures.x]
controller = "A"
power = 2
toughness = 2

[creatures.b]
controller = "B"
power = 2
toughness = 2

[combat.attackers]
x = "B"

[combat.blockers]
x = "x"
""",
        "combat.blockers.x",
        (),
    ),
    Case(
        "302.6-summoning-sick-attacker",
        """\
[players.A]
life = 20

[players.B]
life = 20

[creatures.x]
controller = "A"
power = 2
toughness = 2
summoning_sick = true

[combat.attackers]
x = "B"
""",
        "combat.attackers.x",
        ("'x'", "302.6"),
    ),
    Case(
        "702.111-menace-one-blocker-multi-block",
        """\
[players.A]
life = 20

[players.B]
life = 20

[creatures.m1]
controller = "A"
power = 2
toughness = 2
keywords = ["menace"]

[creatures.m2]
controller = "A"
power = 2
toughness = 2
keywords = ["menace"]

[creatures.b1]
controller = "B"
power = 1
toughness = 1

[creatures.b2]
controller = "B"
power = 1
toughness = 1

[combat.attackers]
m1 = "B"
m2 = "B"

[combat.blockers]
b1 = ["m1", "m2"]
b2 = "m1"
""",
        "combat.blockers",
        ("'m2'", "menace", "702.111"),
    ),
    Case(
        "702.19b-trample-division-names-removed-blocker",
        """\
[players.A]
life = 20

[players.B]
life = 20

[creatures.t]
controller = "A"
power = 3
toughness = 3
keywords = ["trample"]

[creatures.b1]
controller = "B"
power = 0
toughness = 2

[creatures.b2]
controller = "B"
power = 0
toughness = 2

[combat.attackers]
t = "B"

[combat.blockers]
b1 = "t"
b2 = "t"

[[combat.divide]]
step = "regular"
source = "t"
amounts = { "b1" = 2, "b2" = 1 }

[[events]]
at = "declare-blockers"
action = "remove-from-combat"
target = "b1"
""",
        "combat.divide[0]",
        (),
    ),
    Case(
        "scenario-unknown-keyword",
        """\
[players.A]
life = 20

[players.B]
life = 20

[creatures.x]
controller = "A"
power = 2
toughness = 2
keywords = ["quadruple strike"]

[combat.attackers]
x = "B"
""",
        "creatures.x.keywords",
        ("quadruple strike",),
    ),
    Case(
        "scenario-event-unknown-target",
        """\
[players.A]
life = 20

[players.B]
life = 20

[creatures.x]
controller = "A"
power = 2
toughness = 2

[combat.attackers]
x = "B"

[[events]]
at = "declare-blockers"
action = "pump"
target = "nobody"
power = 1
toughness = 1
""",
        "events[0].target",
        (),
    ),
    Case(
        "scenario-event-unknown-step",
        """\
[players.A]
life = 20

[players.B]
life = 20

[creatures.x]
controller = "A"
power = 2
toughness = 2

[combat.attackers]
x = "B"

[[events]]
at = "after second-strike"
action = "pump"
target = "x"
power = 1
toughness = 1
""",
        "events[0].at",
        (),
    ),
    Case(
        "scenario-unknown-card",
        """\
[players.A]
life = 20

[players.B]
life = 20

[creatures.x]
controller = "A"
power = 2
toughness = 2

[combat.attackers]
x = "B"

[[events]]
at = "declare-blockers"
action = "cast"
card = "Giant Growth"
caster = "A"
target = "x"
""",
        "events[0].card",
        ("Giant Growth",),
    ),
    Case(
        "704.5a-player-starts-at-zero-life",
        """\
[players.A]
life = 20

[players.B]
life = 0

[creatures.x]
controller = "A"
power = 2
toughness = 2

[combat.attackers]
x = "B"
""",
        "players.B.life",
        ("704.5a",),
    ),
    Case(
        "704.5g-creature-starts-with-lethal-damage",
        """\
[players.A]
life = 20

[players.B]
life = 20

[creatures.x]
controller = "A"
power = 2
toughness = 2
damage = 2

[combat.attackers]
x = "B"
""",
        "creatures.x.damage",
        (),
    ),
    Case(
        "power-is-a-boolean",
        """\
[players.A]

[players.B]

[creatures.x]
controller = "A"
power = true
toughness = 2

[combat.attackers]
x = "B"
""",
        "creatures.x.power",
        (),
    ),
    Case(
        "power-is-a-float",
        """\
[players.A]

[players.B]

[creatures.x]
controller = "A"
power = 2.5
toughness = 2

[combat.attackers]
x = "B"
""",
        "creatures.x.power",
        (),
    ),
    Case(
        "keywords-is-a-string",
        """\
[players.A]

[players.B]

[creatures.x]
controller = "A"
power = 2
toughness = 2
keywords = "flying"

[combat.attackers]
x = "B"
""",
        "creatures.x.keywords",
        (),
    ),
    Case(
        "toml-syntax-error",
        """\
[players.A
""",
        "not valid TOML",
        (),
    ),
    Case(
        "unknown-creature-key",
        """\
[players.A]

[players.B]

[creatures.x]
controler = "A"
power = 2
toughness = 2
""",
        "creatures.x.controler",
        (),
    ),
    Case(
        "creature-id-is-a-player-id",
        """\
[players.A]

[players.B]

[creatures.A]
controller = "A"
power = 2
toughness = 2
""",
        "creatures.A",
        (),
    ),
    Case(
        "blocker-lists-attacker-twice",
        """\
[players.A]

[players.B]

[creatures.x]
controller = "A"
power = 2
toughness = 2

[creatures.b]
controller = "B"
power = 2
toughness = 2

[combat.attackers]
x = "B"

[combat.blockers]
b = ["x", "x"]
""",
        "combat.blockers.b",
        (),
    ),
    Case(
        "blocks-a-non-attacker",
        """\
[players.A]

[players.B]

[creatures.x]
controller = "A"
power = 2
toughness = 2

[creatures.b]
controller = "B"
power = 2
toughness = 2

[combat.attackers]
x = "B"

[combat.blockers]
b = "b"
""",
        "combat.blockers.b",
        (),
    ),
    Case(
        "negative-noncombat-damage",
        """\
[players.A]

[players.B]

[creatures.x]
controller = "A"
power = 2
toughness = 2

[combat.attackers]
x = "B"

[[events]]
at = "declare-blockers"
action = "damage"
target = "B"
amount = -3
""",
        "events[0].amount",
        (),
    ),
    Case(
        "negative-division-amount",
        """\
[players.A]

[players.B]

[creatures.x]
controller = "A"
power = 2
toughness = 2
keywords = ["trample"]

[creatures.b]
controller = "B"
power = 0
toughness = 1

[combat.attackers]
x = "B"

[combat.blockers]
b = "x"

[[combat.divide]]
step = "regular"
source = "x"
amounts = { b = 3, B = -1 }
""",
        "combat.divide[0].amounts.B",
        (),
    ),
    Case(
        "division-unknown-step",
        """\
[players.A]

[players.B]

[creatures.x]
controller = "A"
power = 2
toughness = 2

[combat.attackers]
x = "B"

[[combat.divide]]
step = "second-strike"
source = "x"
amounts = { B = 2 }
""",
        "combat.divide[0].step",
        (),
    ),
    Case(
        "entering-creature-reuses-an-id",
        """\
[players.A]

[players.B]

[creatures.x]
controller = "A"
power = 2
toughness = 2

[combat.attackers]
x = "B"

[[events]]
at = "declare-blockers"
action = "enter"
creature = { id = "x", controller = "A", power = 1, toughness = 1 }
attacking = "B"
""",
        "events[0].creature.id",
        (),
    ),
    Case(
        "entering-creature-attacks-its-controller",
        """\
[players.A]

[players.B]

[creatures.x]
controller = "A"
power = 2
toughness = 2

[combat.attackers]
x = "B"

[[events]]
at = "declare-blockers"
action = "enter"
creature = { id = "y", controller = "A", power = 1, toughness = 1 }
attacking = "A"
""",
        "events[0].attacking",
        (),
    ),
    Case(
        "pump-targets-a-player",
        """\
[players.A]

[players.B]

[creatures.x]
controller = "A"
power = 2
toughness = 2

[combat.attackers]
x = "B"

[[events]]
at = "declare-blockers"
action = "pump"
target = "B"
power = 1
toughness = 1
""",
        "events[0].target",
        (),
    ),
    Case(
        "grant-unknown-keyword",
        """\
[players.A]

[players.B]

[creatures.x]
controller = "A"
power = 2
toughness = 2

[combat.attackers]
x = "B"

[[events]]
at = "declare-blockers"
action = "grant"
target = "x"
keywords = ["banding"]
""",
        "events[0].keywords[0]",
        ("banding",),
    ),
    Case(
        "one-player",
        """\
[players.A]
""",
        "players",
        (),
    ),
    Case(
        "negative-counter-count",
        """\
[players.A]

[players.B]

[creatures.x]
controller = "A"
power = 2
toughness = 2
counters = { flying = -1 }
""",
        "creatures.x.counters.flying",
        (),
    ),
]


def run(path: Path, engine: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "200"}
    env.pop("ECS_COMBAT_PLUGINS", None)
    return subprocess.run(
        ["ecs-combat", "resolve", str(path), "--json", "--engine", engine],
        capture_output=True,
        text=True,
        env=env,
    )


@pytest.mark.parametrize("engine", ["reference", "batched"])
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_invalid_scenario_exits_2_with_one_message(tmp_path: Path, case: Case, engine: str) -> None:
    """CONTRACT.md 2: invalid input gives exit status 2 and one message naming file and place."""
    path = tmp_path / f"{case.id}.toml"
    path.write_text(case.text)
    p = run(path, engine)
    assert p.returncode == 2, (p.returncode, p.stdout, p.stderr)
    assert p.stdout == ""
    assert "Traceback" not in p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1, p.stderr
    assert path.name in lines[0]
    assert case.keypath in lines[0]
    for word in case.mentions:
        assert word in lines[0], f"{word!r} not in {lines[0]!r}"
