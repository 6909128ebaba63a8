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

import gc
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from itertools import chain, repeat
from typing import Any

from ecs_combat.plugin.definitions import CARD_TYPES, COLORS
from ecs_combat.plugin.registry import Registry
from ecs_combat.scenario.battle_rows import Listed, Unusual, battle_rows, dict_battle
from ecs_combat.scenario.checks import LIMIT
from ecs_combat.scenario.instances import Parameter, parse_instance
from ecs_combat.scenario.quick_legality import Kind, KindLegality
from ecs_combat.scenario.row_columns import (
    Columns,
    Keywords,
    LineRows,
    Marks,
    checked_rows,
    list_mask,
    mask_names,
)

__all__ = ["Keywords", "LineRows", "RowReader", "mask_names"]

_TOP = frozenset({"players", "creatures", "combat"})
_CREATURE = frozenset(
    {"name", "controller", "power", "toughness", "keywords", "damage", "colors", "types", "value"}
    | {"tapped", "summoning_sick"}
)
_COMBAT = frozenset({"attackers", "blockers"})
_EMPTY: dict[str, Any] = {}
#: Creatures above which a battle is read a column at a time (:func:`~ecs_combat.scenario.battle_rows.battle_rows`).
LARGE = 64
_NO_KEYWORDS: Keywords = ((), ())


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector, which would otherwise rescan every object
    made so far each time enough new ones are made."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def given_name(table: Mapping[str, Any]) -> str | None:
    """A creature table's `name`, None without one; :class:`Unusual` unless a nonblank
    string."""
    if "name" not in table:
        return None
    name = table["name"]
    if type(name) is not str or not name.strip():
        raise Unusual
    return name


def quick_checks(registry: Registry) -> list[Callable[[Any], tuple[str, str] | None]]:
    """The plugins' scenario checks a line that gives no state key needs (those that may find
    a problem when every creature and player has the defaults)."""
    return [
        f.check
        for owner in ("player", "creature")
        for f in registry.state_fields(owner).values()
        if f.check is not None and f.check_defaults
    ]


def state_defaults(registry: Registry, owner: str) -> dict[str, Any]:
    """The plugins' state of a creature or player given nothing (as the full reader fills
    it)."""
    out: dict[str, Any] = {}
    for key, f in registry.state_fields(owner).items():
        out[key] = out[f.default_from] if f.default_from is not None else f.default
    return out


def decode_lines(raws: Sequence[bytes]) -> tuple[list[int], list[object], list[int]]:
    """The lines the row reader may take (ASCII without a backslash or DEL, valid JSON to
    orjson): their places, documents and double quotes."""
    import orjson  # here: the batched engine imports this module, not every command reads lines

    text = b"".join(raws)
    if text.isascii() and b"\\" not in text and b"\x7f" not in text:
        try:  # every line at once
            every: list[object] = list(map(orjson.loads, raws))
            return list(range(len(raws))), every, list(map(bytes.count, raws, repeat(b'"')))
        except orjson.JSONDecodeError:
            places = list(range(len(raws)))
    else:
        places = [
            i for i, r in enumerate(raws) if r.isascii() and b"\\" not in r and b"\x7f" not in r
        ]
    docs: list[object] = []
    kept: list[int] = []
    loads = orjson.loads
    for i in places:
        try:
            docs.append(loads(raws[i]))
        except orjson.JSONDecodeError:
            continue
        kept.append(i)
    return kept, docs, [raws[i].count(b'"') for i in kept]


class RowReader:
    """Reads the common lines of JSON Lines files into :class:`LineRows` for one registry."""

    def __init__(
        self, registry: Registry, legality: KindLegality | None = None, checked: bool = False
    ) -> None:
        self.registry = registry
        self.legality = legality or KindLegality(registry)
        #: Whether any line can be read here: not with a creature reference given by default,
        #: nor, unless the caller runs them on the scenarios (`checked`), with a plugin's
        #: scenario check that a line without state keys still needs.
        self.usable = (checked or not quick_checks(registry)) and all(
            f.kind != "creature" or f.default is None
            for f in registry.state_fields("creature").values()
        )
        self.keyword_lists: dict[tuple[Any, ...], Keywords | None] = {}
        self.color_lists: dict[tuple[Any, ...], int | None] = {}
        self.type_lists: dict[tuple[Any, ...], int | None] = {}

    def read(self, docs: Sequence[Any], quotes: Sequence[int | None]) -> tuple[LineRows, list[int]]:
        """The rows of the lines of the common shape among some, and which lines those are
        (their places in `docs`). Each line is its document as orjson decodes ASCII text
        without a backslash or DEL, and how many double quotes the text holds (None for a
        document read from text that can't give a key twice: TOML)."""
        if not self.usable:
            docs, quotes = [], []
        columns, places = self._read(docs, quotes)
        while True:
            rows, bad = checked_rows(columns)
            if rows is not None:
                return rows, places
            places = [p for k, p in enumerate(places) if k not in bad]
            columns, taken = self._read([docs[i] for i in places], [quotes[i] for i in places])
            places = [places[i] for i in taken]

    def _read(self, docs: Sequence[Any], quotes: Sequence[int | None]) -> tuple[Columns, list[int]]:
        """The columns of the lines of the common shape, and their places in `docs` (their
        numbers not checked yet)."""
        c = Columns()
        taken: list[int] = []
        a0 = 0  # attackers so far
        line = self._line
        for k, doc in enumerate(docs):
            marks = c.marks()
            try:
                a0 += line(doc, quotes[k], c, (a0, marks))
            except (Unusual, KeyError, TypeError):
                c.cut(marks)
                continue
            taken.append(k)
        return c, taken

    def _line(self, doc: Any, quotes: int | None, c: Columns, before: tuple[int, Marks]) -> int:
        """One line's players, creatures, attacks and blocks added to `c` (``before``: the
        attackers and the :meth:`Columns.marks` before it); how many attackers it declares. Unusual (KeyError, TypeError) for a line
        not of the common shape."""
        if type(doc) is Listed:
            return self._listed(doc, c, before)
        if type(doc) is not dict or not _TOP.issuperset(doc):
            raise Unusual
        players = doc["players"]
        creatures = doc.get("creatures", _EMPTY)
        combat = doc.get("combat", _EMPTY)
        if type(players) is not dict or type(combat) is not dict or not _COMBAT.issuperset(combat):
            raise Unusual
        attackers = combat.get("attackers", _EMPTY)
        blockers = combat.get("blockers", _EMPTY)
        if type(attackers) is not dict or type(blockers) is not dict:
            raise Unusual
        strings = len(doc) + len(players) + 5 * len(creatures) + len(combat)
        strings += 2 * len(attackers) + 2 * len(blockers)
        a0, marks = before
        place, more = self._players(players, c, marks[0])
        strings += more
        if type(creatures) is not dict:
            raise Unusual
        if len(creatures) > LARGE:  # one large battle: a column at a time
            battle = dict_battle(creatures, attackers, blockers)
            strings += battle_rows(self, battle, place, c, a0)
        else:
            more, row = self._creatures(creatures, place, c)
            strings += more
            self._combat(attackers, blockers, (place, row), c, a0)
            if len(c.others) > marks[2] and not self.legal(c, marks[1], marks):
                raise Unusual
        if quotes is not None and 2 * strings != quotes:  # a key given twice, a string missed
            raise Unusual
        c.n_players.append(len(players))
        c.n_creatures.append(len(creatures))
        c.player_ids += players
        c.creature_ids += creatures
        return len(attackers)

    def _listed(self, doc: Listed, c: Columns, before: tuple[int, Marks]) -> int:
        """A battle decoded as lists added to `c`, as :meth:`_line` adds one decoded as
        dictionaries; how many attackers it declares."""
        a0, marks = before
        place, _ = self._players(doc.players, c, marks[0])
        battle_rows(self, doc.battle, place, c, a0)
        c.n_players.append(len(doc.players))
        c.n_creatures.append(len(doc.battle.ids))
        c.player_ids += doc.players
        c.creature_ids += doc.battle.ids
        return len(doc.battle.attackers[0])

    def _players(self, players: dict[str, Any], c: Columns, p0: int) -> tuple[dict[str, int], int]:
        """A line's players' life added to `c` (`p0` players before it): each one's row, and
        how many strings their tables hold besides their ids."""
        if len(players) < 2:
            raise Unusual
        place: dict[str, int] = {}
        strings = 0
        for pid, t in players.items():
            if type(t) is not dict:
                raise Unusual
            if t:
                if len(t) != 1:
                    raise Unusual
                c.life.append(t["life"])
                strings += 1
            else:
                c.life.append(20)
            place[pid] = p0 + len(place)
        return place, strings

    def _creatures(
        self, creatures: dict[str, Any], place: dict[str, int], c: Columns
    ) -> tuple[int, dict[str, int]]:
        """A line's few creatures added to `c`: how many strings their tables hold besides
        their ids, keys and controllers, and each one's row."""
        strings, c0 = 0, len(c.power)
        controller, power, toughness = c.controller, c.power, c.toughness
        row: dict[str, int] = {}
        for cid, t in creatures.items():
            if type(t) is not dict or cid in place:
                raise Unusual
            controller.append(place[t["controller"]])
            power.append(t["power"])
            toughness.append(t["toughness"])
            if len(t) != 3:  # more than controller, power and toughness
                strings += self.other(cid, t, c0 + len(row), c)
            row[cid] = c0 + len(row)
        return strings, row

    def _combat(
        self,
        attackers: dict[str, Any],
        blockers: dict[str, Any],
        rows: tuple[dict[str, int], dict[str, int]],
        c: Columns,
        a0: int,
    ) -> None:
        """A line's attacks and blocks added to `c` (`rows`: its players' and creatures'
        rows)."""
        (place, row), controller = rows, c.controller
        p0 = len(c.life) - len(place)
        for aid, pid in attackers.items():
            a, d = row[aid], place[pid]
            if d == p0 or controller[a] != p0:  # the first player attacks another
                raise Unusual
            c.attack_row.append(a)
            c.attack_player.append(d)
        if blockers:
            order = (
                dict(zip(attackers, range(a0, a0 + len(attackers)), strict=True))
                if len(attackers) > 1
                else None
            )
            for bid, aid in blockers.items():
                blocker = row[bid]
                if bid in attackers or place[attackers[aid]] != controller[blocker]:
                    raise Unusual
                c.block_order.append(a0 if order is None else order[aid])
                c.block_blocker.append(blocker)
                c.block_attacker.append(row[aid])

    def other(self, cid: str, t: dict[str, Any], row: int, c: Columns) -> int:
        """A creature with keys beyond controller, power and toughness: its name, damage,
        keywords, colors and types added to the columns; how many strings those keys and
        values hold."""
        if not _CREATURE.issuperset(t):
            raise Unusual
        strings = len(t) - 3  # its other keys
        name = given_name(t)
        strings += name is not None
        name = cid if name is None else name
        value = t.get("value")
        if value is not None and (type(value) is not int or abs(value) > LIMIT):
            raise Unusual
        if t.get("tapped", False) is not False or t.get("summoning_sick", False) is not False:
            raise Unusual
        found: Keywords | None = None
        if "keywords" in t:
            texts = t["keywords"]
            if type(texts) is not list:
                raise Unusual
            given = tuple(texts)
            if given not in self.keyword_lists:
                self.keyword_lists[given] = self.keywords(given)
            found = self.keyword_lists[given]
            if found is None:
                raise Unusual
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
                    raise Unusual
                listed = tuple(t[key])
            if listed not in memory:
                memory[listed] = list_mask(listed, allowed)
            mask = memory[listed]
            if mask is None:
                raise Unusual
            masks.append(mask)
            strings += len(listed)
        c.others.append((row, name, t.get("damage", 0), found, masks[0], masks[1], value))
        return strings

    def keywords(self, texts: tuple[Any, ...]) -> Keywords | None:
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

    def legal(self, c: Columns, c0: int, marks: tuple[int, int, int, int, int]) -> bool:
        """The attacks and blocks of a line with creatures with other keys (creature rows from
        `c0`; its other creatures, attacks and blocks after `marks`): legal when none has
        keywords, else as :class:`KindLegality` says."""
        others = c.others[marks[2] :]
        used = frozenset(chain.from_iterable(o[3][0] for o in others if o[3] is not None))
        if not used:
            return True
        known = self.legality.known(used, len(c.attack_row) > marks[3])
        if known is not None:  # nothing to check creature by creature
            return known
        powers = c.power[c0:]
        if any(type(p) is not int for p in powers):
            return False
        kinds: list[Kind] = [((), (), p, (), ()) for p in powers]
        for row, _, _, keywords, colors, types, _ in others:
            names, parameters = keywords or _NO_KEYWORDS
            kinds[row - c0] = (
                names,
                parameters,
                powers[row - c0],
                mask_names(colors, COLORS),
                mask_names(types, CARD_TYPES),
            )
        return self.legality.legal(
            kinds,
            [row - c0 for row in c.attack_row[marks[3] :]],
            [
                (blocker - c0, attacker - c0)
                for blocker, attacker in zip(
                    c.block_blocker[marks[4] :], c.block_attacker[marks[4] :], strict=True
                )
            ],
        )
