"""``ecs-combat blocks`` and ``ecs-combat attacks``: the best declarations of a scenario
(RULES section 9, CONTRACT section 8), as JSON or side by side for people."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import click

from ecs_combat.cards.notes import ignored_text_lines, scenario_creatures
from ecs_combat.console import output, print_line, print_table, shown
from ecs_combat.decisions import Choice, Decision, Objective, best_attacks, best_blocks
from ecs_combat.decisions.declarations import check_board_size
from ecs_combat.errors import InputError
from ecs_combat.plugin.registry import Registry
from ecs_combat.scenario.loader import parse_scenario, read_documents
from ecs_combat.scenario.model import Scenario

if TYPE_CHECKING:
    from ecs_combat.console import Output


def decision_scenarios(file: str, registry: Registry, decision: str) -> Iterator[Scenario]:
    """The file's scenarios, each checked for what the decision needs: `blocks` takes
    declared attackers and no blocks or divisions; `attacks` no combat at all."""
    found = False
    for where, doc in read_documents(file):
        found = True
        combat = doc.get("combat", {}) if isinstance(doc, dict) else {}
        if isinstance(combat, dict):
            given = [k for k in ("attackers", "blockers", "divide") if combat.get(k)]
            refused = [k for k in given if decision == "attacks" or k != "attackers"]
            if refused:
                chooses = (
                    "attacks, blocks and divisions"
                    if decision == "attacks"
                    else "blocks and divisions"
                )
                raise InputError(
                    where,
                    f"combat.{refused[0]}",
                    f"`ecs-combat {decision}` chooses the {chooses} itself: leave "
                    f"combat.{refused[0]} out",
                )
            if decision == "blocks" and not combat.get("attackers"):
                raise InputError(
                    where,
                    "combat.attackers",
                    "missing: `ecs-combat blocks` answers declared attackers (to choose the "
                    "attacks too, use `ecs-combat attacks`)",
                )
        creatures = doc.get("creatures") if isinstance(doc, dict) else None
        if isinstance(creatures, dict):  # refused before the creatures are read
            check_board_size(len(creatures), where)
        yield parse_scenario(doc, registry, where, blocks_to_decide=True)
    if not found:
        raise InputError(file, "", "the file holds no scenario")


def run_decisions(
    registry: Registry,
    file: str,
    decision: str,
    top: int,
    objective: str | None,
    budget: float | None,
    as_json: bool,
) -> None:
    """Decide every scenario of FILE and print each answer as soon as it is known."""
    if budget is not None and not budget > 0:
        raise InputError("--budget", "", f"must be a positive number of seconds, not {budget:g}")
    terms = Objective.parse(objective, registry, "--objective") if objective is not None else None
    decide = best_blocks if decision == "blocks" else best_attacks
    console = output()  # in a pipe, the plain layout without Rich
    for i, scenario in enumerate(decision_scenarios(file, registry, decision)):
        answer = decide(scenario, registry, top=top, objective=terms, budget=budget)
        if as_json:
            doc = answer.to_json()
            click.echo(json.dumps(doc) if file.endswith(".jsonl") else json.dumps(doc, indent=2))
            continue
        if i:
            print_line(console, "")
        render_decision(answer, scenario, registry, console)


# -- the readable form -------------------------------------------------------------------------


def render_decision(d: Decision, scenario: Scenario, registry: Registry, console: Output) -> None:
    """The best declarations side by side, then why the runner-up is worse."""
    chooser = d.defending_player if d.decision == "blocks" else d.attacking_player
    what = "blocks" if d.decision == "blocks" else "attacks"
    proven = (
        f"optimal: all {d.declarations:,} legal declarations compared"
        if d.optimal
        else f"not proven optimal: {d.reason}"
    )
    tied = f"{d.optimal_count} best" if d.optimal_count != 1 else "1 best"
    print_line(
        console,
        f"{shown(scenario.file)}: {shown(chooser)}'s best {what} "
        f"({proven}; {tied}; {d.seconds * 1000:.0f} ms)",
    )
    for line in ignored_text_lines(scenario_creatures(scenario)):
        print_line(console, f"Note: {line}; the search plays it without that text.")
    if not d.best:
        print_line(console, "No declaration was solved within the budget.")
        return
    headers = ("", *(f"#{i + 1}" for i in range(len(d.best))))
    rows: list[list[str]] = []
    if d.decision == "attacks":
        rows.append(["attack", *(_pairs(c.attackers or {}) or "nothing" for c in d.best)])
    rows.append(["blocks", *(_pairs(c.blockers) or "no blocks" for c in d.best)])
    rows.append(["divides", *(_divides(c) or "-" for c in d.best)])
    for term in d.objective:
        rows.append([term, *(str(c.score[term]) for c in d.best)])
    rows.append(["dies", *(_dies(c) or "-" for c in d.best)])
    for player in scenario.players:
        rows.append([f"{player}'s life", *(_life(c, player) for c in d.best)])
    print_table(console, headers, rows)
    print_line(console, score_legend(d, registry))
    worse = [i for i, c in enumerate(d.best) if c.score != d.best[0].score]
    if worse:
        i = worse[0]
        same = (
            "" if i == 1 else ("#2 scores" if i == 2 else f"#2 to #{i} score") + " the same as #1. "
        )
        print_line(console, same + why_worse(d, d.best[0], d.best[i], registry, i + 1))
    elif len(d.best) > 1:
        print_line(
            console,
            f"All shown score the same ({', '.join(d.objective)}); #1 comes first by the tie rule (fewest creatures, then file order).",
        )


def score_legend(d: Decision, registry: Registry) -> str:
    """What the score rows mean, for the terms shown: each from the attacking player's side
    (docs/decisions.md, "The score")."""
    return terms_legend(d.attacking_player, d.defending_player, d.objective, registry)


def terms_legend(a: str, b: str, terms: Sequence[str], registry: Registry) -> str:
    """What each score term means, from attacking player `a`'s side against `b`."""
    meaning = {
        "game": f"1 if {b} loses the game, -1 if {a} does",
        "material": f"the value (power + toughness, or its `value`) of {b}'s creatures that die minus {a}'s",
        "life": f"life {b} loses minus life {a} loses (life gained counts as life lost below 0)",
    }
    parts = []
    for term in terms:
        if term in meaning:
            parts.append(f"{term}: {meaning[term]}")
        elif term in registry.score_terms:
            parts.append(f"{term}: {registry.score_terms[term].summary}")
    return (
        f"Scores, from {a}'s side ({a} wants them high, {b} low, compared in this order): "
        + "; ".join(parts)
        + "."
    )


def why_worse(
    d: Decision, best: Choice, runner_up: Choice, registry: Registry, place: int = 2
) -> str:
    """Why the runner-up is worse than the best, in the game's words: the first term of the
    objective where they differ."""
    a, b = d.attacking_player, d.defending_player
    chooser = b if d.decision == "blocks" else a
    for term in d.objective:
        gap = runner_up.score[term] - best.score[term]
        if gap == 0:
            continue
        # a positive gap is better for the attacking player
        worse_for = chooser
        if term == "game":
            result = {
                1: f"{b} loses the game",
                -1: f"{a} loses the game",
                0: "nobody loses the game",
            }
            because = f"{result[runner_up.score[term]]} (with #1: {result[best.score[term]]})"
        elif term == "material":
            because = (
                f"it trades {abs(gap)} worse in value of creatures that die "
                f"({b}'s dead minus {a}'s: {runner_up.score[term]} against {best.score[term]})"
            )
        elif term == "life":
            because = (
                f"the life lost comes out {abs(gap)} worse ({b}'s loss minus {a}'s: "
                f"{runner_up.score[term]} against {best.score[term]})"
            )
        else:
            summary = registry.score_terms[term].summary if term in registry.score_terms else term
            because = f"{term} ({summary}) is {runner_up.score[term]} against {best.score[term]}"
        return f"Why #{place} is worse for {worse_for}: {because}."
    return f"#{place} scores the same as #1 ({', '.join(d.objective)})."


def _pairs(mapping: dict[str, Any]) -> str:
    parts = []
    for k, v in mapping.items():
        targets = ", ".join(v) if isinstance(v, list) else v
        parts.append(f"{shown(k)} → {shown(targets)}")
    return "; ".join(parts)


def _divides(c: Choice) -> str:
    return "; ".join(
        f"{shown(d['source'])} ({d['step']}): "
        + ", ".join(f"{amount} to {shown(r)}" for r, amount in d["amounts"].items())
        for d in c.divide
    )


def _dies(c: Choice) -> str:
    died = list(dict.fromkeys(cid for step in c.outcome["steps"] for cid in step["died"]))
    gone = [cid for cid, v in c.outcome["creatures"].items() if not v["alive"] and cid not in died]
    return ", ".join(shown(x) for x in [*died, *gone])


def _life(c: Choice, player: str) -> str:
    p = c.outcome["players"][player]
    return f"{p['life']}{' (lost)' if p['lost'] else ''}"
