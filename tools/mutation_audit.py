"""Re-run the mutation audit: hand-written mutants of division, the damage-step pipeline, both
engines and the keyword counters, each checked against the rule tests; and of the decision
search and the keywords of wave 4 (tools/mutants_wave4.py), each against the tests that pin
its code (a targeted subset: a mutant runs a few test files, not the suite).

Each mutant is one small change of the source that changes a real answer (changes that can't
change any output, such as a check the loader already makes, are left out). The audit copies the
repository into a temporary folder, applies one mutant at a time there (the working tree is never
touched), runs the rule tests on that copy with ``pytest -x`` and reports the mutant **killed**
(some test failed) or **survived** (every test passed). A mutant whose original text is no longer
in its file is **stale**: the code moved, and the mutant must be rewritten (docs/testing.md).

    python tools/mutation_audit.py                 # every mutant, the rule tests
    python tools/mutation_audit.py -k batched      # mutants whose id contains "batched"
    python tools/mutation_audit.py --set wave4     # the decision search's and wave 4 keywords'
                                                   # (tools/mutants_wave4.py)
    python tools/mutation_audit.py --list          # the mutants, without running anything

Exit status: 0 if every mutant was killed, 1 if one survived or is stale.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mutant import Mutant
from mutants_wave4 import WAVE4_MUTANTS

ROOT = Path(__file__).resolve().parent.parent

#: The tests that pin the rules with hand-derived expectations, on both engines. The agreement
#: tests (engine against engine) are left out: a mutant must be caught by a rule.
RULE_TESTS = (
    "tests/test_division.py",
    "tests/test_keywords.py",
    "tests/test_strike_family.py",
    "tests/test_hats.py",
    "tests/test_scenarios.py",
    "tests/test_block_triggers.py",
    "tests/test_dies_order.py",
    "tests/test_damage_counters.py",
    "tests/test_protection_skulk.py",
    "tests/test_turn_correctness.py",
    "tests/test_turns.py",
)


MUTANTS = (
    # -- turns and triggers (issue 20): the schedule, phases that don't happen, triggers ------
    Mutant(
        "schedule-groups-in-listing-order",
        "ecs_combat/rules/turn_schedule.py",
        "groups.sort(key=lambda g: (seat[g[0].player], -g[0].created))",
        "groups.sort(key=lambda g: -g[0].created)",
        "RULES 8: phases added after one phase by several players come in turn order from the "
        "active player, not in the order the file lists creatures",
    ),
    Mutant(
        "schedule-groups-in-reverse-turn-order",
        "ecs_combat/rules/turn_schedule.py",
        "groups.sort(key=lambda g: (seat[g[0].player], -g[0].created))",
        "groups.sort(key=lambda g: (-seat[g[0].player], -g[0].created))",
        "RULES 8: turn order starting from the active player",
    ),
    Mutant(
        "schedule-oldest-spell-first",
        "ecs_combat/rules/turn_schedule.py",
        "groups.sort(key=lambda g: (seat[g[0].player], -g[0].created))",
        "groups.sort(key=lambda g: (seat[g[0].player], g[0].created))",
        "500.8: the phases of the most recently created effect come first",
    ),
    Mutant(
        "schedule-no-parent",
        "ecs_combat/rules/turn_schedule.py",
        "follows = len(happened) - 1",
        "follows = -1",
        "RULES 8: a phase that would follow a phase that did not happen doesn't happen",
    ),
    Mutant(
        "batched-turn-strikers-carried-over",
        "ecs_combat/batched/turn.py",
        "        self.struck = np.zeros(n, np.bool_)\n",
        "",
        "RULES 2, 8: the strikers are kept per combat phase and cleared at its end",
    ),
    Mutant(
        "batched-bulk-anyone-attacks-in-a-wolf-combat",
        "ecs_combat/batched/turn.py",
        "            att &= phase.only",
        "            att &= True",
        "Throat Wolf: only Throat Wolf can attack during its combat phase (bulk turns)",
    ),
    Mutant(
        "reference-triggers-in-plugin-order",
        "ecs_combat/reference/state_based.py",
        "            board.listed_at(it[1].source, it[1].keyword, it[1].instance),",
        "            it[1].instance,",
        "RULES 7, 11.5: one creature's triggers resolve in the order its keywords are listed",
    ),
    Mutant(
        "batched-triggers-in-plugin-order",
        "ecs_combat/batched/actions.py",
        "order = np.lexsort((local, kind, listed, source, -rank, battle))",
        "order = np.lexsort((local, kind, instance, source, -rank, battle))",
        "RULES 7, 11.5: one creature's triggers resolve in the order its keywords are listed",
    ),
    Mutant(
        "reference-dies-triggers-not-apnap",
        "ecs_combat/reference/state_based.py",
        "            -rank[board.controller(it[1].source)],",
        "            0,",
        "RULES 11.5: dies triggers APNAP, the non-active player's first",
    ),
    Mutant(
        "batched-dies-triggers-not-apnap",
        "ecs_combat/batched/actions.py",
        "order = np.lexsort((local, kind, listed, source, -rank, battle))",
        "order = np.lexsort((local, kind, listed, source, battle))",
        "RULES 11.5: dies triggers APNAP, the non-active player's first",
    ),
    Mutant(
        "reference-returns-a-new-object-again",
        "ecs_combat/reference/context.py",
        "        if creature not in self.stale:\n            return_to_battlefield(",
        "        if True:\n            return_to_battlefield(",
        "RULES 11.5, 400.7: a second trigger finds a new object and does nothing",
    ),
    Mutant(
        "batched-dies-triggers-forget-new-objects",
        "ecs_combat/batched/actions.py",
        "            context.stale = new_objects.copy() if new_objects.any() else None\n",
        "            context.stale = None\n",
        "RULES 11.5, 400.7: a second trigger finds a new object and does nothing",
    ),
    Mutant(
        "batched-trigger-of-a-gone-source-does-nothing",
        "ecs_combat/batched/engine.py",
        "            go = now\n",
        "            go = now[self.on_bf[source[now]]]\n",
        "RULES 7 (113.7a): a trigger resolves even if its source has left",
    ),
    Mutant(
        "reference-pump-of-a-gone-creature",
        "ecs_combat/reference/engine.py",
        '        battlefield (400.7: the effect can\'t find it)."""\n        if not self.on_battlefield(entity):',
        '        battlefield (400.7: the effect can\'t find it)."""\n        if False:',
        "113.7a, 400.7: what a trigger does to its source that left does nothing (bushido)",
    ),
    Mutant(
        "batched-pump-of-a-gone-creature",
        "ecs_combat/batched/engine.py",
        "        here = self.on_bf[rows]\n        if not here.all():\n            rows = rows[here]\n            power",
        "        here = np.ones(len(rows), np.bool_)\n        if not here.all():\n            rows = rows[here]\n            power",
        "113.7a, 400.7: what a trigger does to its source that left does nothing (bushido)",
    ),
    Mutant(
        "afflict-needs-its-source-attacking",
        "plugins/afflict.py",
        '    player = trigger.data["player"]',
        "    player = combat.defending_player(trigger.source)",
        "RULES 7 (113.7a): afflict's life loss happens even if the attacker left",
    ),
    Mutant(
        "reference-wolf-gone-still-adds",
        "ecs_combat/reference/turn.py",
        "            if phase.follows != i or phase.source is None:",
        "            if True:",
        "RULES 8: a Throat Wolf that is gone adds no combat phase",
    ),
    Mutant(
        "batched-wolf-gone-still-adds",
        "ecs_combat/batched/turn.py",
        "np.where(at & ~here, why, self.source_why[j])",
        "np.where(at & ~here & False, why, self.source_why[j])",
        "RULES 8: a Throat Wolf that is gone adds no combat phase",
    ),
    Mutant(
        "reference-phases-after-game-over",
        "ecs_combat/reference/turn.py",
        "        if c.game_over():\n            return GAME_OVER",
        "        if False:\n            return GAME_OVER",
        "RULES 2: once fewer than two players remain, no further phases",
    ),
    Mutant(
        "batched-phases-after-game-over",
        "ecs_combat/batched/turn.py",
        "        skip[has & self.game_over] = SKIP_GAME_OVER",
        "        skip[has & self.game_over & False] = SKIP_GAME_OVER",
        "RULES 2: once fewer than two players remain, no further phases",
    ),
    Mutant(
        "reference-turn-blocks-unchecked",
        "ecs_combat/reference/engine.py",
        "        if self.check_blocks_at is not None:",
        "        if False:",
        "RULES 4: a later combat phase's blocks are checked with the creatures as they are then",
    ),
    Mutant(
        "batched-turn-blocks-unchecked",
        "ecs_combat/batched/turn.py",
        "        if not self.strict or not self.nblocks or self.scenarios is None:",
        "        if True:",
        "RULES 4: a later combat phase's blocks are checked with the creatures as they are then",
    ),
    Mutant(
        "loader-blocks-as-attackers-are-declared",
        "ecs_combat/reference/characteristics.py",
        "check_declarations(scenario, registry, blocking=blocking, attacking=attacking)",
        "check_declarations(scenario, registry, blocking=attacking, attacking=attacking)",
        "RULES 4: blocks are legal with exalted's +1/+1 from the declare-attackers step",
    ),
    Mutant(
        "batched-lethal-damage-printed-toughness",
        "ecs_combat/batched/engine.py",
        "lethal = self.entered & (self.toughness > 0) & (self.marked >= self.toughness)",
        "lethal = self.entered & (self.toughness > 0) & (self.marked >= printed)",
        "704.5g: lethal damage in the input counts the counters' change to toughness",
    ),
    # -- division (ecs_combat/rules/division.py: the reference engine's division) ------------------
    Mutant(
        "division-lethal-below-0",
        "ecs_combat/rules/division.py",
        "remaining = max(toughness - marked, 0)",
        "remaining = toughness - marked",
        "702.19b: lethal damage never below 0",
    ),
    Mutant(
        "division-deathtouch-at-lethal-needs-1",
        "ecs_combat/rules/division.py",
        "return min(remaining, 1) if one_is_lethal else remaining",
        "return 1 if one_is_lethal else remaining",
        "702.2c: a blocker already at lethal damage needs 0, even from deathtouch",
    ),
    Mutant(
        "division-lethal-beyond-power",
        "ecs_combat/rules/division.py",
        "amount = min(lethal, left)",
        "amount = lethal",
        "RULES.md 3: the default division stops when power runs out",
    ),
    Mutant(
        "division-rest-to-last-blocker",
        "ecs_combat/rules/division.py",
        "(recipients[0][0] if recipients else None)",
        "(recipients[-1][0] if recipients else None)",
        "RULES.md 3: without trample the rest goes to the first blocker",
    ),
    Mutant(
        "division-excess-ignores-others",
        "ecs_combat/rules/division.py",
        "if amounts.get(blocker, 0) + from_others.get(blocker, 0) < lethal:",
        "if amounts.get(blocker, 0) < lethal:",
        "702.19b: damage other creatures assign the blocker counts toward lethal",
    ),
    Mutant(
        "division-excess-needs-more-than-lethal",
        "ecs_combat/rules/division.py",
        "if amounts.get(blocker, 0) + from_others.get(blocker, 0) < lethal:",
        "if amounts.get(blocker, 0) + from_others.get(blocker, 0) <= lethal:",
        "702.19b: exactly lethal damage is enough",
    ),
    Mutant(
        "division-excess-checked-without-excess",
        "ecs_combat/rules/division.py",
        "if amounts.get(player, 0) <= 0:",
        "if amounts.get(player, 0) < 0:",
        "702.19b: a division sending nothing to the player needs no lethal to every blocker",
    ),
    # -- the damage-step pipeline (ecs_combat/rules/pipeline.py) -----------------------------------
    Mutant(
        "pipeline-strikers-strike-again",
        "ecs_combat/rules/pipeline.py",
        "earlier = list(struck_earlier)",
        "earlier: list[str] = []",
        "510.4: a first striker without double strike deals no regular damage",
    ),
    Mutant(
        "pipeline-no-withholding",
        "ecs_combat/rules/pipeline.py",
        "withhold if step.default else frozenset()",
        "frozenset()",
        "Unstable: last strike alone deals no regular damage",
    ),
    Mutant(
        "pipeline-step-needs-everyone",
        "ecs_combat/rules/pipeline.py",
        "return any(not self.strike_keywords.isdisjoint(k) for k in combatant_keywords)",
        "return all(not self.strike_keywords.isdisjoint(k) for k in combatant_keywords)",
        "510.4: one first striker is enough for a first-strike step",
    ),
    # -- the reference engine ------------------------------------------------------------------
    Mutant(
        "reference-exact-lethal-survives",
        "ecs_combat/reference/engine.py",
        "elif dmg.marked >= stats.toughness:",
        "elif dmg.marked > stats.toughness:",
        "704.5g: damage equal to toughness is lethal",
    ),
    Mutant(
        "reference-player-at-0-survives",
        "ecs_combat/reference/engine.py",
        "if not p.lost and p.life <= 0:",
        "if not p.lost and p.life < 0:",
        "704.5a: a player at 0 life loses",
    ),
    Mutant(
        "reference-division-may-total-less",
        "ecs_combat/reference/damage.py",
        "if total != max(power, 0):",
        "if total > max(power, 0):",
        "510.1: an explicit division totals the power, no less",
    ),
    Mutant(
        "reference-other-deathtouch-not-lethal",
        "ecs_combat/reference/damage.py",
        "lethal_needed[rid] = 0  # any amount from it is lethal",
        "pass  # mutant",
        "702.2c, 702.19b: another deathtoucher's damage counts as lethal",
    ),
    Mutant(
        "reference-indestructible-ignored",
        "plugins/indestructible.py",
        "            destruction.creatures.discard(e)\n",
        "            pass\n",
        "702.12b: indestructible survives lethal damage",
    ),
    Mutant(
        "reference-lifelink-twice",
        "plugins/lifelink.py",
        "event.life[player] = event.life.get(player, 0) + total",
        "event.life[player] = event.life.get(player, 0) + 2 * total",
        "702.15b: life gained equals the damage dealt",
    ),
    Mutant(
        "reference-counter-clamp",
        "ecs_combat/reference/components.py",
        "count = max(before + change, 0)",
        "count = before + change",
        "122.1b: a creature can't have fewer than 0 counters",
    ),
    Mutant(
        "reference-blocked-without-blockers-assigns",
        "ecs_combat/reference/damage.py",
        "if not recipients and excess is None:",
        "if False:",
        "510.1c: a blocked attacker with no blocker left and no trample assigns nothing",
    ),
    Mutant(
        "plugin-trample-no-excess",
        "plugins/trample.py",
        "assignment.allow_excess(batch.has(TRAMPLE) & batch.att, TRAMPLE)",
        "pass",
        "702.19b: trample assigns the excess to the player",
    ),
    Mutant(
        "plugin-deathtouch-destroys-nothing",
        "plugins/deathtouch.py",
        "            check.destroy.add(e)\n",
        "            pass\n",
        "702.2b: any damage from deathtouch destroys",
    ),
    # -- the batched engine --------------------------------------------------------------------
    Mutant(
        "batched-lethal-below-0",
        "ecs_combat/batched/damage.py",
        "np.maximum(lethal, 0, out=lethal)",
        "pass",
        "702.19b: lethal damage never below 0 (a trampler's overkill is not extra damage)",
    ),
    Mutant(
        "batched-deathtouch-lethal-for-all",
        "ecs_combat/batched/damage.py",
        "np.minimum(lethal, 1, out=lethal, where=destroys[sources])",
        "np.minimum(lethal, 1, out=lethal)",
        "702.2c: 1 is lethal only from a deathtouch source",
    ),
    Mutant(
        "batched-trampler-without-blockers-assigns-nothing",
        "ecs_combat/batched/damage.py",
        "has_blocker |= excess",
        "pass",
        "702.19e: a trampler with no blocker left still assigns (and its division is checked)",
    ),
    Mutant(
        "batched-deathtouch-0-assigned-destroys",
        "plugins/deathtouch.py",
        "hit = (event.recipient >= 0) & (event.amount > 0)",
        "hit = (event.recipient >= 0) & (event.amount >= 0)",
        "702.2b: 0 assigned from a deathtoucher is no damage dealt",
    ),
    Mutant(
        "batched-exact-lethal-survives",
        "ecs_combat/batched/engine.py",
        "destroy = in_play & ~dies & (self.marked >= self.toughness)",
        "destroy = in_play & ~dies & (self.marked > self.toughness)",
        "704.5g: damage equal to toughness is lethal",
    ),
    Mutant(
        "batched-lifelink-gains-nothing",
        "plugins/lifelink.py",
        "np.add.at(totals, where, event.amount[gaining])",
        "pass",
        "702.15b: lifelink gains life equal to the damage dealt",
    ),
    Mutant(
        "batched-other-deathtouch-not-lethal",
        "ecs_combat/batched/damage.py",
        "short = (incoming[bb[rows]] < lethal) & ~run._mark[bb[rows]]",
        "short = incoming[bb[rows]] < lethal",
        "702.2c, 702.19b: another deathtoucher's damage counts as lethal",
    ),
    Mutant(
        "batched-toughness-0-survives",
        "ecs_combat/batched/engine.py",
        "dies = in_play & (self.toughness <= 0)",
        "dies = in_play & (self.toughness < 0)",
        "704.5f: toughness 0 dies, indestructible or not",
    ),
    Mutant(
        "batched-lifelink-without-damage",
        "plugins/lifelink.py",
        "gaining = has[event.source] & (event.amount > 0)",
        "gaining = has[event.source] & (event.amount >= 0)",
        "702.15b: lifelink gains only when the creature deals damage",
    ),
    Mutant(
        "batched-counter-clamp",
        "ecs_combat/batched/engine.py",
        "counts = np.maximum(before + change, 0)",
        "counts = before + change",
        "122.1b: a creature can't have fewer than 0 counters",
    ),
)


#: Every mutant: the rules' above, then the decision search's and the wave-4 keywords'
#: (tools/mutants_wave4.py, each with the tests that pin its code).
EVERY = (*MUTANTS, *WAVE4_MUTANTS)


def copy_tree(dest: Path) -> None:
    """The tracked and changed files of the repository, plus the bundled plugins under the name
    they are imported by (``ecs_combat_keywords``), so the copy shadows the installed package."""
    files = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\n")
    for name in filter(None, files):
        source = ROOT / name
        if source.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)
    shutil.copytree(dest / "plugins", dest / "ecs_combat_keywords")


def run_tests(copy: Path, tests: tuple[str, ...]) -> bool:
    """Whether every test passes on the copy (its own modules first on the path)."""
    env = {**os.environ, "PYTHONPATH": str(copy), "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("ECS_COMBAT_PLUGINS", None)
    command = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests]
    done = subprocess.run(command, cwd=copy, env=env, capture_output=True, text=True)
    return done.returncode == 0


def audit(mutants: list[Mutant], tests: tuple[str, ...]) -> int:
    """Run each mutant; print one line each and the kill rate; the exit status."""
    failed = 0
    killed = 0
    done: set[str] = set()
    with tempfile.TemporaryDirectory(prefix="ecs-combat-mutants-") as tmp:
        copy = Path(tmp)
        copy_tree(copy)
        if not all(run_tests(copy, t) for t in {m.tests or tests for m in mutants}):
            print("the rule tests fail without any mutant: fix them first", file=sys.stderr)
            return 2
        for m in mutants:
            target = copy / m.path
            original = target.read_text()
            if original.count(m.old) != 1:
                print(f"stale     {m.id}: {m.old!r} is not in {m.path} exactly once")
                failed += 1
                continue
            began = time.perf_counter()
            target.write_text(original.replace(m.old, m.new))
            if m.path.startswith("plugins/"):
                shutil.copy2(target, copy / "ecs_combat_keywords" / Path(m.path).name)
            try:
                passed = run_tests(copy, m.tests or tests)
            finally:
                target.write_text(original)
                if m.path.startswith("plugins/"):
                    shutil.copy2(target, copy / "ecs_combat_keywords" / Path(m.path).name)
            seconds = time.perf_counter() - began
            verdict = "survived" if passed else "killed"
            if not passed:
                done.add(m.id)
            print(f"{verdict:9} {m.id} ({seconds:.0f} s): {m.why}", flush=True)
            killed += not passed
            failed += passed
    print(f"{killed} of {len(mutants)} mutants killed")
    for path in sorted({m.path for m in mutants}):
        mine = [m.id for m in mutants if m.path == path]
        print(f"  {path}: {sum(i in done for i in mine)} of {len(mine)} killed")
    return 1 if failed else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "-k",
        "--keyword",
        default="",
        help="only mutants whose id contains this (or one of these, comma-separated)",
    )
    parser.add_argument("--list", action="store_true", help="list the mutants and stop")
    parser.add_argument(
        "--set",
        choices=("all", "rules", "wave4"),
        default="all",
        help="the rules' mutants, the decision search's and wave 4 keywords', or all",
    )
    parser.add_argument(
        "--tests", nargs="+", default=list(RULE_TESTS), help="test files to run per mutant"
    )
    args = parser.parse_args()
    pool = {"all": EVERY, "rules": MUTANTS, "wave4": WAVE4_MUTANTS}[args.set]
    wanted = args.keyword.split(",")
    chosen = [m for m in pool if any(k in m.id for k in wanted)]
    if args.list:
        for m in chosen:
            print(f"{m.id}  {m.path}: {m.why}")
        return
    sys.exit(audit(chosen, tuple(args.tests)))


if __name__ == "__main__":
    main()
