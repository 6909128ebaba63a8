"""Requirements on blocking (509.1c): blocks a creature must make if it is able, as plugins
declare them (restrictions of kind ``block-requirement``: lure).

The declared blocks must obey as many requirements as possible without breaking a
restriction, declaration-wide ones included (509.1c, RULES 11.4). A requirement is one
(blocker, attacker) pair: the blocker is able to block that attacker (no ``block`` or
``block-pair`` restriction forbids it, and the attacker attacks the blocker's controller) and
some plugin's requirement says it must. A blocker can obey as many of its requirements as it
may block attackers (its capacity: one, or what the ``blocks`` restrictions allow, such as
"can block an additional creature"); so when no attacker with a requirement needs two or more
blockers, the most a declaration can obey is the sum over blockers of the smaller of the two.
An attacker that can't be blocked except by N or more creatures (menace, 702.111b) is blocked
by none or by N or more, any able creature helping: the most is then found as a min-cost flow
for each choice of which of those attackers are blocked (:func:`most_obeyable`). Candidate
declarations are scored as arrays, so a decision search scores many at once
(:func:`requirements_obeyed`). The requirements are kept as a list of pairs, never as a
blockers-by-attackers matrix: a battle of 500,000 attackers and as many blockers has none, or
a few.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from ecs_combat.errors import InputError
from ecs_combat.plugin.registry import Registry
from ecs_combat.plugin.restrictions import Restriction
from ecs_combat.rules.sides import KeywordSide, block_capacity, least_blockers, spec_side

if TYPE_CHECKING:
    from ecs_combat.scenario.model import Scenario

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]


@dataclass(frozen=True)
class BlockRequirements:
    """The block requirements of one scenario's declared attack."""

    #: The creatures that may be declared as blockers, in scenario order.
    blockers: tuple[str, ...]
    #: The declared attackers, in declaration order.
    attackers: tuple[str, ...]
    #: [P, 2]: the required pairs (blocker place, attacker place) in blocker order, each
    #: once: the blocker is able to block the attacker and must.
    pairs: IntArray
    #: [blocker]: how many attackers each may block (509.1a: 1, or what ``blocks``
    #: restrictions allow).
    capacity: IntArray
    #: The requirement that applies to each required pair, for messages.
    sources: Mapping[tuple[int, int], Restriction]
    #: (blocker place, attacker place): the blocker is able to block the attacker (509.1a-b),
    #: for the attackers with a requirement that can't be blocked except by two or more
    #: creatures (the required pairs included).
    able: frozenset[tuple[int, int]] = frozenset()
    #: Attacker place -> how many creatures at least must block it if any does (509.1b), for
    #: the attackers with a requirement that need two or more.
    least: Mapping[int, int] = dataclasses.field(default_factory=dict)

    def most_obeyable(self) -> int:
        """The most requirements one declaration can obey without breaking a restriction
        (509.1c, RULES 11.4): :func:`most_obeyable`."""
        return most_obeyable(self)

    def of_blocker(self, i: int) -> list[int]:
        """The attackers (places) blocker `i` is required to block, in attacker order."""
        return sorted(self.pairs[self.pairs[:, 0] == i, 1].tolist())


#: A requirement a trigger made as attackers were declared: (blocker id, attacker
#: id, keyword).
MadeRequirement = tuple[str, str, str]


def block_requirements(
    scenario: Scenario,
    registry: Registry,
    made: Sequence[MadeRequirement] = (),
    tapped: Collection[str] = (),
) -> BlockRequirements:
    """The requirements of a scenario's attack, as its creatures are declared: the plugins'
    ``block-requirement`` restrictions and those triggers `made`; `tapped` creatures can't
    block (509.1a), so they have none."""
    attackers = tuple(scenario.attackers)
    attacking_players = {scenario.creatures[a].controller for a in attackers}
    blockers = tuple(
        cid
        for cid, spec in scenario.creatures.items()
        if spec.controller not in attacking_players and cid not in tapped
    )
    board = _Board(scenario, registry)
    sources = _sources(board, blockers, attackers, made)
    pairs = np.array(sorted(sources), np.int64).reshape(-1, 2)
    capacity = np.ones(len(blockers), np.int64)
    required_blockers = {i for i, _ in sources}  # (np.unique would import numpy.ma)
    for i in required_blockers:  # only where it can matter
        capacity[i] = block_capacity(board.side(blockers[i]), registry)
    can, least = _others_able(board, sources, blockers, attackers, capacity)
    can |= set(sources)
    return BlockRequirements(
        blockers,
        attackers,
        pairs,
        capacity,
        sources,
        frozenset(can) if least else frozenset(),
        least,
    )


@dataclass(frozen=True)
class _Board:
    """A scenario's creatures as the declaration rules see them."""

    scenario: Scenario
    registry: Registry

    def side(self, cid: str) -> KeywordSide:
        specs = self.scenario.creatures
        lands = self.scenario.players[specs[cid].controller].lands
        return spec_side(specs[cid], self.registry, lands)

    def able(self, b: str, mine: KeywordSide, a: str, theirs: KeywordSide) -> bool:
        """509.1a-b: the blocker may block that attacker, which attacks its controller."""
        registry = self.registry
        return (
            self.scenario.attackers[a] == self.scenario.creatures[b].controller
            and all(r.test(mine) for r in registry.restrictions_of("block"))
            and all(r.test(theirs, mine) for r in registry.restrictions_of("block-pair"))
        )


def _sources(
    board: _Board,
    blockers: tuple[str, ...],
    attackers: tuple[str, ...],
    made: Sequence[MadeRequirement],
) -> dict[tuple[int, int], Restriction]:
    """(blocker place, attacker place) -> the requirement that the blocker block the
    attacker: the plugins' restrictions, then those triggers `made`; only pairs the blocker is
    able to block (509.1a-b)."""
    registry, specs = board.registry, board.scenario.creatures
    rules = registry.restrictions_of("block-requirement")
    sources: dict[tuple[int, int], Restriction] = {}
    # a requirement is checked only where its keyword is (as restrictions are): the attackers
    # that have one, so the work is blockers x those attackers, not blockers x attackers
    keywords = {r.keyword for r in rules}
    sought = [
        (j, a, board.side(a))
        for j, a in enumerate(attackers)
        if keywords & {*specs[a].keywords, *(k for k, n in specs[a].counters.items() if n > 0)}
    ]
    for i, b in enumerate(blockers if sought else ()):
        mine = board.side(b)
        for j, a, theirs in sought:
            if board.able(b, mine, a, theirs):
                found = next((r for r in rules if r.test(theirs, mine)), None)
                if found is not None:
                    sources[i, j] = found
    for b, a, keyword in made:
        if b in blockers and a in attackers and board.able(b, board.side(b), a, board.side(a)):
            i, j = blockers.index(b), attackers.index(a)
            kw = registry.keyword(keyword)
            sources[i, j] = Restriction(
                "block-requirement", keyword, kw.rule if kw is not None else "509.1c", _made
            )
    return sources


def _others_able(
    board: _Board,
    sources: Mapping[tuple[int, int], Restriction],
    blockers: tuple[str, ...],
    attackers: tuple[str, ...],
    capacity: IntArray,
) -> tuple[set[tuple[int, int]], dict[int, int]]:
    """Who else could block the attackers with a requirement that can't be blocked except by
    two or more creatures, and how many each needs: declaration-wide restrictions (menace)
    count too (RULES 11.4). Fills in `capacity` for those other blockers."""
    registry = board.registry
    required_blockers = {i for i, _ in sources}
    can: set[tuple[int, int]] = set()
    least: dict[int, int] = {}
    for j in sorted({j for _, j in sources}):
        theirs = board.side(attackers[j])
        need = least_blockers(theirs, registry)[0]
        if need <= 1:
            continue
        least[j] = need
        for i, b in enumerate(blockers):
            if board.able(b, board.side(b), attackers[j], theirs):
                can.add((i, j))
                if i not in required_blockers:
                    capacity[i] = block_capacity(board.side(b), registry)
    return can, least


def most_obeyable(reqs: BlockRequirements) -> int:
    """The most requirements one declaration can obey without breaking a restriction
    (509.1c), declaration-wide ones included (RULES 11.4): each blocker blocks at most its
    capacity, and an attacker that can't be blocked except by N or more creatures (702.111b)
    is blocked by none or by N or more able creatures, required or not. A lure attacker with
    menace that one creature alone could block requires nothing; with two able, both must.

    Without such an attacker the blockers are independent: the sum over blockers of their
    requirements or their capacity, the smaller. Otherwise, for each choice of which of those
    attackers are blocked, the best declaration is a min-cost flow (a declaration is a flow
    of blocks from blockers to attackers, each obeyed requirement worth one, each of the least
    blockers of a chosen attacker worth more than every requirement together)."""
    if not len(reqs.pairs):
        return 0
    blockers, counts = np.unique(reqs.pairs[:, 0], return_counts=True)
    alone = int(np.minimum(counts, reqs.capacity[blockers]).sum())
    coupled = sorted(reqs.least)
    if not coupled:
        return alone
    best = 0
    for chosen in itertools.product((False, True), repeat=len(coupled)):
        blocked = {j for j, on in zip(coupled, chosen, strict=True) if on}
        found = _obeyed_with(reqs, blocked, set(coupled) - blocked)
        if found is not None:
            best = max(best, found)
        if best == alone:  # no declaration obeys more than the blockers alone could
            break
    return best


def _obeyed_with(reqs: BlockRequirements, blocked: set[int], unblocked: set[int]) -> int | None:
    """The most requirements a declaration obeys that blocks each attacker of `blocked` with
    at least its least blockers and none of `unblocked`; None if there is none such."""
    import networkx as nx  # here: its import costs more than a small resolve (start-up)

    graph = nx.DiGraph()
    required = {(int(i), int(j)) for i, j in reqs.pairs.tolist()}
    wanted = sorted({j for _, j in required})
    involved = sorted({i for i, _ in required} | {i for i, _ in reqs.able})
    bonus = len(required) + 1  # one least blocker outweighs every requirement
    for i in involved:
        cap = int(min(reqs.capacity[i], len(wanted)))
        graph.add_edge("source", ("blocker", i), capacity=cap, weight=0)
        graph.add_edge(("blocker", i), "sink", capacity=cap, weight=0)  # blocks no more
        for j in wanted:
            if j in unblocked or ((i, j) not in reqs.able and (i, j) not in required):
                continue
            if (i, j) in required:
                graph.add_edge(("blocker", i), ("attacker", j), capacity=1, weight=-1)
            elif j in blocked:  # not required, but it helps to reach the least blockers
                graph.add_edge(("blocker", i), ("attacker", j), capacity=1, weight=0)
    for j in wanted:
        if j in unblocked:
            continue
        graph.add_edge(("attacker", j), "sink", capacity=len(involved), weight=0)
        if j in blocked:
            need = reqs.least[j]
            graph.add_edge(("attacker", j), ("least", j), capacity=need, weight=-bonus)
            graph.add_edge(("least", j), "sink", capacity=need, weight=0)
    flow = nx.max_flow_min_cost(graph, "source", "sink")
    reached = sum(int(flow[("attacker", j)][("least", j)]) for j in blocked)
    if reached < sum(reqs.least[j] for j in blocked):
        return None
    cost = int(nx.cost_of_flow(graph, flow))
    return -(cost + bonus * reached)


def _made(*sides: object) -> bool:
    """The test of a requirement a trigger made: it holds for its one pair."""
    return True


def requirements_obeyed(requirements: BlockRequirements, candidates: npt.ArrayLike) -> IntArray:
    """How many requirements each candidate declaration obeys.

    `candidates` is an integer array ``[K, B]``: for each of K candidates and each potential
    blocker (:attr:`BlockRequirements.blockers`, in order) the index of the attacker it blocks
    (into :attr:`BlockRequirements.attackers`) or -1; or ``[K, B, M]`` for blockers that
    block several attackers, padded with -1. Returns K counts; keep the candidates obeying
    :meth:`BlockRequirements.most_obeyable` (509.1c).
    """
    cand = np.asarray(candidates, np.int64)
    if cand.ndim == 2:
        cand = cand[:, :, None]
    k, b, _ = cand.shape
    if b != len(requirements.blockers):
        raise ValueError(f"candidates have {b} blockers, the scenario {len(requirements.blockers)}")
    pairs = requirements.pairs
    if not len(pairs):
        return np.zeros(k, np.int64)
    # [K, P]: whether each candidate's blocker of each pair blocks that pair's attacker
    hit = (cand[:, pairs[:, 0], :] == pairs[None, :, 1, None]).any(axis=2)
    out: IntArray = hit.sum(axis=1).astype(np.int64)
    return out


def declared(requirements: BlockRequirements, blocks: Mapping[str, Sequence[str]]) -> IntArray:
    """A scenario's ``combat.blockers`` as one candidate ``[1, B, M]``."""
    width = max((len(v) for v in blocks.values()), default=1) or 1
    out = np.full((1, len(requirements.blockers), width), -1, np.int64)
    place = {a: j for j, a in enumerate(requirements.attackers)}
    for i, b in enumerate(requirements.blockers):
        for m, a in enumerate(blocks.get(b, ())):
            out[0, i, m] = place.get(a, -1)
    return out


def check_requirements(
    scenario: Scenario,
    registry: Registry,
    made: Sequence[MadeRequirement] = (),
    tapped: Collection[str] = (),
    where: str = "combat",
) -> None:
    """The declared blocks obey as many requirements as possible (509.1c), else an input
    error naming ``combat.blockers`` (``combats[1].blockers`` with `where`) and a
    requirement left unobeyed, with its source."""
    reqs = block_requirements(scenario, registry, made, tapped)
    most = reqs.most_obeyable()
    if not most:
        return
    blocks = {b: scenario.blockers.get(b, ()) for b in reqs.blockers}
    obeyed = int(requirements_obeyed(reqs, declared(reqs, blocks))[0])
    if obeyed >= most:
        return
    for i in np.unique(reqs.pairs[:, 0]).tolist():  # the blockers with requirements, in order
        b = reqs.blockers[i]
        mine = reqs.of_blocker(i)
        kept = [j for j in mine if reqs.attackers[j] in blocks[b]]
        if mine and len(kept) < min(len(mine), int(reqs.capacity[i])):
            j = next(j for j in mine if j not in kept)
            a = reqs.attackers[j]
            rule = reqs.sources[i, j]
            says = rule.says.format(attacker=repr(a), blocker=repr(b)) if rule.says else ""
            raise InputError(
                scenario.file,
                f"{where}.blockers",
                f"{b!r} is able to block {a!r} and doesn't: {rule.keyword} ({a}) requires it"
                f"{': ' + says if says else ''}; the blocks obey {obeyed} of the {most} "
                f"requirements they could ({rule.rule}, 509.1c)",
            )
