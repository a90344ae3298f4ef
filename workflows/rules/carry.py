"""Entity carry-forward: fill a missing company and/or fiscal year from recent messages.

Deliberately narrow: only a question with something to attach to (a metric, or a
referring word like "its" or "what about") is filled; only the missing slot is filled;
and if recent messages name nothing, the question is returned unchanged.
"""

import re

from domain.companies import COMPANIES
from domain.question import extract_slots
from workflows.contracts import Carried

_FOLLOW_UP = re.compile(
    r"\b(it|its|it's|they|their|them|that|this|those|these|same|the company|what about"
    r"|how about|and)\b",
    re.I,
)


def carry_entities(question: str, recent_questions: list[str]) -> tuple[str, Carried]:
    """Return (resolved question, what was carried); `recent_questions` oldest first."""
    slots = extract_slots(question)
    needs_company = not slots.companies
    needs_year = not slots.fiscal_years
    if not (needs_company or needs_year):
        return question, Carried()
    if not slots.metrics and not _FOLLOW_UP.search(question):
        return question, Carried()
    companies: list[str] = []
    year: int | None = None
    for text in reversed(recent_questions):
        earlier = extract_slots(text)
        if needs_company and not companies and earlier.companies:
            companies = earlier.companies
        if needs_year and year is None and len(earlier.fiscal_years) == 1:
            year = earlier.fiscal_years[0]
        if (companies or not needs_company) and (year is not None or not needs_year):
            break
    if not companies and year is None:
        return question, Carried()
    parts = [COMPANIES[t].name for t in companies]
    if year is not None:
        parts.append(f"FY{year}")
    resolved = f"{question.rstrip()} ({', '.join(parts)})"
    return resolved, Carried(company=", ".join(companies) or None, fiscal_year=year)


def merge_reply(question: str, reply: str) -> str:
    """Merge a clarification reply INTO the question; the original is never replaced."""
    return f"{question.rstrip()} — {reply.strip()}"
