"""What a bulk simulation draws: the default keyword tournament, or a SPEC file.

A SPEC is a TOML or JSON file (format in docs/simulate.md), read by
:mod:`ecs_combat.simulation.spec_reader`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ecs_combat.plugin.registry import Registry
from ecs_combat.rules.usage import with_required
from ecs_combat.simulation.pool import CardPool
from ecs_combat.simulation.turns import SIDES, TurnSpec, turn_keywords

Range = tuple[int, int]

#: The most creatures a SPEC's battle may have (its attackers and their blockers, and a
#: turn's creatures): one battle is drawn and resolved at once.
MAX_BATTLE_CREATURES = 1_000_000
MAX_ATTACKERS = MAX_BATTLE_CREATURES
MAX_BLOCKERS_PER_ATTACKER = MAX_BATTLE_CREATURES - 1
#: The former limits: a SPEC within them draws seeded blocks of 1,024 battles, as it always
#: has (:func:`~ecs_combat.simulation.seeded_blocks.battles_per_block`).
SMALL_ATTACKERS, SMALL_BLOCKERS_PER_ATTACKER = 64, 16
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
#: A ``[race]`` plays at most this many turns unless it says (RULES section 12).
DEFAULT_RACE_TURNS = 20
#: Race seeds are below this (a race file's ``race.seed`` is at most 1,000,000,000).
MOST_RACE_SEED = 1_000_000_000
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
class RaceSpec:
    """A SPEC's ``[race]`` table (RULES section 12, CONTRACT section 9): each drawn board is
    played as a race, its attacking side (player A) first. Race `k` of a run draws its
    ``drawn`` decisions from a generator seeded by (`seed`, `k`): the same race whatever the
    chunk or worker that plays it."""

    turns: int = DEFAULT_RACE_TURNS
    decisions: str = "optimal"
    horizon: str = "combat"
    seed: int = 0

    def describe(self) -> dict[str, Any]:
        """The table as JSON data (every default filled in)."""
        return {
            "turns": self.turns,
            "decisions": self.decisions,
            "horizon": self.horizon,
            "seed": self.seed,
        }

    def race_seed(self, k: int) -> int:
        """The seed of race `k`'s drawn decisions (:func:`race_seed`)."""
        return race_seed(self.seed, k)


def race_seed(seed: int, k: int) -> int:
    """The seed of race `k`'s drawn decisions in races seeded by `seed`: from (`seed`, `k`),
    within what a race file's ``race.seed`` takes (so ``simulate --replay`` can write it)."""
    return int(np.random.SeedSequence([seed, k]).generate_state(1)[0]) % MOST_RACE_SEED


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
    #: Each drawn board played as a race (``[race]``), or None: one combat.
    race: RaceSpec | None = None

    def describe(self) -> dict[str, Any]:
        """The spec as JSON data (part of a summary: it decides the battles)."""
        pool = {} if self.pool is None else {"pool": self.pool.describe()}
        race = {} if self.race is None else {"race": self.race.describe()}
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
            **race,
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
    each set of the attacking player's drawn attackers is an attack (in a turn's first combat
    phase, its drawn attackers attack), answered by every block declaration: each creature of
    the defending player blocks nothing or one attacker (509.1a), or any set of attackers when
    a keyword the battles can hold lets it block several."""
    return _largest_decision(spec, registry)[0]


def blocks_several(spec: Spec, registry: Registry) -> bool:
    """Whether a keyword the spec's battles can hold lets a creature block several attackers
    (a ``blocks`` restriction: "can block an additional creature")."""
    held = set(drawn_keywords(registry, spec))
    return any(r.keyword in held for r in registry.restrictions_of("blocks"))


def mean_creatures(spec: Spec) -> float:
    """About how many creatures a battle of the spec has (the ranges' middles): what a run's
    size is counted in when it is weighed against a fixed cost."""
    if isinstance(spec, TournamentSpec):
        return 2.0
    (a_lo, a_hi), (b_lo, b_hi) = spec.attackers, spec.blockers_per_attacker
    turn = len(spec.turn.creatures) if spec.turn is not None else 0
    return (a_lo + a_hi) / 2 * (1 + (b_lo + b_hi) / 2) + turn


def most_creatures(spec: BattleSpec) -> int:
    """The most creatures a battle of the spec can have."""
    attackers, per = spec.attackers[1], spec.blockers_per_attacker[1]
    return attackers * (1 + per) + (len(spec.turn.creatures) if spec.turn is not None else 0)


def too_large_to_search(spec: BattleSpec) -> str | None:
    """Why the spec's battles are too large for the decision search at all (more creatures
    than it takes), said at once without counting declarations; None if they are not."""
    from ecs_combat.decisions.declarations import MOST_CREATURES

    most = most_creatures(spec)
    if most <= MOST_CREATURES:
        return None
    return (
        f"its largest battle has {most:,} creatures ({spec.attackers[1]:,} attackers and up to "
        f"{spec.blockers_per_attacker[1]:,} blockers per attacker); decisions search boards "
        f"of at most {MOST_CREATURES:,} creatures: draw fewer attackers or "
        "blockers_per_attacker"
    )


def _largest_decision(spec: Spec, registry: Registry) -> tuple[int, str]:
    """:func:`most_declarations`, and which decision it is (words for a message)."""
    if isinstance(spec, TournamentSpec):
        return 3, (
            "one attacker and one creature that may block have {:,} declarations (no attack, "
            "or the attack unblocked or blocked)"
        )
    several = blocks_several(spec, registry)
    each = "; each may block several" if several else ""

    def sets(attackers: int) -> int:  # what one creature that may block chooses from
        return 2**attackers if several else attackers + 1

    attackers = spec.attackers[1]
    blockers = attackers * spec.blockers_per_attacker[1]
    if spec.turn is None:  # every set of the drawn attackers, each answered by every block
        count = sum(math.comb(attackers, s) * sets(s) ** blockers for s in range(attackers + 1))
        return count, (
            f"its largest battle ({attackers} attackers, {blockers} creatures that may block"
            f"{each}) can have up to {{:,}} declarations (every attack with every block "
            "declaration against it)"
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
    too_large = too_large_to_search(spec)
    if too_large is not None:
        return too_large
    most, where = _largest_decision(spec, registry)
    if most > MOST_DECIDED_DECLARATIONS:
        fewer = "attackers, blockers_per_attacker" + (" or turn.creatures" if spec.turn else "")
        return (
            f"{where.format(most)}; an exact search takes at most "
            f"{MOST_DECIDED_DECLARATIONS:,}: draw fewer {fewer}"
        )
    return None


def race_refused(spec: BattleSpec, registry: Registry) -> str | None:
    """Why the spec's boards can't be raced with ``race.decisions = "optimal"``, or None: in
    each turn the active player's creatures attack the other's, so both sides' attacks are
    searched, each against every block declaration (RULES section 9)."""
    if spec.race is None or spec.race.decisions != "optimal":
        return None
    too_large = too_large_to_search(spec)
    if too_large is not None:
        return too_large
    several = blocks_several(spec, registry)

    def decisions(m: int, k: int) -> int:  # every attack by m creatures, every block by k
        return sum(math.comb(m, s) * (2**s if several else s + 1) ** k for s in range(m + 1))

    a = spec.attackers[1]
    b = a * spec.blockers_per_attacker[1]
    most = max(decisions(a, b), decisions(b, a))
    if most <= MOST_DECIDED_DECLARATIONS:
        return None
    return (
        f"its largest board ({a} creatures against {b}) can have up to {most:,} attack and "
        f"block declarations in a combat; an exact search takes at most "
        f"{MOST_DECIDED_DECLARATIONS:,}: draw fewer attackers or blockers_per_attacker"
    )


def tournament(registry: Registry) -> TournamentSpec:
    """The default keyword tournament between the installed strike keywords."""
    return TournamentSpec(strike_keywords(registry))
