"""What a turn tells its watchers as it runs: plain-English events on its workflow stream.

ChatTurn publishes a `TurnEvent` when a step starts, for each decision it records, when
it pauses for a clarification and once when it settles (the stream's in-band end, so a
subscriber stops without waiting for the workflow to close). The wording lives here, one
line per step, so the page, the CLI and the API's event stream all say the same thing.

A decision has two wordings: the operator's line (the decision trail in the Temporal UI
and the `progress` query: "route: needs_clarification (no company named)") and the
person's (`TurnEvent.text`: "The question needs one more detail"); the event carries
the operator's line as its `detail`. Step names, route names and cache reasons never
reach `text`.

Pure functions: the workflow calls them, so they must stay deterministic. Their text is
no command's argument: rewording them changes no history.
"""

from collections.abc import Iterable

from domain.companies.roster import display_name
from domain.turns import Carried, TurnResult
from workflows.contracts import TurnEvent

EVENTS_TOPIC = "progress"
"""The workflow stream topic the turn's events are published on."""

MAX_RETAINED_EVENTS = 400
"""Events kept in the workflow's memory; older ones are truncated (an ignored-signal flood
cannot grow the turn without bound). A normal turn publishes a few dozen."""

STEP_TEXT = {
    "postgres_read_coverage": "Reading which companies and years are held",
    "postgres_load_session": "Reading the conversation so far",
    "llm_summarize_history": "Summarising earlier messages",
    "postgres_remember_fact": "Remembering what you asked",
    "qdrant_lookup_answer": "Looking for an answer already checked",
    "llm_route_question": "Reading the question",
    "llm_rewrite_query": "Planning the search",
    "qdrant_search_chunks": "Searching the reports",
    "llm_grade_documents": "Grading the passages found",
    "llm_synthesize_answer": "Writing the answer from the evidence",
    "grounding_check_numbers": "Checking every figure against its source",
    "grounding_check_relevance": "Checking the answer covers what was asked",
    "llm_grade_answer": "Checking that the answer answers the question",
    "qdrant_save_answer": "Keeping the checked answer for similar questions",
    "postgres_save_turn": "Saving the turn",
    "postgres_record_shadow": "Recording the shadow run beside the live turn",
}


def step_started(step: str) -> TurnEvent:
    """The event for a step that starts now (its activity name; unknown names as they are)."""
    return TurnEvent(kind="step", step=step, text=STEP_TEXT.get(step, step.replace("_", " ")))


def search_started(ticker: str, fiscal_years: list[int]) -> TurnEvent:
    """One company's branch of the fan-out search."""
    company = display_name(ticker)
    years = ""
    if fiscal_years:
        years = " for " + " and ".join(f"FY{year}" for year in sorted(fiscal_years))
    return TurnEvent(
        kind="step", step="qdrant_search_chunks", text=f"Searching {company}'s reports{years}"
    )


def covered(coverage: dict[str, bool]) -> str:
    """Coverage for operators: "found BHP, S32; nothing for FMG"."""
    found = [t for t, ok in coverage.items() if ok]
    missing = [t for t, ok in coverage.items() if not ok]
    parts = []
    if found:
        parts.append("found " + ", ".join(found))
    if missing:
        parts.append("nothing for " + ", ".join(missing))
    return "; ".join(parts) or "no companies asked"


def _names(tickers: Iterable[str]) -> str:
    names = [display_name(t) for t in tickers]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def covered_said(coverage: dict[str, bool]) -> str:
    """Coverage for people: "Found passages for BHP Group and South32; none for Fortescue"."""
    found = [t for t, ok in coverage.items() if ok]
    missing = [t for t, ok in coverage.items() if not ok]
    if not found:
        return "Found no relevant passages" + (f" for {_names(missing)}" if missing else "")
    said = f"Found relevant passages for {_names(found)}"
    return said + (f"; none for {_names(missing)}" if missing else "")


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]


def decision(line: str, said: str, step: str | None = None) -> TurnEvent:
    """A decision the turn recorded: `said` for people, the operator's `line` (the one
    the Temporal UI shows) as its detail."""
    return TurnEvent(kind="decision", text=said, detail=line, step=step)


def plural(n: int, one: str, many: str | None = None) -> str:
    """ "1 figure", "3 figures"."""
    return f"{n} {one if n == 1 else (many or one + 's')}"


# ---- the person's wording of each decision ------------------------------------------

CACHE_SAID = {
    "hit": "Found this question answered and checked before; that answer is reused",
    "hint": "Found a similar question answered before; it is only a lead, and this answer"
    " is checked afresh",
    "miss": "No earlier checked answer fits this question; answering afresh",
}
ROUTE_SAID = {
    "needs_retrieval": "The question needs the reports: searching them",
    "direct_answer": "The question is about this assistant; no report is needed",
    "needs_clarification": "The question needs one more detail before it can be answered",
    "out_of_scope": "The question is outside what the reports cover",
}
FALLBACK_SAID = {
    "nothing_relevant": "Nothing relevant was found in the reports",
    "no_answer_composed": "No answer that passes the checks could be written",
    "clarification_exhausted": "Still unclear after two clarifying questions",
    "unverified": "Every figure drafted was refuted by the checks, so none is shown",
    "numbers_unchecked": "The figures drafted could not be checked, so none is shown",
    "model_timeout": "The model provider did not answer in time",
    "internal_error": "Stopped on an error",
}


def cache_said(outcome: str) -> str:
    return CACHE_SAID.get(outcome, "Looked for an earlier checked answer")


def route_said(route: str) -> str:
    return ROUTE_SAID.get(route, "Decided how to answer the question")


def fallback_said(reason: str | None) -> str:
    return FALLBACK_SAID.get(reason or "", "No checked answer could be given")


def degraded_said(layer: str) -> str:
    """A step that failed open: the turn goes on without it (the operator's line has why)."""
    doing = STEP_TEXT.get(layer, layer.replace("_", " "))
    return f"Went on without one step ({_lower_first(doing)}): it failed, and this was recorded"


def outcome_said(result: TurnResult) -> str:
    """The settled turn as a person reads it: its plain status and confidence."""
    if result.confidence is None:
        return result.status_text
    return f"{result.status_text}, with {result.confidence} confidence"


# ---- decisions as (the operator's line, the person's) --------------------------------

Said = tuple[str, str]


def scope_declined(reason: str | None) -> Said:
    return (
        f"scope rules: answering the facts, declining the rest ({reason})",
        "Answering the facts asked for; declining the advice or prediction",
    )


def scope_refused(reason: str | None) -> Said:
    return (
        f"scope rules: refused ({reason})",
        "The question asks for something the reports cannot answer: declining",
    )


def carried(carried: Carried) -> Said:
    parts = (carried.company, carried.metric, carried.fiscal_year)
    said = (
        display_name(carried.company) if carried.company else None,
        carried.metric,
        f"FY{carried.fiscal_year}" if carried.fiscal_year else None,
    )
    return (
        "carried " + " ".join(str(p) for p in parts if p),
        "Took " + ", ".join(p for p in said if p) + " from earlier in the conversation",
    )


def preferences_applied(applied: list[str]) -> Said:
    return (
        f"preferences applied: {'; '.join(applied)}",
        f"Applied your preferences: {'; '.join(applied)}",
    )


def reply_merged(round_: int) -> Said:
    return (
        f"clarification {round_} answered; question merged",
        "Your reply was added to the question",
    )


def pass_found(number: int, new: int, kept: int, coverage: dict[str, bool]) -> Said:
    return f"pass {number}: {new} new, {kept} kept; {covered(coverage)}", covered_said(coverage)


def pass_checked(number: int, quality_passed: bool, unsupported: int, gaps: int) -> Said:
    line = (
        f"pass {number}: quality {'pass' if quality_passed else 'FAIL'}, "
        f"{unsupported} unsupported, {gaps} gaps"
    )
    if not quality_passed:
        return line, "Checked the draft: it does not answer the question yet"
    if not unsupported and not gaps:
        return line, "Checked the draft: every figure is backed by its source"
    found = []
    if unsupported:
        found.append(f"{plural(unsupported, 'statement')} not backed by the reports")
    if gaps:
        found.append(f"{plural(gaps, 'figure')} asked for not in the reports")
    return line, "Checked the draft: " + " and ".join(found)


def spoken_taken_out(n: int) -> Said:
    return (
        f"draft: {n} sentence(s) speaking to the reader taken out",
        f"Took out {plural(n, 'sentence')} of the draft that spoke of instructions or called"
        " itself verified",
    )


def asked_gaps(n: int) -> Said:
    return (
        f"coverage: {n} asked item(s) no backed figure gives",
        f"{plural(n, 'figure')} asked for not in the reports: the answer says so",
    )


def refuted_taken_out(n: int) -> Said:
    return (
        f"final gate: {n} refuted figure(s) taken out",
        f"Took out {plural(n, 'figure')} the checks refuted",
    )


def refuted_not_found(n: int) -> Said:
    return (
        f"final gate: a sentence of {n} refuted claim(s) not found to take out: draft withheld",
        "The figures drafted could not all be checked, so the draft is not shown",
    )


def gap_lines_added(n: int) -> Said:
    return (
        f"coverage post-check added {n} line(s)",
        "Added a line for each figure asked for that the reports do not give",
    )


def waiting(round_: int) -> TurnEvent:
    return TurnEvent(
        kind="waiting", round=round_, text="Asked a clarifying question; waiting for the reply"
    )


def settled(result: TurnResult) -> TurnEvent:
    """The stream's last event: the turn's status in plain words (`status` has its name)."""
    return TurnEvent(
        kind="settled", status=result.status, text=f"Finished: {result.status_text.lower()}"
    )
