"""The typed suite: the reports' figures asked the way people type, generated, not written.

For every figure the sample reports print that `evals/paraphrases.jsonl` does not exclude
(the open-vocabulary suite's facts, `evals.open_suite`), questions a person types in a
chat, each expecting the same figure:

- `chat`: lower case, ticker and short year, sometimes a courtesy ("bhp revenue fy23 pls");
- `short-form`: a word of the label written as people shorten it, from the short-forms
  table (`domain/language/short_forms.tsv`, read backwards: "capital expenditure" → "capex");
- `acronym`: a label of three or more words asked by its initials ("TRIF");
- `no-year`: the company's latest year's figure asked with no year;
- `relative-year`: a follow-up saying its year in words ("and the year before?") after
  the same figure of the next year;
- `superlative`: for each measure the vocabulary names and each year, which company had
  the highest and the lowest figure (on one basis: a figure alone on its side of zero
  ranks across currencies, the others within the currency most of them share).
- `above-below`: for the same measures and years, whether the first company's figure is
  higher (or lower) than the next one's on its basis, answered yes or no first;
- `share-of-total`: each company's share of the combined figure of every company on its
  basis (none with net cash among them), worked out to one decimal.

A quarter of the cases (by a hash of their id) are tagged `held-out`: they were not looked
at while the rules they exercise were written, and are scored once, at the end.
`tests/unit/test_typed_suite.py` fails when the committed suite differs from what this
builds.

    python -m evals.typed_suite      # rewrite evals/suites/typed.jsonl
"""

import hashlib
import re
from collections import Counter, defaultdict

from domain.companies.roster import display_name, use_coverage
from domain.language.shorthand import short_forms
from domain.questions.metrics import metric_display
from domain.reports.figures import Fact, to_base, unit_spec
from evals.cases import SUITE_DIR
from evals.open_suite import (
    CORPUS,
    _label,
    _slug,
    asked_figures,
    case_stem,
    corpus_facts,
    render,
    with_unique_ids,
)
from ingestion.companies import sample_coverage

_COURTESY = ("", " pls", " thx", "?")
_BEFORE = ("and the year before?", "what about the previous year?", "and the prior year?")


def _held_out(case_id: str) -> bool:
    return hashlib.sha256(case_id.encode()).digest()[0] % 4 == 0


def _shortened(label: str) -> str | None:
    """The label with one of its words written as people shorten it, or None."""
    longest = sorted(
        ((words, short) for short, words in short_forms().items() if words),
        key=lambda p: -len(p[0]),
    )
    for words, short in longest:
        pattern = rf"\b{re.escape(words)}\b"
        if re.search(pattern, label, re.IGNORECASE) and len(words) > len(short) + 2:
            return re.sub(pattern, short, label, count=1, flags=re.IGNORECASE)
    return None


_FUNCTION = re.compile(r"^(?:the|of|for|and|in|on|at|to|by|ended|year|during)$", re.IGNORECASE)


def _acronym(label: str) -> str | None:
    """A label of three or four words, none a function word, as its initials ("TRIF",
    "NPAT"), or None."""
    words = label.replace("-", " ").split()
    if not 3 <= len(words) <= 4 or any(
        _FUNCTION.match(w) or not re.fullmatch(r"[A-Za-z][a-z]+", w) for w in words
    ):
        return None
    return "".join(w[0] for w in words).upper()


def _case(
    case_id: str, query: str, figure: str, kind: str, fact: Fact, before: list[str] | None = None
) -> dict[str, object]:
    case: dict[str, object] = {
        "id": case_id,
        "query": query,
        "expected": {"status": "answered", "present": [figure], "min_citations": 1},
        "why_it_matters": f"a figure the report prints ({fact.document} page {fact.page}) "
        f"asked as people type it ({kind}) is lost",
        "tags": [kind, fact.company, *(["held-out"] if _held_out(case_id) else [])],
    }
    if before:
        case["before"] = before
    return case


def figure_cases() -> list[dict[str, object]]:
    """The chat, short-form, acronym, no-year and relative-year cases of each figure."""
    # long: one pass over the figures; each kind of case is a few lines of it.
    chosen = [(fact, figure) for fact, figure, _ in asked_figures()]
    asked = {(f.company, f.fiscal_year, f.label.lower()) for f, _ in chosen}
    latest = {c: max(f.fiscal_year for f, _ in chosen if f.company == c) for c, *_ in asked}
    cases: list[dict[str, object]] = []
    for n, (fact, figure) in enumerate(chosen):
        name, label = display_name(fact.company), _label(fact.label)
        base = case_stem(fact, figure)
        year = fact.fiscal_year
        typed = f"{fact.company.lower()} {label.lower()} fy{year % 100:02d}{_COURTESY[n % 4]}"
        cases.append(_case(f"{base}-chat", typed, figure, "chat", fact))
        if (short := _shortened(label)) is not None:
            cases.append(
                _case(
                    f"{base}-short",
                    f"{name.lower()} {short} in fy{year}?",
                    figure,
                    "short-form",
                    fact,
                )
            )
        if (acronym := _acronym(fact.label)) is not None:
            cases.append(
                _case(
                    f"{base}-acronym",
                    f"What was {name}'s {acronym} in FY{year}?",
                    figure,
                    "acronym",
                    fact,
                )
            )
        if year == latest[fact.company]:
            cases.append(
                _case(f"{base}-no-year", f"What was {name}'s {label}?", figure, "no-year", fact)
            )
        if (fact.company, year + 1, fact.label.lower()) in asked:
            before = [f"What was {name}'s {label} in FY{year + 1}?"]
            cases.append(
                _case(f"{base}-before", _BEFORE[n % 3], figure, "relative-year", fact, before)
            )
    return cases


def _headline(facts: list[Fact]) -> Fact:
    """A company's figure of a measure for a year: the value its own report prints most."""
    common = Counter(f.value for f in facts).most_common(1)[0][0]
    return next(f for f in facts if f.value == common)


def superlative_cases() -> list[dict[str, object]]:
    """Which company had the highest and the lowest of each measure, each year."""
    by: dict[tuple[int, str], dict[str, list[Fact]]] = defaultdict(lambda: defaultdict(list))
    for fact in corpus_facts().values():
        if fact.metric and fact.report_fiscal_year == fact.fiscal_year and not fact.restated:
            by[(fact.fiscal_year, fact.metric)][fact.company].append(fact)
    cases: list[dict[str, object]] = []
    for (year, metric), companies in sorted(by.items()):
        if len(companies) < 3:
            continue
        figures = {c: _headline(fs) for c, fs in companies.items()}
        cases += _weighed_cases(year, metric, figures)
        signed = {c: _signed(f) for c, f in figures.items()}
        bases = Counter(_basis(f) for f in figures.values())
        common = bases.most_common(1)[0][0]
        same = [c for c, f in figures.items() if _basis(f) == common]
        for asked in ("highest", "lowest"):
            side = [c for c, v in signed.items() if (v < 0) == (asked == "lowest")]
            if len(side) == 1 and 0 not in signed.values():
                pick = side[0]
            elif len(same) >= 2:
                pick = (max if asked == "highest" else min)(same, key=lambda c: signed[c])
            else:
                continue
            case_id = f"superlative-{year}-{_slug(metric)}-{asked}"
            display = metric_display(metric)
            cases.append(
                {
                    "id": case_id,
                    "query": f"Which company had the {asked} {display} in FY{year}?",
                    "expected": {
                        "status": "answered",
                        "present": [f"{display_name(pick)} had the {asked}"],
                        "min_citations": 2,
                    },
                    "why_it_matters": "a ranking over every company names the wrong one, or none",
                    "tags": ["superlative", *(["held-out"] if _held_out(case_id) else [])],
                }
            )
    return cases


def _weighed_cases(year: int, metric: str, figures: dict[str, Fact]) -> list[dict[str, object]]:
    """The above-below and share-of-total cases of one measure's figures of one year."""
    cases: list[dict[str, object]] = []
    display = metric_display(metric)
    groups: dict[tuple[str, str], list[str]] = defaultdict(list)
    for company, fact in figures.items():
        groups[_basis(fact)].append(company)
    for n, same in enumerate(g for g in groups.values() if len(g) >= 2):
        first, second = same[0], same[1]
        above = _signed(figures[first]) > _signed(figures[second])
        word = ("higher", "lower")[(year + n) % 2]  # both wordings, by a rule, not a pick
        says = "Yes" if above == (word == "higher") else "No"
        case_id = f"above-below-{year}-{_slug(metric)}-{first.lower()}-{second.lower()}"
        query = (
            f"Was {display_name(first)}'s {display} in FY{year} {word} than "
            f"{display_name(second)}'s?"
        )
        answer = f"{says}: {display_name(first)}'s {display} in FY{year}"
        cases.append(_weighed(case_id, "above-below", query, answer))
        values = [_signed(figures[c]) for c in same]
        if min(values) <= 0 or unit_spec(figures[first].unit).kind in ("per_share", "percent"):
            continue  # net cash in a total, amounts per share or rates: no share of a sum
        for company, value in zip(same, values, strict=True):
            pct = value / sum(values) * 100.0
            case_id = f"share-of-total-{year}-{_slug(metric)}-{company.lower()}"
            cases.append(
                _weighed(
                    case_id,
                    "share-of-total",
                    f"What share of the combined {display} of all the companies "
                    f"in FY{year} came from {display_name(company)}?",
                    f"= {pct:.1f}%",
                )
            )
    return cases


def _weighed(case_id: str, kind: str, query: str, present: str) -> dict[str, object]:
    return {
        "id": case_id,
        "query": query,
        "expected": {"status": "answered", "present": [present], "min_citations": 2},
        "why_it_matters": "two companies' figures weighed, or one's part of their total, "
        "are not worked out or are wrong",
        "tags": [kind, *(["held-out"] if _held_out(case_id) else [])],
    }


def _basis(fact: Fact) -> tuple[str, str]:
    """What a figure compares on: its unit's base, and for production its own label (iron
    ore shipped and copper mined are no one measure)."""
    return to_base(fact.value, fact.unit).base, (
        fact.label.lower() if fact.metric == "production" else ""
    )


def _signed(fact: Fact) -> float:
    value = to_base(fact.value, fact.unit).value
    return -abs(value) if fact.metric == "net_debt" and fact.is_net_cash else value


def typed_cases() -> list[dict[str, object]]:
    return with_unique_ids([*figure_cases(), *superlative_cases()])


def main() -> None:
    use_coverage(sample_coverage(CORPUS))  # the names the cases use: the sample's own
    (SUITE_DIR / "typed.jsonl").write_text(render(typed_cases()), "utf-8")


if __name__ == "__main__":
    main()
