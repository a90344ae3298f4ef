"""What the reports say, for a question that is not about a figure: the sentences of each
company's reports that answer it, quoted and cited to their page; the line naming a
role's holder ("who is the CEO?"); or a plain line that the reports do not address it."""

from backends.engines.offline.wording import possessive, year_span_of
from domain.models import ChunkText
from domain.reports.open_answers import Similarity
from domain.reports.passages import RoleHolder, find_passages, role_asked, role_holder


def narrate(
    question: str,
    sources: list[ChunkText],
    companies: list[str],
    years: list[int],
    metrics: list[str],
    similarity: Similarity | None = None,
) -> list[str]:
    """The sentences of each company's reports that answer a question that is not about a
    figure, quoted and cited to their page; or a plain line that the reports do not
    address it."""
    role = role_asked(question)
    paragraphs: list[str] = []
    for ticker in companies:
        if (holder := role_holder(question, sources, ticker)) is not None:
            paragraphs.append(_holder_line(ticker, holder, role or ""))
            continue
        passages = find_passages(question, sources, ticker, years, metrics, similarity=similarity)
        if not passages:
            paragraphs.append(
                f"I found nothing in {possessive(ticker)} reports for {year_span_of(years)} "
                "that addresses this question."
            )
            continue
        lines: list[str] = []
        if role and not any(p.from_role for p in passages):
            lines.append(
                f"The {role}'s letter in {possessive(ticker)} reports does not address this; "
                "elsewhere the reports say:"
            )
        for p in sorted(passages, key=lambda p: (-p.chunk.fiscal_year, p.n)):
            where = f"{p.chunk.section.split(' — ')[0]}, page {p.chunk.page}"
            lines.append(
                f"{possessive(ticker)} FY{p.chunk.fiscal_year} report ({where}): "
                f'"{p.sentence}" [{p.n}]'
            )
        paragraphs.append("\n".join(lines))
    return paragraphs


def _holder_line(ticker: str, holder: RoleHolder, role: str) -> str:
    """ "Who is the CEO?": the line that describes the role's holder, and whether the
    reports name them (an excerpt may describe directors by role alone)."""
    chunk = holder.chunk
    where = f"{chunk.section.split(' — ')[0]}, page {chunk.page}"
    quoted = (
        f"{possessive(ticker)} FY{chunk.fiscal_year} report ({where}), under "
        f'"{holder.heading or role}": "{holder.said}" [{holder.n}]'
    )
    if holder.named:
        return quoted
    return f"{possessive(ticker)} reports do not name its {role}; the closest they say: {quoted}"
