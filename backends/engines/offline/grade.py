"""The chunks the offline engine keeps for a question, and its draft's grade.

Chunks are kept lexically (by the measures and topic words asked) and, with an embedder,
by meaning; a draft's quality is graded leniently, its groundedness strictly, by the
numeric check on the answer and its sources alone.
"""

import re

from activities.contracts import AnswerGrade, DocumentGrades
from backends.engines.offline import analyst
from domain.checks.numeric import check_numbers
from domain.companies.roster import companies, display_name
from domain.language.sentences import split_sentences
from domain.models import ChunkText, Slots
from domain.questions.answer_scope import answer_years, requested_metrics
from domain.questions.measures import open_parts
from domain.questions.metrics import LINE_ITEM_OF, find_metrics
from domain.reports.facts import metric_facts, report_facts
from domain.reports.open_answers import CLOSE, Similarity, match, shares_terms
from domain.reports.passages import find_passages, role_holder

_BOILERPLATE_SECTION = re.compile(
    r"governance|board|directors|remuneration|sustainab|\besg\b|risk|auditor|audit\s+report",
    re.IGNORECASE,
)
_BOILERPLATE_TOPIC = re.compile(
    r"governance|board|director|remuneration|\bpay\b|salar|incentive|sustainab|\besg\b|"
    r"emission|climate|safety|trif|water|communit|risk|audit",
    re.IGNORECASE,
)
_STOPWORDS = frozenset(
    {
        *("what", "which", "when", "where", "were", "was", "with", "from", "that", "this"),
        *("have", "has", "had", "their", "there", "they", "them", "about", "tell", "show"),
        *("give", "much", "many", "does", "did", "between", "across", "over", "into", "than"),
        *("then", "also", "year", "years", "fiscal", "report", "reports", "annual", "company"),
        *("companies", "figure", "figures", "please", "could", "would", "should", "total"),
        *("group", "limited"),
    }
)
_DISCLAIMER = re.compile(
    r"\b(?:cannot|can't|unable|not\s+able|no\s+(?:data|information|figures?)|not\s+available|"
    r"don't\s+have|do\s+not\s+have|not\s+(?:provided|covered)|sorry|please\s+(?:check|consult))"
    r"\b|data not found in provided documents",
    re.IGNORECASE,
)


def grade_documents(
    question: str, slots: Slots, chunks: list[ChunkText], similarity: Similarity | None
) -> DocumentGrades:
    """Keep chunks that hold a requested metric (tables) or share its vocabulary (prose),
    and, for a narrative question, the chunk of the sentence closest in meaning to it.

    Governance, board, remuneration, sustainability, risk and auditor sections are
    dropped unless the question is about those topics; so are other companies and,
    when years are given, other years (a later report's table is kept when it holds a
    restated comparative for a requested year).
    """
    if (asked := analyst.analyst_question(question)) is not None:
        kept = analyst.keep(asked, chunks, slots.companies)
        if kept and not asked.why:
            return DocumentGrades(keep=kept)
        if asked.why:  # what moved a ratio: its statements' lines and what says why
            plain = _plain_grades(question, slots, chunks, similarity)
            return DocumentGrades(keep=sorted({*kept, *plain.keep}))
    return _plain_grades(question, slots, chunks, similarity)


def _plain_grades(
    question: str, slots: Slots, chunks: list[ChunkText], similarity: Similarity | None
) -> DocumentGrades:
    """The keep rules of a question asked plainly."""
    # long: the keep rules for tables and prose, tried in order on each chunk.
    metrics = requested_metrics(slots, question)
    wanted = set(metrics) | {LINE_ITEM_OF[m] for m in metrics if m in LINE_ITEM_OF}
    years = set(answer_years(slots, question))
    boilerplate_ok = bool(_BOILERPLATE_TOPIC.search(question))
    # A narrative question's topic words keep the sections that hold them too.
    parts = open_parts(question)
    company_words = {w.lower() for t in companies() for w in display_name(t).split()}
    question_words = _words(question) - company_words
    keep: list[int] = []
    prose: dict[str, list[int]] = {}  # each company's prose chunks a narrative may quote
    for i, chunk in enumerate(chunks):
        if slots.companies and chunk.company not in slots.companies:
            continue
        # A section a part of the question asks about by its words is not
        # boilerplate for it ("TRIF" is in the sustainability section).
        asked_here = any(shares_terms(p, chunk.text) for p in parts) or any(
            c.score >= CLOSE
            for p in parts
            for c in match(p, [(f, 0) for f in report_facts(chunk)], similarity)
        )
        if (
            slots.intent == "narrative"
            and not chunk.is_table
            and (not years or chunk.fiscal_year in years)
            and (asked_here or boilerplate_ok or not _BOILERPLATE_SECTION.search(chunk.section))
        ):
            prose.setdefault(chunk.company, []).append(i)
        if asked_here and (not years or chunk.fiscal_year in years or chunk.is_table):
            keep.append(i)
            continue
        if _BOILERPLATE_SECTION.search(chunk.section) and not boilerplate_ok:
            continue
        if chunk.is_table or any(ln.startswith("|") for ln in chunk.text.splitlines()):
            facts = [f for f in metric_facts(chunk) if f.metric in wanted]
            if years:
                facts = [f for f in facts if f.fiscal_year in years]
            if facts:
                keep.append(i)
            continue
        if years and chunk.fiscal_year not in years:
            continue
        if slots.intent == "narrative":
            if find_passages(question, [chunk], chunk.company, sorted(years), metrics):
                keep.append(i)
            continue
        body = chunk.text.split("\n", 1)[-1]
        if set(find_metrics(body)) & wanted or (question_words & _words(body)):
            keep.append(i)
    if similarity is not None:
        # The sentence closest in meaning to the question is kept beside those its
        # words found ("restructure" answered by "we reorganised the company"): the
        # passage search over each company's prose, as the synthesis will run it.
        for company, indices in prose.items():
            pool = [chunks[i] for i in indices]
            for p in find_passages(
                question, pool, company, sorted(years), metrics, similarity=similarity
            ):
                if indices[p.n - 1] not in keep:
                    keep.append(indices[p.n - 1])
        keep.sort()
    if not keep and slots.other_measures and not slots.metrics:
        keep = _best_per_company(chunks, slots.companies, years)
    for ticker in slots.companies if slots.intent == "narrative" else []:
        # "Who is the CEO?": the board's line for the role, boilerplate or not.
        if (holder := role_holder(question, chunks, ticker)) and holder.n - 1 not in keep:
            keep = sorted([*keep, holder.n - 1])
    return DocumentGrades(keep=keep)


def grade_answer(question: str, answer: str, sources: list[ChunkText]) -> AnswerGrade:
    """Quality leniently (fail only empty or all-disclaimer answers); groundedness
    strictly, by the numeric grounding check on the answer text and sources alone."""
    sentences = split_sentences(answer)
    substantive = [s for s in sentences if not _DISCLAIMER.search(s)]
    quality = bool(answer.strip()) and bool(substantive)
    report = check_numbers(answer, sources, question)
    notes = (
        f"quality {'passed' if quality else 'failed: empty or only disclaimers'}; "
        f"{report.checked_numbers} number(s) checked, {len(report.derived)} derived, "
        f"{len(report.unsupported)} unsupported"
    )
    return AnswerGrade(quality_passed=quality, unsupported=report.unsupported, notes=notes)


def _best_per_company(chunks: list[ChunkText], companies: list[str], years: set[int]) -> list[int]:
    """The best-ranked chunk of each company (and year): kept when a question asks only
    for a measure the engine cannot read and no passage speaks to it, so the answer can
    still say plainly, company by company, that the figure is not in the reports."""
    keep: list[int] = []
    seen: set[str] = set()
    for i, chunk in enumerate(chunks):
        if chunk.company in seen or (companies and chunk.company not in companies):
            continue
        if years and chunk.fiscal_year not in years:
            continue
        seen.add(chunk.company)
        keep.append(i)
    return keep


def _words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z][a-z0-9]{3,}", text.lower()) if w not in _STOPWORDS}
