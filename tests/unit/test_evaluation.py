"""Evaluation, pure parts: the case loader, the scorers, mock mode (the suites' own check,
run on every commit), the release gate's comparison, ranx metrics and the binomial probe
thresholds against exact values."""

import json
from fractions import Fraction
from pathlib import Path

import pytest

from domain.evaluation.scoring import (
    SLICES,
    SUITES,
    CaseError,
    RetrievalExpected,
    RoutingExpected,
    RoutingOutcome,
    SliceRun,
    TurnExpected,
    binomial_cdf_below,
    incident_category,
    incident_due,
    parse_cases,
    pass_threshold,
    score_retrieval,
    score_routing,
    score_turn,
    shows,
)
from domain.models import Citation, NotFound, SearchHitWithText
from domain.turns import TurnResult
from evals.cases import load_probes, load_suites
from evals.mock import run_mock
from evals.ranking import ranx_metrics
from evals.results import Baseline, CaseResult, SuiteRun, gate, merge_repeats

GOOD = {
    "id": "a",
    "query": "BHP revenue FY2024",
    "why_it_matters": "revenue lookup breaks",
    "expected": {"status": "answered", "present": ["55,658"]},
}


def line(**change: object) -> str:
    case = {**GOOD, **change}
    return json.dumps({k: v for k, v in case.items() if v is not None})


# ---- the loader -------------------------------------------------------------------------


@pytest.mark.parametrize("field", ["id", "query", "expected", "why_it_matters"])
def test_a_case_missing_a_field_is_refused_naming_the_file_and_line(field: str) -> None:
    text = line() + "\n\n" + line(**{"id": "b", field: None})

    with pytest.raises(CaseError, match=rf"^evals/suites/calculation.jsonl:3: missing {field}$"):
        parse_cases(text, "evals/suites/calculation.jsonl", "calculation")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", r"x.jsonl:1: not JSON"),
        ("[1, 2]", r"x.jsonl:1: a case is a JSON object"),
        (line(why_it_matters="two\nlines"), r"x.jsonl:1: why_it_matters must be one line"),
        (line(expected={"status": "maybe"}), r"x.jsonl:1: expected.status"),
        (line(expected={"status": "answered", "typo": 1}), r"x.jsonl:1: expected.typo"),
        (line() + "\n" + line(), r"x.jsonl:2: id 'a' already used on line 1"),
    ],
)
def test_a_malformed_case_is_named(text: str, message: str) -> None:
    with pytest.raises(CaseError, match=message):
        parse_cases(text, "x.jsonl", "calculation")


def test_a_routing_case_needs_the_routing_shape() -> None:
    with pytest.raises(CaseError, match=r"r.jsonl:1: expected.route"):
        parse_cases(line(), "r.jsonl", "routing")


def test_the_shipped_suites_load_with_enough_cases_each_saying_why() -> None:
    suites = load_suites()

    assert set(suites) == set(SUITES)
    assert sum(len(c) for c in suites.values()) >= 60
    assert all(len(cases) >= 10 for cases in suites.values())
    assert len(suites["retrieval"]) >= 150
    for cases in suites.values():
        assert all(c.why_it_matters.strip() for c in cases)


def test_the_retrieval_set_mixes_wordings() -> None:
    cases = load_suites(["retrieval"])["retrieval"]
    styles = [tag for c in cases for tag in c.tags]

    assert styles.count("synonym") + styles.count("informal") >= len(cases) / 2
    assert styles.count("typo") >= 10
    assert styles.count("multi") >= 10


def test_the_boundary_suite_covers_what_must_be_refused_asked_or_answered() -> None:
    boundary = load_suites(["boundary"])["boundary"]
    statuses = {c.expected.status for c in boundary if isinstance(c.expected, TurnExpected)}
    queries = " ".join(c.query.lower() for c in boundary)

    assert statuses >= {"answered", "refused", "needs_clarification"}
    for needle in ("should i", "ignore", "fy2021", "free cash flow", "net debt in fy2024"):
        assert needle in queries
    # "BHP revenue" without a year must be answered, not asked back.
    assert any(
        c.query.strip().lower() in ("bhp revenue", "bhp revenue?")
        and isinstance(c.expected, TurnExpected)
        and c.expected.status == "answered"
        for c in boundary
    )


def test_every_probe_slice_has_at_least_fifteen_cases() -> None:
    probes = load_probes()

    assert list(probes) == list(SLICES)
    assert all(len(cases) >= 15 for cases in probes.values())
    assert all(c.before for c in probes["follow_up"])


# ---- mock mode and the scorers ------------------------------------------------------


def test_mock_mode_passes_every_shipped_case() -> None:
    cases = [c for cases in load_suites().values() for c in cases]
    cases += [c for cases in load_probes().values() for c in cases]

    failing = [f"{r.suite}/{r.id}: {r.problems}" for r in run_mock(cases) if not r.passed]

    assert failing == []


def test_mock_mode_catches_a_case_that_contradicts_itself() -> None:
    case = parse_cases(
        line(expected={"status": "answered", "present": ["55,658"], "absent": ["55,658"]}),
        "x",
        "calculation",
    )[0]

    [result] = run_mock([case])

    assert not result.passed
    assert "a correct outcome fails" in result.problems[0]


def turn(**fields: object) -> TurnResult:
    base: dict[str, object] = {
        "turn_id": "t",
        "conversation_id": "c",
        "status": "answered",
        "question": "q",
        "answer": "BHP's revenue was US$55,658 million [1].",
    }
    return TurnResult.model_validate({**base, **fields})


CITE = Citation(
    chunk_id="x", company="BHP", fiscal_year=2024, page=4, document="d", preview="p", n=1
)


def test_the_turn_scorer_passes_a_good_answer_and_names_each_fault() -> None:
    expected = TurnExpected(
        status="answered", present=["55,658"], absent=["53,817"], grounded="yes", min_citations=1
    )

    assert score_turn(expected, turn(citations=[CITE], grounded="yes")) == []
    problems = score_turn(expected, turn(answer="It was 53,817 [1].", grounded="partial"))
    assert problems == [
        "missing '55,658'",
        "unexpected '53,817'",
        "grounded partial, expected yes",
        "0 citation(s), expected ≥ 1",
        "a figure is given without a citation",
    ]


@pytest.mark.parametrize(
    ("answer", "wanted", "shown"),
    [
        ("US$1,928 million [1].", "1,928", True),
        ("US$1.928 billion [1].", "1,928", True),  # the same amount, a thousand coarser
        ("US$9,120 million [1].", "9.12", True),  # and finer
        ("US$1.928 million [1].", "1,928", False),  # a thousand times smaller is not it
        ("US$1.93 billion [1].", "1,928", False),  # rounded is not the printed figure
        ("US$19.28 billion [1].", "1,928", False),
        ("It rose 1.928 billion tonnes", "Yes:", False),  # words are matched as written
    ],
)
def test_a_figure_is_shown_at_its_own_scale_or_exactly_at_another(
    answer: str, wanted: str, shown: bool
) -> None:
    assert shows(answer, wanted) is shown


def test_the_turn_scorer_checks_not_found_lines_tables_and_refusals() -> None:
    expected = TurnExpected(status="answered", not_found=["BHP FY2024 free cash flow"], table=True)
    gap = NotFound(company="BHP", fiscal_year=2024, metric="free cash flow")

    good = turn(answer=f"| a | b |\n|---|---|\n| 1 | 2 |\n{gap.line()}", not_found=[gap])
    assert score_turn(expected, good) == []
    assert len(score_turn(expected, turn())) == 3
    refused = TurnExpected(status="refused", refusal_reason="investment_advice")
    assert score_turn(refused, turn(status="refused", refusal_reason="forecast")) == [
        "refusal reason forecast, expected investment_advice"
    ]


def test_the_routing_scorer() -> None:
    expected = RoutingExpected(route="needs_retrieval", companies=["BHP", "RIO"], declines=True)
    outcome = RoutingOutcome(
        route="needs_retrieval",
        by="classifier",
        reason="r",
        companies=["RIO", "BHP"],
        declines=True,
    )

    assert score_routing(expected, outcome) == []
    wrong = outcome.model_copy(update={"route": "out_of_scope", "companies": ["BHP"]})
    assert len(score_routing(expected, wrong)) == 2


def hit(rank: int, company: str, year: int, text: str) -> SearchHitWithText:
    return SearchHitWithText(
        chunk_id=str(rank),
        company=company,
        fiscal_year=year,
        page=1,
        document="d",
        section="s",
        rank=rank,
        score=1.0,
        text=text,
    )


def test_the_retrieval_scorer_wants_the_right_company_year_and_figure_within_the_cutoff() -> None:
    expected = RetrievalExpected(company="BHP", fiscal_year=2024, figures=["55,658"])

    assert score_retrieval(expected, [hit(1, "BHP", 2024, "| Revenue | 55,658 |")], 5) == []
    other_year = [hit(1, "BHP", 2025, "| Revenue | 55,658 |")]
    assert score_retrieval(expected, other_year, 5)
    late = [hit(r, "BHP", 2024, "nothing") for r in range(1, 6)]
    late.append(hit(6, "BHP", 2024, "55,658"))
    assert score_retrieval(expected, late, 5) == ["first hit at rank 6, beyond 5"]


# ---- metrics, the gate, repeats -------------------------------------------------------


def test_ranx_metrics_match_a_hand_count() -> None:
    ranks = {"a": 1, "b": 2, "c": None, "d": 7}

    metrics = ranx_metrics(ranks, 5)

    assert metrics == {"hit@5": 0.5, "mrr@5": round((1 + 0.5) / 4, 4), "mean_rank": 3.333}


def result(suite: str, id_: str, passed: bool) -> CaseResult:
    return CaseResult(
        suite=suite, id=id_, passed=passed, passes=int(passed), problems=[] if passed else ["wrong"]
    )


def test_the_gate_fails_on_a_regression_a_stale_entry_and_a_lower_metric() -> None:
    run = SuiteRun(
        mode="real",
        engine="offline",
        metrics={"retrieval.hit@5": 0.97},
        cases=[
            result("retrieval", "a", False),
            result("boundary", "b", True),
            result("boundary", "c", False),
        ],
    )
    baseline = Baseline(
        known_failures={"boundary/b": "known", "boundary/c": "known"},
        metrics={"retrieval.hit@5": 0.98},
    )

    assert gate(run, baseline) == [
        "regressed: retrieval/a: wrong",
        "now passes (remove it from the baseline): boundary/b",
        "regressed: retrieval.hit@5 0.9700 < baseline 0.9800",
    ]
    fixed = Baseline(
        known_failures={"retrieval/a": "known", "boundary/c": "known"},
        metrics={"retrieval.hit@5": 0.97},
    )
    assert gate(run, fixed) == []


def test_the_committed_baseline_names_only_existing_cases_with_a_reason() -> None:
    baseline = Baseline.read(Path("evals/baseline.json"))
    ids = {f"{s}/{c.id}" for s, cases in load_suites().items() for c in cases}

    assert set(baseline.known_failures) <= ids
    assert all(len(reason) > 20 for reason in baseline.known_failures.values())
    assert baseline.metrics["retrieval.hit@5"] >= 0.98
    assert baseline.metrics["retrieval.mrr@5"] >= 0.90


def test_repeats_report_k_of_n_per_case() -> None:
    runs = [
        [result("routing", "a", True), result("routing", "b", True)],
        [result("routing", "a", False), result("routing", "b", True)],
        [result("routing", "a", True), result("routing", "b", True)],
    ]

    merged = merge_repeats(runs)

    assert [(c.id, c.passes, c.runs, c.flaky, c.passed) for c in merged] == [
        ("a", 2, 3, True, False),
        ("b", 3, 3, False, True),
    ]


# ---- probe thresholds: exact binomial values ----------------------------------------


def test_the_binomial_tail_is_exact() -> None:
    # P(X < 2) for X ~ Binomial(3, 1/2) = (1 + 3) / 8
    assert binomial_cdf_below(2, 3, Fraction(1, 2)) == Fraction(1, 2)
    # P(X < 14) for Binomial(16, 0.95): 1 − P(14) − P(15) − P(16)
    p = Fraction(95, 100)
    tail = 1 - sum(
        Fraction(c) * p**k * (1 - p) ** (16 - k) for k, c in ((14, 120), (15, 16), (16, 1))
    )
    assert binomial_cdf_below(14, 16, p) == tail
    assert float(tail) == pytest.approx(0.042938, abs=1e-6)


@pytest.mark.parametrize(
    ("n", "rate", "threshold"),
    [
        (16, 0.95, 14),  # P(X<14)=0.0429 ≤ 0.05 < P(X<15)=0.1892
        (20, 0.95, 17),  # P(X<17)=0.0159 ≤ 0.05 < P(X<18)=0.0755
        (15, 0.90, 11),  # P(X<11)=0.0127 ≤ 0.05 < P(X<12)=0.0556
        (15, 1.0, 15),  # a probe that never fails when healthy: any failure alarms
        (16, 0.5, 5),  # P(X<5)=0.0384 ≤ 0.05 < P(X<6)=0.1051
    ],
)
def test_thresholds_keep_false_alarms_at_or_below_five_percent(
    n: int, rate: float, threshold: int
) -> None:
    p = Fraction(str(rate))

    assert pass_threshold(n, rate) == threshold
    assert binomial_cdf_below(threshold, n, p) <= Fraction(5, 100)
    if threshold < n:
        assert binomial_cdf_below(threshold + 1, n, p) > Fraction(5, 100)


def test_an_incident_only_after_two_consecutive_breaches() -> None:
    assert incident_due(True, [True])
    assert incident_due(True, [True, False])
    assert not incident_due(True, [True, True])  # the streak already has its incident
    assert not incident_due(True, [False, True])
    assert not incident_due(True, [])
    assert not incident_due(False, [True, True])
    run = SliceRun(slice="s", cases=16, passed=13, threshold=14)
    assert run.breached
    assert not run.model_copy(update={"passed": 14}).breached


def test_the_incident_category_follows_the_failures() -> None:
    assert incident_category(["status answered, expected refused"]) == "scope_breach"
    assert incident_category(["status refused, expected answered"]) == "wrongful_refusal"
    assert incident_category(["missing '55,658'"]) == "unsupported_claim_shown"


# ---- the command line -------------------------------------------------------------------


def test_eval_in_mock_mode_needs_no_stack_and_prints_json(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from cli.main import main

    assert main(["eval", "--mode", "mock", "--suite", "routing", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["mode"] == "mock" and report["cases"]
    assert all(c["passed"] for c in report["cases"])


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["eval", "--suite", "nope"], "unknown suite 'nope'"),
        (["eval", "--case", "no-such-case"], "no case 'no-such-case'"),
        (["eval", "--repeat", "0"], "must be at least 1, not 0"),
        (["eval", "retrieval-ab", "--a", "nope", "--b", "today"], "no retrieval configuration"),
    ],
)
def test_bad_eval_input_is_one_line_and_exit_2(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from cli.main import main

    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_mock_mode_repeats_report_k_of_n(capsys: pytest.CaptureFixture[str]) -> None:
    from cli.main import main

    assert main(["eval", "--suite", "boundary", "--limit", "2", "--repeat", "3"]) == 0
    out = capsys.readouterr().out
    assert "(3 of 3)" in out and "flaky: 0 case(s)" in out


def test_mock_mode_fails_a_scorer_that_checks_only_the_status(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import evals.mock

    def status_only(expected: TurnExpected, result: TurnResult) -> list[str]:
        ok = result.status == expected.status
        return [] if ok else [f"status {result.status}, expected {expected.status}"]

    monkeypatch.setattr(evals.mock, "score_turn", status_only)
    cases = [c for c in load_suites(["calculation"])["calculation"]]

    results = run_mock(cases)

    assert not any(r.passed for r in results)
    assert any("an outcome wrong in present" in p for p in results[0].problems)


def test_mock_mode_fails_a_routing_scorer_that_checks_only_the_route(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import evals.mock

    def route_only(expected: RoutingExpected, outcome: RoutingOutcome) -> list[str]:
        ok = outcome.route == expected.route
        return [] if ok else [f"route {outcome.route}, expected {expected.route}"]

    monkeypatch.setattr(evals.mock, "score_routing", route_only)
    cases = [
        c
        for c in load_suites(["routing"])["routing"]
        if isinstance(c.expected, RoutingExpected) and c.expected.companies
    ]

    assert cases and not any(r.passed for r in run_mock(cases))


def test_an_empty_expectation_is_refused() -> None:
    with pytest.raises(CaseError, match=r"x:1: expected.present.0"):
        parse_cases(line(expected={"status": "answered", "present": [""]}), "x", "calculation")


def test_a_figure_is_held_only_as_a_whole_number() -> None:
    from domain.evaluation.scoring import holds

    assert holds("| Revenue | 55,658 |", "55,658")
    assert holds("a loss of (173).", "(173)")
    assert not holds("155,658", "55,658")
    assert not holds("55,6581", "55,658")
    assert not holds("1.975", "1.97")


def test_a_table_with_aligned_columns_is_a_table() -> None:
    expected = TurnExpected(status="answered", table=True)

    assert score_turn(expected, turn(answer="| a | b |\n| :--- | ---: |\n| 1 | 2 |")) == []
    assert score_turn(expected, turn(answer="a | b")) == ["no table"]


def test_a_narrowed_run_is_judged_case_by_case_only() -> None:
    cases = [result("boundary", "c", False), result("retrieval", "r", True)]
    run = SuiteRun(mode="real", engine="offline", metrics={"retrieval.hit@5": 0.5}, cases=cases)
    baseline = Baseline(
        known_failures={"boundary/c": "known", "boundary/gone": "known"},
        metrics={"retrieval.hit@5": 0.98},
    )

    assert gate(run, baseline, complete=False) == []
    assert len(gate(run, baseline)) == 2  # complete: boundary/gone, and hit@5 below its floor


def test_a_calibration_without_a_wrong_pair_never_meets_its_target() -> None:
    from evals.judge import Verdict, render, scores

    right = [Verdict(id="a", expected="supported", error=None, got="supported")]
    result = scores("numeric check", right)

    assert result.recall is None and not result.meets_target
    assert "not measured" in render(result)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["eval", "--engine", "openai"], "--engine needs --mode real"),
        (["eval", "--baseline"], "--baseline needs --mode real"),
        (
            ["eval", "--mode", "real", "--suite", "routing", "--write-baseline", "/tmp/b.json"],
            "--write-baseline writes the whole baseline",
        ),
        (["eval", "--case", "oos-joke", "--limit", "2"], "give --case or --limit, not both"),
        (["eval", "--limit", "0"], "must be at least 1"),
        (["eval", "probes", "--slice", "nope"], "unknown slice 'nope'"),
    ],
)
def test_options_that_cannot_apply_are_refused_in_one_line(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from cli.main import main

    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_a_flag_before_the_subcommand_is_kept() -> None:
    from cli.main import build_parser

    args = build_parser().parse_args(["eval", "--json", "--limit", "3", "judge"])

    assert args.json is True and args.limit == 3


def test_an_unreachable_stack_is_exit_3_in_one_line() -> None:
    """Through the console script's own exit path, as a person runs it."""
    import os
    import subprocess
    import sys

    env = {**os.environ, "TURNSTILE_API_URL": "http://127.0.0.1:1", "TURNSTILE_TEMPORAL_PORT": "1"}
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from cli.main import entry; entry()",
            "eval",
            "--mode",
            "real",
            "--limit",
            "1",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )

    assert done.returncode == 3, done.stderr
    assert (
        done.stderr.startswith("turnstile: cannot reach the stack") and done.stderr.count("\n") == 1
    )


def test_mock_mode_fails_a_scorer_that_ignores_the_citation_count(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import evals.mock

    def no_count(expected: TurnExpected, result: TurnResult) -> list[str]:
        return score_turn(expected.model_copy(update={"min_citations": None}), result)

    monkeypatch.setattr(evals.mock, "score_turn", no_count)
    cases = [
        c
        for cases in load_suites().values()
        for c in cases
        if isinstance(c.expected, TurnExpected) and c.expected.min_citations
    ]

    assert cases and not any(r.passed for r in run_mock(cases))
