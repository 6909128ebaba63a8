"""The rows of one :class:`CombatBatch` collected from validated scenarios as Python lists
(:class:`BatchBuilder`), scenario by scenario or (:mod:`.columns`) column by column; made into
arrays by :mod:`.builder_arrays`.

Rows keep the reference engine's orders: players and creatures in scenario order, the token
copies attack triggers may make (as attackers are declared), creatures that enter through
events after them in the order they enter, blocks grouped by attacker with
its blockers in declaration order, events by (point, file order).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from ecs_combat.batched.arrays import NO_RECIPIENT, action_names
from ecs_combat.errors import RefusedError
from ecs_combat.plugin.definitions import FROM_WORDS, color_mask, land_mask, token_id, type_mask
from ecs_combat.plugin.registry import Registry
from ecs_combat.scenario.events import DECLARE_BLOCKERS
from ecs_combat.scenario.instances import Parameter
from ecs_combat.scenario.model import CreatureSpec, Event, PlayerSpec, Scenario
from ecs_combat.scenario.tokens import reserved_tokens, token_copy

#: Keyword masks are 64-bit.
MAX_KEYWORDS = 64


def keyword_bits(names: Sequence[str]) -> dict[str, int]:
    """Bit of each keyword name in a batch's masks."""
    if len(names) > MAX_KEYWORDS:
        raise RefusedError(
            f"the batch uses {len(names)} different keywords; the batched engine's masks hold "
            f"{MAX_KEYWORDS}: resolve fewer scenarios at once"
        )
    return {name: 1 << i for i, name in enumerate(names)}


def event_points(step_names: Sequence[str]) -> dict[str, int]:
    """``event_point`` code of each point of a combat: 0 for declare-blockers, k for after the
    (k-1)-th step."""
    return {DECLARE_BLOCKERS: 0, **{f"after {s}": i + 1 for i, s in enumerate(step_names)}}


class BatchBuilder:
    """Collects rows as Python lists, then makes the arrays: many scenarios at once column by
    column (:func:`ecs_combat.batched.columns.add_scenarios`), or player by player and creature
    by creature (turns); :mod:`.builder_arrays` makes the arrays."""

    def __init__(self, registry: Registry, names: tuple[str, ...]) -> None:
        self.names = names
        self.bits = keyword_bits(self.names)
        self.counter_names = (*names, *registry.counter_kinds)
        self.action_code = {a: i for i, a in enumerate(action_names(list(registry.event_actions)))}
        self.column = {name: i for i, name in enumerate(self.counter_names)}
        self.creature_fields = registry.state_fields("creature")
        self.player_fields = registry.state_fields("player")
        self.creature_state: dict[str, list[Any]] = {k: [] for k in self.creature_fields}
        self.player_state: dict[str, list[Any]] = {k: [] for k in self.player_fields}
        self.colors: list[int] = []
        self.types: list[int] = []
        self.lands: list[int] = []
        self.instances: list[tuple[int, int, int]] = []  # (row, bit index, parameter)
        self.aims: list[tuple[int, int, int, int]] = []  # (source, bit index, instance, target)
        self.ev_instances: list[tuple[int, int, int]] = []  # (event row, bit index, parameter)
        self.sacrifices: list[tuple[int, int]] = []  # (player row, creature row)
        self.values: list[tuple[int, int]] = []  # (creature row, value)
        self.tokens: list[tuple[int, int, int]] = []  # (source row, player row, token row)
        self.steps = {s: i for i, s in enumerate(registry.step_names)}
        self.points = event_points(registry.step_names)
        self.cards = tuple(card.name for card in registry.spells())
        self.card_index = {name: i for i, name in enumerate(self.cards)}
        self.registry = registry
        # players
        self.player_battle: list[int] = []
        self.life: list[int] = []
        self.player_ids: list[str] = []
        # creatures
        self.battle: list[int] = []
        self.controller: list[int] = []
        self.power: list[int] = []
        self.toughness: list[int] = []
        self.damage: list[int] = []
        self.keywords: list[int] = []
        self.attacking: list[int] = []
        self.band: list[tuple[int, int]] = []  # (row, first row of its band)
        self.present: list[bool] = []
        self.tapped: list[bool] = []
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
        self.ev_tokens: list[int] = []
        self.ev_counters: list[tuple[int, int, int]] = []  # (event row, column, change)
        self.files: list[str] = []

    def instance_rows(
        self, row: int, names: Sequence[str], parameters: Sequence[Parameter]
    ) -> list[tuple[int, int, int]]:
        """Instance rows (row, bit index, parameter code) of some keyword instances."""
        out = []
        for name, p in zip(names, parameters, strict=True):
            code = -1 if p is None else FROM_WORDS.index(p) if isinstance(p, str) else p
            out.append((row, self.bits[name].bit_length() - 1, code))
        return out

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
        self.colors.append(color_mask(spec.colors))
        self.types.append(type_mask(spec.types))
        self.present.append(present)
        self.tapped.append(spec.tapped)
        for key, value in spec.state.items():
            self.creature_state[key].append(value)  # creature ids: rows, once all are known
        self.instances.extend(self.instance_rows(row, spec.keywords, spec.parameters))
        self.creature_ids.append(spec.id)
        self.creature_names.append(spec.name)
        for kw, count in spec.counters.items():
            self.counters.append((row, self.column[kw], count))
        return row

    def add(self, b: int, sc: Scenario) -> None:
        self.files.append(sc.file)
        prow = self.add_players(b, sc.players.values())
        crow: dict[str, int] = {}
        for spec in sc.creatures.values():
            crow[spec.id] = self.creature(b, spec, prow, True)
        # the reference engine's order: tokens made as attackers are declared (myriad's),
        # then the creatures events bring
        pairs = reserved_tokens(sc, self.registry)
        for spec in self.reserved(sc, pairs):
            crow[spec.id] = self.creature(b, spec, prow, False)
        for spec in self.entering(sc):
            crow[spec.id] = self.creature(b, spec, prow, False)
        self.add_tokens(pairs, prow, crow)
        self.resolve_references(crow)
        self.add_targets(sc.creatures.values(), crow)
        self.add_combat(b, sc, prow, crow)

    def add_choices(self, sc: Scenario, prow: dict[str, int], crow: dict[str, int]) -> None:
        """A scenario's ``sacrifices``, by player in turn order, and its creatures' ``value``
        keys, as rows (once every row is known)."""
        for pid in sc.players:
            for cid in sc.sacrifices.get(pid, ()):
                self.sacrifices.append((prow[pid], crow[cid]))
        for spec in sc.creatures.values():
            if spec.value is not None:
                self.values.append((crow[spec.id], spec.value))

    def add_targets(self, specs: Iterable[CreatureSpec], crow: dict[str, int]) -> None:
        """The targets the creatures' ``targets`` key gives their keywords, as rows (once
        every row is known)."""
        for spec in specs:
            for keyword, ids in spec.targets.items():
                bit = self.bits[keyword].bit_length() - 1
                for i, tid in enumerate(ids):
                    self.aims.append((crow[spec.id], bit, i, crow[tid]))

    def add_players(self, b: int, players: Iterable[PlayerSpec]) -> dict[str, int]:
        """Rows of a battle's players, in turn order; their rows by id."""
        prow: dict[str, int] = {}
        for p in players:
            prow[p.id] = len(self.player_battle)
            self.player_battle.append(b)
            self.life.append(p.life)
            self.lands.append(land_mask(p.lands))
            for key, value in p.state.items():
                self.player_state[key].append(value)
            self.player_ids.append(p.id)
        return prow

    def reserved(self, sc: Scenario, pairs: list[tuple[str, str]]) -> list[CreatureSpec]:
        """The token copies a scenario's creatures may create (``Keyword.tokens``), for the
        (source, player) `pairs` of :func:`reserved_tokens`: rows not on the battlefield until
        ``create_token`` puts them there."""
        return [token_copy(sc.creatures[source], player, self.registry) for source, player in pairs]

    def add_tokens(
        self, pairs: list[tuple[str, str]], prow: dict[str, int], crow: dict[str, int]
    ) -> None:
        """The reserved token rows by (source row, player row), once every row is known."""
        for source, player in pairs:
            self.tokens.append((crow[source], prow[player], crow[token_id(source, player)]))

    def entering(self, sc: Scenario) -> list[CreatureSpec]:
        """The creatures a scenario's `enter` events bring, in the order they would enter."""
        return [ev.creature for ev in self.sorted_events(sc) if ev.creature is not None]

    def sorted_events(self, sc: Scenario) -> list[Event]:
        """A scenario's events by (point, file order)."""
        return sorted(sc.events, key=lambda e: (self.points[e.at], e.index))

    def resolve_references(self, crow: dict[str, int]) -> None:
        """Creature references in the plugins' state of some rows: ids to rows (-1 for none)."""
        for key, f in self.creature_fields.items():
            if f.kind == "creature":
                column = self.creature_state[key]
                for row in crow.values():
                    value = column[row]
                    if value is None or isinstance(value, str):
                        column[row] = -1 if value is None else crow[value]

    def add_combat(self, b: int, sc: Scenario, prow: dict[str, int], crow: dict[str, int]) -> None:
        """A scenario's attackers, blocks, divisions, events, sacrifices and values, on rows
        already made."""
        self.add_choices(sc, prow, crow)
        self.attacking.extend([-1] * (len(self.battle) - len(self.attacking)))
        for cid, defender in sc.attackers.items():
            self.attacking[crow[cid]] = prow[defender]
        self.add_bands(sc, crow)

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

        for ev in self.sorted_events(sc):
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
            self.ev_instances.extend(self.instance_rows(row, ev.keywords, ev.parameters))
            self.ev.append(
                (
                    b,
                    self.points[ev.at],
                    self.action_code[ev.action],
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
            self.ev_tokens.append(-1 if ev.token is None else crow[ev.token])

    def add_bands(self, sc: Scenario, crow: dict[str, int]) -> None:
        """A scenario's ``combat.bands``: each member's first member, by rows."""
        for band in sc.bands:
            first = crow[band[0]]
            self.band += [(crow[cid], first) for cid in band]
