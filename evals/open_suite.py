"""The open-vocabulary and narrative suites, generated from the reports themselves.

`open_vocabulary.jsonl` is built, not written: for every figure the sample reports print
(`domain.reports.facts.report_facts` over the corpus, one per company, period, label and figure)
two questions — one by rule in the report's own words ("What was BHP Group's revenue in
FY2023?") and one written by hand without them ("How much money did BHP bring in from
sales in FY2023?"), from `evals/paraphrases.jsonl`, where a fact that cannot be asked
(a misread label, a fragment) is excluded with its reason. `tests/unit/test_open_suite.py`
fails when a fact of the corpus has neither a paraphrase nor an exclusion, or when the
committed suite differs from what this builds, so a new figure cannot go unasked.

`narrative.jsonl` comes from `evals/narrative_questions.jsonl`: questions whose answer
is a sentence (events, transactions, strategy, policies, people, businesses, risks,
safety, climate, communities) with words the answering sentence holds and the question
does not, plus questions the reports do not address at all.

    python -m evals.open_suite      # rewrite both suite files
"""

import json
import re
from pathlib import Path

from domain.companies.roster import display_name, use_coverage
from domain.reports.facts import report_facts
from domain.reports.figures import Fact
from evals.cases import HOME, SUITE_DIR
from ingestion.companies import sample_coverage
from ingestion.documents import parse_document

CORPUS = HOME.parent / "corpus" / "reports"
PARAPHRASES = HOME / "paraphrases.jsonl"
NARRATIVE = HOME / "narrative_questions.jsonl"


def fact_key(company: str, fiscal_year: int, label: str, raw: str) -> str:
    return f"{company}|{fiscal_year}|{label.strip().lower()}|{raw}"


def corpus_facts(directory: Path = CORPUS) -> dict[str, Fact]:
    """Every distinct fact of the reports in `directory`, by `fact_key`."""
    out: dict[str, Fact] = {}
    for path in sorted(directory.glob("*.md")):
        for chunk in parse_document(path).chunks:
            for fact in report_facts(chunk):
                out.setdefault(fact_key(fact.company, fact.fiscal_year, fact.label, fact.raw), fact)
    return out


def paraphrases() -> dict[str, dict[str, str | None]]:
    rows = [json.loads(line) for line in PARAPHRASES.read_text(encoding="utf-8").splitlines()]
    return {fact_key(r["company"], r["fiscal_year"], r["label"], r["raw"]): r for r in rows}


def _label(label: str) -> str:
    words = label.strip().rstrip(":").split()
    if words and not (words[0].isupper() or any(c.isdigit() for c in words[0])):
        words[0] = words[0].lower()
    return " ".join(words)


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:40]


def asked_figures() -> list[tuple[Fact, str, dict[str, str | None]]]:
    """Each fact of the corpus that is asked (its paraphrase row excludes it not), with the
    figure an answer must hold and its row: what the generated suites ask about."""
    facts = corpus_facts()
    written = paraphrases()
    asked = []
    for key, fact in facts.items():
        row = written.get(key)
        if row is not None and not row.get("skip"):
            asked.append((fact, str(row["figure"]), row))
    return asked


def case_stem(fact: Fact, figure: str) -> str:
    """The start of every generated case id of one figure ("bhp-2023-revenue-53-82")."""
    return f"{fact.company.lower()}-{fact.fiscal_year}-{_slug(fact.label)}-{_slug(figure)}"


def with_unique_ids(cases: list[dict[str, object]]) -> list[dict[str, object]]:
    """Two facts with the same slug keep distinct ids (a "-2" added to the later)."""
    seen: set[str] = set()
    for case in cases:
        while case["id"] in seen:
            case["id"] = f"{case['id']}-2"
        seen.add(str(case["id"]))
    return cases


def open_vocabulary_cases() -> list[dict[str, object]]:
    cases: list[dict[str, object]] = []
    for fact, figure, row in asked_figures():
        name = display_name(fact.company)
        base = case_stem(fact, figure)
        expected = {"status": "answered", "present": [figure], "min_citations": 1}
        where = f"{fact.document} page {fact.page}"
        cases.append(
            {
                "id": f"{base}-label",
                "expected": expected,
                "query": f"What was {name}'s {_label(fact.label)} in FY{fact.fiscal_year}?",
                "why_it_matters": f"a figure the report prints ({where}) asked in its own words "
                "is not found or answered with another figure",
                "tags": ["label-words", fact.source, fact.company],
            }
        )
        cases.append(
            {
                "id": f"{base}-paraphrase",
                "query": row["query"],
                "expected": expected,
                "why_it_matters": f"the same figure ({where}) asked without the report's words "
                "is not found: the reading depends on the vocabulary",
                "tags": ["paraphrase", fact.source, fact.company],
            }
        )
    return with_unique_ids(cases)


def narrative_cases() -> list[dict[str, object]]:
    cases: list[dict[str, object]] = []
    for line in NARRATIVE.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        if row["category"] == "unaddressed":
            expected: dict[str, object] = {
                "status": "fallback",
                "status_in": ["answered"],
                "confidence_not": ["high", "medium"],
            }
            why = (
                "a topic the reports never mention is answered as if they did (an honest "
                "'the reports do not say', with the closest passages at low confidence, "
                "passes)"
            )
        else:
            expected = {"status": "answered", "present": row["expect"], "min_citations": 1}
            why = (
                f"a {row['category']} question answered by a sentence of "
                f"{row['company']}'s FY{row['fiscal_year']} report gets figures or nothing"
            )
        tags = [row["category"], row["company"]]
        cases.append(
            {
                "id": row["id"],
                "query": row["query"],
                "expected": expected,
                "why_it_matters": why,
                "tags": tags,
            }
        )
    return cases


def render(cases: list[dict[str, object]]) -> str:
    return "".join(json.dumps(c, ensure_ascii=False) + "\n" for c in cases)


def main() -> None:
    use_coverage(sample_coverage(CORPUS))  # the names the cases use: the sample's own
    (SUITE_DIR / "open_vocabulary.jsonl").write_text(render(open_vocabulary_cases()), "utf-8")
    (SUITE_DIR / "narrative.jsonl").write_text(render(narrative_cases()), "utf-8")


if __name__ == "__main__":
    main()
