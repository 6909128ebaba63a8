"""Bulk turns: a SPEC whose `[turn]` table gives each battle a whole turn with several combat
phases (RULES.md section 8), drawn and resolved as arrays.

The attacking player (A) has the turn. `turn.creatures` adds creature cards of the card
library to every battle, for either player; they stay home in the first combat phase and, with
`turn.casts`, decide the turn's phases once per SPEC (:func:`ecs_combat.rules.turn_schedule.schedule`).
Each later combat phase declares from drawn intentions as it begins (:class:`DrawnPhase`):
each creature of its attacking player that may attack does with the phase's `attack`
probability (in a phase only some creatures may attack, only those), each creature of the
other player that may block does with its `block` probability, blocking one of the phase's
attackers drawn uniformly, if the rules allow it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from ecs_combat.batched import NO_TARGET, CombatBatch, DrawnPhase, IntArray, MainCasts, TurnBatch
from ecs_combat.plugin.definitions import Card
from ecs_combat.plugin.phases import COMBAT, CastInMain, Phase
from ecs_combat.plugin.registry import Registry
from ecs_combat.rules.turn_schedule import schedule
from ecs_combat.scenario.model import CreatureSpec
from ecs_combat.suggest import did_you_mean

if TYPE_CHECKING:
    from ecs_combat.simulation.spec_reader import SpecReader

#: The two players of a SPEC battle as a turn sees them: the attacking player has the turn.
SIDES = ("attacking player", "defending player")
PLAYER_IDS = ("A", "B")
#: Default chances in a combat phase after the first.
ATTACK_CHANCE = 1.0
BLOCK_CHANCE = 0.5
MAX_TURN_CREATURES = 8
MAX_TURN_CASTS = 8

Array = Any


@dataclass(frozen=True)
class TurnCreature:
    """A creature card every battle has besides the drawn creatures."""

    card: str
    #: "attacking player" or "defending player".
    controller: str


@dataclass(frozen=True)
class TurnCast:
    """A spell cast in a main phase of every battle's turn."""

    card: str
    caster: str
    main: int


@dataclass(frozen=True)
class PhaseChances:
    """How creatures declare in one combat phase after the first."""

    attack: float = ATTACK_CHANCE
    block: float = BLOCK_CHANCE


@dataclass(frozen=True)
class TurnSpec:
    """The `[turn]` table of a SPEC."""

    creatures: tuple[TurnCreature, ...] = ()
    casts: tuple[TurnCast, ...] = ()
    #: The combat phases after the first, in order (missing ones take the defaults).
    combats: tuple[PhaseChances, ...] = ()
    #: Each combat phase after the first of the turn's schedule: its attacking player ("attacking
    #: player" or "defending player") and how many of the turn's creatures are the only ones
    #: that may attack in it, or None: any creature of that player.
    later: tuple[tuple[str, int | None], ...] = ()

    def describe(self) -> dict[str, Any]:
        """The turn as JSON data (part of a summary)."""
        return {
            "creatures": [{"card": c.card, "controller": c.controller} for c in self.creatures],
            "casts": [{"card": c.card, "caster": c.caster, "main": c.main} for c in self.casts],
            "combats": [{"attack": c.attack, "block": c.block} for c in self.combats],
        }

    def creature_ids(self) -> list[str]:
        """Ids of the turn's creatures in a battle: ``turn1``, ``turn2``, ..."""
        return [f"turn{i + 1}" for i in range(len(self.creatures))]

    def creature_specs(self, registry: Registry) -> dict[str, CreatureSpec]:
        """The turn's creatures as a scenario would have them, by id."""
        out = {}
        for cid, c in zip(self.creature_ids(), self.creatures, strict=True):
            card = registry.card(c.card)
            assert card is not None  # checked when the SPEC was read
            out[cid] = CreatureSpec(
                id=cid,
                name=card.name,
                controller=PLAYER_IDS[SIDES.index(c.controller)],
                power=card.power or 0,
                toughness=card.toughness or 0,
                keywords=tuple(card.printed),
                parameters=(None,) * len(card.printed),
                card=card.name,
            )
        return out

    def phases(self, registry: Registry) -> list[Phase]:
        """The turn's phases (the same in every battle)."""
        casts = [CastInMain(c.card, PLAYER_IDS[SIDES.index(c.caster)], c.main) for c in self.casts]
        return schedule(
            PLAYER_IDS, PLAYER_IDS[0], self.creature_specs(registry), casts, registry.phase_rules
        )


def parse_turn(reader: SpecReader, raw: Any) -> TurnSpec:
    """Validate a SPEC's `[turn]` table."""
    registry = reader.registry
    t = reader.table(raw, "turn")
    reader.keys(t, "turn", frozenset({"creatures", "casts", "combats"}))
    creatures = []
    for i, item in enumerate(_list(reader, t.get("creatures", []), "turn.creatures")):
        path = f"turn.creatures[{i}]"
        c = reader.table(item, path)
        reader.keys(c, path, frozenset({"card", "controller"}))
        card = _card(reader, c.get("card"), f"{path}.card", creature=True)
        creatures.append(TurnCreature(card.name, _side(reader, c, path, "controller")))
    if len(creatures) > MAX_TURN_CREATURES:
        raise reader.fail("turn.creatures", f"at most {MAX_TURN_CREATURES} creatures")
    casts = []
    for i, item in enumerate(_list(reader, t.get("casts", []), "turn.casts")):
        path = f"turn.casts[{i}]"
        c = reader.table(item, path)
        reader.keys(c, path, frozenset({"card", "caster", "main"}))
        card = _card(reader, c.get("card"), f"{path}.card", creature=False)
        if card.target.kind != "none":
            raise reader.fail(
                f"{path}.card",
                f"{card.name} needs a target; bulk turns cast only spells without one",
            )
        main = reader.integer(c.get("main", 1), f"{path}.main", 1, 64)
        casts.append(TurnCast(card.name, _side(reader, c, path, "caster"), main))
    if len(casts) > MAX_TURN_CASTS:
        raise reader.fail("turn.casts", f"at most {MAX_TURN_CASTS} casts")
    combats = []
    for i, item in enumerate(_list(reader, t.get("combats", []), "turn.combats")):
        path = f"turn.combats[{i}]"
        c = reader.table(item, path)
        reader.keys(c, path, frozenset({"attack", "block"}))
        combats.append(
            PhaseChances(
                reader.probability(c.get("attack", ATTACK_CHANCE), f"{path}.attack"),
                reader.probability(c.get("block", BLOCK_CHANCE), f"{path}.block"),
            )
        )
    spec = TurnSpec(tuple(creatures), tuple(casts), tuple(combats))
    phases = spec.phases(registry)
    mains = sum(1 for p in phases if p.kind != COMBAT)
    for i, cast in enumerate(spec.casts):
        if cast.main > mains:
            raise reader.fail(
                f"turn.casts[{i}].main", f"the turn has {mains} main phases, not {cast.main}"
            )
    after_first = [p for p in phases if p.kind == COMBAT][1:]
    spec = replace(
        spec,
        later=tuple(
            (
                SIDES[PLAYER_IDS.index(p.player)],
                None if p.only_attackers is None else len(p.only_attackers),
            )
            for p in after_first
        ),
    )
    later = len(after_first)
    if len(spec.combats) > later:
        shown = ", ".join(f"{p.kind} {p.player} ({p.created_by})" for p in phases)
        raise reader.fail(
            "turn.combats",
            f"{len(spec.combats)} entries, but the turn has {later} combat phases after the "
            f"first (phases: {shown})",
        )
    return spec


def _list(reader: SpecReader, value: Any, path: str) -> list[Any]:
    if not isinstance(value, list):
        raise reader.fail(path, "must be a list of tables")
    return value


def _side(reader: SpecReader, table: dict[str, Any], path: str, key: str) -> str:
    value = table.get(key)
    if value not in SIDES:
        shown = repr(value) if isinstance(value, str) else "missing"
        raise reader.fail(f"{path}.{key}", f"must be {SIDES[0]!r} or {SIDES[1]!r}, not {shown}")
    return str(value)


def _card(reader: SpecReader, name: Any, path: str, creature: bool) -> Card:
    if not isinstance(name, str) or not name.strip():
        raise reader.fail(path, "must be a card name")
    registry = reader.registry
    found = registry.card(name)
    wanted = [c for c in registry.library() if isinstance(c, Card) and c.is_creature == creature]
    if found is None or found.is_creature != creature:
        names = [c.name for c in wanted]
        what = "creature card" if creature else "spell"
        raise reader.fail(
            path,
            f"no {what} {name!r} in the card library (loaded: {', '.join(names) or 'none'})"
            f"{did_you_mean(name, names)}",
        )
    for kw in sorted(found.keywords | set(found.printed)):
        if registry.keyword(kw) is None:
            raise reader.fail(path, f"{found.name} needs {registry.unknown_keyword_reason(kw)}")
    return found


def turn_keywords(turn: TurnSpec, registry: Registry) -> set[str]:
    """Keywords the turn's creatures and spells bring."""
    used: set[str] = set()
    for c in turn.creatures:
        card = registry.card(c.card)
        if card is not None:
            used |= set(card.printed)
    for s in turn.casts:
        card = registry.card(s.card)
        if card is not None:
            used |= card.keywords
    return used


class TurnPlan:
    """What every battle's turn has: its phases, computed once per SPEC, as arrays."""

    def __init__(self, turn: TurnSpec, registry: Registry, bits: dict[str, np.uint64]) -> None:
        self.turn = turn
        self.phases = turn.phases(registry)
        specs = turn.creature_specs(registry)
        self.ids = list(specs)
        self.side = np.array([SIDES.index(c.controller) for c in turn.creatures], np.int8)
        self.power = np.array([s.power for s in specs.values()], np.int16)
        self.toughness = np.array([s.toughness for s in specs.values()], np.int16)
        masks = [np.uint64(0)] * len(specs)
        for i, s in enumerate(specs.values()):
            for kw in s.keywords:
                masks[i] |= bits.get(kw, np.uint64(0))
        self.keywords = np.array(masks, np.uint64)
        self.names = [s.name[:6].encode() for s in specs.values()]
        combats = [p for p in self.phases if p.kind == COMBAT]
        self.combat_side = [PLAYER_IDS.index(p.player) for p in combats]
        # each combat phase's index among the combat phases, by its place in the schedule
        place = {
            i: n for n, i in enumerate(i for i, p in enumerate(self.phases) if p.kind == COMBAT)
        }
        #: Per combat phase: the combat phase it was added directly after, or -1; and the
        #: turn creature whose ability adds it, or -1 (a Throat Wolf's).
        self.parent = [place.get(p.follows, -1) for p in combats]
        self.source = [-1 if p.source is None else self.ids.index(p.source) for p in combats]
        self.only = [
            None if p.only_attackers is None else [self.ids.index(c) for c in p.only_attackers]
            for p in combats
        ]
        self.chances = [
            turn.combats[k] if k < len(turn.combats) else PhaseChances()
            for k in range(len(combats) - 1)
        ]
        main = 0
        self.casts_before: list[list[TurnCast]] = [[]]
        for p in self.phases:
            if p.kind == COMBAT:
                self.casts_before.append([])
            else:
                main += 1
                self.casts_before[-1].extend(c for c in turn.casts if c.main == main)
        self.card_names = tuple(dict.fromkeys(c.card for c in turn.casts))

    @property
    def n_extra(self) -> int:
        """Creatures the turn adds to each battle."""
        return len(self.ids)

    def insert(self, cols: dict[str, Array], counts: IntArray) -> None:
        """Put the turn's creatures at the end of each battle's rows (in place)."""
        m = self.n_extra
        if not m:
            return
        n = counts.shape[0]
        at = np.repeat(np.cumsum(counts), m)
        values: dict[str, Array] = {
            "role": np.tile(self.side, n),
            "assigned": np.full(n * m, -1, np.int64),
            "power": np.tile(self.power, n),
            "toughness": np.tile(self.toughness, n),
            "keywords": np.tile(self.keywords, n),
            "home": np.ones(n * m, np.bool_),
        }
        rows = int(counts.sum())
        cols.setdefault("keywords", np.zeros(rows, np.uint64))
        cols["home"] = np.zeros(rows, np.bool_)
        for key, col in list(cols.items()):
            if key in values:
                add = values[key].astype(col.dtype)
            elif key == "name":
                add = np.tile(np.array(self.names, col.dtype), n)
            else:
                add = np.zeros(n * m, col.dtype)
            cols[key] = np.insert(col, at, add)

    def draw(self, rng: np.random.Generator, rows: int) -> dict[str, Array]:
        """Each later phase's intentions, per creature row."""
        out: dict[str, Array] = {}
        for k, chances in enumerate(self.chances):
            u = rng.random((3, rows), dtype=np.float32)
            out[f"attack{k}"] = u[0] < np.float32(chances.attack)
            out[f"block{k}"] = u[1] < np.float32(chances.block)
            out[f"choice{k}"] = u[2]
        return out

    def build(self, first: CombatBatch, cols: dict[str, Array], counts: IntArray) -> TurnBatch:
        """The turns of the drawn battles: the first combat's batch and the later phases."""
        n = counts.shape[0]
        start = np.zeros(n, np.int64)
        np.cumsum(counts[:-1], out=start[1:])
        extra0 = start + counts - self.n_extra
        battles = np.arange(n, dtype=np.int64)
        names = first.card_names + tuple(c for c in self.card_names if c not in first.card_names)
        first.card_names = names
        players = [2 * battles + side for side in self.combat_side]
        later: list[CombatBatch | DrawnPhase] = []
        rows = int(counts.sum())
        for k in range(len(self.chances)):
            only = self.only[k + 1]
            may = None
            if only is not None:
                may = np.zeros(rows, np.bool_)
                for j in only:
                    may[extra0 + j] = True
            later.append(
                DrawnPhase(
                    player=players[k + 1],
                    attack=cols[f"attack{k}"],
                    block=cols[f"block{k}"],
                    choice=cols[f"choice{k}"],
                    only=may,
                )
            )
        casts = []
        for group in self.casts_before[: len(players)]:
            per = [
                (names.index(c.card), SIDES.index(c.caster)) for c in group
            ]  # the same in every battle
            m = len(per)
            card = np.tile(np.array([p[0] for p in per], np.int64), n)
            caster = 2 * np.repeat(battles, m) + np.tile(np.array([p[1] for p in per], np.int64), n)
            casts.append(
                MainCasts(
                    battle=np.repeat(battles, m),
                    card=card,
                    caster=caster,
                    target=np.full(n * m, NO_TARGET, np.int64),
                    token=np.full(n * m, -1, np.int64),
                )
            )
        parent = [np.full(n, j, np.int64) for j in self.parent]
        source = [np.where(j >= 0, extra0 + j, -1).astype(np.int64) for j in self.source]
        return TurnBatch(first, later, players, casts, parent=parent, source=source)
