"""Live evaluation from the command line: the turns worth a regression case, a case drafted
from one for a reviewer to confirm, and the shadow configuration's A/B report (sampled
live turns beside their shadows: `TURNSTILE_SHADOW_SAMPLE`, `TURNSTILE_SHADOW_ENGINE`).

Drafted cases are appended to a candidates file (evals/candidates/live.jsonl by default),
one JSON line each, marked `"confirmed": false`: `turnstile eval --mode real --file PATH`
runs them, the suites refuse them until a reviewer has read the draft's notes, corrected
what they say, set `confirmed` to true and moved the line into a suite.
"""

import uuid
from datetime import timedelta
from pathlib import Path

from temporalio.client import Client, WorkflowFailureError
from temporalio.exceptions import ApplicationError

from activities.contracts import CandidatesRequest, DraftCaseRequest, ShadowRunsRequest
from domain.evaluation.live_cases import CaseCandidate
from domain.evaluation.scoring import DRAFTS, CaseError, EvalCase, parse_cases
from domain.evaluation.shadow import ShadowReport, Side
from evals.cases import CANDIDATE_DIR, SUITE_DIR, relative
from workflows.live_cases import DraftCase, ListCaseCandidates, ReadShadowRuns

SHORT_RUN = timedelta(minutes=2)


def _drafted_turns(paths: list[Path]) -> dict[str, str]:
    """Turn id → where a case drafted from it already is (a candidates file or a suite)."""
    found: dict[str, str] = {}
    for path in paths:
        try:
            text = path.read_text(encoding="utf-8")
        except OSError:
            continue
        for line in text.splitlines():
            if '"origin"' not in line:
                continue
            try:
                [case] = parse_cases(line, relative(path), DRAFTS)
            except CaseError:
                continue
            if case.origin is not None:
                found[case.origin.turn_id] = relative(path)
    return found


def known_drafts(out: Path | None = None) -> dict[str, str]:
    paths = [*sorted(CANDIDATE_DIR.glob("*.jsonl")), *sorted(SUITE_DIR.glob("*.jsonl"))]
    if out is not None and out not in paths:
        paths.append(out)
    return _drafted_turns(paths)


async def candidates(temporal: Client, task_queue: str, limit: int) -> list[CaseCandidate]:
    listed = await temporal.execute_workflow(
        ListCaseCandidates.run,
        CandidatesRequest(limit=limit),
        id=f"eval-candidates-{uuid.uuid4().hex[:8]}",
        task_queue=task_queue,
        execution_timeout=SHORT_RUN,
        static_summary="turns worth a regression case",
    )
    return listed.candidates


def render_candidates(found: list[CaseCandidate], drafted: dict[str, str]) -> str:
    if not found:
        return "no candidates: no turn is rated wrong figure and no recorded probe failed"
    lines = []
    for c in found:
        mark = f"  (drafted: {drafted[c.turn_id]})" if c.turn_id in drafted else ""
        lines.append(f"{c.at:%Y-%m-%d %H:%M}  {c.kind:<12} {c.turn_id}{mark}")
        lines.append(f"    asked: {c.question}")
        lines.append(f"    why: {c.why}")
    lines.append("(draft one with: turnstile eval add-case --from-turn TURN)")
    return "\n".join(lines)


async def draft(temporal: Client, task_queue: str, turn_id: str) -> EvalCase:
    """The turn drafted as a case by the stack; CaseError naming the turn when there is
    no such turn."""
    try:
        return await temporal.execute_workflow(
            DraftCase.run,
            DraftCaseRequest(turn_id=turn_id),
            id=f"eval-draft-case-{uuid.uuid4().hex[:8]}",
            task_queue=task_queue,
            execution_timeout=SHORT_RUN,
            static_summary=f"draft a case from turn {turn_id}",
        )
    except WorkflowFailureError as err:
        cause = getattr(err.cause, "cause", None)
        if isinstance(cause, ApplicationError) and cause.type == "NotFound":
            raise CaseError(f"no turn {turn_id}") from None
        raise


def write_draft(case: EvalCase, out: Path) -> None:
    """Append the case to `out`; CaseError when a case from the same turn is there."""
    drafted = _drafted_turns([out])
    if case.origin is not None and case.origin.turn_id in drafted:
        raise CaseError(
            f"{relative(out)} already holds a case drafted from turn {case.origin.turn_id}"
        )
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        existing = out.read_text(encoding="utf-8") if out.exists() else ""
        with out.open("a", encoding="utf-8") as handle:
            if existing and not existing.endswith("\n"):
                handle.write("\n")
            handle.write(case.to_line() + "\n")
    except OSError as err:
        raise CaseError(f"{relative(out)}: cannot write ({err.strerror})") from None


def render_draft(case: EvalCase, out: Path) -> str:
    expected = case.expected
    lines = [
        f"wrote case {case.id} to {relative(out)} (unconfirmed: a reviewer confirms it)",
        f"  question: {case.query}",
    ]
    if case.before:
        lines.append(f"  asked before: {' / '.join(case.before)}")
    for key in ("status", "present", "absent"):
        value = getattr(expected, key, None)
        if value:
            label = {"present": "must show", "absent": "must not show"}.get(key, key)
            lines.append(f"  {label}: {value if isinstance(value, str) else ', '.join(value)}")
    for cite in getattr(expected, "cites", []):
        lines.append(f"  must cite: the {cite.describe()}")
    for note in case.origin.notes if case.origin else []:
        lines.append(f"  note: {note}")
    lines.append(f"(run it: turnstile eval --mode real --file {relative(out)} --case {case.id})")
    return "\n".join(lines)


async def shadow(temporal: Client, task_queue: str, limit: int) -> ShadowReport:
    return await temporal.execute_workflow(
        ReadShadowRuns.run,
        ShadowRunsRequest(limit=limit),
        id=f"eval-shadow-{uuid.uuid4().hex[:8]}",
        task_queue=task_queue,
        execution_timeout=SHORT_RUN,
        static_summary="shadow runs beside live turns",
    )


def _side(side: Side) -> str:
    statuses = ", ".join(f"{n} {s}" for s, n in sorted(side.statuses.items()))
    return (
        f"{side.config}: {statuses}; {side.high_confidence} at confidence high; "
        f"{side.mean_unsupported} unsupported claims, {side.mean_citations} citations, "
        f"{side.mean_model_calls} engine calls an answer"
    )


def render_shadow(report: ShadowReport) -> str:
    if not report.pairs:
        return (
            "no shadow runs recorded: set TURNSTILE_SHADOW_SAMPLE (and "
            "TURNSTILE_SHADOW_ENGINE) and restart the stack"
        )
    pairs = len(report.pairs)
    head = (
        "1 live turn beside its shadow"
        if pairs == 1
        else f"{pairs} live turns beside their shadows"
    )
    lines = [f"{head}: " + ", ".join(f"{n} {v}" for v, n in sorted(report.verdicts.items()))]
    lines += [f"  live    {_side(s)}" for s in report.live]
    lines += [f"  shadow  {_side(s)}" for s in report.shadow]
    for pair in report.pairs:
        if pair.verdict == "same":
            continue
        live_, shadow_ = pair.live, pair.shadow
        lines.append(f"{pair.verdict:13} {pair.turn_id}: {pair.question}")
        lines.append(
            f"    live   {live_.status} {live_.confidence or '-'} "
            f"({live_.unsupported} unsupported): {live_.answer[:100]}"
        )
        lines.append(
            f"    shadow {shadow_.status} {shadow_.confidence or '-'} "
            f"({shadow_.unsupported} unsupported): {shadow_.answer[:100]}"
        )
    return "\n".join(lines)
