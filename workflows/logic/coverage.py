"""Coverage post-check: every requested-but-missing figure has its exact line."""

from activities.contracts import NotFound


def ensure_gap_lines(answer: str, gaps: list[NotFound]) -> tuple[str, list[str]]:
    """Append any missing "data not found" line; return (answer, lines that were added)."""
    added = [gap.line() for gap in gaps if gap.line() not in answer]
    if not added:
        return answer, []
    return (answer.rstrip() + "\n" + "\n".join(added)).strip(), added


def company_status(requested: list[str], surviving_companies: set[str]) -> dict[str, bool]:
    """Rebuild found-flags from graded survivors: found means relevant evidence survived."""
    return {ticker: ticker in surviving_companies for ticker in requested}
