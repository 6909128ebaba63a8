"""Scenarios of the common lines of a JSON Lines file, made from the row reader's columns
(:class:`~ecs_combat.scenario.quick_rows.RowReader`): one reader of the common shape, whose
output the batched engine takes as arrays and the reference engine as :class:`Scenario`\\ s.

:meth:`QuickReader.read` gives, for each line the row reader takes, the same
:class:`Scenario` the full reader (:func:`ecs_combat.scenario.loader.parse_scenario` of the
decoded line) gives, and None for every other line: the full reader reads it, with its
messages. It never raises. Besides the row reader's checks, the plugins' scenario checks run
on each scenario, but those that say they find nothing without state keys
(``StateField.check_defaults``), which these lines never give.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ecs_combat.plugin.definitions import CARD_TYPES, COLORS
from ecs_combat.plugin.registry import Registry
from ecs_combat.scenario.model import CreatureSpec, PlayerSpec, Scenario
from ecs_combat.scenario.quick_legality import KindLegality
from ecs_combat.scenario.quick_rows import (
    LineRows,
    RowReader,
    collector_paused,
    decode_lines,
    mask_names,
    quick_checks,
    state_defaults,
)


class QuickReader:
    """Reads the common lines of JSON Lines files as scenarios, for one registry."""

    def __init__(self, registry: Registry, legality: KindLegality | None = None) -> None:
        self.registry = registry
        self.rows = RowReader(registry, legality, checked=True)
        self.player_state = state_defaults(registry, "player")
        self.creature_state = state_defaults(registry, "creature")
        self.checks = quick_checks(registry)

    def scenario(self, raw: bytes, file: str) -> Scenario | None:
        """The scenario of one line read at `file` (``FILE:LINE``), or None for the full
        reader."""
        return self.read([raw], [file])[0]

    def read(self, raws: Sequence[bytes], files: Sequence[str]) -> list[Scenario | None]:
        """The scenario of each line (its bytes, read at ``files[i]``), or None for the full
        reader."""
        with collector_paused():  # many small acyclic objects: nothing to find
            places, docs, quotes = decode_lines(raws)
            rows, taken = self.rows.read(docs, quotes)
            found = self.scenarios(rows, [files[places[k]] for k in taken])
        out: list[Scenario | None] = [None] * len(raws)
        for k, scenario in zip(taken, found, strict=True):
            if not any(check(scenario) is not None for check in self.checks):
                out[places[k]] = scenario
        return out

    def scenarios(self, rows: LineRows, files: Sequence[str]) -> list[Scenario]:
        """The scenario of each battle of `rows`, battle i read at ``files[i]``."""
        nb = rows.n_battles
        p_end = np.cumsum(np.bincount(rows.player_battle, minlength=nb)).tolist()
        c_end = np.cumsum(np.bincount(rows.battle, minlength=nb)).tolist()
        a_end = np.searchsorted(rows.battle[rows.attack_order], np.arange(1, nb + 1)).tolist()
        blockers = np.empty_like(rows.block_blocker)
        attacked = np.empty_like(rows.block_attacker)
        blockers[rows.block_order] = rows.block_blocker
        attacked[rows.block_order] = rows.block_attacker
        b_end = np.searchsorted(rows.battle[blockers], np.arange(1, nb + 1)).tolist()
        pids, cids, names = rows.player_ids, rows.creature_ids, rows.creature_names
        life, controller = rows.life.tolist(), rows.controller.tolist()
        power, toughness, damage = rows.power.tolist(), rows.toughness.tolist(), rows.damage
        colors, types, keywords = rows.colors.tolist(), rows.types.tolist(), rows.keywords
        attacking, values = rows.attacking.tolist(), rows.values
        attack_order, blockers_l, attacked_l = (
            rows.attack_order.tolist(),
            blockers.tolist(),
            attacked.tolist(),
        )
        damage_l = damage.tolist()
        pstate, cstate = self.player_state, self.creature_state
        out: list[Scenario] = []
        p0 = c0 = a0 = b0 = 0
        for b in range(nb):
            players = {
                pids[r]: PlayerSpec(pids[r], life[r], dict(pstate), ()) for r in range(p0, p_end[b])
            }
            creatures: dict[str, CreatureSpec] = {}
            for r in range(c0, c_end[b]):
                cid = cids[r]
                k = keywords[r]
                creatures[cid] = CreatureSpec(
                    id=cid,
                    name=names[r],
                    controller=pids[controller[r]],
                    power=power[r],
                    toughness=toughness[r],
                    keywords=() if k is None else k[0],
                    parameters=() if k is None else k[1],
                    counters={},
                    damage=damage_l[r],
                    colors=mask_names(colors[r], COLORS) if colors[r] else (),
                    types=mask_names(types[r], CARD_TYPES) if types[r] else (),
                    state=dict(cstate),
                    path=f"creatures.{cid}",
                    value=values.get(r),
                    targets={},
                )
            attackers = {cids[r]: pids[attacking[r]] for r in attack_order[a0 : a_end[b]]}
            blocks: dict[str, tuple[str, ...]] = {
                cids[blocker]: (cids[attacker],)
                for blocker, attacker in zip(
                    blockers_l[b0 : b_end[b]], attacked_l[b0 : b_end[b]], strict=True
                )
            }
            out.append(Scenario(files[b], players, creatures, attackers, blocks))
            p0, c0, a0, b0 = p_end[b], c_end[b], a_end[b], b_end[b]
        return out
