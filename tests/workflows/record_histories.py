"""Record ChatTurn histories as JSON replay fixtures (run by hand after a deliberate change).

    .venv/bin/python -m pytest tests/workflows/record_histories.py -m record_histories

Only run it when a workflow change is MEANT to change histories (and then guard running
workflows with `workflow.patched()`); the replay test exists to catch the other kind.
"""

import contextlib
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from temporalio.exceptions import ApplicationError

from activities.errors import ErrorType
from domain.models import Draft
from tests.conftest import Turns, TurnWorker, outcome
from tests.workflows.scripted_engine import ScriptedEngine, with_capex_line

if TYPE_CHECKING:
    from temporalio.client import Client

    from backends.reports import ReportIndex
    from tests.conftest import WorkerFactory

HISTORIES = Path(__file__).parent / "histories"
PREFIX = os.environ.get("TURNSTILE_HISTORY_PREFIX", "deprecated_")
"""Histories recorded by the current code get this prefix, named for the code generation
that recorded them (`TURNSTILE_HISTORY_PREFIX` to name a new one): `patched_` by the code
with every ChatTurn patch live, `deprecated_` by the code with every patch deprecated (its
markers flagged so), `context_` by the code with `context-for-model-v1` live, `gates_` by
the code with `refuted-every-sentence-v1` and `numbers-unchecked-closed-v1` live, `years_`
by the code with `relative-years-v1` live, `remains_` by the code with
`relevance-of-what-remains-v1` live, `compared_` by the code with `compared-with-v1` live. A
generation's fixtures are retired with its patches (docs/architecture.md, "Retiring
workflow versions")."""


def _portable(value: Any) -> Any:
    """The history without failures' stack traces: they name paths on the recording
    machine, and replay reads none of them."""
    if isinstance(value, dict):
        return {k: _portable(v) for k, v in value.items() if k != "stackTrace"}
    if isinstance(value, list):
        return [_portable(v) for v in value]
    return value


async def _save(turns: Turns, name: str, workflow_id: str) -> None:
    history = await turns.client.get_workflow_handle(workflow_id).fetch_history()
    HISTORIES.mkdir(exist_ok=True)
    text = json.dumps(_portable(json.loads(history.to_json())), indent=1)
    (HISTORIES / f"{PREFIX}{name}.json").write_text(text + "\n")


@pytest.mark.record_histories
async def test_record_histories(turn_worker: TurnWorker, turns_on: Callable[[str], Turns]) -> None:
    async with turn_worker() as tq:
        t = turns_on(tq)
        answered = await t.ask("Compare BHP and Fortescue revenue in FY2024")
        await _save(t, "answered_comparison", answered.turn_id)
        refused = await t.ask("Should I buy Rio Tinto shares?")
        await _save(t, "refused_by_rule", refused.turn_id)
        handle = await t.start("What was this company's net debt in FY2024?")
        waiting = await outcome(handle, 0)
        replied = await t.reply(handle, waiting.clarification_round, "South32")
        await _save(t, "clarified", replied.turn_id)
    bad = Draft(
        answer="BHP revenue was US$1 million [1]. BHP EBITDA was US$2 million [1]. "
        "BHP profit was US$3 million [1]. BHP net debt was US$4 million [1]."
    )
    async with turn_worker(ScriptedEngine().always("synthesize", bad)) as tq:
        t = turns_on(tq)
        retried = await t.ask("Tell me about BHP in FY2024")
        await _save(t, "retried_twice", retried.turn_id)


@pytest.mark.record_histories
async def test_record_memory_histories(
    turn_worker: TurnWorker, turns_on: Callable[[str], Turns]
) -> None:
    """The `memory-v1` paths: a cache miss that writes, a hit, a stated
    preference, and a turn that summarises its conversation."""
    from tests.conftest import unique

    async with turn_worker() as tq:
        base = turns_on(tq)
        t = Turns(
            base.client,
            base.pool,
            tq,
            tenant_id=unique("t"),
            user_id=unique("u"),
            answer_cache=True,
        )
        miss = await t.ask("What was Fortescue's underlying EBITDA in FY2024?")
        await _save(t, "cache_miss_written", miss.turn_id)
        hit = await t.ask("What was Fortescue's underlying EBITDA in FY2024?")
        await _save(t, "cache_hit", hit.turn_id)
        noted = await t.ask("Show me figures in billions from now on")
        await _save(t, "preference_stated", noted.turn_id)
        conversation = unique("c")
        for question in (
            "What was BHP's revenue in FY2024?",
            "And in FY2023?",
            "What about Rio Tinto?",
            "What was its net debt?",
            "And South32's revenue in FY2025?",
            "What about FY2024?",
        ):
            await t.ask(question, conversation)
        summarised = await t.ask("What was Northern Star's revenue in FY2024?", conversation)
        assert summarised.summarised == 8
        await _save(t, "summarised", summarised.turn_id)


@pytest.mark.record_histories
async def test_record_checked_draft_histories(
    turn_worker: TurnWorker, turns_on: Callable[[str], Turns]
) -> None:
    """The `checked-drafts-v1` paths: an answer checked clean, a refuted figure drafted
    again and taken out beside a verified one, and a turn whose only figure stays refuted
    (fallback `unverified`)."""
    async with turn_worker() as tq:
        clean = await turns_on(tq).ask("What was BHP's revenue in FY2024?")
        await _save(turns_on(tq), "checked_answered", clean.turn_id)
    one_wrong = ScriptedEngine().always(
        "synthesize",
        lambda d: Draft(
            answer=d.answer + " Its net debt was US$1,234 million [1].", derived=d.derived
        ),
    )
    async with turn_worker(one_wrong) as tq:
        t = turns_on(tq)
        removed = await t.ask("What was BHP's revenue in FY2024?")
        assert "was removed" in (removed.answer or ""), removed
        await _save(t, "checked_refuted_removed", removed.turn_id)
    altered = ScriptedEngine().always(
        "synthesize", lambda d: Draft(answer=d.answer.replace("55,658", "55,668"))
    )
    async with turn_worker(altered) as tq:
        t = turns_on(tq)
        fallback = await t.ask("What was BHP's revenue in FY2024?")
        assert fallback.fallback_reason == "unverified", fallback
        await _save(t, "checked_refuted_fallback", fallback.turn_id)


@pytest.mark.record_histories
async def test_record_budgeted_histories(
    turn_worker: TurnWorker, turns_on: Callable[[str], Turns]
) -> None:
    """The `checked-drafts-v2` paths: a turn whose budget is spent
    before its first model step (every budgeted step skipped), and one whose draft timed
    out (fallback `model_timeout` both)."""
    async with turn_worker() as tq:
        t = turns_on(tq)
        t.turn_budget = 0.5  # less than a step needs: nothing budgeted starts
        spent = await t.ask("What was BHP's revenue in FY2024?")
        assert spent.fallback_reason == "model_timeout", spent
        await _save(t, "budget_spent", spent.turn_id)
    timed_out = ApplicationError(
        "synthesize: the model timed out", type=ErrorType.MODEL_TIMEOUT, non_retryable=True
    )
    async with turn_worker(ScriptedEngine().always("synthesize", timed_out)) as tq:
        t = turns_on(tq)
        late = await t.ask("What was BHP's revenue in FY2024?")
        assert late.fallback_reason == "model_timeout", late
        await _save(t, "budget_draft_timed_out", late.turn_id)


@pytest.mark.record_histories
async def test_record_fail_closed_histories(
    turn_worker: TurnWorker, turns_on: Callable[[str], Turns]
) -> None:
    """The fail-closed options' paths: a judge that is down withholding the draft
    (fallback `judge_unavailable`), and a route classifier that is down settling the turn
    before anything is looked up (fallback `classifier_unavailable`)."""
    down = ApplicationError("the model refused", type=ErrorType.MODEL_REFUSED, non_retryable=True)
    async with turn_worker(ScriptedEngine().always("grade_answer", down)) as tq:
        t = turns_on(tq)
        t.judge_policy = "closed"
        withheld = await t.ask("What was BHP's revenue in FY2024?")
        assert withheld.fallback_reason == "judge_unavailable", withheld
        await _save(t, "judge_closed", withheld.turn_id)
    async with turn_worker(ScriptedEngine().always("route", down)) as tq:
        t = turns_on(tq)
        t.classifier_policy = "closed"
        unrouted = await t.ask("What was BHP's revenue in FY2024?")
        assert unrouted.fallback_reason == "classifier_unavailable", unrouted
        await _save(t, "classifier_closed", unrouted.turn_id)


@pytest.mark.record_histories
async def test_record_gate_histories(
    turn_worker: TurnWorker,
    turns_on: Callable[[str], Turns],
    worker: "WorkerFactory",
    make_report_index: Callable[[], Any],
    pool: Any,
    report_index: Any,
) -> None:
    """The `refuted-every-sentence-v1` path: a refuted figure said twice beside a verified
    one, taken out of both sentences; and the `numbers-unchecked-closed-v1` path: a numeric
    check that cannot run (its index has no chunks) withholding the draft (fallback
    `numbers_unchecked`)."""
    import worker as registry
    from activities.steps import declared_name, grounding_check_numbers
    from backends.engines.offline.engine import OfflineEngine
    from backends.model_steps import GroundingActivities

    twice = ScriptedEngine().always(
        "synthesize",
        lambda d: Draft(
            answer=d.answer + " Its net debt was US$1,234 million [1]. In short,"
            " its net debt came to US$1,234 million [1].",
            derived=d.derived,
        ),
    )
    async with turn_worker(twice) as tq:
        t = turns_on(tq)
        removed = await t.ask("What was BHP's revenue in FY2024?")
        assert "was removed" in (removed.answer or ""), removed
        assert "1,234" not in (removed.answer or ""), removed
        await _save(t, "refuted_twice_removed", removed.turn_id)
    broken = GroundingActivities(make_report_index()).check_numbers
    check = declared_name(grounding_check_numbers)
    activities = [
        broken if declared_name(fn) == check else fn
        for fn in registry.activities(report_index, pool, OfflineEngine(report_index.embedder))
    ]
    async with worker(activities=activities) as tq:
        t = turns_on(tq)
        unchecked = await t.ask("What was BHP's revenue in FY2024?")
        assert unchecked.fallback_reason == "numbers_unchecked", unchecked
        await _save(t, "numbers_unchecked", unchecked.turn_id)


@pytest.mark.record_histories
async def test_record_what_remains_history(
    turn_worker: TurnWorker, turns_on: Callable[[str], Turns]
) -> None:
    """The `relevance-of-what-remains-v1` path: the only sentence answering the question
    carries a refuted figure and is taken out; the relevance control runs again on what
    is left (another measure's figure): off the point (record with prefix `remains_`)."""
    engine = ScriptedEngine()
    engine.always("synthesize", with_capex_line(engine, net_debt="9.62", capex="9.27"))
    async with turn_worker(engine) as tq:
        t = turns_on(tq)
        off_point = await t.ask("What was BHP's net debt in FY2024?")
        assert off_point.confidence == "low" and "9.62" not in (off_point.answer or "")
        await _save(t, "off_point_after_removal", off_point.turn_id)


PROBE_HISTORIES = HISTORIES / "probes"
"""RunGoldenProbes histories (replayed with that workflow, apart from ChatTurn's)."""


@pytest.mark.record_histories
async def test_record_probe_history(
    turn_worker: TurnWorker, turns_on: Callable[[str], Turns]
) -> None:
    """A probe run of one single-figure probe, not recorded (`record=False`), saved as
    `probes/<name>.json`; name it with PROBE_NAME (the code generation it was run on)."""
    from tests.conftest import unique
    from workflows.probes import ProbeRequest, RunGoldenProbes

    name = os.environ.get("PROBE_NAME", "probe_run")
    async with turn_worker() as tq:
        t = turns_on(tq)
        run_id = unique("probes")
        await t.client.execute_workflow(
            RunGoldenProbes.run,
            ProbeRequest(slices=["single_figure"], limit=1, record=False),
            id=run_id,
            task_queue=tq,
        )
        history = await t.client.get_workflow_handle(run_id).fetch_history()
    PROBE_HISTORIES.mkdir(parents=True, exist_ok=True)
    text = json.dumps(_portable(json.loads(history.to_json())), indent=1)
    (PROBE_HISTORIES / f"{name}.json").write_text(text + "\n")


@pytest.mark.record_histories
async def test_record_shadow_history(
    turn_worker: TurnWorker, turns_on: Callable[[str], Turns]
) -> None:
    """The `shadow-runs-v1` path: a turn in the shadow sample starts its shadow once
    settled. No shadow worker runs: starting the child is all the live turn records (the
    child, left waiting on its queue, is terminated afterwards)."""
    from db import turns as turns_db
    from tests.conftest import unique
    from workflows import attributes
    from workflows.chat_turn import ChatTurn
    from workflows.contracts import ShadowPlan, TurnInput

    async with turn_worker() as tq:
        t = turns_on(tq)
        conversation = unique("c")
        async with t.pool.connection() as conn:
            alloc = await turns_db.allocate_turn(
                conn, conversation, None, "What was BHP's revenue in FY2024?"
            )
        plan = ShadowPlan(
            task_queue=unique("shadow"), live_config="offline", shadow_config="offline"
        )
        inp = TurnInput(
            turn_id=alloc.turn_id,
            conversation_id=conversation,
            seq=alloc.seq,
            question="What was BHP's revenue in FY2024?",
            engine_in_process=True,
            shadow=plan,
        )
        handle = await t.client.start_workflow(
            ChatTurn.run,
            inp,
            id=alloc.turn_id,
            task_queue=tq,
            search_attributes=attributes.at_start(conversation),
        )
        await handle.result()
        await _save(t, "shadow_started", alloc.turn_id)
    await t.client.get_workflow_handle(f"shadow-{alloc.turn_id}").terminate("recorded")


RETENTION_HISTORIES = HISTORIES / "retention"
"""PurgeDecisionRecords histories (replayed with that workflow, apart from ChatTurn's)."""
INGEST_HISTORIES = HISTORIES / "ingest"
"""IngestDocuments histories (replayed with that workflow)."""


@pytest.mark.record_histories
async def test_record_retention_history(
    fresh_database_url: str, worker: "WorkerFactory", temporal_client: "Client"
) -> None:
    """A retention run asked to expire conversations idle for 90 days, on a database of
    its own, saved as `retention/<name>.json`; name it with RETENTION_NAME (the code
    generation it was run on)."""
    from psycopg_pool import AsyncConnectionPool

    from activities.contracts import PurgeRequest
    from backends.turn_sweeper import SweepActivities
    from tests.conftest import unique
    from workflows.retention import PurgeDecisionRecords

    name = os.environ.get("RETENTION_NAME", "retention_run")
    pool = AsyncConnectionPool(fresh_database_url, open=False, kwargs={"autocommit": True})
    await pool.open()
    try:
        async with worker(
            workflows=[PurgeDecisionRecords], activities=SweepActivities(pool).activities()
        ) as tq:
            run_id = unique("purge")
            await temporal_client.execute_workflow(
                PurgeDecisionRecords.run,
                PurgeRequest(conversation_retention_days=90),
                id=run_id,
                task_queue=tq,
            )
            history = await temporal_client.get_workflow_handle(run_id).fetch_history()
    finally:
        await pool.close()
    RETENTION_HISTORIES.mkdir(parents=True, exist_ok=True)
    text = json.dumps(_portable(json.loads(history.to_json())), indent=1)
    (RETENTION_HISTORIES / f"{name}.json").write_text(text + "\n")


@pytest.mark.record_histories
async def test_record_relative_year_history(
    turn_worker: TurnWorker, turns_on: Callable[[str], Turns]
) -> None:
    """The `relative-years-v1` path, a follow-up saying its year in words, the
    `short-forms-v1` path, a question typed in short forms, and the `typed-measures-v1`
    path, a measure word typed with a slip, and the `common-words-v1` path, a common
    word one slip from a measure word ("divided", "dividend")."""
    from tests.conftest import unique

    async with turn_worker() as tq:
        t = turns_on(tq)
        conversation = unique("c")
        await t.ask("What was BHP's net debt in FY2025?", conversation)
        followed = await t.ask("and the year before?", conversation)
        assert followed.carried.year_read == "FY2024, the year before FY2025"
        await _save(t, "relative_year_follow_up", followed.turn_id)
        typed = await t.ask("fortescue rev fy24 pls")
        assert typed.resolved_question == "fortescue revenue fy24"
        await _save(t, "short_forms", typed.turn_id)
        slipped = await t.ask("bhp revnue fy24")
        assert slipped.resolved_question == "bhp revenue fy24"
        await _save(t, "typed_measure", slipped.turn_id)
        defined = await t.ask(
            "Define gearing as net debt divided by revenue. What was BHP's FY2024 gearing?"
        )
        assert "divided by" in defined.resolved_question
        await _save(t, "common_words", defined.turn_id)


@pytest.mark.record_histories
async def test_record_compared_history(
    turn_worker: TurnWorker, turns_on: Callable[[str], Turns]
) -> None:
    """The `compared-with-v1` path: a follow-up comparing to another company keeps the
    company talked about; the `scope-typed-names-v1` path: another company typed in
    lower case before a measure; the `carried-own-words-v1` path: a measure no metric
    names carried to a follow-up in its own words."""
    from tests.conftest import unique

    async with turn_worker() as tq:
        t = turns_on(tq)
        conversation = unique("c")
        await t.ask("What was BHP's net debt in FY2024?", conversation)
        compared = await t.ask("How does that compare to Rio Tinto?", conversation)
        assert compared.carried.company == "BHP"
        await _save(t, "follow_up_compared", compared.turn_id)
        # `scope-typed-names-v1`: another company typed in lower case before a measure
        other = await t.ask("quokka ridge minerals net debt fy24?")
        assert other.refusal_reason == "other_company"
        await _save(t, "typed_other_company", other.turn_id)
        # `carried-own-words-v1`: a measure no metric names carried in its own words
        carried = unique("c")
        await t.ask("What was South32's TRIF in FY2025?", carried)
        trif = await t.ask("what about the previous year?", carried)
        assert trif.carried.metric == "TRIF"
        await _save(t, "carried_own_words", trif.turn_id)


@pytest.mark.record_histories
async def test_record_lowered_history(
    turn_worker: TurnWorker, turns_on: Callable[[str], Turns]
) -> None:
    """The `scope-lowercase-names-v1` path: another company typed in lower case without a
    company's form, on its own (refused) and beside a covered company (declined in a
    line). Record with TURNSTILE_HISTORY_PREFIX=lowered_."""
    async with turn_worker() as tq:
        t = turns_on(tq)
        alone = await t.ask("what's barrick's aisc for fy24?")
        assert alone.refusal_reason == "other_company"
        await _save(t, "other_company_alone", alone.turn_id)
        beside = await t.ask("how did fortescue's fy24 revenue compare to vale's?")
        assert "left unanswered" in (beside.answer or "")
        await _save(t, "other_company_beside", beside.turn_id)


@pytest.mark.record_histories
async def test_record_company_set_history(
    turn_worker: TurnWorker, turns_on: Callable[[str], Turns]
) -> None:
    """The `carried-company-set-v1` path: a follow-up of a ranking over every company is
    over every company too. Record with TURNSTILE_HISTORY_PREFIX=set_."""
    from tests.conftest import unique

    async with turn_worker() as tq:
        t = turns_on(tq)
        conversation = unique("c")
        await t.ask("which company had the lowest underlying ebitda in fy2025?", conversation)
        before = await t.ask("and the year before?", conversation)
        assert before.status == "answered"
        await _save(t, "ranking_follow_up", before.turn_id)


@pytest.mark.record_histories
async def test_record_claim_name_history(
    turn_worker: TurnWorker, turns_on: Callable[[str], Turns]
) -> None:
    """The `claim-label-names-v1` path: a judge's label naming its company ("Rio Tinto
    FY2025 revenue") retargets that company's search. Record with
    TURNSTILE_HISTORY_PREFIX=named_."""
    from activities.contracts import AnswerGrade
    from domain.models import UnsupportedClaim

    claim = UnsupportedClaim(
        label="Rio Tinto FY2025 iron ore shipments", reason="general_knowledge"
    )
    judge = ScriptedEngine().always(
        "grade_answer", AnswerGrade(quality_passed=False, unsupported=[claim])
    )
    async with turn_worker(judge) as tq:
        t = turns_on(tq)
        result = await t.ask("What was Rio Tinto's revenue in FY2025?")
        assert result.retries >= 1, result
        await _save(t, "claim_named", result.turn_id)


@pytest.mark.record_histories
async def test_record_conversation_cap_history(
    turn_worker: TurnWorker, turns_on: Callable[[str], Turns]
) -> None:
    """The `conversation-clarification-cap-v1` path: a turn with one clarifying question
    left asks once, then settles instead of asking again. Record with
    TURNSTILE_HISTORY_PREFIX=capped_."""
    async with turn_worker() as tq:
        t = turns_on(tq)
        t.clarifications_left = 1
        handle = await t.start("Tell me about this company")
        waiting = await outcome(handle, 0)
        result = await t.reply(handle, waiting.clarification_round, "not sure")
        assert result.fallback_reason == "conversation_clarifications_spent", result
        await _save(t, "conversation_capped", result.turn_id)


@pytest.mark.record_histories
async def test_record_uncovered_company_history(
    turn_worker: TurnWorker, turns_on: Callable[[str], Turns]
) -> None:
    """The `uncovered-company-retry-v1` path: a question with no figure, one company's
    evidence all graded irrelevant, searched again. Record with
    TURNSTILE_HISTORY_PREFIX=uncovered_."""
    from tests.workflows.scripted_engine import WithoutCompanyOnce

    async with turn_worker(WithoutCompanyOnce("FMG")) as tq:
        t = turns_on(tq)
        result = await t.ask(
            "What did Rio Tinto and Fortescue say about decarbonisation in FY2024?"
        )
        assert result.retries == 1, result
        await _save(t, "uncovered_company", result.turn_id)


@pytest.mark.record_histories
async def test_record_confidence_share_history(
    turn_worker: TurnWorker, turns_on: Callable[[str], Turns]
) -> None:
    """The `confidence-share-v1` path: a draft giving one of the four figures asked is low
    (the count bands said medium). Record with TURNSTILE_HISTORY_PREFIX=share_."""

    def first_sentence(draft: Draft) -> Draft:
        return draft.model_copy(update={"answer": draft.answer.split("]. ")[0] + "]."})

    engine = ScriptedEngine().always("synthesize", first_sentence)
    async with turn_worker(engine) as tq:
        t = turns_on(tq)
        result = await t.ask("What was BHP's revenue and net debt in FY2023 and FY2024?")
        assert result.confidence == "low" and len(result.not_found) == 3, result
        await _save(t, "one_of_four", result.turn_id)


@pytest.mark.record_histories
async def test_record_ingest_history(
    worker: "WorkerFactory",
    temporal_client: "Client",
    make_report_index: "Callable[[], ReportIndex]",
) -> None:
    """An ingestion run whose file's step fails after its retries (the registry's
    database is down), saved as `ingest/<name>.json` whether the run failed (before
    `ingest-failed-file-reported-v1`) or reported the file; name it with INGEST_NAME."""
    from temporalio.client import WorkflowFailureError

    from activities.contracts import IngestRequest
    from backends.report_activities import ReportActivities
    from tests.conftest import CORPUS_DIR, database_down, unique
    from workflows.ingest import IngestDocuments

    name = os.environ.get("INGEST_NAME", "failed_file_reported")
    index = make_report_index()
    async with database_down() as down:
        reports = ReportActivities(index, down)
        async with worker(index, activities=[reports.ingest_file, reports.corpus_version]) as tq:
            run_id = unique("ingest")
            with contextlib.suppress(WorkflowFailureError):
                await temporal_client.execute_workflow(
                    IngestDocuments.run,
                    IngestRequest(paths=[str(CORPUS_DIR / "BHP_FY2024.md")]),
                    id=run_id,
                    task_queue=tq,
                )
            history = await temporal_client.get_workflow_handle(run_id).fetch_history()
    INGEST_HISTORIES.mkdir(parents=True, exist_ok=True)
    text = json.dumps(_portable(json.loads(history.to_json())), indent=1)
    (INGEST_HISTORIES / f"{name}.json").write_text(text + "\n")
