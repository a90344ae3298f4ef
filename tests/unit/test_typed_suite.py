"""The typed suite (`evals/typed_suite.py`): the reports' figures asked as people type."""

from collections import Counter

from evals.cases import SUITE_DIR, load_suites
from evals.typed_suite import _acronym, _shortened, render, typed_cases


def test_the_committed_suite_is_what_the_generator_builds() -> None:
    assert (SUITE_DIR / "typed.jsonl").read_text("utf-8") == render(typed_cases()), (
        "evals/suites/typed.jsonl is stale: run python -m evals.typed_suite"
    )


def test_every_kind_is_asked_and_a_quarter_is_held_out() -> None:
    cases = load_suites(["typed"])["typed"]
    kinds = Counter(c.tags[0] for c in cases)
    assert len(cases) >= 300
    assert set(kinds) == {
        "chat",
        "short-form",
        "acronym",
        "no-year",
        "relative-year",
        "superlative",
        "above-below",
        "share-of-total",
    }
    assert all(n >= 20 for n in kinds.values()), kinds
    held = sum("held-out" in c.tags for c in cases)
    assert 0.2 * len(cases) <= held <= 0.35 * len(cases)
    chains = [c for c in cases if c.tags[0] == "relative-year"]
    assert all(len(c.before) == 1 for c in chains)


def test_short_forms_and_acronyms_come_from_the_words_not_a_list() -> None:
    assert _shortened("Capital expenditure") == "capex"
    assert _shortened("Underlying EBITDA") is None
    assert _acronym("Total recordable injury frequency") == "TRIF"
    assert _acronym("Net debt ended the year") is None  # function words
    assert _acronym("Revenue") is None
