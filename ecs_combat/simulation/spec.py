"""What a bulk simulation draws: the default keyword tournament, or a SPEC file.

A SPEC is a TOML or JSON file (format in docs/simulate.md). Every problem is an :class:`InputError`
naming the file, the key path and what is wrong; unknown keys are errors.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ecs_combat.plugin.registry import Registry
from ecs_combat.rules.usage import with_required
from ecs_combat.scenario import documents
from ecs_combat.scenario.checks import Checker, check_document, describe_integer, type_name
from ecs_combat.scenario.instances import parse_instance
from ecs_combat.simulation.pool import CardPool, PoolReader
from ecs_combat.simulation.turns import SIDES, TurnSpec, parse_turn, turn_keywords
from ecs_combat.suggest import did_you_mean

Range = tuple[int, int]

#: Limits that keep one seeded block of battles (1024) within memory.
MAX_ATTACKERS = 64
MAX_BLOCKERS_PER_ATTACKER = 16
#: Largest power or toughness a SPEC may ask for.
MAX_STAT = 1000
#: At most this many keywords label matchups (each side's label is a subset of them).
MAX_MATCHUP_KEYWORDS = 16
#: Which creatures a `[[casts]]` card is cast on; its caster is the target's controller.
CAST_TARGETS = ("blocked attacker", "attacker", "blocker")
#: Power and toughness of the default tournament's creatures.
TOURNAMENT_RANGE: Range = (1, 6)
DEFAULT_LIFE = 20
#: How the defending player's blocks are chosen: as drawn, or the best (RULES section 9).
DECISIONS = ("drawn", "optimal")
#: ``decisions = "optimal"`` searches battles of at most this many block declarations.
MOST_DECIDED_DECLARATIONS = 100_000


def strike_keywords(registry: Registry) -> tuple[str, ...]:
    """The installed keywords that change when a creature deals combat damage.

    A keyword counts if it strikes in some damage step or sits one out, so a third-party strike
    keyword joins the tournament as soon as it is installed. They are ordered by their first
    step, then by how many steps they strike in, then by name.
    """
    order = {step.name: step.order for step in registry.steps}
    found = [k for k in registry.keywords.values() if k.strikes_in or k.withholds_from]
    found.sort(
        key=lambda k: (
            min(order[s] for s in k.strikes_in | k.withholds_from),
            len(k.strikes_in),
            k.name,
        )
    )
    return tuple(k.name for k in found)


@dataclass(frozen=True)
class TournamentSpec:
    """The default simulation: one attacker against one blocker.

    Each side's keyword is drawn uniformly from none and each of `keywords`; power and
    toughness uniformly from their ranges.
    """

    keywords: tuple[str, ...]
    power: Range = TOURNAMENT_RANGE
    toughness: Range = TOURNAMENT_RANGE
    life: int = DEFAULT_LIFE
    decisions: str = "drawn"

    def describe(self) -> dict[str, Any]:
        """The spec as JSON data (part of a summary: it decides the battles)."""
        return {
            "kind": "keyword tournament",
            "keywords": list(self.keywords),
            "power": list(self.power),
            "toughness": list(self.toughness),
            "life": self.life,
            **_decisions(self.decisions),
        }


@dataclass(frozen=True)
class SideSpec:
    """How the creatures of one side are drawn."""

    power: Range
    toughness: Range
    #: Probability of each keyword, independently; only keywords above 0, in registry order.
    keywords: Mapping[str, float] = field(default_factory=dict)
    #: Probability that each yes-or-no state a plugin adds to creatures (``hat``) is true.
    state: Mapping[str, float] = field(default_factory=dict)

    def describe(self) -> dict[str, Any]:
        """The side as JSON data."""
        return {
            "power": list(self.power),
            "toughness": list(self.toughness),
            "keywords": dict(self.keywords),
            "state": dict(self.state),
        }


@dataclass(frozen=True)
class CastSpec:
    """A card from the card library, cast at declare-blockers by its target's controller."""

    card: str
    #: Probability, per creature that `target` describes, that the card is cast on it.
    probability: float
    target: str = CAST_TARGETS[0]


@dataclass(frozen=True)
class BattleSpec:
    """A SPEC file: battles between an attacking and a defending player.

    Each battle has a number of attackers drawn from `attackers`, and each attacker a number
    of blockers drawn from `blockers_per_attacker`; blocks the rules forbid are not declared.
    """

    attackers: Range
    blockers_per_attacker: Range
    life: int
    attacker: SideSpec
    blocker: SideSpec
    casts: tuple[CastSpec, ...] = ()
    #: Keywords that label each side in the matchup table.
    matchup: tuple[str, ...] = ()
    #: Probability that each yes-or-no state a plugin adds to players (``hat``) is true.
    player_state: Mapping[str, float] = field(default_factory=dict)
    #: A whole turn with several combat phases (:mod:`ecs_combat.simulation.turns`), or None:
    #: one combat phase.
    turn: TurnSpec | None = None
    #: The real cards both sides draw from (``[pool]``), or None: power, toughness and keywords
    #: are then the cards'.
    pool: CardPool | None = None
    #: "drawn", or "optimal": the defending player's best blocks (RULES section 9).
    decisions: str = "drawn"

    def describe(self) -> dict[str, Any]:
        """The spec as JSON data (part of a summary: it decides the battles)."""
        pool = {} if self.pool is None else {"pool": self.pool.describe()}
        return {
            "kind": "spec",
            **pool,
            "attackers": list(self.attackers),
            "blockers_per_attacker": list(self.blockers_per_attacker),
            "life": self.life,
            "player_state": dict(self.player_state),
            "attacker": self._side(self.attacker),
            "blocker": self._side(self.blocker),
            "casts": [
                {"card": c.card, "probability": c.probability, "target": c.target}
                for c in self.casts
            ],
            "matchup": list(self.matchup),
            **({"turn": self.turn.describe()} if self.turn is not None else {}),
            **_decisions(self.decisions),
        }

    def _side(self, side: SideSpec) -> dict[str, Any]:
        """A side as JSON data; with a card pool, only what the cards don't decide."""
        if self.pool is None:
            return side.describe()
        return {"state": dict(side.state)}


Spec = TournamentSpec | BattleSpec


def drawn_keywords(registry: Registry, spec: Spec) -> tuple[str, ...]:
    """The keywords a simulation's battles can hold, in registry order: those it draws, those
    its cards give, and what their static abilities need. A batch's masks need bits for these
    only, however many keywords are installed."""
    if isinstance(spec, TournamentSpec):
        used = set(spec.keywords)
    else:
        used = set(spec.attacker.keywords) | set(spec.blocker.keywords) | set(spec.matchup)
        if spec.pool is not None:
            used |= spec.pool.keywords
        for cast in spec.casts:
            card = registry.card(cast.card)
            if card is not None:
                used |= card.keywords
        if spec.turn is not None:
            used |= turn_keywords(spec.turn, registry)
    return with_required(registry, used)


def requires_blocks(registry: Registry, keywords: Iterable[str]) -> list[str]:
    """Those of the keywords that set a block requirement (509.1c: lure)."""
    held = set(keywords)
    return [r.keyword for r in registry.restrictions_of("block-requirement") if r.keyword in held]


def drawn_refused(spec: Spec, registry: Registry) -> str | None:
    """Why the spec's battles can't have their blocks drawn (``decisions = "drawn"``), or
    None: drawn blocks obey restrictions only, not requirements."""
    found = requires_blocks(registry, drawn_keywords(registry, spec))
    if not found:
        return None
    return (
        f"{found[0]!r} sets a block requirement (509.1c), and drawn blocks obey restrictions "
        'only: with it the blocks are chosen (decisions = "optimal")'
    )


def _decisions(decisions: str) -> dict[str, str]:
    """The ``decisions`` key of a described spec: only when they are not drawn, so that the
    summaries of drawn runs stay as they were."""
    return {} if decisions == "drawn" else {"decisions": decisions}


def most_declarations(spec: Spec, registry: Registry) -> int:
    """How many declarations the largest decision of the spec's battles can have, at most:
    each creature of the defending player blocks nothing or one attacker (509.1a), or any set
    of attackers when a keyword the battles can hold lets it block several; in a later combat
    phase of a turn, each set of the attacking player's creatures that may attack is an
    attack, answered by every such block declaration."""
    return _largest_decision(spec, registry)[0]


def blocks_several(spec: Spec, registry: Registry) -> bool:
    """Whether a keyword the spec's battles can hold lets a creature block several attackers
    (a ``blocks`` restriction: "can block an additional creature")."""
    held = set(drawn_keywords(registry, spec))
    return any(r.keyword in held for r in registry.restrictions_of("blocks"))


def _largest_decision(spec: Spec, registry: Registry) -> tuple[int, str]:
    """:func:`most_declarations`, and which decision it is (words for a message)."""
    if isinstance(spec, TournamentSpec):
        return 2, "one attacker and one creature that may block have {:,} block declarations"
    several = blocks_several(spec, registry)
    each = "; each may block several" if several else ""

    def sets(attackers: int) -> int:  # what one creature that may block chooses from
        return 2**attackers if several else attackers + 1

    attackers = spec.attackers[1]
    blockers = attackers * spec.blockers_per_attacker[1]
    if spec.turn is None:
        return sets(attackers) ** blockers, (
            f"its largest battle ({attackers} attackers, {blockers} creatures that may block"
            f"{each}) can have up to {{:,}} block declarations"
        )
    sides = {side: sum(c.controller == side for c in spec.turn.creatures) for side in SIDES}
    own = {SIDES[0]: attackers + sides[SIDES[0]], SIDES[1]: blockers + sides[SIDES[1]]}
    k = own[SIDES[1]]
    found = [
        (
            sets(attackers) ** k,
            f"the first combat phase of its largest battle ({attackers} attackers, {k} "
            f"creatures that may block{each}) can have up to {{:,}} block declarations",
        )
    ]
    for i, (player, only) in enumerate(spec.turn.later):
        m = own[player] if only is None else only
        k = own[SIDES[1 - SIDES.index(player)]]
        count = sum(math.comb(m, s) * sets(s) ** k for s in range(m + 1))
        found.append(
            (
                count,
                f"combat phase {i + 2} of its largest battle (the {player}'s: {m} creatures "
                f"that may attack, {k} that may block{each}) can have up to {{:,}} declarations "
                "(every attack with every block declaration against it)",
            )
        )
    return max(found, key=lambda f: f[0])


def decisions_refused(spec: Spec, registry: Registry) -> str | None:
    """Why the spec's battles can't have ``decisions = "optimal"``, or None."""
    if isinstance(spec, TournamentSpec):
        return None
    for i, cast in enumerate(spec.casts):
        if cast.target != "attacker":
            return (
                f"casts[{i}] is cast on a {cast.target}, which depends on the blocks: with "
                'decisions = "optimal" a SPEC casts cards on attackers only (target = "attacker")'
            )
    most, where = _largest_decision(spec, registry)
    if most > MOST_DECIDED_DECLARATIONS:
        fewer = "attackers, blockers_per_attacker" + (" or turn.creatures" if spec.turn else "")
        return (
            f"{where.format(most)}; an exact search takes at most "
            f"{MOST_DECIDED_DECLARATIONS:,}: draw fewer {fewer}"
        )
    return None


def tournament(registry: Registry) -> TournamentSpec:
    """The default keyword tournament between the installed strike keywords."""
    return TournamentSpec(strike_keywords(registry))


# ---------------------------------------------------------------------------------------------
# Reading a SPEC file


class SpecReader(Checker):
    """Typed, validated access to a raw SPEC document."""

    TOP = documents.MARKS["spec"]
    SIDE = frozenset({"power", "toughness", "keywords", "state", "pool"})
    #: What the cards of a pool decide: not given beside ``[pool]``.
    CARD_DECIDES = ("power", "toughness", "keywords", "matchup")

    def __init__(self, registry: Registry, file: str) -> None:
        super().__init__(file)
        self.registry = registry
        #: Whether the blocks are chosen (``decisions = "optimal"``), not drawn.
        self.optimal = False

    def range(self, value: Any, path: str, lo: int, hi: int | None = None) -> Range:
        """An integer, or ``[min, max]`` (both included)."""
        if isinstance(value, list):
            if len(value) != 2:
                raise self.fail(
                    path, f"must be an integer or [min, max], not a list of {len(value)}"
                )
            a = self.integer(value[0], f"{path}[0]", lo, hi)
            b = self.integer(value[1], f"{path}[1]", lo, hi)
            if a > b:
                raise self.fail(path, f"min {a} is greater than max {b}")
            return a, b
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(path, f"must be an integer or [min, max], not {type_name(value)}")
        n = self.integer(value, path, lo, hi)
        return n, n

    def probability(self, value: Any, path: str) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.fail(path, f"probability must be a number, not {type_name(value)}")
        if not 0.0 <= value <= 1.0:
            shown = describe_integer(value) if isinstance(value, int) else value
            raise self.fail(path, f"probability must be between 0 and 1, not {shown}")
        return float(value)

    def keyword(self, name: Any, path: str) -> str:
        if not isinstance(name, str) or not name.strip():
            raise self.fail(path, f"must be a keyword name, not {type_name(name)}")
        kw = self.registry.keyword(name)
        if kw is None:
            try:  # "bushido 2", "protection from red": a keyword with its parameter
                kw = self.registry.keyword(parse_instance(name, self.registry).name)
            except ValueError:
                kw = None
            if kw is None:
                raise self.fail(path, self.registry.unknown_keyword_reason(name))
        if kw.parameter:
            example = f"{kw.name} 2" if kw.parameter == "number" else f"{kw.name} from red"
            raise self.fail(
                path,
                f"{kw.name!r} takes a {kw.parameter} ({example!r}), and a SPEC draws keywords "
                "without parameters only: leave it out, or resolve scenario files that write "
                "its instances",
            )
        if not self.optimal and requires_blocks(self.registry, (kw.name,)):
            raise self.fail(
                path,
                f"{kw.name!r} sets a block requirement (509.1c), and a SPEC's drawn blocks obey "
                'restrictions only: leave it out, or choose the blocks (decisions = "optimal")',
            )
        return kw.name

    def keyword_probabilities(self, value: Any, path: str) -> dict[str, float]:
        table = self.table(value, path)
        out: dict[str, float] = {}
        for key, p in table.items():
            where = f"{path}.{key}"
            name = self.keyword(key, where)
            if name in out:
                raise self.fail(where, f"keyword {name!r} is listed twice")
            out[name] = self.probability(p, where)
        return out

    def side(
        self, raw: Any, path: str, base: SideSpec, base_keywords: dict[str, float]
    ) -> SideSpec:
        t = self.table(raw, path)
        self.keys(t, path, self.SIDE)
        keywords = dict(base_keywords)
        if "keywords" in t:
            keywords.update(self.keyword_probabilities(t["keywords"], f"{path}.keywords"))
        return SideSpec(
            power=(
                self.range(t["power"], f"{path}.power", 0, MAX_STAT) if "power" in t else base.power
            ),
            toughness=(
                self.range(t["toughness"], f"{path}.toughness", 1, MAX_STAT)
                if "toughness" in t
                else base.toughness
            ),
            keywords=self._in_registry_order(keywords),
            state={
                **base.state,
                **self.state_probabilities(t.get("state", {}), f"{path}.state", "creature"),
            },
        )

    def state_probabilities(self, raw: Any, path: str, owner: str) -> dict[str, float]:
        """Probabilities of yes-or-no state plugins add to creatures or players."""
        t = self.table(raw, path)
        fields = self.registry.state_fields(owner)
        yes_or_no = {k for k, f in fields.items() if f.kind == "bool"}
        self.keys(t, path, frozenset(yes_or_no))
        drawn = {k: self.probability(v, f"{path}.{k}") for k, v in t.items()}
        return {k: drawn[k] for k in fields if drawn.get(k, 0) > 0}

    def _in_registry_order(self, probabilities: dict[str, float]) -> dict[str, float]:
        return {k: probabilities[k] for k in self.registry.keywords if probabilities.get(k, 0) > 0}

    def casts(self, raw: Any) -> tuple[CastSpec, ...]:
        if not isinstance(raw, list):
            raise self.fail("casts", f"must be a list of tables ([[casts]]), not {type_name(raw)}")
        out = []
        for i, item in enumerate(raw):
            path = f"casts[{i}]"
            t = self.table(item, path)
            self.keys(t, path, frozenset({"card", "probability", "target"}))
            for required in ("card", "probability"):
                if required not in t:
                    raise self.fail(f"{path}.{required}", "missing")
            name = t["card"]
            if not isinstance(name, str) or not name.strip():
                raise self.fail(f"{path}.card", f"must be a card name, not {type_name(name)}")
            card = self.registry.spell(name)
            if card is None:
                names = sorted(c.name for c in self.registry.spells())
                known = ", ".join(names) or "none"
                raise self.fail(
                    f"{path}.card",
                    f"no card {name!r} in the card library (loaded: {known})"
                    f"{did_you_mean(name, names)}",
                )
            for kw in sorted(card.keywords):
                if self.registry.keyword(kw) is None:
                    raise self.fail(
                        f"{path}.card",
                        f"{card.name} needs {self.registry.unknown_keyword_reason(kw)}",
                    )
            if card.target.kind == "none" or card.creates is not None:
                raise self.fail(
                    f"{path}.card",
                    f"{card.name} can't be drawn here: a SPEC casts cards on target creatures, "
                    f"and {card.name} "
                    + ("creates a creature token" if card.creates else "has no target"),
                )
            target = t.get("target", CAST_TARGETS[0])
            if target not in CAST_TARGETS:
                shown = repr(target) if isinstance(target, str) else type_name(target)
                raise self.fail(
                    f"{path}.target",
                    f"must be one of {', '.join(repr(c) for c in CAST_TARGETS)}, not {shown}",
                )
            out.append(
                CastSpec(
                    card.name, self.probability(t["probability"], f"{path}.probability"), target
                )
            )
        return tuple(out)

    def matchup(self, raw: Any) -> tuple[str, ...]:
        if not isinstance(raw, list):
            raise self.fail("matchup", f"must be a list of keywords, not {type_name(raw)}")
        names: list[str] = []
        for i, item in enumerate(raw):
            name = self.keyword(item, f"matchup[{i}]")
            if name in names:
                raise self.fail(f"matchup[{i}]", f"keyword {name!r} is listed twice")
            names.append(name)
        if len(names) > MAX_MATCHUP_KEYWORDS:
            raise self.fail("matchup", f"at most {MAX_MATCHUP_KEYWORDS} keywords, not {len(names)}")
        return tuple(names)

    def pool(self, doc: dict[str, Any]) -> CardPool | None:
        """The card pool of the SPEC, if it has ``pool`` tables; then the cards decide power,
        toughness and keywords, which are refused beside it."""
        sides = {s: self.table(doc.get(s, {}), s) for s in ("attacker", "blocker")}
        if "pool" not in doc and not any("pool" in t for t in sides.values()):
            return None
        for key in self.CARD_DECIDES:
            for where, t in (("", doc), *sides.items()):
                if key in t:
                    path = f"{where}.{key}" if where else key
                    raise self.fail(
                        path,
                        "a SPEC with a card pool takes power, toughness and keywords from the "
                        "cards, and labels battles by card: leave it out",
                    )
        return PoolReader(self, self.registry).pool(
            doc.get("pool"), sides["attacker"].get("pool"), sides["blocker"].get("pool")
        )

    def parse(self, raw: Any) -> BattleSpec:
        doc = self.table(raw, "")
        check_document(doc, self.file)
        self.keys(doc, "", self.TOP)
        self.optimal = doc.get("decisions") == "optimal"
        pool = self.pool(doc)
        keywords = self.keyword_probabilities(doc.get("keywords", {}), "keywords")
        state = self.table(doc.get("state", {}), "state")
        self.keys(state, "state", frozenset({"creature", "player"}))
        base = SideSpec(
            power=self.range(doc.get("power", list(TOURNAMENT_RANGE)), "power", 0, MAX_STAT),
            toughness=self.range(
                doc.get("toughness", list(TOURNAMENT_RANGE)), "toughness", 1, MAX_STAT
            ),
            state=self.state_probabilities(state.get("creature", {}), "state.creature", "creature"),
        )
        if pool is not None and "turn" in doc:
            raise self.fail(
                "turn",
                "a SPEC draws either real cards from a pool or a turn with several combat "
                "phases, not both (card pools play one combat phase)",
            )
        spec = BattleSpec(
            attackers=self.range(doc.get("attackers", 1), "attackers", 1, MAX_ATTACKERS),
            blockers_per_attacker=self.range(
                doc.get("blockers_per_attacker", 1),
                "blockers_per_attacker",
                0,
                MAX_BLOCKERS_PER_ATTACKER,
            ),
            life=self.integer(doc.get("life", DEFAULT_LIFE), "life", 1),
            player_state=self.state_probabilities(
                state.get("player", {}), "state.player", "player"
            ),
            attacker=self.side(doc.get("attacker", {}), "attacker", base, keywords),
            blocker=self.side(doc.get("blocker", {}), "blocker", base, keywords),
            casts=self.casts(doc.get("casts", [])),
            matchup=self.matchup(doc.get("matchup", [])),
            turn=parse_turn(self, doc["turn"]) if "turn" in doc else None,
            pool=pool,
        )
        if "decisions" in doc:
            spec = replace(spec, decisions=self.decisions(doc["decisions"]))
            why = decisions_refused(spec, self.registry)
            if why is not None:
                raise self.fail("decisions", f'"optimal" is refused for this SPEC: {why}')
        return spec

    def decisions(self, value: Any) -> str:
        if not isinstance(value, str):
            raise self.fail(
                "decisions",
                f"must be one of {', '.join(map(repr, DECISIONS))}, not {type_name(value)}",
            )
        if value not in DECISIONS:
            raise self.fail(
                "decisions",
                f"must be one of {', '.join(map(repr, DECISIONS))}, not {value!r}"
                f"{did_you_mean(value, list(DECISIONS))}",
            )
        return value


def parse_spec(doc: Any, registry: Registry, file: str = "<spec>") -> BattleSpec:
    """Validate a raw SPEC document (a dict as read from TOML)."""
    return SpecReader(registry, file).parse(doc)


def load_spec(path: str | Path, registry: Registry) -> BattleSpec:
    """Read and validate a SPEC file (TOML or JSON)."""
    ((where, doc),) = documents.read_documents(path, "spec")
    return parse_spec(doc, registry, where)
