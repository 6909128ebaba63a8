"""The common lines of a JSON Lines file read straight into columns, many lines at once, with
no :class:`Scenario` for each: what ``resolve FILE.jsonl --engine batched`` makes its batches
of.

:meth:`RowReader.read` takes the lines the quick reader (:mod:`.quick`) takes, and no others:
players with at most ``life``, creatures with at most a name, controller, power, toughness,
keywords, damage (not lethal), colors and types (each once, in the order the format lists
them), a value, and ``tapped`` and ``summoning_sick`` false; attackers, each blocker blocking
one attacker; checked as the quick reader checks them (the text, the quotes, the legality of
the attacks and blocks with :class:`~ecs_combat.scenario.quick_legality.KindLegality`). It never
raises: a line it does not take is left to the quick reader and the full reader.

Each line is a few dictionary look-ups and appends to the columns of all the lines; what can
be checked over all the lines at once is (:func:`_numbers`): that every number is an integer
in range, every life above 0, every toughness above 0 with damage below it, every id more than
spaces. Lines that fail it are dropped and the others read again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ecs_combat.plugin.definitions import CARD_TYPES, COLORS, color_mask, type_mask
from ecs_combat.plugin.registry import Registry
from ecs_combat.scenario.checks import LIMIT
from ecs_combat.scenario.instances import Parameter, parse_instance
from ecs_combat.scenario.quick import quick_checks
from ecs_combat.scenario.quick_legality import Kind, KindLegality

IntArray = npt.NDArray[np.int64]
I64 = np.int64

_TOP = frozenset({"players", "creatures", "combat"})
_CREATURE = frozenset(
    {"name", "controller", "power", "toughness", "keywords", "damage", "colors", "types", "value"}
    | {"tapped", "summoning_sick"}
)
_COMBAT = frozenset({"attackers", "blockers"})
_EMPTY: dict[str, Any] = {}

#: A creature's keyword instances: their names and parameters.
Keywords = tuple[tuple[str, ...], tuple[Parameter, ...]]
_NO_KEYWORDS: Keywords = ((), ())


@dataclass
class LineRows:
    """The rows of the lines :meth:`RowReader.read` took, battle i being the i-th: players and
    creatures in each line's order; rows are numbered from 0 over all the lines."""

    n_battles: int
    player_battle: IntArray
    player_ids: list[str]
    life: IntArray
    battle: IntArray
    creature_ids: list[str]
    creature_names: list[str]
    controller: IntArray  #: player row
    power: IntArray
    toughness: IntArray
    damage: IntArray
    #: Each creature's keyword instances, or None for none.
    keywords: list[Keywords | None]
    colors: IntArray
    types: IntArray
    attacking: IntArray  #: the player row it attacks, or -1
    #: Blocks grouped by attacker in attack order, each attacker's blockers in declaration
    #: order: creature rows.
    block_blocker: IntArray
    block_attacker: IntArray


class _Unusual(Exception):
    """The line is not of the common shape."""


class _Columns:
    """The rows of the lines read so far, as lists (rows numbered over all the lines)."""

    def __init__(self) -> None:
        self.n_players: list[int] = []
        self.n_creatures: list[int] = []
        self.player_ids: list[str] = []
        self.life: list[Any] = []
        self.creature_ids: list[str] = []
        self.creature_names: list[str] = []
        self.controller: list[int] = []
        self.power: list[Any] = []
        self.toughness: list[Any] = []
        self.damage: list[Any] = []
        self.keywords: list[Keywords | None] = []
        self.colors: list[int] = []
        self.types: list[int] = []
        self.attacking: list[int] = []
        #: Blocks in declaration order: (attacker's place among every line's attackers,
        #: blocker row, attacker row).
        self.blocks: list[tuple[int, int, int]] = []
        self.n_attackers = 0

    def cut(self, n_lines: int, n_players: int, n_creatures: int, n_blocks: int) -> None:
        """Drop the rows of a line that turned out unusual."""
        del self.n_players[n_lines:], self.n_creatures[n_lines:]
        del self.player_ids[n_players:], self.life[n_players:]
        for column in (self.creature_ids, self.creature_names, self.controller, self.power):
            del column[n_creatures:]
        for column in (self.toughness, self.damage, self.keywords, self.colors, self.types):
            del column[n_creatures:]
        del self.attacking[n_creatures:], self.blocks[n_blocks:]


class RowReader:
    """Reads the common lines of JSON Lines files into :class:`LineRows` for one registry."""

    def __init__(self, registry: Registry, legality: KindLegality | None = None) -> None:
        self.registry = registry
        self.legality = legality or KindLegality(registry)
        #: Whether any line can be read here: not with a plugin's scenario check that a line
        #: without state keys still needs, nor with a creature reference given by default.
        self.usable = not quick_checks(registry) and all(
            f.kind != "creature" or f.default is None
            for f in registry.state_fields("creature").values()
        )
        self.keyword_lists: dict[tuple[Any, ...], Keywords | None] = {}
        self.color_lists: dict[tuple[Any, ...], int | None] = {}
        self.type_lists: dict[tuple[Any, ...], int | None] = {}

    def read(self, docs: Sequence[Any], quotes: Sequence[int]) -> tuple[LineRows, list[int]]:
        """The rows of the lines of the common shape among some, and which lines those are
        (their places in `docs`). Each line is its document as orjson decodes ASCII text
        without a backslash or DEL, and how many double quotes the text holds."""
        places = list(range(len(docs))) if self.usable else []
        while True:
            columns, taken = self._read([docs[i] for i in places], [quotes[i] for i in places])
            rows, bad = _numbers(columns)
            places = [places[i] for i in taken]
            if rows is not None:
                return rows, places
            places = [p for k, p in enumerate(places) if k not in bad]

    def _read(self, docs: list[Any], quotes: list[int]) -> tuple[_Columns, list[int]]:
        """The columns of the lines of the common shape, and their places in `docs` (their
        numbers not checked yet)."""
        c = _Columns()
        taken: list[int] = []
        n_players, n_creatures, player_ids, creature_ids = (
            c.n_players,
            c.n_creatures,
            c.player_ids,
            c.creature_ids,
        )
        life, controller, power, toughness = c.life, c.controller, c.power, c.toughness
        damage, keywords, colors, types = c.damage, c.keywords, c.colors, c.types
        names, attacking, blocks = c.creature_names, c.attacking, c.blocks
        top, combat_keys, empty = _TOP, _COMBAT, _EMPTY
        for k, doc in enumerate(docs):
            b, p0, c0, k0 = len(n_players), len(player_ids), len(power), len(blocks)
            try:
                if type(doc) is not dict or not top.issuperset(doc):
                    continue
                players = doc["players"]
                creatures = doc.get("creatures", empty)
                combat = doc.get("combat", empty)
                if type(players) is not dict or type(creatures) is not dict:
                    continue
                if type(combat) is not dict or not combat_keys.issuperset(combat):
                    continue
                attackers = combat.get("attackers", empty)
                blockers = combat.get("blockers", empty)
                if type(attackers) is not dict or type(blockers) is not dict or len(players) < 2:
                    continue
                strings = len(doc) + len(players) + len(creatures) + len(combat)
                strings += 2 * len(attackers) + 2 * len(blockers)
                # players
                place: dict[str, int] = {}
                for pid, t in players.items():
                    if type(t) is not dict:
                        raise _Unusual
                    if t:
                        if len(t) != 1:
                            raise _Unusual
                        life.append(t["life"])
                        strings += 1
                    else:
                        life.append(20)
                    place[pid] = p0 + len(place)
                # creatures
                row: dict[str, int] = {}
                plain = True
                for cid, t in creatures.items():
                    if type(t) is not dict or cid in place:
                        raise _Unusual
                    controller.append(place[t["controller"]])
                    power.append(t["power"])
                    toughness.append(t["toughness"])
                    if len(t) == 3:  # controller, power and toughness alone
                        strings += 4
                        names.append(cid)
                        damage.append(0)
                        keywords.append(None)
                        colors.append(0)
                        types.append(0)
                    else:
                        strings += len(t) + 1 + self._other(cid, t, c)
                        plain = plain and keywords[-1] is None
                    row[cid] = c0 + len(row)
                if 2 * strings != quotes[k]:  # a key given twice, or a string not counted
                    raise _Unusual
                # combat
                attacking += [-1] * len(creatures)
                for aid, pid in attackers.items():
                    a, d = row[aid], place[pid]
                    if d == p0 or controller[a] != p0:  # the first player attacks another
                        raise _Unusual
                    attacking[a] = d
                if blockers:
                    order = dict(
                        zip(
                            attackers,
                            range(c.n_attackers, c.n_attackers + len(attackers)),
                            strict=True,
                        )
                    )
                    for bid, aid in blockers.items():
                        blocker = row[bid]
                        if bid in attackers or place[attackers[aid]] != controller[blocker]:
                            raise _Unusual
                        blocks.append((order[aid], blocker, row[aid]))
                if not plain and not self._legal(c, c0, k0):
                    raise _Unusual
                c.n_attackers += len(attackers)
                n_players.append(len(players))
                n_creatures.append(len(creatures))
                player_ids += players
                creature_ids += creatures
                taken.append(k)
            except (_Unusual, KeyError, TypeError):
                c.cut(b, p0, c0, k0)
        return c, taken

    def _other(self, cid: str, t: dict[str, Any], c: _Columns) -> int:
        """A creature's other keys (its name, damage, keywords, colors and types added to the
        columns); how many strings their values hold."""
        if not _CREATURE.issuperset(t):
            raise _Unusual
        strings = 0
        name = cid
        if "name" in t:
            name = t["name"]
            if type(name) is not str or not name.strip():
                raise _Unusual
            strings += 1
        if "value" in t:
            value = t["value"]
            if type(value) is not int or abs(value) > LIMIT:
                raise _Unusual
        if t.get("tapped", False) is not False or t.get("summoning_sick", False) is not False:
            raise _Unusual
        found: Keywords | None = None
        if "keywords" in t:
            texts = t["keywords"]
            if type(texts) is not list:
                raise _Unusual
            given = tuple(texts)
            if given not in self.keyword_lists:
                self.keyword_lists[given] = self._keywords(given)
            found = self.keyword_lists[given]
            if found is None:
                raise _Unusual
            strings += len(texts)
            if not found[0]:
                found = None
        masks = []
        for key, memory, allowed in (
            ("colors", self.color_lists, COLORS),
            ("types", self.type_lists, CARD_TYPES),
        ):
            listed: tuple[Any, ...] = ()
            if key in t:
                if type(t[key]) is not list:
                    raise _Unusual
                listed = tuple(t[key])
            if listed not in memory:
                memory[listed] = _mask(listed, allowed)
            mask = memory[listed]
            if mask is None:
                raise _Unusual
            masks.append(mask)
            strings += len(listed)
        c.creature_names.append(name)
        c.damage.append(t.get("damage", 0))
        c.keywords.append(found)
        c.colors.append(masks[0])
        c.types.append(masks[1])
        return strings

    def _keywords(self, texts: tuple[Any, ...]) -> Keywords | None:
        """Keyword instances as the full reader reads them, or None."""
        names: list[str] = []
        parameters: list[Parameter] = []
        for text in texts:
            if type(text) is not str or not text.strip():
                return None
            try:
                instance = parse_instance(text, self.registry)
            except ValueError:
                return None
            names.append(instance.name)
            parameters.append(instance.parameter)
        return (tuple(names), tuple(parameters)) if names else _NO_KEYWORDS

    def _legal(self, c: _Columns, c0: int, k0: int) -> bool:
        """The attacks and blocks of a line whose creatures have keywords (creature rows from
        `c0`, blocks from `k0`)."""
        kinds: list[Kind] = []
        for i in range(c0, len(c.power)):
            power = c.power[i]
            if type(power) is not int:
                return False
            names, parameters = c.keywords[i] or _NO_KEYWORDS
            colors = _names(c.colors[i], COLORS)
            types = _names(c.types[i], CARD_TYPES)
            kinds.append((names, parameters, power, colors, types))
        return self.legality.legal(
            kinds,
            [i - c0 for i in range(c0, len(c.power)) if c.attacking[i] >= 0],
            [(blocker - c0, attacker - c0) for _, blocker, attacker in c.blocks[k0:]],
        )


def _numbers(c: _Columns) -> tuple[LineRows | None, set[int]]:
    """The rows, when every line's numbers and ids are right (integers in range, life and
    toughness above 0, damage below toughness, ids more than spaces); else the lines (their
    places among those read) that are not."""
    nb = len(c.n_players)
    pbattle = np.repeat(np.arange(nb, dtype=I64), c.n_players)
    cbattle = np.repeat(np.arange(nb, dtype=I64), c.n_creatures)
    bad: set[int] = set()
    found = [
        _integers(values, battle, bad)
        for values, battle in (
            (c.life, pbattle),
            (c.power, cbattle),
            (c.toughness, cbattle),
            (c.damage, cbattle),
        )
    ]
    if not all(map(str.strip, c.player_ids)):
        bad.update(pbattle[[not p.strip() for p in c.player_ids]].tolist())
    if not all(map(str.strip, c.creature_ids)):
        bad.update(cbattle[[not x.strip() for x in c.creature_ids]].tolist())
    life, power, toughness, damage = found
    if life is not None:
        bad.update(pbattle[life <= 0].tolist())
    if toughness is not None and damage is not None:
        bad.update(cbattle[(damage < 0) | (damage >= toughness)].tolist())
    if bad or life is None or power is None or toughness is None or damage is None:
        return None, bad
    blocks = np.array(c.blocks, I64).reshape(-1, 3)
    order = np.argsort(blocks[:, 0], kind="stable")  # by attacker, in declaration order
    return LineRows(
        n_battles=nb,
        player_battle=pbattle,
        player_ids=c.player_ids,
        life=life,
        battle=cbattle,
        creature_ids=c.creature_ids,
        creature_names=c.creature_names,
        controller=np.array(c.controller, I64),
        power=power,
        toughness=toughness,
        damage=damage,
        keywords=c.keywords,
        colors=np.array(c.colors, I64),
        types=np.array(c.types, I64),
        attacking=np.array(c.attacking, I64),
        block_blocker=blocks[order, 1],
        block_attacker=blocks[order, 2],
    ), bad


def _integers(values: list[Any], battle: IntArray, bad: set[int]) -> IntArray | None:
    """Values that must be integers within the limit, as an array; the lines of others are
    added to `bad` (None: some are not)."""
    if set(map(type, values)) - {int}:
        bad.update(battle[[type(v) is not int for v in values]].tolist())
        return None
    try:
        found = np.array(values, I64)
    except OverflowError:
        bad.update(battle[[abs(v) > LIMIT for v in values]].tolist())
        return None
    out = np.abs(found) > LIMIT
    if out.any():
        bad.update(battle[out].tolist())
        return None
    return found


def _mask(listed: tuple[Any, ...], allowed: tuple[str, ...]) -> int | None:
    """The bit mask of colors or card types written as the full reader keeps them (each once,
    in `allowed` order), or None."""
    if list(listed) != [n for n in allowed if n in listed]:
        return None
    return color_mask(listed) if allowed is COLORS else type_mask(listed)


def _names(mask: int, allowed: tuple[str, ...]) -> tuple[str, ...]:
    """The names of a mask's bits, in `allowed` order."""
    return tuple(n for i, n in enumerate(allowed) if mask >> i & 1)
