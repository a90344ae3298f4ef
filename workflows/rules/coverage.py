"""Coverage post-check: every requested-but-missing figure has its exact line."""

from domain.models import NotFound, Slots


def ensure_gap_lines(answer: str, gaps: list[NotFound]) -> tuple[str, list[str]]:
    """Append any missing "data not found" line; return (answer, lines that were added)."""
    added = [gap.line() for gap in gaps if gap.line() not in answer]
    if not added:
        return answer, []
    return (answer.rstrip() + "\n" + "\n".join(added)).strip(), added


def company_status(requested: list[str], surviving_companies: set[str]) -> dict[str, bool]:
    """Rebuild found-flags from graded survivors: found means relevant evidence survived."""
    return {ticker: ticker in surviving_companies for ticker in requested}


def gaps_to_retry(
    draft_gaps: list[NotFound] | None,
    coverage: dict[str, bool],
    slots: Slots,
    default_year: int,
) -> list[NotFound]:
    """The gaps a retry targets: the draft's own, or, with no draft, derived.

    Without a draft the gaps are unknown: every requested metric (in every requested
    year, else `default_year`) of a company with no surviving evidence counts as one, so
    that company's retry can add metric synonyms.
    """
    if draft_gaps is not None:
        return draft_gaps
    return [
        NotFound(company=company, fiscal_year=year, metric=metric)
        for company, found in coverage.items()
        if not found
        for metric in slots.metrics
        for year in slots.fiscal_years or [default_year]
    ]
