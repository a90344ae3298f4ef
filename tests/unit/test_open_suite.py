"""The suites generated from the reports (`evals/open_suite.py`): every fact is asked."""

import json

from domain.companies.roster import companies
from domain.questions.measures import content_words, stem
from evals.cases import SUITE_DIR, load_suites
from evals.open_suite import (
    corpus_facts,
    narrative_cases,
    open_vocabulary_cases,
    paraphrases,
    render,
)


def test_every_fact_of_the_corpus_is_asked_or_excluded_with_a_reason() -> None:
    facts = corpus_facts()
    written = paraphrases()

    missing = sorted(set(facts) - set(written))
    assert not missing, f"facts with no paraphrase row: {missing[:5]}"
    asked = [k for k in facts if not written[k]["skip"]]
    assert len(asked) >= 0.8 * len(facts)
    assert all(
        str(written[k]["figure"]).replace(",", "") in facts[k].raw.replace(",", "") for k in asked
    )


def test_the_committed_suites_are_what_the_generator_builds() -> None:
    for name, cases in (
        ("open_vocabulary", open_vocabulary_cases()),
        ("narrative", narrative_cases()),
    ):
        assert (SUITE_DIR / f"{name}.jsonl").read_text("utf-8") == render(cases), (
            f"evals/suites/{name}.jsonl is stale: run python -m evals.open_suite"
        )


def test_each_fact_has_a_phrasing_without_its_label_words() -> None:
    facts = corpus_facts()
    written = paraphrases()
    for key, row in written.items():
        if row["skip"] or key not in facts:
            continue
        fact = facts[key]
        company = companies()[fact.company]
        names = {stem(w) for w in content_words(f"{company.name} {fact.company}")}
        label = {stem(w) for w in content_words(fact.label)} - {"total", "group"} - names
        query = {stem(w) for w in content_words(str(row["query"]))}
        assert not label & query, (row["query"], fact.label)


def test_the_suites_hold_two_phrasings_per_fact_and_forty_non_figure_questions() -> None:
    suites = load_suites(["open_vocabulary", "narrative"])
    tags = [t for c in suites["open_vocabulary"] for t in c.tags]
    assert tags.count("label-words") == tags.count("paraphrase") >= 250
    narrative = [c for c in suites["narrative"] if c.expected.model_dump()["status"] == "answered"]
    assert len(narrative) >= 40
    assert len({t for c in narrative for t in c.tags}) >= 8  # categories no issue names
    rows = [
        json.loads(line)
        for line in (SUITE_DIR.parent / "narrative_questions.jsonl").read_text("utf-8").splitlines()
    ]
    for row in rows:  # the words an answer must hold are not the question's own
        assert not any(w.lower() in row["query"].lower() for w in row["expect"]), row["id"]
