"""The text ``resolve FILE.jsonl --json`` writes for each battle of a run (``json.dumps`` of
:meth:`CombatResult.to_json`), made from the run's arrays and log for every battle at once,
with no :class:`CombatResult` for each.

Every line is a sequence of tokens: fixed pieces of text (``'{"steps": ['``, ``', "damage": '``,
the separators) and values (ids, numbers written as ``str`` writes them, ``true`` and
``false``). How many tokens each part of a line takes is known from counts (steps taken, damage
dealt, creatures, players), so where every token goes is computed with numpy, the tokens are
put in place in one object array, and the whole text is one ``str.join``. For a batch whose ids
``json.dumps`` writes as they are (ASCII, printable, without ``"`` or ``\\``) and without events.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ecs_combat.batched.arrays import CombatBatch, IntArray
from ecs_combat.batched.keyword_rows import KeywordRows
from ecs_combat.batched.log import Log
from ecs_combat.batched.state import CombatRows, CreatureRows, Frame, PlayerRows
from ecs_combat.plugin.registry import Registry

I64 = np.int64
ObjectArray = npt.NDArray[np.object_]

#: Tokens per damage entry, life gained entry, creature that died, creature, player (without
#: the plugins' state: one token more per key).
_DAMAGE, _GAIN, _DIED, _CREATURE, _PLAYER = 5, 5, 3, 5, 3
#: Integers from -_LOW up to _HIGH are written by looking their text up (with the text around
#: them: :func:`_framed`), the others one by one.
_LOW, _HIGH = 64, 1_024
#: The text of each integer from -_LOW up to _HIGH between some text before and after it.
_TABLES: dict[tuple[str, str], ObjectArray] = {}


def plain_ids(ids: list[str]) -> bool:
    """Whether ``json.dumps`` writes every id as it is, in quotes."""
    text = "".join(ids)
    return text.isascii() and text.isprintable() and '"' not in text and "\\" not in text


@dataclass(frozen=True)
class Layout:
    """The fixed text between a result's values: ``json.dumps``'s one line, or its
    ``indent=2`` lines. A pair is (after a nonempty list or table, after an empty one)."""

    start: str
    step: tuple[str, str]  #: before a step: the first, another
    name: tuple[str, str]  #: around the step's name
    entry: tuple[str, str]  #: before a damage entry's source: the first, another
    target: str
    amount: tuple[str, str]  #: around an amount
    life_gained: tuple[str, str]
    gain: tuple[str, str]  #: before a life gained entry's player: the first, another
    source: str
    died: tuple[str, str]
    dead: tuple[str, str]  #: before a creature that died: the first, another
    step_end: tuple[str, str]
    creatures: tuple[str, str]
    item: tuple[str, str]  #: before a creature's or player's id: the first, another
    alive: tuple[str, str]  #: after the id, before ``true``/``false``; after it, to damage
    power: str
    toughness: str
    counters: tuple[str, str, str]  #: before the counters, between two, after them
    no_counters: str
    key: str  #: before a key of the plugins' state
    item_end: str
    players: tuple[str, str]
    life: str
    lost: str
    end: str


#: ``json.dumps(doc)``'s text.
ONE_LINE = Layout(
    start='{"steps": [',
    step=("", ", "),
    name=('{"name": ', ', "damage": ['),
    entry=('{"source": "', ', {"source": "'),
    target='", "target": "',
    amount=('", "amount": ', "}"),
    life_gained=('], "life_gained": [', '], "life_gained": ['),
    gain=('{"player": "', ', {"player": "'),
    source='", "source": "',
    died=('], "died": [', '], "died": ['),
    dead=('"', ', "'),
    step_end=("]}", "]}"),
    creatures=('], "creatures": {', '], "creatures": {'),
    item=('"', ', "'),
    alive=('": {"alive": ', ', "damage": '),
    power=', "power": ',
    toughness=', "toughness": ',
    counters=(', "counters": {', ", ", "}"),
    no_counters=', "counters": {}',
    key=", ",
    item_end="}",
    players=('}, "players": {', '}, "players": {'),
    life='": {"life": ',
    lost=', "lost": ',
    end='}, "skipped_events": []}\n',
)
#: ``json.dumps(doc, indent=2)``'s text.
INDENTED = Layout(
    start='{\n  "steps": [',
    step=("\n    ", ",\n    "),
    name=('{\n      "name": ', ',\n      "damage": ['),
    entry=('\n        {\n          "source": "', ',\n        {\n          "source": "'),
    target='",\n          "target": "',
    amount=('",\n          "amount": ', "\n        }"),
    life_gained=('\n      ],\n      "life_gained": [', '],\n      "life_gained": ['),
    gain=('\n        {\n          "player": "', ',\n        {\n          "player": "'),
    source='",\n          "source": "',
    died=('\n      ],\n      "died": [', '],\n      "died": ['),
    dead=('\n        "', ',\n        "'),
    step_end=("\n      ]\n    }", "]\n    }"),
    creatures=('\n  ],\n  "creatures": {', '],\n  "creatures": {'),
    item=('\n    "', ',\n    "'),
    alive=('": {\n      "alive": ', ',\n      "damage": '),
    power=',\n      "power": ',
    toughness=',\n      "toughness": ',
    counters=(',\n      "counters": {\n        ', ",\n        ", "\n      }"),
    no_counters=',\n      "counters": {}',
    key=",\n      ",
    item_end="\n    }",
    players=('\n  },\n  "players": {', '},\n  "players": {'),
    life='": {\n      "life": ',
    lost=',\n      "lost": ',
    end='\n  },\n  "skipped_events": []\n}\n',
)


def json_text(
    frame: Frame,
    c: CreatureRows,
    kw: KeywordRows,
    combat: CombatRows,
    p: PlayerRows,
    log: Log,
    layout: Layout = ONE_LINE,
) -> str:
    """Each battle's result document as ``json.dumps`` writes it (with `layout`: one line
    each, or ``indent=2``), in battle order, each ending with a newline."""
    return "".join(_tokens(frame, c, kw, combat, p, log, layout).tolist())


def json_pieces(
    frame: Frame,
    c: CreatureRows,
    kw: KeywordRows,
    combat: CombatRows,
    p: PlayerRows,
    log: Log,
    layout: Layout = ONE_LINE,
    size: int = 1 << 20,
) -> Iterator[str]:
    """:func:`json_text` in pieces of `size` tokens, made as they are asked for (the whole
    text of a large battle is never held at once)."""
    tokens = _tokens(frame, c, kw, combat, p, log, layout)  # a batch it can't write: refused
    return ("".join(tokens[at : at + size].tolist()) for at in range(0, len(tokens), size))


def _tokens(
    frame: Frame,
    c: CreatureRows,
    kw: KeywordRows,
    combat: CombatRows,
    p: PlayerRows,
    log: Log,
    layout: Layout,
) -> ObjectArray:
    """:func:`json_text`'s text as its tokens in order."""
    creature_ids, player_ids = _written_ids(frame.batch, combat.batch)
    nb, n_steps, registry = frame.nb, len(frame.schedule.plans), frame.schedule.registry
    cids, pids = np.array(creature_ids, object), np.array(player_ids, object)
    damage, gains, (x_step, x_row) = _sorted_entries(log, c.battle)  # as CombatResult lists
    d_step, d_src, d_rec, d_amt = damage
    g_step, g_player, g_src, g_amt = gains
    # cells (battle, step): how many entries of each kind, where each cell's entries begin
    d_cell = c.battle[d_src] * n_steps + d_step
    g_cell = c.battle[g_src] * n_steps + g_step
    x_cell = c.battle[x_row] * n_steps + x_step
    cells = nb * n_steps
    nd = np.bincount(d_cell, minlength=cells)
    ng = np.bincount(g_cell, minlength=cells)
    nx = np.bincount(x_cell, minlength=cells)
    taken = combat.steps_taken.T.reshape(-1)  # [battle, step]
    step_size = np.where(taken, 4 + _DAMAGE * nd + _GAIN * ng + _DIED * nx, 0)
    # creatures and players shown
    shown = np.flatnonzero(c.entered)
    c_battle = c.battle[shown]
    n_c = np.bincount(c_battle, minlength=nb)
    p_state = _shown_state(registry, p.states, "player")
    p_width = _PLAYER + len(p_state)
    n_p = np.bincount(p.battle, minlength=nb)
    # where each battle, step, creatures' and players' part begin
    steps_total = step_size.reshape(nb, n_steps).sum(axis=1)
    size = 4 + steps_total + _CREATURE * n_c + p_width * n_p
    start = np.zeros(nb + 1, I64)
    np.cumsum(size, out=start[1:])
    step_start = (start[:-1, None] + 1 + _exclusive(step_size.reshape(nb, n_steps))).reshape(-1)
    c_start = start[:-1] + 1 + steps_total + 1
    p_start = c_start + _CREATURE * n_c + 1
    L = layout
    out = np.empty(int(start[-1]), object)
    out[start[:-1]] = L.start
    out[c_start - 1] = _either(steps_total > 0, *L.creatures)
    out[p_start - 1] = _either(n_c > 0, *L.players)
    out[start[1:] - 1] = L.end
    # steps
    cell = np.flatnonzero(taken)
    first_step = np.arange(len(cell)) == _first(cell // n_steps, cell // n_steps)
    names = np.array(
        [f"{L.name[0]}{json.dumps(plan.name)}{L.name[1]}" for plan in frame.schedule.plans], object
    )
    out[step_start[cell]] = _either(first_step, *L.step) + names[cell % n_steps]
    at = step_start[cell] + 1 + _DAMAGE * nd[cell]
    out[at] = _either(nd[cell] > 0, *L.life_gained)
    at += 1 + _GAIN * ng[cell]
    out[at] = _either(ng[cell] > 0, *L.died)
    out[at + 1 + _DIED * nx[cell]] = _either(nx[cell] > 0, *L.step_end)
    ids = np.concatenate([cids, pids])  # a recipient: a creature row, or -1 - a player row
    rank = np.arange(len(d_cell)) - np.searchsorted(d_cell, d_cell)
    at = step_start[d_cell] + 1 + _DAMAGE * rank
    _put(out, at, _either(rank == 0, *L.entry), cids[d_src])
    target = ids[np.where(d_rec < 0, len(cids) - 1 - d_rec, d_rec)]
    _put(out, at + 2, L.target, target, _framed(d_amt, *L.amount))
    rank = np.arange(len(g_cell)) - np.searchsorted(g_cell, g_cell)
    at = step_start[g_cell] + 2 + _DAMAGE * nd[g_cell] + _GAIN * rank
    _put(out, at, _either(rank == 0, *L.gain), pids[g_player])
    _put(out, at + 2, L.source, cids[g_src], _framed(g_amt, *L.amount))
    rank = np.arange(len(x_cell)) - np.searchsorted(x_cell, x_cell)
    at = step_start[x_cell] + 3 + _DAMAGE * nd[x_cell] + _GAIN * ng[x_cell] + _DIED * rank
    _put(out, at, _either(rank == 0, *L.dead), cids[x_row], '"')
    c_state = _shown_state(registry, c.states, "creature")
    rest = _creature_rest(frame, kw, c_state, shown, L)
    _put_creatures(out, c, L, cids, shown, c_start, rest)
    _put_players(out, p, L, pids, p_start, p_state)
    return out


def _written_ids(layout: CombatBatch, phase: CombatBatch) -> tuple[list[str], list[str]]:
    """The creatures' and players' ids of a batch :func:`json_text` writes: one without
    events, whose ids ``json.dumps`` writes as they are (else ValueError)."""
    cids, pids = layout.creature_ids, layout.player_ids
    assert cids is not None and pids is not None
    if len(phase.event_battle) or not plain_ids(cids) or not plain_ids(pids):
        raise ValueError("json_text: a batch with events, or with ids json.dumps escapes")
    return cids, pids


def _sorted_entries(
    log: Log, battle: IntArray
) -> tuple[tuple[IntArray, ...], tuple[IntArray, ...], tuple[IntArray, IntArray]]:
    """The log's damage (step, source, recipient, amount), life gained (step, player,
    source, amount) and deaths (step, row), each sorted as :class:`CombatResult` lists them
    (`battle`: each creature row's battle)."""
    d_step, d_src, d_rec, d_amt, d_pos = _cat5(log.damage)
    order = np.lexsort((d_pos, d_src, d_step, battle[d_src]))
    damage = (d_step[order], d_src[order], d_rec[order], d_amt[order])
    g_step, g_player, g_src, g_amt = _cat4(log.gains)
    order = np.lexsort((g_src, g_step, battle[g_src]))
    gains = (g_step[order], g_player[order], g_src[order], g_amt[order])
    x_step = np.concatenate([np.full(len(r), s, I64) for s, r in log.died] or [np.zeros(0, I64)])
    x_row = np.concatenate([np.asarray(r, I64) for _, r in log.died] or [np.zeros(0, I64)])
    order = np.lexsort((x_row, x_step, battle[x_row]))
    return damage, gains, (x_step[order], x_row[order])


def _put_creatures(
    out: ObjectArray,
    c: CreatureRows,
    L: Layout,
    cids: ObjectArray,
    shown: IntArray,
    c_start: IntArray,
    rest: ObjectArray | str,
) -> None:
    """The creatures' part of each battle's text, from `c_start`: for each creature `shown`,
    ``"id": {"alive": A, "damage": D, "power": P, "toughness": T, "counters": {...}}``."""
    c_battle = c.battle[shown]
    at = c_start[c_battle] + _CREATURE * (np.arange(len(shown)) - _first(c_battle, c_battle))
    marked = c.marked[shown]
    alive = np.where(
        c.on_bf[shown],
        _framed(marked, f"{L.alive[0]}true{L.alive[1]}", L.power),
        _framed(marked, f"{L.alive[0]}false{L.alive[1]}", L.power),
    )
    _put(out, at, _either(at == c_start[c_battle], *L.item), cids[shown], alive)
    toughness = c.toughness[shown]
    last = (
        _framed(toughness, "", rest) if isinstance(rest, str) else _framed(toughness, "", "") + rest
    )
    _put(out, at + 3, _framed(c.power[shown], "", L.toughness), last)


def _put_players(
    out: ObjectArray,
    p: PlayerRows,
    L: Layout,
    pids: ObjectArray,
    p_start: IntArray,
    p_state: dict[str, npt.NDArray[Any]],
) -> None:
    """The players' part of each battle's text, from `p_start`: for each player,
    ``"id": {"life": L, "lost": B, <the plugins' state>}``."""
    p_width = _PLAYER + len(p_state)
    rows = np.arange(len(p.battle))
    at = p_start[p.battle] + p_width * (rows - _first(p.battle, p.battle))
    end = "" if p_state else L.item_end
    life = np.where(
        p.lost,
        _framed(p.life, L.life, f"{L.lost}true{end}"),
        _framed(p.life, L.life, f"{L.lost}false{end}"),
    )
    _put(out, at, _either(at == p_start[p.battle], *L.item), pids, life)
    for k, (key, values) in enumerate(p_state.items()):
        end = L.item_end if k == len(p_state) - 1 else ""
        out[at + _PLAYER + k] = _state_text(values, f"{L.key}{json.dumps(key)}: ", end)


def _put(out: ObjectArray, at: IntArray, *tokens: Any) -> None:
    """Tokens (each a constant or one per place) at `at`, `at + 1`, ..."""
    for k, token in enumerate(tokens):
        out[at + k] = token


def _framed(values: IntArray, before: str, after: str) -> ObjectArray:
    """``before + str(v) + after`` for each integer (``json.dumps``'s text of an integer)."""
    table = _TABLES.get((before, after))
    if table is None:
        table = _TABLES[before, after] = np.array(
            [f"{before}{i}{after}" for i in range(-_LOW, _HIGH)], object
        )
    small = (values >= -_LOW) & (values < _HIGH)
    if small.all():
        found: ObjectArray = table[values + _LOW]
        return found
    out = np.empty(len(values), object)
    out[small] = table[values[small] + _LOW]
    out[~small] = [f"{before}{v}{after}" for v in values[~small].tolist()]
    return out


def _state_text(values: npt.NDArray[Any], before: str, after: str) -> ObjectArray:
    """The plugins' state (booleans or integers) as ``json.dumps`` writes it, framed."""
    if values.dtype == np.bool_:
        return _either(values, f"{before}true{after}", f"{before}false{after}")
    if np.issubdtype(values.dtype, np.integer):
        return _framed(values.astype(I64), before, after)
    return np.array([f"{before}{json.dumps(v)}{after}" for v in values.tolist()], object)


def _either(where: npt.NDArray[np.bool_], yes: str, no: str) -> ObjectArray:
    """`yes` where `where` is true, else `no` (the same two objects, not copies)."""
    found: ObjectArray = np.array([no, yes], object)[where.astype(np.intp)]
    return found


def _first(keys: IntArray, sorted_keys: IntArray) -> IntArray:
    """For each key, the place of its first occurrence in `sorted_keys` (sorted)."""
    return np.searchsorted(sorted_keys, keys).astype(I64)


def _exclusive(sizes: IntArray) -> IntArray:
    """Sums of the sizes before each along the last axis."""
    return np.cumsum(sizes, axis=-1) - sizes


def _shown_state(
    registry: Registry, states: dict[str, npt.NDArray[Any]], owner: str
) -> dict[str, npt.NDArray[Any]]:
    """The plugins' state of creature or player rows shown in the output
    (``StateField.output``)."""
    fields = registry.state_fields(owner)
    return {k: states[k] for k, f in fields.items() if f.output}


def _creature_rest(
    frame: Frame,
    kw: KeywordRows,
    state: dict[str, npt.NDArray[Any]],
    shown: IntArray,
    layout: Layout,
) -> ObjectArray | str:
    """What ends each creature's object: its counters, the plugins' state shown, its end."""
    counts = kw.counts
    rest: ObjectArray = np.full(len(shown), layout.no_counters, object)
    if counts is not None:
        names = [json.dumps(n) for n in frame.batch.counter_names]
        at = counts.at(shown)
        some = at > 0
        before, between, after = layout.counters
        for i in np.flatnonzero(some.any(axis=1)).tolist():
            row = at[i]
            listed = between.join(f"{names[k]}: {row[k]}" for k in np.flatnonzero(some[i]).tolist())
            rest[i] = f"{before}{listed}{after}"
    for key, values in state.items():
        rest = rest + _state_text(values[shown], f"{layout.key}{json.dumps(key)}: ", "")
    if counts is None and not state:
        return layout.no_counters + layout.item_end
    ended: ObjectArray = rest + layout.item_end
    return ended


def _cat5(
    parts: list[tuple[int, IntArray, IntArray, IntArray, IntArray]],
) -> tuple[IntArray, IntArray, IntArray, IntArray, IntArray]:
    """The logged damage: step, source, recipient, amount, place among the source's
    recipients."""
    if not parts:
        e = np.zeros(0, I64)
        return e, e, e, e, e
    step = np.concatenate([np.full(len(x[1]), x[0], I64) for x in parts])
    src, rec, amt, pos = (
        np.concatenate([np.asarray(x[k], I64) for x in parts]) for k in range(1, 5)
    )
    return step, src, rec, amt, pos


def _cat4(
    parts: list[tuple[int, IntArray, IntArray, IntArray]],
) -> tuple[IntArray, IntArray, IntArray, IntArray]:
    """The logged life gained: step, player, source, amount."""
    if not parts:
        e = np.zeros(0, I64)
        return e, e, e, e
    step = np.concatenate([np.full(len(x[2]), x[0], I64) for x in parts])
    player, src, amt = (np.concatenate([np.asarray(x[k], I64) for x in parts]) for k in range(1, 4))
    return step, player, src, amt
