"""The batched engine: many combats at once, as numpy structure-of-arrays.

It plays exactly the reference engine's combat (:mod:`ecs_combat.reference.engine`), but over
whole arrays: one row per creature, player, block, division or event of every battle. The only
Python loops are over the registry's damage steps, the points of the combat, event rounds (the
n-th event of every battle at a point at once) and trigger rounds. Keywords are bits of a mask
over the keywords the batch uses; the damage steps come from the step plans, and everything a
keyword does from its plugin's systems, called once per point per batch with arrays (cards once
per card and event round), so no keyword is known by name here. A run's state is in
:mod:`.state`, how it begins in :mod:`.schedule`, the combat in :mod:`.combat` (with
:mod:`.damage`, :mod:`.events`, :mod:`.actions`, :mod:`.keywords`), turns in :mod:`.turn`;
this module is the engine's face.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING

from ecs_combat.batched import combat, turn_play
from ecs_combat.batched.arrays import BatchOutcome, CombatBatch, StepDivisions
from ecs_combat.batched.from_scenarios import scenarios_to_batch
from ecs_combat.batched.keywords import refresh
from ecs_combat.batched.logged_results import logged_results
from ecs_combat.batched.masks import KeywordMasks
from ecs_combat.batched.memory import keep_freed_memory
from ecs_combat.batched.result_text import INDENTED, json_pieces, json_text
from ecs_combat.batched.results import Results
from ecs_combat.batched.schedule import Schedules, start
from ecs_combat.batched.state import Schedule, State
from ecs_combat.plugin.registry import Registry
from ecs_combat.rules.pipeline import plan_steps
from ecs_combat.rules.result import CombatResult
from ecs_combat.scenario.model import Scenario
from ecs_combat.scenario.quick_rows import collector_paused

if TYPE_CHECKING:
    from ecs_combat.batched.turn import TurnBatch
    from ecs_combat.kernel.runner import Kernel
    from ecs_combat.rules.result import TurnResult
    from ecs_combat.scenario.turns import TurnScenario


class BatchedEngine:
    """Resolves many combats at once with numpy, with the reference engine's results."""

    name = "batched"

    def __init__(self, registry: Registry, kernels: bool = True) -> None:
        """With `kernels` (and numba, and ``ECS_COMBAT_KERNELS=1``), a batch the
        plugin set's compiled kernel can resolve is resolved there (:meth:`resolve_batch`)."""
        self.registry = registry
        keep_freed_memory()  # arrays freed between chunks are reused, not mapped afresh
        self.plans = plan_steps(registry)
        #: The keyword masks, systems and static hooks of its runs, made once each.
        self.schedules = Schedules(registry, self.plans)
        #: The compiled kernel of the plugin set (:mod:`ecs_combat.kernel`), once a batch
        #: asked for it (None when kernels are not used).
        self._kernel: Kernel | None = None
        self._kernel_asked = not kernels

    def kernel(self) -> Kernel | None:
        """The plugin set's compiled kernel, or None when kernels are not used (made at the
        first call: nothing imports numba before)."""
        if not self._kernel_asked:
            from ecs_combat.kernel.availability import kernel_for

            self._kernel = kernel_for(self.registry)
            self._kernel_asked = True
        return self._kernel

    def kernel_takes(self, batch: CombatBatch, legal: bool = False) -> bool:
        """Whether the plugin set's compiled kernel resolves this batch (kernels on, and
        nothing in the batch or its schedule it lacks); `legal`: its explicit divisions
        are known to be legal (the decision search's), which the kernel plays unchecked."""
        kernel = self.kernel()
        schedule = self.schedules.of([batch])
        return kernel is not None and not kernel.refusal(schedule, batch, legal)

    def masks(self, names: tuple[str, ...]) -> KeywordMasks:
        """The keyword masks for a batch's keyword bits (computed once per bit layout)."""
        return self.schedules.masks_of(names)

    def start(self, batch: CombatBatch, record: bool) -> State:
        """The state of one combat of every battle of a batch, not played yet."""
        return start(self.schedules.of([batch]), batch, record)

    def resolve_batch(self, batch: CombatBatch) -> BatchOutcome:
        """Resolve every battle of the batch; the final state as arrays.

        An explicit division that turns out illegal raises the :class:`InputError` of the
        first battle (in battle order) that has one; a batch the engine can't resolve raises
        :class:`RefusedError`. Arrays of the outcome that nothing changed (power, toughness,
        `entered`) may be the batch's own. A batch the plugin set's compiled kernel can
        resolve is resolved there, with the same outcome.
        """
        kernel = self.kernel()
        if kernel is not None:
            schedule = self.schedules.of([batch])
            if not kernel.refusal(schedule, batch):
                return kernel.resolve(schedule, batch)
        state = self.start(batch, record=False)
        combat.play(state)
        state.errors.raise_first()
        return combat.outcome(state.creatures, state.combat, state.players)

    def as_blockers_are_declared(self, batch: CombatBatch) -> State:
        """The batch being played, its attackers declared and their triggers resolved, the
        creatures' keywords as they are then (its blocks and divisions not read yet)."""
        state = self.start(batch, record=False)
        combat.declare_attackers(state)
        refresh(state, None)
        return state

    def resolve_batch_with_divisions(
        self, batch: CombatBatch
    ) -> tuple[BatchOutcome, list[StepDivisions]]:
        """:meth:`resolve_batch`, and for each damage step that took place with a dealer
        that could divide its damage (two or more blockers or attackers, or excess it may
        send on) how the dealers could have divided it (in the order the steps happened)."""
        played = self.play_batch(batch, record=False)
        return played.outcome, played.divisions

    def play_batch(
        self, batch: CombatBatch, record: bool, kernel: bool = False, log: bool = False
    ) -> Played:
        """:meth:`resolve_batch_with_divisions`, as a :class:`Played`; with `record`, its
        log is kept for the results of chosen battles (:meth:`Played.results`); with
        `kernel` (and not `record`), played in the plugin set's compiled kernel, which
        must take it (:meth:`kernel_takes`, its explicit divisions legal), and with `log`
        with the kernel's log (:attr:`Played.logged`)."""
        if kernel and not record:
            compiled = self.kernel()
            assert compiled is not None
            schedule = self.schedules.of([batch])
            if log:
                return self._logged(compiled, schedule, batch, divisions=True)
            outcome, divisions = compiled.play(schedule, batch, divisions=True)
            return Played(None, outcome, divisions)
        state = self.start(batch, record=record)
        state.records.divisions = []
        combat.play(state)
        state.errors.raise_first()
        return Played(state)

    def kernel_results(self, batch: CombatBatch) -> list[CombatResult] | None:
        """The results of every battle of a batch (:meth:`Played.results` without notes),
        played in the plugin set's compiled kernel with its log (its explicit divisions
        legal); None if the kernel doesn't take the batch or its log can't tell them
        (:func:`~.logged_results.logged_results`): then play it with `record`."""
        compiled = self.kernel()
        if compiled is None or batch.event_battle.size:
            return None
        schedule = self.schedules.of([batch])
        if compiled.refusal(schedule, batch, legal=True):
            return None
        played = self._logged(compiled, schedule, batch, divisions=False)
        assert played.logged is not None
        return played.logged(range(batch.n_battles))

    def _logged(
        self, compiled: Kernel, schedule: Schedule, batch: CombatBatch, divisions: bool
    ) -> Played:
        """A batch played in the kernel with its log, whose results it tells where it can."""
        outcome, records, rc, owns = compiled.play_logged(schedule, batch, divisions)
        told = not rc.logged[1]  # else damage replaced, or the log full
        counters = {
            col.counters: own[i]
            for own, (_, columns) in zip(owns, compiled.source.owns, strict=True)
            for i, col in enumerate(columns)
            if col.owner == "creature" and col.counters is not None
        }
        log = rc.log[: int(rc.logged[0])]
        names = [p.name for p in schedule.plans]

        def results(battles: Sequence[int]) -> list[CombatResult] | None:
            if not told:
                return None
            return logged_results(batch, names, outcome, log, counters, self.registry, battles)

        return Played(None, outcome, records, results)

    def resolve(self, scenario: Scenario) -> CombatResult:
        """Resolve one combat."""
        return self.resolve_many([scenario])[0]

    def resolve_many(self, scenarios: Sequence[Scenario]) -> list[CombatResult]:
        """Resolve scenarios as one batch; results identical to the reference engine's."""
        if not scenarios:
            return []
        with collector_paused():  # many small acyclic objects: nothing for it to find
            batch = scenarios_to_batch(scenarios, self.registry)
            state = self.start(batch, record=True)
            combat.play(state)
            state.errors.raise_first()
            s, log = state, state.records.log
            assert log is not None
            return Results(s.frame, s.creatures, s.keywords, s.combat, s.players, log).build()

    def json_lines(self, batch: CombatBatch) -> str:
        """Resolve every battle of a batch; the text ``resolve --json`` writes for each, one
        line each in battle order (:func:`~.result_text.json_text`: for a batch without
        events whose ids ``json.dumps`` writes as they are, such as the common lines of a
        JSON Lines file, :mod:`.lines`)."""
        with collector_paused():
            s = self.start(batch, record=True)
            combat.play(s)
            s.errors.raise_first()
            assert s.records.log is not None
            return json_text(s.frame, s.creatures, s.keywords, s.combat, s.players, s.records.log)

    def json_document(self, batch: CombatBatch) -> Iterator[str]:
        """Resolve a batch of one battle; the text ``resolve --json`` writes for it
        (``json.dumps(result, indent=2)`` and a line end) in pieces, made as they are asked
        for (:func:`~.result_text.json_pieces`), for a batch :meth:`json_lines` takes."""
        with collector_paused():
            s = self.start(batch, record=True)
            combat.play(s)
            s.errors.raise_first()
            assert s.records.log is not None
            log = s.records.log
            return json_pieces(s.frame, s.creatures, s.keywords, s.combat, s.players, log, INDENTED)

    def resolve_turns(self, turns: Sequence[TurnScenario]) -> list[TurnResult]:
        """Resolve turns with several combat phases as one run (:mod:`.turn`); results
        identical to the reference engine's."""
        with collector_paused():
            return turn_play.resolve_turns(self.schedules, turns)

    def resolve_turn_batch(self, turns: TurnBatch) -> BatchOutcome:
        """Resolve many turns given as arrays (bulk simulations, :mod:`.turn`); the state at
        the end of each turn's last combat phase."""
        return turn_play.resolve_turn_batch(self.schedules, turns)


class Played:
    """A batch played through (:meth:`BatchedEngine.play_batch`)."""

    def __init__(
        self,
        state: State | None,
        outcome: BatchOutcome | None = None,
        divisions: list[StepDivisions] | None = None,
        logged: Callable[[Sequence[int]], list[CombatResult] | None] | None = None,
    ) -> None:
        """Played by the numpy engine (its `state`), or by a compiled kernel (no state: its
        `outcome` and `divisions`, and with its log the results it tells, `logged`)."""
        self._state = state
        #: With the kernel's log: the results of some distinct battles without notes
        #: (:func:`~.logged_results.logged_results`), or None where the log can't tell them.
        self.logged = logged
        if state is not None:
            outcome = combat.outcome(state.creatures, state.combat, state.players)
            divisions = state.records.divisions
        assert outcome is not None
        self.outcome = outcome
        #: How the dealers could have divided their damage, in each damage step where
        #: one could (:meth:`BatchedEngine.resolve_batch_with_divisions`).
        self.divisions: list[StepDivisions] = divisions or []

    @property
    def recorded(self) -> bool:
        return self._state is not None and self._state.records.log is not None

    def release(self) -> None:
        """Let the state's arrays go as soon as this is dropped: its context refers back to
        it, a cycle the garbage collector would free late (a search plays thousands of
        batches, few Python objects each: the collector rarely runs)."""
        if self._state is not None:
            del self._state.context

    def results(self, battles: Sequence[int], notes: bool = True) -> list[CombatResult]:
        """The results of some distinct battles, in that order, as :meth:`resolve_many`
        gives them (the batch must have been played with `record`, and should name its
        creatures and players); without `notes`, without the readable account's notes on
        who strikes (``StepResult.strikes``, which the JSON document leaves out)."""
        s = self._state
        assert s is not None and s.records.log is not None
        log = s.records.log
        return Results(s.frame, s.creatures, s.keywords, s.combat, s.players, log).build(
            battles, notes
        )
