"""RunGoldenProbes: the golden probe sets as real turns, on a Temporal Schedule.

Each run reads the four probe slices (single figure, comparison, follow-up, boundary)
and the current corpus version, asks every probe as an ordinary turn (a child ChatTurn,
tenant `probes`, no answer cache; follow-ups in one conversation), and scores each
settled turn with the suites' scorers. A slice breaches when its passes fall below the
binomial threshold (`domain.evaluation.scoring.pass_threshold`): with each probe passing at the
healthy rate, a healthy system breaches in at most `alpha` of runs. The recording step
stores the run per slice, moves the probe metrics, and opens an incident only when the
slice breached in this run and in the one before.

A probe that must ask back sees its clarification expire unanswered (after a short
timeout, by design): an expired clarification counts as the clarification it asked.

Every run's turns are its children in the Temporal UI, and its result lists each slice
with its failures. Created by the worker at start-up, idempotently, like the sweep.
"""

import asyncio
from datetime import timedelta

from pydantic import BaseModel, ConfigDict, Field
from temporalio import workflow
from temporalio.client import (
    Client,
    Schedule,
)
from temporalio.exceptions import ActivityError, ChildWorkflowError
from temporalio.service import RPCError, RPCStatusCode
from temporalio.workflow import ParentClosePolicy

with workflow.unsafe.imports_passed_through():
    from activities import steps
    from activities.contracts import (
        AllocateProbeTurn,
        FreezeRequest,
        ProbeCasesRequest,
        ProbeHistoryRequest,
        ProbeIncident,
        RecordedProbeRun,
        RecordProbeRun,
    )
    from domain.budget import TURN_BUDGET_SECONDS
    from domain.evaluation.scoring import (
        HISTORY_RUNS,
        EvalCase,
        SliceRun,
        TurnExpected,
        healthy_rate,
        incident_category,
        pass_threshold,
        score_turn,
    )
    from domain.failures import Direction
    from domain.turns import TurnResult
    from workflows.chat_turn import ChatTurn
    from workflows.contracts import TurnInput
    from workflows.policy import step_options
    from workflows.sweep import ensure_schedule, interval_schedule
    from workflows.turn_start import start_options

SCHEDULE_PREFIX = "turnstile-golden-probes"
SHARED_START_OPTIONS = "probe-turns-start-as-api-turns"
"""Retired patch (deprecated: a run that took it replays, a new one records no marker):
a probe turn starts with ChatTurn's own start options (`workflows.turn_start`), the API's."""
FROZEN_AND_OWN_RATES = "probes-frozen-corpus-own-rates"
"""Patch: a run freezes the index first (a snapshot named by its corpus version, which
its turns read), records each failed probe's turn, and takes each slice's healthy rate
from that slice's own history. A run recorded before takes none of these steps."""
PROBE_TENANT = "probes"
CONCURRENCY = 4
"""Probe turns in flight at once: enough to finish quickly, few enough not to crowd
callers' turns on the same workers."""


class ProbeRequest(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    slices: list[str] = Field(default_factory=list)
    limit: int | None = Field(default=None, ge=1)
    healthy_rate: float = Field(default=0.95, gt=0, le=1)
    """The pass rate of one probe on a healthy system before a slice has history of its
    own; with history, the slice's own rate (`domain.evaluation.scoring.healthy_rate`)."""
    false_alarm_rate: float = Field(default=0.05, gt=0, lt=1)
    engine_in_process: bool = True
    clarification_timeout_seconds: float = Field(default=2.0, gt=0)
    turn_budget_seconds: float = Field(default=TURN_BUDGET_SECONDS, gt=0)
    """Each probe turn's budget: the one the API gives a caller's turn."""
    corpus_version: str | None = None
    """Run against this earlier frozen snapshot of the index (one of the latest kept)
    instead of freezing the index as it stands: today's code on an earlier corpus."""
    # The failure policies a caller's turn gets (TURNSTILE_JUDGE_POLICY and
    # TURNSTILE_CLASSIFIER_POLICY): a probe measures the turns callers get.
    judge_policy: Direction = "open"
    classifier_policy: Direction = "open"
    record: bool = True
    """False for a run started by hand: it is neither stored nor counted, so it can
    neither open an incident nor stand as "the run before" for the schedule's next one."""


class ProbeRunResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    run_id: str
    corpus_version: str
    slices: list[SliceRun]
    incidents: list[ProbeIncident] = Field(default_factory=list)


def run_id(task_queue: str, trigger: str) -> str:
    """A workflow id for a run started by hand (the schedule names its own runs)."""
    import uuid

    return f"golden-probes-{task_queue}-{trigger}-{uuid.uuid4().hex[:8]}"


@workflow.defn(name="RunGoldenProbes")
class RunGoldenProbes:
    @workflow.run
    async def run(self, request: ProbeRequest) -> ProbeRunResult:
        probe_set = await workflow.execute_activity(
            steps.probes_load_cases,
            ProbeCasesRequest(slices=request.slices, limit=request.limit),
            summary="read the probe sets",
            **step_options(steps.probes_load_cases),
        )
        self._run = workflow.info().workflow_id
        self._request = request
        self._gate = asyncio.Semaphore(CONCURRENCY)
        self._snapshot: str | None = None
        names = list(probe_set.slices)
        corpus_version = probe_set.corpus_version
        rates = {name: request.healthy_rate for name in names}
        if workflow.patched(FROZEN_AND_OWN_RATES):
            corpus_version = self._snapshot = await self._freeze()
            rates = await self._rates(names)
        found = await asyncio.gather(
            *(
                asyncio.gather(*(self._probe(case) for case in probe_set.slices[name]))
                for name in names
            )
        )
        slices, categories = self._scored(probe_set.slices, found, rates)
        recorded = RecordedProbeRun()
        if request.record:
            recorded = await self._record(corpus_version, slices, categories)
        workflow.set_current_details(_details(slices, recorded))
        return ProbeRunResult(
            run_id=self._run,
            corpus_version=corpus_version,
            slices=slices,
            incidents=recorded.incidents,
        )

    async def _record(
        self, corpus_version: str | None, slices: list[SliceRun], categories: dict[str, str]
    ) -> RecordedProbeRun:
        """Store the run; an incident opens after two breaches in a row."""
        return await workflow.execute_activity(
            steps.postgres_record_probe_run,
            RecordProbeRun(
                scope=workflow.info().task_queue,
                run_id=self._run,
                corpus_version=corpus_version,
                slices=slices,
                categories=categories,
            ),
            summary="record the run; an incident after two breaches in a row",
            **step_options(steps.postgres_record_probe_run),
        )

    def _scored(
        self,
        cases: dict[str, list[EvalCase]],
        found: list[list[tuple[list[str], str]]],
        rates: dict[str, float],
    ) -> tuple[list[SliceRun], dict[str, str]]:
        """Each slice counted against its threshold, and the incident category its
        failures point to."""
        slices: list[SliceRun] = []
        categories: dict[str, str] = {}
        for name, outcomes in zip(cases, found, strict=True):
            failing = [(c, p, t) for c, (p, t) in zip(cases[name], outcomes, strict=True) if p]
            n = len(cases[name])
            slices.append(
                SliceRun(
                    slice=name,
                    cases=n,
                    passed=n - len(failing),
                    threshold=pass_threshold(n, rates[name], self._request.false_alarm_rate),
                    failed=[f"{c.id}: {p[0]}" for c, p, _ in failing],
                    failed_turns=[t for _, _, t in failing],
                    healthy_rate=rates[name],
                )
            )
            categories[name] = incident_category([p for ps, _ in outcomes for p in ps])
        return slices, categories

    async def _freeze(self) -> str:
        """Freeze the index (made once per corpus version): every probe turn of this run
        reads the snapshot, so a re-ingest mid-run changes nothing it sees, and runs on
        the same version are comparable whatever was ingested since."""
        frozen = await workflow.execute_activity(
            steps.qdrant_freeze_corpus,
            FreezeRequest(
                scope=workflow.info().task_queue, corpus_version=self._request.corpus_version
            ),
            summary="freeze the index as a snapshot named by its corpus version",
            **step_options(steps.qdrant_freeze_corpus),
        )
        return frozen.corpus_version

    async def _rates(self, names: list[str]) -> dict[str, float]:
        """Each slice's healthy rate from its own latest healthy runs (fail-open: the
        configured rate for every slice)."""
        prior = self._request.healthy_rate
        try:
            history = await workflow.execute_activity(
                steps.postgres_read_probe_history,
                ProbeHistoryRequest(
                    scope=workflow.info().task_queue, slices=names, runs=HISTORY_RUNS
                ),
                summary="each slice's healthy runs",
                **step_options(steps.postgres_read_probe_history),
            )
        except ActivityError:
            return {name: prior for name in names}
        return {name: healthy_rate(history.slices.get(name, []), prior) for name in names}

    async def _probe(self, case: EvalCase) -> tuple[list[str], str]:
        """Ask the case (and its earlier questions) as turns; what is wrong with it, and
        the turn that was scored ("" when none settled)."""
        async with self._gate:
            conversation: str | None = None
            result: TurnResult | None = None
            for number, question in enumerate([*case.before, case.query]):
                try:
                    result = await self._turn(f"{case.id}/{number}", question, conversation)
                except (ChildWorkflowError, ActivityError) as err:
                    # A turn that could not be allocated or settle fails its probe, never
                    # the run: the other probes still finish and the run is recorded.
                    return [f"the turn did not settle: {err.cause or err}"], ""
                conversation = result.conversation_id
        if result is None or not isinstance(case.expected, TurnExpected):
            return ["not a turn case"], ""
        if result.status == "expired" and result.clarifying_question:
            result = result.model_copy(update={"status": "needs_clarification", "answer": None})
        return score_turn(case.expected, result), result.turn_id

    async def _turn(self, key: str, question: str, conversation: str | None) -> TurnResult:
        turn = await workflow.execute_activity(
            steps.postgres_allocate_probe_turn,
            AllocateProbeTurn(
                key=f"{self._run}/{key}",
                question=question,
                conversation_id=conversation,
                tenant_id=PROBE_TENANT,
            ),
            summary=f"probe {key}",
            **step_options(steps.postgres_allocate_probe_turn),
        )
        timeout = self._request.clarification_timeout_seconds
        turn_input = TurnInput(
            turn_id=turn.turn_id,
            conversation_id=turn.conversation_id,
            seq=turn.seq,
            question=question,
            clarification_timeout_seconds=timeout,
            turn_budget_seconds=self._request.turn_budget_seconds,
            engine_in_process=self._request.engine_in_process,
            tenant_id=PROBE_TENANT,
            snapshot=self._snapshot,
            judge_policy=self._request.judge_policy,
            classifier_policy=self._request.classifier_policy,
        )
        workflow.deprecate_patch(SHARED_START_OPTIONS)
        options = start_options(turn_input, summary=f"probe {key}")
        result: TurnResult = await workflow.execute_child_workflow(
            ChatTurn.run,
            turn_input,
            # A probe turn is an ordinary turn: it settles on its own even if its run
            # ends first (failed, timed out), never terminated half-way.
            parent_close_policy=ParentClosePolicy.ABANDON,
            **options,
        )
        return result


def _schedule(task_queue: str, every: timedelta, request: ProbeRequest) -> Schedule:
    return interval_schedule(
        RunGoldenProbes.run,
        request,
        f"golden-probes-{task_queue}",
        task_queue,
        every,
        timedelta(hours=1),
        "golden probes: the probe sets asked as turns, scored and recorded",
    )


async def ensure_probe_schedule(
    client: Client, task_queue: str, every: timedelta, request: ProbeRequest
) -> None:
    """Create the probe schedule, or bring an existing one up to date."""
    await ensure_schedule(
        client, f"{SCHEDULE_PREFIX}-{task_queue}", _schedule(task_queue, every, request)
    )


async def remove_probe_schedule(client: Client, task_queue: str) -> None:
    """Delete the probe schedule if there is one (probes turned off)."""
    try:
        await client.get_schedule_handle(f"{SCHEDULE_PREFIX}-{task_queue}").delete()
    except RPCError as err:
        if err.status != RPCStatusCode.NOT_FOUND:
            raise


def _details(slices: list[SliceRun], recorded: RecordedProbeRun) -> str:
    """The run's line in the Temporal UI: each slice's score, then any incident."""
    return "; ".join(
        f"{s.slice} {s.passed}/{s.cases}{' BREACH' if s.breached else ''}" for s in slices
    ) + "".join(f"; incident {i.incident_id} ({i.slice})" for i in recorded.incidents)
