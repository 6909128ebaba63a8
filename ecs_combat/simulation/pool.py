"""Card pools of a SPEC: real creature cards (the bundled database) filtered, as arrays.

A pool is read from a ``[pool]`` table (both sides) and ``[attacker.pool]`` / ``[blocker.pool]``
(one side, merged key by key over ``[pool]``); docs/simulate.md lists the filters. The cards of
both sides form one :class:`CardPool`: per card its power, toughness, keyword mask (bits of the
simulation's keywords), colors, and the keyword instances with parameters (``bushido 1``,
``protection from black``) as instance rows the batched engine reads. Each side is an array of
card indices into it, so drawing a creature is drawing an index.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ecs_combat.cards.database import CardFacts, database
from ecs_combat.cards.library import modelings
from ecs_combat.plugin.definitions import COLORS, color_mask
from ecs_combat.plugin.registry import Registry
from ecs_combat.scenario.checks import Checker, type_name
from ecs_combat.scenario.instances import Instance, parse_instance
from ecs_combat.suggest import did_you_mean

IntArray = npt.NDArray[np.int64]

#: Keys of a ``[pool]`` table.
POOL_KEYS = frozenset(
    {
        "mana_value",
        "colors",
        "keywords",
        "sets",
        "names",
        "approximate",
        "funny",
        "without_mana_cost",
    }
)
#: What ``colors`` may list: the five colors, and colorless for cards without one.
COLOR_WORDS = (*COLORS, "colorless")
#: Mana values a filter may ask for.
MAX_MANA_VALUE = 1000


@dataclass(frozen=True)
class PoolFilter:
    """Which database cards a side draws from. Every filter given must match."""

    #: Mana value, both ends included; None for any.
    mana_value: tuple[float, float] | None = None
    #: The card has at least one of these colors (``colorless``: it has none); () for any.
    colors: tuple[str, ...] = ()
    #: The card has every one of these keywords (any parameter); () for any.
    keywords: tuple[str, ...] = ()
    #: The card's first set is one of these set codes (upper case); () for any.
    sets: tuple[str, ...] = ()
    #: Exactly these cards (database spelling); () for any.
    names: tuple[str, ...] = ()
    #: Approximate cards too (their unmodeled text is ignored); else exact cards only.
    approximate: bool = False
    #: Un-cards (silver-bordered or acorn) too.
    funny: bool = False
    #: Cards without a mana cost too: mostly the back faces of transforming cards, which are
    #: never cast (their mana value is the front face's).
    without_mana_cost: bool = False

    def describe(self) -> dict[str, Any]:
        """The filter as JSON data."""
        return {
            "mana_value": None if self.mana_value is None else list(self.mana_value),
            "colors": list(self.colors),
            "keywords": list(self.keywords),
            "sets": list(self.sets),
            "names": list(self.names),
            "approximate": self.approximate,
            "funny": self.funny,
            "without_mana_cost": self.without_mana_cost,
        }


@dataclass(frozen=True)
class ModeledCard:
    """A database card with what the loaded plugins make of it."""

    facts: CardFacts
    instances: tuple[Instance, ...]
    ignored: tuple[str, ...]

    @property
    def exact(self) -> bool:
        """Every line of its rules text is modeled."""
        return not self.ignored


#: Database cards as modeled, by the keywords they were read against (names, parameters).
_MODELED: dict[tuple[tuple[str, str], ...], tuple[ModeledCard, ...]] = {}


def modeled_cards(registry: Registry) -> tuple[ModeledCard, ...]:
    """Every database card read against a registry's keywords (once per set of keywords), in
    the database's name order."""
    key = tuple(sorted((k.name, k.parameter) for k in registry.keywords.values()))
    found = _MODELED.get(key)
    if found is None:
        found = _MODELED[key] = tuple(
            ModeledCard(card, tuple(parse_instance(k, registry) for k in m.keywords), m.ignored)
            for card, m in zip(database().cards, modelings(registry), strict=True)
        )
    return found


def drawable(card: ModeledCard) -> bool:
    """Whether a card can be drawn: power 0 or more and toughness 1 or more (a card printed
    with a negative power or with toughness 0 is left out)."""
    return card.facts.power >= 0 and card.facts.toughness >= 1


def select(pool: PoolFilter, registry: Registry) -> list[ModeledCard]:
    """The drawable database cards a filter matches, in name order."""
    names = {n.casefold() for n in pool.names}
    sets = set(pool.sets)
    wanted_colors = set(pool.colors)
    out = []
    for card in modeled_cards(registry):
        f = card.facts
        if (
            not drawable(card)
            or (f.funny and not pool.funny)
            or not (card.exact or pool.approximate)
            or not (f.mana_cost or pool.without_mana_cost)
        ):
            continue
        if (
            pool.mana_value is not None
            and not pool.mana_value[0] <= f.mana_value <= pool.mana_value[1]
        ):
            continue
        if wanted_colors and not (
            wanted_colors & set(f.colors) or ("colorless" in wanted_colors and not f.colors)
        ):
            continue
        if sets and f.set.upper() not in sets:
            continue
        if names and f.name.casefold() not in names:
            continue
        if pool.keywords and not set(pool.keywords) <= {i.name for i in card.instances}:
            continue
        out.append(card)
    return out


@dataclass(frozen=True)
class CardPool:
    """The cards a simulation draws, as arrays indexed by card (name order), and each side's
    cards as indices into them."""

    names: tuple[str, ...]
    power: IntArray
    toughness: IntArray
    #: Colors as bit masks (bit i for ``COLORS[i]``).
    colors: IntArray
    #: Per card its keyword instances, as (keyword name, parameter) pairs in printed order.
    instances: tuple[tuple[Instance, ...], ...]
    #: Per card the rules text no plugin models (empty for exact cards).
    ignored: tuple[tuple[str, ...], ...]
    attacker: IntArray
    blocker: IntArray
    attacker_filter: PoolFilter
    blocker_filter: PoolFilter

    def __len__(self) -> int:
        return len(self.names)

    @property
    def keywords(self) -> frozenset[str]:
        """Every keyword some card of the pool has."""
        return frozenset(i.name for card in self.instances for i in card)

    def card(self, i: int) -> dict[str, Any]:
        """What card `i` is, as a summary's row begins: its name, power, toughness, keywords
        and whether it is modelled exactly."""
        return {
            "card": self.names[i],
            "power": int(self.power[i]),
            "toughness": int(self.toughness[i]),
            "keywords": [str(k) for k in self.instances[i]],
            "status": "approximate" if self.ignored[i] else "exact",
        }

    def describe(self) -> dict[str, Any]:
        """The pool as JSON data: each side's filter and card count, and a digest of the cards
        (names, power, toughness, keywords), so that runs of other cards never mix."""
        h = hashlib.sha256()
        for i, name in enumerate(self.names):
            kws = ",".join(str(k) for k in self.instances[i])
            h.update(f"{name}|{self.power[i]}|{self.toughness[i]}|{kws}\n".encode())
        return {
            "attacker": {**self.attacker_filter.describe(), "cards": int(self.attacker.size)},
            "blocker": {**self.blocker_filter.describe(), "cards": int(self.blocker.size)},
            "cards": len(self.names),
            "digest": h.hexdigest()[:16],
        }


def build_pool(
    attacker: Sequence[ModeledCard],
    blocker: Sequence[ModeledCard],
    attacker_filter: PoolFilter,
    blocker_filter: PoolFilter,
) -> CardPool:
    """One pool of both sides' cards (name order), each side an index array into it."""
    both = {c.facts.name: c for c in [*attacker, *blocker]}
    order = sorted(both, key=lambda n: (n.casefold(), n))
    index = {name: i for i, name in enumerate(order)}
    cards = [both[n] for n in order]
    return CardPool(
        names=tuple(order),
        power=np.array([c.facts.power for c in cards], dtype=np.int64),
        toughness=np.array([c.facts.toughness for c in cards], dtype=np.int64),
        colors=np.array([color_mask(c.facts.colors) for c in cards], dtype=np.int64),
        instances=tuple(c.instances for c in cards),
        ignored=tuple(c.ignored for c in cards),
        attacker=np.array([index[c.facts.name] for c in attacker], dtype=np.int64),
        blocker=np.array([index[c.facts.name] for c in blocker], dtype=np.int64),
        attacker_filter=attacker_filter,
        blocker_filter=blocker_filter,
    )


class PoolReader:
    """Reads ``[pool]`` tables of a SPEC file, naming the key of every problem."""

    def __init__(self, checker: Checker, registry: Registry) -> None:
        self.check = checker
        self.registry = registry

    def merged(self, base: Mapping[str, Any] | None, side: Any, path: str) -> dict[str, Any]:
        """A side's pool table merged key by key over the top-level one."""
        out = dict(base or {})
        if side is not None:
            out.update(self.check.table(side, path))
        return out

    def mana_value(self, value: Any, path: str) -> tuple[float, float]:
        def number(v: Any, where: str) -> float:
            if isinstance(v, bool) or not isinstance(v, int | float):
                raise self.check.fail(where, f"must be a number, not {type_name(v)}")
            if not 0 <= v <= MAX_MANA_VALUE:
                raise self.check.fail(where, f"must be between 0 and {MAX_MANA_VALUE}, not {v}")
            return float(v)

        if isinstance(value, list):
            if len(value) != 2:
                raise self.check.fail(
                    path, f"must be a number or [min, max], not a list of {len(value)}"
                )
            lo, hi = number(value[0], f"{path}[0]"), number(value[1], f"{path}[1]")
            if lo > hi:
                raise self.check.fail(path, f"min {lo:g} is greater than max {hi:g}")
            return lo, hi
        n = number(value, path)
        return n, n

    def colors(self, value: Any, path: str) -> tuple[str, ...]:
        out = []
        for i, word in enumerate(self.check.string_list(value, path)):
            w = word.strip().lower()
            if w not in COLOR_WORDS:
                raise self.check.fail(
                    f"{path}[{i}]",
                    f"{word!r} is not a color (one of {', '.join(COLOR_WORDS)})"
                    f"{did_you_mean(word, COLOR_WORDS)}",
                )
            out.append(w)
        return tuple(dict.fromkeys(out))

    def keywords(self, value: Any, path: str) -> tuple[str, ...]:
        out = []
        for i, name in enumerate(self.check.string_list(value, path)):
            kw = self.registry.keyword(name)
            if kw is None:
                raise self.check.fail(f"{path}[{i}]", self.registry.unknown_keyword_reason(name))
            out.append(kw.name)
        return tuple(dict.fromkeys(out))

    def sets(self, value: Any, path: str) -> tuple[str, ...]:
        known = sorted({c.set.upper() for c in database().cards})
        out = []
        for i, code in enumerate(self.check.string_list(value, path)):
            c = code.strip().upper()
            if c not in known:
                raise self.check.fail(
                    f"{path}[{i}]",
                    f"no creature card of the database has its first printing in set {code!r}"
                    f"{did_you_mean(code, known)}",
                )
            out.append(c)
        return tuple(dict.fromkeys(out))

    def names(
        self, value: Any, path: str, approximate: bool, funny: bool, costless: bool
    ) -> tuple[str, ...]:
        table = database()
        out = []
        modeled = modeled_cards(self.registry)
        for i, name in enumerate(self.check.string_list(value, path)):
            where = f"{path}[{i}]"
            index = table.by_name.get(name.strip().casefold())
            if index is None:
                raise self.check.fail(
                    where,
                    f"no creature card named {name!r} in the card database"
                    f"{did_you_mean(name, (c.name for c in table.cards))}",
                )
            card = modeled[index]
            if not drawable(card):
                raise self.check.fail(
                    where,
                    f"{card.facts.name} is {card.facts.power}/{card.facts.toughness}: a pool "
                    "draws cards with power 0 or more and toughness 1 or more",
                )
            if card.facts.funny and not funny:
                raise self.check.fail(
                    where,
                    f"{card.facts.name} is an Un-card: add funny = true to the pool to draw it",
                )
            if not card.facts.mana_cost and not costless:
                raise self.check.fail(
                    where,
                    f"{card.facts.name} has no mana cost (the back face of a transforming card, "
                    "or never cast): add without_mana_cost = true to the pool to draw it",
                )
            if not card.exact and not approximate:
                raise self.check.fail(
                    where,
                    f"{card.facts.name} is approximate (ignored: {' / '.join(card.ignored)}): "
                    "add approximate = true to the pool to draw it",
                )
            out.append(card.facts.name)
        return tuple(dict.fromkeys(out))

    def pool_filter(
        self, raw: Mapping[str, Any], path: str, origin: Mapping[str, str] | None = None
    ) -> PoolFilter:
        """One side's filter, validated; `origin` says which table each key came from (for a
        side's table merged over ``[pool]``), else `path`."""
        self.check.keys(raw, path, POOL_KEYS)

        def at(key: str) -> str:
            return f"{(origin or {}).get(key, path)}.{key}"

        approximate = self.check.boolean(raw.get("approximate", False), at("approximate"))
        funny = self.check.boolean(raw.get("funny", False), at("funny"))
        costless = self.check.boolean(raw.get("without_mana_cost", False), at("without_mana_cost"))
        return PoolFilter(
            mana_value=(
                self.mana_value(raw["mana_value"], at("mana_value"))
                if "mana_value" in raw
                else None
            ),
            colors=self.colors(raw.get("colors", []), at("colors")),
            keywords=self.keywords(raw.get("keywords", []), at("keywords")),
            sets=self.sets(raw["sets"], at("sets")) if "sets" in raw else (),
            names=self.names(raw.get("names", []), at("names"), approximate, funny, costless),
            approximate=approximate,
            funny=funny,
            without_mana_cost=costless,
        )

    def pool(
        self,
        top: Any,
        attacker: Any,
        blocker: Any,
        paths: tuple[str, str, str] = ("pool", "attacker.pool", "blocker.pool"),
    ) -> CardPool:
        """The pool of a SPEC from its ``pool`` tables (the top-level one, each side's)."""
        base = self.check.table(top, paths[0]) if top is not None else None
        if base is not None:
            self.check.keys(base, paths[0], POOL_KEYS)
        filters = []
        for raw, path in ((attacker, paths[1]), (blocker, paths[2])):
            if base is None and raw is None:
                other = paths[2] if path == paths[1] else paths[1]
                raise self.check.fail(
                    path,
                    f"missing: a SPEC draws both sides from card pools or neither (give [pool] "
                    f"for both, or [{path}] beside [{other}])",
                )
            where = path if raw is not None else paths[0]
            merged = self.merged(base, raw, path)
            origin = {key: paths[0] for key in (base or {}) if key not in (raw or {})}
            filters.append((self.pool_filter(merged, where, origin), where))
        chosen = []
        for f, where in filters:
            cards = select(f, self.registry)
            if not cards:
                raise self.check.fail(
                    where,
                    "no card of the database matches this pool"
                    + (
                        ""
                        if f.approximate
                        else " (exact cards only: approximate = true adds the others)"
                    ),
                )
            chosen.append(cards)
        return build_pool(chosen[0], chosen[1], filters[0][0], filters[1][0])
