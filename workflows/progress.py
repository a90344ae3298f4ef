"""What a turn tells its watchers as it runs: plain-English events on its workflow stream.

ChatTurn publishes a `TurnEvent` when a step starts, for each decision it records, when
it pauses for a clarification and once when it settles (the stream's in-band end, so a
subscriber stops without waiting for the workflow to close). The wording lives here, one
line per step, so the page, the CLI and the API's event stream all say the same thing.
Pure functions: the workflow calls them, so they must stay deterministic.
"""

from domain.companies import display_name
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
    """Coverage in words: "found BHP, South32; nothing for Fortescue"."""
    found = [t for t, ok in coverage.items() if ok]
    missing = [t for t, ok in coverage.items() if not ok]
    parts = []
    if found:
        parts.append("found " + ", ".join(found))
    if missing:
        parts.append("nothing for " + ", ".join(missing))
    return "; ".join(parts) or "no companies asked"


def decision(line: str) -> TurnEvent:
    """A decision the turn recorded (the same line an operator reads in the Temporal UI)."""
    if line.startswith("DEGRADED "):
        layer, _, reason = line.removeprefix("DEGRADED ").partition(": ")
        return TurnEvent(
            kind="decision", step=layer, text=f"{layer} failed open and was counted: {reason}"
        )
    return TurnEvent(kind="decision", text=line)


def waiting(round_: int) -> TurnEvent:
    return TurnEvent(
        kind="waiting", round=round_, text="Asked a clarifying question; waiting for the reply"
    )


def settled(status: str) -> TurnEvent:
    return TurnEvent(kind="settled", status=status, text=f"Finished: {status.replace('_', ' ')}")
