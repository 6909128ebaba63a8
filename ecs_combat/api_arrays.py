"""What :func:`ecs_combat.api.battles` reads beyond power and toughness: keywords (with their
numbers and qualities: ``bushido 2``, ``protection from red``), colors and counters, given as
one array per keyword or counter kind (docs/python.md, "Battles from arrays")."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from ecs_combat.batched import BoolArray, CombatBatch, IntArray, MaskArray
from ecs_combat.errors import InputError
from ecs_combat.plugin.definitions import FROM_WORDS
from ecs_combat.plugin.registry import Registry
from ecs_combat.simulation.keyword_bits import KeywordBits, RowFacts

Array = npt.NDArray[Any]


@dataclass
class Creatures:
    """The keywords, colors and counters of `n` creature rows, read from arrays."""

    n: int
    #: Keyword names in the order given, and which rows have each.
    names: list[str] = field(default_factory=list)
    has: list[BoolArray] = field(default_factory=list)
    #: Per keyword with a parameter: each row's parameter as the batch stores it (a number,
    #: a quality's index in FROM_WORDS; -1 where the row lacks the keyword).
    parameters: dict[str, IntArray] = field(default_factory=dict)
    colors: IntArray | None = None
    #: Counter kind or keyword -> count per row.
    counters: dict[str, IntArray] = field(default_factory=dict)
    #: The keywords whose parameter is a quality (``protection from red``).
    qualities: set[str] = field(default_factory=set)

    def bits(self, registry: Registry) -> KeywordBits:
        """The keyword bits of the keywords given, those of keyword counters too."""
        extra = [k for k in self.counters if k not in registry.counter_kinds]
        return KeywordBits(registry, keywords=list(dict.fromkeys([*self.names, *extra])))

    def masks(self, bits: KeywordBits) -> MaskArray:
        masks = np.zeros(self.n, dtype=np.uint64)
        for name, rows in zip(self.names, self.has, strict=True):
            masks[rows] |= bits.bit[name]
        return masks

    def declared(self, bits: KeywordBits, masks: MaskArray) -> MaskArray:
        """The keywords the creatures have as attackers and blockers are declared: printed
        ones and those of keyword counters (122.1b: a flying counter gives flying)."""
        out = masks
        for name, counts in self.counters.items():
            if name in bits.bit:
                out = out | np.where(counts > 0, bits.bit[name], np.uint64(0))
        return out

    def facts(self) -> RowFacts | None:
        """Colors and parameters as restrictions read them (qualities as bit masks), or None
        when there are none (colorless creatures, keywords without parameters)."""
        if self.colors is None and not self.parameters:
            return None
        colors = self.colors if self.colors is not None else np.zeros(self.n, np.int64)
        values: dict[str, IntArray] = {}
        for name, p in self.parameters.items():
            given = p >= 0
            if name in self.qualities:
                values[name] = np.where(given, np.left_shift(1, np.maximum(p, 0)), 0)
            else:
                values[name] = np.where(given, p, 0)
        zeros = np.zeros(self.n, np.int64)
        lookup: Callable[[str], IntArray] = lambda keyword: values.get(keyword, zeros)  # noqa: E731
        return RowFacts(colors, lookup)

    def complete(self, batch: CombatBatch, bits: KeywordBits) -> None:
        """Add the instance rows (keywords with parameters) and the counters to the batch."""
        rows, keyword, parameter = [], [], []
        for name, p in self.parameters.items():
            at = np.flatnonzero(p >= 0)
            rows.append(at)
            keyword.append(np.full(at.shape, bits.names.index(name), np.int64))
            parameter.append(p[at])
        if rows:
            order = np.argsort(np.concatenate(rows), kind="stable")  # by row, then as given
            batch.instance_row = np.concatenate(rows)[order]
            batch.instance_keyword = np.concatenate(keyword)[order]
            batch.instance_parameter = np.concatenate(parameter)[order]
        if self.counters:
            counts = np.zeros((self.n, len(batch.counter_names)), np.int64)
            for name, values in self.counters.items():
                counts[:, batch.counter_names.index(name)] = values
            batch.counters = counts


def read_creatures(
    n: int,
    registry: Registry,
    keywords: Mapping[str, Any] | None,
    colors: Any,
    counters: Mapping[str, Any] | None,
    column: Callable[[str, Any, int | None, str], Array],
) -> Creatures:
    """The keyword, color and counter arrays of `n` rows, checked: a keyword without a
    parameter takes booleans; one that takes a number, integers (0: the row lacks it); one
    that takes a quality, strings (``"red"``, ``"creatures"``; ``""``: the row lacks it);
    `colors`, color bit masks (:func:`~ecs_combat.plugin.definitions.color_mask`); `counters`,
    counter kind or keyword -> counts (0 or more). Bad arrays raise :class:`InputError`
    naming the array and the first bad row."""
    out = Creatures(n)
    for given, values in (keywords or {}).items():
        where = f"keywords.{given}"
        kw = registry.keyword(given)
        if kw is None:
            raise InputError(None, where, registry.unknown_keyword_reason(given))
        out.names.append(kw.name)
        if not kw.parameter:
            out.has.append(column(where, values, n, "bool"))
            continue
        if kw.parameter == "color":
            text = np.asarray(values)
            if text.ndim != 1 or text.shape[0] != n or text.dtype.kind not in "UO":
                raise InputError(
                    None, where, f"must be {n:,} strings: what follows 'from' ('red'), or ''"
                )
            words = {w: i for i, w in enumerate(FROM_WORDS)}
            codes = np.array([words.get(str(t), -2) if t else -1 for t in text], np.int64)
            _first_bad(where, codes == -2, f"must be one of {', '.join(FROM_WORDS)} or ''")
            out.qualities.add(kw.name)
        else:
            if np.asarray(values).dtype == np.bool_:
                raise InputError(
                    None, where, f"{kw.name!r} takes a {kw.parameter}: give each creature's "
                    f"{kw.parameter} (0: none), not booleans",
                )  # fmt: skip
            numbers = column(where, values, n, "int")
            _first_bad(where, numbers < 0, f"must be 0 (none) or a {kw.parameter} of 1 or more")
            codes = np.where(numbers > 0, numbers, -1)
        out.parameters[kw.name] = codes
        out.has.append(codes >= 0)
    if colors is not None:
        out.colors = column("colors", colors, n, "int")
        _first_bad("colors", (out.colors < 0) | (out.colors >= 1 << 5), "must be a color mask")
    for kind, values in (counters or {}).items():
        where = f"counters.{kind}"
        name = kind if kind in registry.counter_kinds else None
        if name is None:
            kw = registry.keyword(kind)
            if kw is None or kw.parameter:
                known = ", ".join(registry.counter_kinds)
                raise InputError(
                    None, where, f"unknown counter kind {kind!r} (kinds: {known}, or a keyword)"
                )
            name = kw.name
        counts = column(where, values, n, "int")
        _first_bad(where, counts < 0, "must be 0 or more")
        out.counters[name] = counts
    return out


def _first_bad(name: str, bad: BoolArray, what: str) -> None:
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise InputError(None, f"{name}[{i}]", what)
