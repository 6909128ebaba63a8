"""One combat damage step in the reference world (510, RULES.md sections 2-3): who deals
damage, each dealer's assignment through the ``assign-damage`` systems, the default or
explicit division, and dealing it all at once through the ``deal-damage`` systems."""

from __future__ import annotations

from typing import TYPE_CHECKING

import esper

from ecs_combat.errors import InputError
from ecs_combat.plugin.payloads import Assignment, DamageAssignment, DamageEvent, Dealt
from ecs_combat.reference.components import (
    Attacking,
    Blocking,
    Controller,
    Damage,
    Player,
    Stats,
)
from ecs_combat.reference.state_based import state_based_actions
from ecs_combat.rules.division import default_division, excess_shortfall, lethal_damage
from ecs_combat.rules.pipeline import StepPlan
from ecs_combat.rules.result import (
    StepResult,
    StrikeNote,
)
from ecs_combat.scenario.model import Division

if TYPE_CHECKING:
    from ecs_combat.reference.playing import Playing


def damage_step(combat: Playing, plan: StepPlan) -> StepResult:
    """One combat damage step: who strikes, assignment, dealing, state-based actions."""
    board = combat.board
    struck = combat.now.struck
    step = StepResult(plan.name)
    combatants = board.in_combat()
    dealers: list[int] = []
    for e in combatants:
        kws = board.keywords(e)
        deals, why = plan.deals(kws, struck.get(e, ()))
        power = esper.component_for_entity(e, Stats).power
        if deals and power <= 0:
            deals, why = (
                False,
                f"{why}, but its power is {power}: it assigns no damage (510.1a)",
            )
        step.strikes.append(StrikeNote(board.cid(e), deals, why))
        if deals:
            dealers.append(e)
    for e in combatants:
        if plan.is_striker(board.keywords(e)):
            struck.setdefault(e, []).append(plan.name)

    assigned = assign(combat, plan, dealers, step)
    used = {board.cid(e) for e in assigned}
    for (name, source), division in combat.now.divisions.items():
        if name == plan.name and source not in used:
            step.notes.append(f"{division.path} is not used: {source} assigns no damage here")
    deal(combat, assigned, step)
    combat.now.result.steps.append(step)  # before its state-based actions: their notes follow it
    step.died = state_based_actions(combat)
    return step


def _lethal(combat: Playing, target: int, one_is_lethal: bool) -> int:
    stats = esper.component_for_entity(target, Stats)
    marked = esper.component_for_entity(target, Damage).marked
    return lethal_damage(stats.toughness, marked, one_is_lethal)


def assign(
    combat: Playing, plan: StepPlan, dealers: list[int], step: StepResult
) -> dict[int, dict[str, int]]:
    """Each dealer's assignment of its damage (510.1), recipient id -> amount."""
    board = combat.board
    plans = _recipients(combat, plan, dealers)

    assigned: dict[int, dict[str, int]] = {}
    explicit: list[tuple[int, Division, str, str, dict[str, int]]] = []
    for a in plans:
        e, cid = a.source, board.cid(a.source)
        power = esper.component_for_entity(e, Stats).power
        lethal_by = a.one_is_lethal
        excess_kw: str | None = None
        recipients = [
            (board.cid(r), _lethal(combat, r, lethal_by is not None)) for r in a.recipients
        ]
        if a.any_split is not None:
            amounts = _split_any_way(combat, plan, a, recipients, step)
            if amounts is not None:
                assigned[e] = amounts
            continue
        if a.defender is not None:
            defender = board.pid(a.defender)
            if not esper.component_for_entity(e, Attacking).blocked:
                options, excess = {defender: 0}, defender
            else:
                excess_kw = a.player_gets_excess
                excess = defender if excess_kw else None  # type: ignore[assignment]
                options = dict(recipients)
                if excess is not None:
                    options[excess] = 0
                if not recipients and excess is None:
                    step.notes.append(
                        f"{cid} is blocked and no blocker remains: it assigns no damage (510.1c)"
                    )
                    continue
        else:
            options = dict(recipients)
            excess = None
            if not recipients:
                step.notes.append(f"{cid} blocks no attacker still in combat: it assigns no damage")
                continue
        division = combat.now.divisions.get((plan.name, cid))
        if division is not None:
            amounts = _check_division(combat, division, power, options)
            assigned[e] = amounts
            if excess is not None and excess_kw:
                lethal_needed = {rid: lethal for rid, lethal in recipients}
                explicit.append((e, division, excess_kw, excess, lethal_needed))
            step.notes.append(
                f"{cid} divides its damage as the scenario says: {amounts_text(amounts)}"
            )
            continue
        amounts = default_division(power, recipients, excess)
        assigned[e] = amounts
        if len(recipients) > 1 or (excess_kw and recipients):
            lethal_note = f" ({_explain(combat, lethal_by)})" if lethal_by else ""
            step.notes.append(
                f"{cid} assigns lethal damage in declaration order{lethal_note}: {amounts_text(amounts)}"
            )
        elif lethal_by and recipients:
            step.notes.append(
                f"{_explain(combat, lethal_by)}; any damage {cid} deals to a creature destroys it"
            )
        if excess_kw and excess is not None:
            _note_excess(combat, step, excess_kw, excess, amounts, bool(recipients))

    _check_excess(combat, step, explicit, assigned, {a.source: a for a in plans})
    return assigned


def _recipients(combat: Playing, plan: StepPlan, dealers: list[int]) -> list[Assignment]:
    """Whom each dealer may assign its damage to and how much it assigns (510.1a-c): an
    attacker its blockers still in combat (or the player it attacks, unblocked), a blocker
    the attackers it blocks still attacking; as the plugins' ``assign-damage`` systems
    change it."""
    board = combat.board
    plans: list[Assignment] = []
    for e in dealers:
        att = esper.try_component(e, Attacking)
        if att is not None:
            blockers = board.blockers_left(e, att) if att.blocked else []
            plans.append(Assignment(e, blockers, att.defender))
        else:
            blk = esper.component_for_entity(e, Blocking)
            attackers = [a for a in blk.attackers if board.attacking(a)]
            plans.append(Assignment(e, attackers, None))
        plans[-1].amount = esper.component_for_entity(e, Stats).power
    combat.run_systems("assign-damage", DamageAssignment(plan.name, plans))
    return plans


def _check_excess(
    combat: Playing,
    step: StepResult,
    explicit: list[tuple[int, Division, str, str, dict[str, int]]],
    assigned: dict[int, dict[str, int]],
    by_source: dict[int, Assignment],
) -> None:
    """The scenario's divisions that give the player excess damage (by a keyword's excess
    rule): each assigns lethal damage to its creatures first, counting what the others assign
    them in the step; else an :class:`InputError`. Noted in `step`."""
    for e, division, excess_kw, player, lethal_needed in explicit:
        others: dict[str, int] = {}
        for other, amounts in assigned.items():
            if other != e:
                lethal_one = by_source[other].one_is_lethal is not None
                for rid, n in amounts.items():
                    others[rid] = others.get(rid, 0) + n
                    if lethal_one and rid in lethal_needed and n > 0:
                        lethal_needed[rid] = 0  # any amount from it is lethal
        short = excess_shortfall(assigned[e], player, lethal_needed, others)
        if short is not None:
            raise InputError(
                combat.now.scenario.file,
                f"{division.path}.amounts",
                f"{division.source} assigns damage to {player} before assigning lethal damage "
                f"to {short}, counting damage already marked and damage other creatures "
                f"assign it in this step ({excess_kw}, {combat.reg.keywords[excess_kw].rule})",
            )
        _note_excess(combat, step, excess_kw, player, assigned[e], bool(lethal_needed))


def _split_any_way(
    combat: Playing,
    plan: StepPlan,
    a: Assignment,
    recipients: list[tuple[str, int]],
    step: StepResult,
) -> dict[str, int] | None:
    """The division of a source whose damage a system lets a player split any way among the
    creatures in its fight, none to a player (702.22j-k): the scenario's, or all to its one
    recipient; None if it assigns no damage."""
    board, sc = combat.board, combat.now.scenario
    cid = board.cid(a.source)
    keyword = a.any_split
    assert keyword is not None
    rule = combat.reg.keywords[keyword].rule
    divider = board.pid(a.divided_by) if a.divided_by is not None else None
    who = divider or board.pid(esper.component_for_entity(a.source, Controller).player)
    if not recipients:
        step.notes.append(f"{cid} has no creature left to assign damage to: it assigns none")
        return None
    options = dict(recipients)
    division = combat.now.divisions.get((plan.name, cid))
    if division is not None:
        amounts = _check_division(combat, division, a.amount, options)
        step.notes.append(
            f"{who} divides {cid}'s damage as the scenario says ({keyword}, {rule}): "
            f"{amounts_text(amounts)}"
        )
        return amounts
    if len(recipients) > 1 and a.amount > 0:
        raise InputError(
            sc.file,
            f"{sc.combat_path}.divide",
            f"{who} divides {cid}'s damage among {', '.join(options)} in the {plan.name} step "
            f"({keyword}, {rule}): give the division in {sc.combat_path}.divide",
        )
    amounts = default_division(a.amount, recipients, None)
    if amounts:
        step.notes.append(f"{cid} assigns all its damage to {recipients[0][0]} ({keyword}, {rule})")
    return amounts


def _explain(combat: Playing, keyword: str) -> str:
    """A keyword with its plain-words summary, for the readable account."""
    summary = combat.reg.keywords[keyword].summary
    return f"{keyword}: {summary}" if summary else keyword


def _note_excess(
    combat: Playing,
    step: StepResult,
    keyword: str,
    player: str,
    amounts: dict[str, int],
    blockers: bool,
) -> None:
    """Say where an attacker's excess damage went (702.19b-d)."""
    if not blockers:
        total = sum(amounts.values())
        rule = combat.reg.keywords[keyword].rule
        step.notes.append(f"{keyword}: no blocker remains, all {total} to {player} ({rule})")
    elif amounts.get(player, 0) > 0:
        step.notes.append(f"{keyword}: {amounts[player]} to {player} after lethal to every blocker")


def _check_division(
    combat: Playing, division: Division, power: int, options: dict[str, int]
) -> dict[str, int]:
    for rid in division.amounts:
        if rid not in options:
            raise InputError(
                combat.now.scenario.file,
                f"{division.path}.amounts.{rid}",
                f"{division.source} can't assign damage to {rid!r} in the {division.step} step "
                f"(it can to: {', '.join(options) or 'nobody'})",
            )
    total = sum(division.amounts.values())
    if total != max(power, 0):
        raise InputError(
            combat.now.scenario.file,
            f"{division.path}.amounts",
            f"amounts total {total}, but {division.source} has power {power} in the "
            f"{division.step} step (510.1)",
        )
    return {rid: n for rid, n in division.amounts.items() if n > 0}


def deal(combat: Playing, assigned: dict[int, dict[str, int]], step: StepResult) -> None:
    """Deal all assigned damage at once, with life gained at the same time (510.2)."""
    board = combat.board
    dealt = [
        Dealt(source, board.players.get(rid) or board.creatures[rid], rid in board.players, n)
        for source, amounts in assigned.items()
        for rid, n in amounts.items()
    ]
    event = DamageEvent(step.name, dealt)
    assigned_amounts = {id(d): d.amount for d in dealt}
    combat.run_systems("deal-damage", event)
    life_change = event.life
    for d in event.dealt:
        rid = board.pid(d.recipient) if d.to_player else board.cid(d.recipient)
        was = assigned_amounts.get(id(d), d.amount)
        if d.amount < was:  # a system prevented some of it (615)
            step.notes.append(
                f"{was - max(d.amount, 0)} of the {was} damage {board.cid(d.source)} assigns to "
                f"{rid} is prevented"
            )
        if d.amount <= 0:
            continue
        step.damage.append((board.cid(d.source), rid, d.amount))
        if d.to_player:
            if d.loses_life:
                life_change[d.recipient] = life_change.get(d.recipient, 0) - d.amount
        elif d.marked:
            esper.component_for_entity(d.recipient, Damage).marked += d.amount
    for player, source, amount in event.life_gained:
        step.life_gained.append((board.pid(player), board.cid(source), amount))
    for p, change in life_change.items():
        esper.component_for_entity(p, Player).life += change


def amounts_text(amounts: dict[str, int], signed: bool = False) -> str:
    """Amounts for the account: by recipient (``2 to bear, 1 to A``) or, `signed`, changes by
    counter kind (``+2 +1/+1, -1 shield``); ``nothing`` when there are none."""
    if not amounts:
        return "nothing"
    return ", ".join(f"{n:+d} {k}" if signed else f"{n} to {k}" for k, n in amounts.items())
