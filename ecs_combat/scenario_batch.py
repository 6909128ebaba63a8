"""From validated scenarios to one :class:`CombatBatch`, for the batched engine's ``resolve``.

Rows keep the reference engine's orders: players and creatures in scenario order, creatures
that enter through events after them in the order they enter, blocks grouped by attacker with
its blockers in declaration order, events by (point, file order).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ecs_combat.batch import ACTION_CODE, NO_RECIPIENT, CombatBatch
from ecs_combat.errors import RefusedError
from ecs_combat.plugins import Registry
from ecs_combat.scenario import DECLARE_BLOCKERS, CreatureSpec, Scenario

#: Keyword masks are 64-bit.
MAX_KEYWORDS = 64


def keyword_bits(names: Sequence[str]) -> dict[str, int]:
    """Bit of each keyword name in a batch's masks."""
    if len(names) > MAX_KEYWORDS:
        raise RefusedError(
            f"{len(names)} keywords are loaded; the batched engine's masks hold {MAX_KEYWORDS}"
        )
    return {name: 1 << i for i, name in enumerate(names)}


def event_points(step_names: Sequence[str]) -> dict[str, int]:
    """``event_point`` code of each point of a combat: 0 for declare-blockers, k for after the
    (k-1)-th step."""
    return {DECLARE_BLOCKERS: 0, **{f"after {s}": i + 1 for i, s in enumerate(step_names)}}


class _Builder:
    """Collects rows as Python lists, then makes the arrays."""

    def __init__(self, registry: Registry) -> None:
        self.names = tuple(registry.keywords)
        self.bits = keyword_bits(self.names)
        self.column = {name: i for i, name in enumerate(self.names)}
        self.steps = {s: i for i, s in enumerate(registry.step_names)}
        self.points = event_points(registry.step_names)
        self.cards = tuple(card.name for card in registry.cards.values())
        self.card_index = {name: i for i, name in enumerate(self.cards)}
        self.registry = registry
        # players
        self.player_battle: list[int] = []
        self.life: list[int] = []
        self.player_hat: list[bool] = []
        self.player_ids: list[str] = []
        # creatures
        self.battle: list[int] = []
        self.controller: list[int] = []
        self.power: list[int] = []
        self.toughness: list[int] = []
        self.damage: list[int] = []
        self.keywords: list[int] = []
        self.hat: list[bool] = []
        self.attacking: list[int] = []
        self.present: list[bool] = []
        self.paired: list[int] = []
        self.counters: list[tuple[int, int, int]] = []  # (row, column, count)
        self.creature_ids: list[str] = []
        self.creature_names: list[str] = []
        # blocks
        self.block_blocker: list[int] = []
        self.block_attacker: list[int] = []
        self.block_rank: list[int] = []
        # divisions
        self.div: list[tuple[int, int, int, int, int]] = []  # step, source, recipient, amount, i
        # events
        self.ev: list[tuple[int, ...]] = []
        self.ev_keywords: list[int] = []
        self.ev_counters: list[tuple[int, int, int]] = []  # (event row, column, change)
        self.files: list[str] = []

    def mask(self, names: Sequence[str]) -> int:
        out = 0
        for name in names:
            out |= self.bits[name]
        return out

    def creature(self, b: int, spec: CreatureSpec, prow: dict[str, int], present: bool) -> int:
        row = len(self.battle)
        self.battle.append(b)
        self.controller.append(prow[spec.controller])
        self.power.append(spec.power)
        self.toughness.append(spec.toughness)
        self.damage.append(spec.damage)
        self.keywords.append(self.mask(spec.keywords))  # below 2**64: at most 64 bits
        self.hat.append(spec.hat)
        self.attacking.append(-1)
        self.present.append(present)
        self.paired.append(-1)
        self.creature_ids.append(spec.id)
        self.creature_names.append(spec.name)
        for kw, count in spec.counters.items():
            self.counters.append((row, self.column[kw], count))
        return row

    def add(self, b: int, sc: Scenario) -> None:
        self.files.append(sc.file)
        prow: dict[str, int] = {}
        for p in sc.players.values():
            prow[p.id] = len(self.player_battle)
            self.player_battle.append(b)
            self.life.append(p.life)
            self.player_hat.append(p.hat)
            self.player_ids.append(p.id)

        crow: dict[str, int] = {}
        for spec in sc.creatures.values():
            crow[spec.id] = self.creature(b, spec, prow, True)
        events = sorted(sc.events, key=lambda e: (self.points[e.at], e.index))
        for ev in events:
            if ev.creature is not None:
                crow[ev.creature.id] = self.creature(b, ev.creature, prow, False)
        for spec in sc.creatures.values():
            if spec.paired_with is not None:
                self.paired[crow[spec.id]] = crow[spec.paired_with]
        for cid, defender in sc.attackers.items():
            self.attacking[crow[cid]] = prow[defender]

        for attacker in sc.attackers:
            for blocker in sc.blockers_of(attacker):
                self.block_blocker.append(crow[blocker])
                self.block_attacker.append(crow[attacker])
                self.block_rank.append(sc.blockers[blocker].index(attacker))

        for i, d in enumerate(sc.divisions):
            step, source = self.steps[d.step], crow[d.source]
            if not d.amounts:
                self.div.append((step, source, NO_RECIPIENT, 0, i))
            for rid, amount in d.amounts.items():
                recipient = -1 - prow[rid] if rid in prow else crow[rid]
                self.div.append((step, source, recipient, amount, i))

        for ev in events:
            row = len(self.ev)
            target, player, card = -1, -1, -1
            if ev.action == "enter":
                assert ev.creature is not None and ev.attacking is not None
                target, player = crow[ev.creature.id], prow[ev.attacking]
            elif ev.target is not None:
                target = -1 - prow[ev.target] if ev.target in prow else crow[ev.target]
            if ev.action == "cast":
                assert ev.card is not None and ev.caster is not None
                player, card = prow[ev.caster], self.card_index[ev.card]
            for kw, change in ev.counters.items():
                self.ev_counters.append((row, self.column[kw], change))
            self.ev.append(
                (
                    b,
                    self.points[ev.at],
                    ACTION_CODE[ev.action],
                    target,
                    ev.power,
                    ev.toughness,
                    ev.amount,
                    player,
                    card,
                    ev.index,
                )
            )
            self.ev_keywords.append(self.mask(ev.keywords))

    def batch(self, n_battles: int) -> CombatBatch:
        i64 = np.int64
        k = len(self.names)
        counters = None
        if self.counters:
            counters = np.zeros((len(self.battle), k), i64)
            for row, col, n in self.counters:
                counters[row, col] = n
        ev = np.asarray(self.ev, i64).reshape(-1, 10)
        event_counters = None
        if self.ev_counters:
            event_counters = np.zeros((len(self.ev), k), i64)
            for row, col, n in self.ev_counters:
                event_counters[row, col] = n
        div = np.asarray(self.div, i64).reshape(-1, 5)
        paired = np.asarray(self.paired, i64)
        return CombatBatch(
            n_battles=n_battles,
            keyword_names=self.names,
            player_battle=np.asarray(self.player_battle, i64),
            life=np.asarray(self.life, i64),
            player_hat=np.asarray(self.player_hat, np.bool_),
            battle=np.asarray(self.battle, i64),
            controller=np.asarray(self.controller, i64),
            power=np.asarray(self.power, i64),
            toughness=np.asarray(self.toughness, i64),
            damage=np.asarray(self.damage, i64),
            keywords=np.asarray(self.keywords, np.uint64),
            hat=np.asarray(self.hat, np.bool_),
            attacking=np.asarray(self.attacking, i64),
            present=np.asarray(self.present, np.bool_),
            block_blocker=np.asarray(self.block_blocker, i64),
            block_attacker=np.asarray(self.block_attacker, i64),
            block_rank=np.asarray(self.block_rank, i64),
            counters=counters,
            paired_with=paired if (paired >= 0).any() else None,
            division_step=div[:, 0].copy(),
            division_source=div[:, 1].copy(),
            division_recipient=div[:, 2].copy(),
            division_amount=div[:, 3].copy(),
            division_index=div[:, 4].copy(),
            event_battle=ev[:, 0].copy(),
            event_point=ev[:, 1].copy(),
            event_action=ev[:, 2].copy(),
            event_target=ev[:, 3].copy(),
            event_keywords=np.asarray(self.ev_keywords, np.uint64),
            event_counters=event_counters,
            event_power=ev[:, 4].copy(),
            event_toughness=ev[:, 5].copy(),
            event_amount=ev[:, 6].copy(),
            event_player=ev[:, 7].copy(),
            event_card=ev[:, 8].copy(),
            event_index=ev[:, 9].copy(),
            card_names=self.cards,
            creature_ids=self.creature_ids,
            creature_names=self.creature_names,
            player_ids=self.player_ids,
            battle_files=self.files,
        )


def scenarios_to_batch(scenarios: Sequence[Scenario], registry: Registry) -> CombatBatch:
    """One batch holding every scenario, battle ``i`` being ``scenarios[i]``."""
    builder = _Builder(registry)
    for b, sc in enumerate(scenarios):
        builder.add(b, sc)
    return builder.batch(len(scenarios))
