"""Mutants of the decision search (ecs_combat/decisions/) and of the keywords added in wave 4
(persist/undying, provoke/lure, mentor, protection, blocking several attackers), each run
against the test files that pin that code (tools/mutation_audit.py)."""

from __future__ import annotations

from mutant import Mutant

#: The decision search's answers, by hand and against brute force.
DECISIONS = ("tests/test_decision_pins.py", "tests/test_decisions.py")
#: ...and its bounds (pieces, the guard).
SEARCH = (*DECISIONS, "tests/test_search_bounds.py")
#: The bulk search of decided simulations.
BULK = ("tests/test_decision_pins.py", "tests/test_simulate_decisions.py")
RETURNING = ("tests/test_return_keywords.py", "tests/test_decision_pins.py")
REQUIREMENTS = (
    "tests/test_provoke.py",
    "tests/test_requirements.py",
    "tests/test_simulate_decision_rules.py",
)
MENTOR = ("tests/test_mentor.py",)
PROTECTION = ("tests/test_protection_qualities.py", "tests/test_protection_skulk.py")
SEVERAL = ("tests/test_decisions.py", "tests/test_legality.py")

DIV = "ecs_combat/decisions/divisions.py"
CHILDREN = "ecs_combat/decisions/children.py"
SEARCH_PY = "ecs_combat/decisions/search.py"
OBJECTIVE = "ecs_combat/decisions/objective.py"
DECLARATIONS = "ecs_combat/decisions/declarations.py"

WAVE4_MUTANTS = (
    # -- divisions: who divides, and the excess rule ------------------------------------------
    Mutant(
        "decisions-excess-needs-more-than-lethal",
        DIV,
        "legal &= ~to_player | (incoming[b] >= lethal) | hot[b]",
        "legal &= ~to_player | (incoming[b] > lethal) | hot[b]",
        "702.19b: exactly lethal damage lets the rest trample over (D4)",
        DECISIONS,
    ),
    Mutant(
        "decisions-excess-ignores-deathtouch-partner",
        DIV,
        "legal &= ~to_player | (incoming[b] >= lethal) | hot[b]",
        "legal &= ~to_player | (incoming[b] >= lethal)",
        "702.2c, 702.19b: another attacker's deathtouch damage is lethal (D5)",
        DECISIONS,
    ),
    Mutant(
        "decisions-excess-ignores-fixed-damage",
        DIV,
        "incoming[b] = x[:, cols].sum(axis=1) + fixed",
        "incoming[b] = x[:, cols].sum(axis=1)",
        "702.19b: damage other attackers assign the blocker counts (D6)",
        DECISIONS,
    ),
    Mutant(
        "decisions-fixed-damage-not-deathtouch",
        DIV,
        "hot or bool(r.one_is_lethal[a])",
        "hot",
        "702.2c: fixed damage from a deathtoucher is lethal (D5)",
        DECISIONS,
    ),
    Mutant(
        "decisions-trampler-alone-does-not-divide",
        DIV,
        "((per_attacker[ba] >= 2) | rec.player_gets_excess[ba])",
        "(per_attacker[ba] >= 2)",
        "510.1c, 702.19b: a trampler with one blocker chooses how much tramples over (D4)",
        DECISIONS,
    ),
    Mutant(
        "decisions-multi-blocker-does-not-divide",
        DIV,
        "blockers = bb[rec.deals[bb] & (per_blocker[bb] >= 2)]",
        "blockers = bb[rec.deals[bb] & (per_blocker[bb] >= 3)]",
        "510.1d: a blocker of two attackers divides its damage (the defending player's choice)",
        DECISIONS,
    ),
    Mutant(
        "decisions-deathtouch-lethal-not-1",
        DIV,
        "lethal = np.where(destroys[of], np.minimum(remaining, 1), remaining)",
        "lethal = remaining",
        "702.2c: 1 damage from a deathtoucher is lethal for the excess rule",
        DECISIONS,
    ),
    # -- backing up: the players' choices -----------------------------------------------------
    Mutant(
        "decisions-attacker-minimises",
        CHILDREN,
        "high = np.maximum.reduceat(low, a_start)",
        "high = np.minimum.reduceat(low, a_start)",
        "RULES 9: the attacking player chooses its best division",
        DECISIONS,
    ),
    Mutant(
        "decisions-default-reply-not-preferred",
        CHILDREN,
        "reply = np.where((dd >= 0) & (at_dd == low), dd, reply)",
        "reply = reply",
        "RULES 9 (docs): among equal replies the default division is shown",
        DECISIONS,
    ),
    # -- the search's bounds ------------------------------------------------------------------
    Mutant(
        "decisions-cut-ties-of-the-top",
        SEARCH_PY,
        "cut |= pending & (lower > threshold[board_of])",
        "cut |= pending & (lower >= threshold[board_of])",
        "a declaration whose lower bound ties the top-th best may tie it: not cut",
        DECISIONS,
    ),
    Mutant(
        "decisions-defending-choice-is-a-lower-bound",
        SEARCH_PY,
        "bounded[lo:hi] &= ~rec.defending_battles",
        "pass",
        "the default line bounds the value only when the defending player had no choice on it",
        DECISIONS,
    ),
    Mutant(
        "decisions-threshold-off-by-one",
        SEARCH_PY,
        "at = (np.arange(len(order)) - first == top - 1).nonzero()[0]",
        "at = (np.arange(len(order)) - first == top - 2).nonzero()[0]",
        "the top-th best solved value bounds the others (--top 4 shows the 4 best)",
        DECISIONS,
    ),
    Mutant(
        "decisions-pieces-overlap",
        SEARCH_PY,
        'ends.append(max(int(total.searchsorted(below + most, side="right")), ends[-1] + 1))',
        'ends.append(max(int(total.searchsorted(below + most, side="right")), ends[-1] + 1) + 1)',
        "a level's pieces cover each node once (issue 30: levels in pieces)",
        SEARCH,
    ),
    Mutant(
        "decisions-rest-of-a-level-dropped",
        SEARCH_PY,
        "todo.append((level, resolved, places[take:], known[take:]))",
        "pass",
        "the nodes of a level that did not fit in one piece are expanded later, not dropped",
        SEARCH,
    ),
    # -- the score ----------------------------------------------------------------------------
    Mutant(
        "decisions-returned-worth-0-not-returned",
        OBJECTIVE,
        "back = outcome.returned >= 0",
        "back = outcome.returned > 0",
        "RULES 9: a persist 0/2 returning as -1/1 is worth 0 (O2)",
        DECISIONS,
    ),
    Mutant(
        "decisions-attacking-players-poison-from-0",
        OBJECTIVE,
        "            column += before[a]\n",
        "",
        "RULES 9: poison counters each player got, not had (O6)",
        DECISIONS,
    ),
    Mutant(
        "decisions-value-is-power",
        "ecs_combat/decisions/decide.py",
        "value = template.power + template.toughness",
        "value = template.power + 0 * template.toughness",
        "RULES 9: a creature's value is power plus toughness",
        DECISIONS,
    ),
    # -- declarations -------------------------------------------------------------------------
    Mutant(
        "decisions-menace-one-blocker-allowed",
        DECLARATIONS,
        "keep &= (count == 0) | (count >= need)",
        "keep &= (count == 0) | (count >= need - 1)",
        "509.1b: an attacker needing two blockers is blocked by two or none",
        DECISIONS,
    ),
    Mutant(
        "decisions-capacity-one-more",
        DECLARATIONS,
        'out += [s | bit for s in out if bin(s).count("1") < capacity]',
        'out += [s | bit for s in out if bin(s).count("1") <= capacity]',
        "509.1a: a blocker blocks at most its capacity of attackers",
        DECISIONS,
    ),
    Mutant(
        "decisions-requirements-not-maximised",
        DECLARATIONS,
        "kept: MaskArray = masks[obeyed == obeyed.max(initial=0)]",
        "kept: MaskArray = masks[obeyed >= 0]",
        "509.1c: a declaration obeys as many requirements as possible (lure)",
        DECISIONS,
    ),
    # -- the tiled first level of the bulk search ---------------------------------------------
    Mutant(
        "decisions-tiled-values-not-mapped-back",
        "ecs_combat/decisions/layout.py",
        "by_board = values.reshape(self.each, n, *values.shape[1:]).swapaxes(0, 1)",
        "by_board = values.reshape(n, self.each, *values.shape[1:])",
        "the tiled level's values are mapped back to its nodes (L1)",
        BULK,
    ),
    # -- persist and undying ------------------------------------------------------------------
    Mutant(
        "returning-reference-with-a-counter",
        "plugins/returning.py",
        "if combat.counters(c, kind) > 0:",
        "if combat.counters(c, kind) > 1:",
        "702.79a, 702.93a: with a counter of its kind it does not return",
        RETURNING,
    ),
    Mutant(
        "returning-batched-with-a-counter",
        "plugins/returning.py",
        "rows = rows[batch.counters(kind)[rows] == 0]",
        "rows = rows[batch.counters(kind)[rows] <= 1]",
        "702.79a, 702.93a: with a counter of its kind it does not return (batched)",
        RETURNING,
    ),
    Mutant(
        "returning-batched-no-counter",
        "plugins/returning.py",
        "                batch.add_counters(back, kind, 1)\n",
        "                pass\n",
        "702.79a: it returns with a -1/-1 counter (batched)",
        RETURNING,
    ),
    Mutant(
        "persist-returns-with-plus",
        "plugins/persist.py",
        'MINUS = "-1/-1"',
        'MINUS = "+1/+1"',
        "702.79a: persist's counter is -1/-1",
        RETURNING,
    ),
    # -- provoke and lure ---------------------------------------------------------------------
    Mutant(
        "provoke-batched-gone-target-still-required",
        "plugins/provoke.py",
        "legal = batch.on_battlefield()[target] & (",
        "legal = True & (",
        "608.2b: a provoke target that left makes the trigger do nothing (batched)",
        REQUIREMENTS,
    ),
    Mutant(
        "provoke-reference-target-not-untapped",
        "plugins/provoke.py",
        "    combat.untap(target)\n",
        "",
        "702.39a: the provoked creature untaps",
        REQUIREMENTS,
    ),
    Mutant(
        "provoke-batched-target-not-untapped",
        "plugins/provoke.py",
        "    batch.untap(target[legal])\n",
        "",
        "702.39a: the provoked creature untaps (batched)",
        REQUIREMENTS,
    ),
    Mutant(
        "lure-requires-nothing",
        "plugins/lure.py",
        "    return attacker.has(LURE)",
        "    return attacker.has(LURE) & False",
        "509.1c: all creatures able to block a lure attacker do so",
        REQUIREMENTS,
    ),
    # -- mentor -------------------------------------------------------------------------------
    Mutant(
        "mentor-reference-equal-power",
        "plugins/mentor.py",
        "        and combat.power(target) < combat.power(source)\n",
        "        and combat.power(target) <= combat.power(source)\n",
        "702.134a: the target has lesser power (as the trigger resolves)",
        MENTOR,
    ),
    Mutant(
        "mentor-batched-equal-power",
        "plugins/mentor.py",
        "legal = batch.attacking()[target] & (power[target] < power[source])",
        "legal = batch.attacking()[target] & (power[target] <= power[source])",
        "702.134a: the target has lesser power (batched)",
        MENTOR,
    ),
    Mutant(
        "mentor-reference-default-least-power",
        "plugins/mentor.py",
        "return max(lesser, key=lambda c: combat.power(c), default=None)",
        "return min(lesser, key=lambda c: combat.power(c), default=None)",
        "RULES 10: without a target the greatest lesser power is chosen",
        MENTOR,
    ),
    Mutant(
        "mentor-batched-default-least-power",
        "plugins/mentor.py",
        "order = np.lexsort((candidate, -power[candidate], which))",
        "order = np.lexsort((candidate, power[candidate], which))",
        "RULES 10: without a target the greatest lesser power is chosen (batched)",
        MENTOR,
    ),
    # -- protection ---------------------------------------------------------------------------
    Mutant(
        "protection-from-everything-blockable",
        "plugins/protection.py",
        "| ((protected & (CREATURES | EVERYTHING)) != 0)",
        "| ((protected & CREATURES) != 0)",
        "702.16b, 702.16j: protection from everything can't be blocked",
        PROTECTION,
    ),
    Mutant(
        "protection-multicolored-ignored",
        "plugins/protection.py",
        "        | (((protected & MULTICOLORED) != 0) & _multicolored(source_colors))\n",
        "",
        "702.16: protection from multicolored",
        PROTECTION,
    ),
    Mutant(
        "protection-batched-damage-not-prevented",
        "plugins/protection.py",
        "    event.amount[hit[_from_creature_source(protected, source_colors)]] = 0",
        "    pass",
        "702.16e: damage from a source with the quality is prevented (batched)",
        PROTECTION,
    ),
    Mutant(
        "protection-event-damage-from-everything",
        "plugins/protection.py",
        "    event.amount[to_creature & ((protected[recipient] & EVERYTHING) != 0)] = 0",
        "    pass",
        "702.16j: protection from everything prevents an event's damage (batched)",
        PROTECTION,
    ),
    # -- blocking several attackers -----------------------------------------------------------
    Mutant(
        "block-additional-does-not-add-up",
        "plugins/block_additional.py",
        "return 1 + np.asarray(blocker.count(ADDITIONAL))",
        "return 1 + np.minimum(np.asarray(blocker.count(ADDITIONAL)), 1)",
        "509.1a: instances of 'can block an additional creature' add up",
        SEVERAL,
    ),
    Mutant(
        "block-any-number-is-two",
        "plugins/block_additional.py",
        "return np.where(blocker.has(ANY_NUMBER), UNLIMITED, 1)",
        "return np.where(blocker.has(ANY_NUMBER), 2, 1)",
        "509.1a: 'can block any number of creatures' blocks all of them",
        SEVERAL,
    ),
)
