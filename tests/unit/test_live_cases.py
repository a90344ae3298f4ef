"""Live evaluation's pure rules: drafting a case from a turn (figures in digits and in
words against the reports' facts), the drafted case's format and its refusal by the
suites, the shadow sample and the A/B verdicts, each slice's healthy rate from history,
and the shadow configuration's settings."""

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from domain.evaluation.live_cases import draft_case
from domain.evaluation.scoring import (
    CaseError,
    EvalCase,
    ExpectedCite,
    TurnExpected,
    healthy_rate,
    parse_cases,
    pass_threshold,
    score_turn,
)
from domain.evaluation.shadow import Outcome, ShadowPair, compare, sampled, shadow_report
from domain.models import Citation
from domain.reports.figures import Fact
from domain.turns import TurnResult
from evals.mock import run_mock
from settings import Settings, SettingsError, get_settings

QUESTION = "What was BHP's revenue in FY2024?"


def fact(
    year: int,
    value: float,
    raw: str,
    page: int,
    report: int | None = None,
    metric: str = "revenue",
    unit: str = "us$m",
) -> Fact:
    return Fact(
        chunk_id=f"c{page}",
        company="BHP",
        document=f"BHP Annual Report {report or year}",
        page=page,
        report_fiscal_year=report or year,
        fiscal_year=year,
        restated=False,
        label="Revenue",
        metric=metric,
        value=value,
        raw=raw,
        unit=unit,
        decimals=0,
    )


FACTS = [
    fact(2024, 55_658, "55,658", 4),
    fact(2024, 55_658, "US$55,658 million", 5),
    fact(2023, 53.82, "53.82", 3, unit="us$bn"),
    fact(2024, 9_120, "9,120", 4, metric="net_debt"),
]


def turn(answer: str, status: str = "answered", question: str = QUESTION) -> TurnResult:
    return TurnResult(
        turn_id="turn-c1-2",
        conversation_id="c1",
        status=status,  # type: ignore[arg-type]
        question=question,
        answer=answer,
        coverage={"BHP": True},
        citations=[
            Citation(
                n=1,
                company="BHP",
                fiscal_year=2024,
                page=4,
                document="d",
                preview="p",
                chunk_id="c4",
            )
        ],
    )


def expected_of(case: EvalCase) -> TurnExpected:
    assert isinstance(case.expected, TurnExpected)
    return case.expected


@pytest.mark.parametrize(
    ("shown", "wrong"),
    [
        ("US$55,685 million", "55,685"),  # an altered digit
        ("US$53.82 billion", "53.82"),  # another year's figure
        ("fifty-three point eight billion US dollars", "fifty-three point eight billion"),
    ],
)
def test_a_figure_the_reports_contradict_is_must_not_show_and_theirs_expected(
    shown: str, wrong: str
) -> None:
    case = draft_case(
        turn(f"BHP Group's revenue for FY2024 was {shown} [1]."),
        ["Hi"],
        FACTS,
        ["rated wrong figure"],
        wrong_figure=True,
    )
    expected = expected_of(case)
    assert expected.status == "answered" and expected.present == ["55,658"]
    assert expected.absent == [wrong]
    assert expected.cites == [ExpectedCite(company="BHP", fiscal_year=2024, pages=[4, 5])]
    assert case.before == ["Hi"] and not case.confirmed and case.origin is not None
    assert any("the reports give 55,658" in n for n in case.origin.notes)


@pytest.mark.parametrize(
    "shown",
    [
        "US$55,658 million",
        "about US$55.7 billion",
        "US$55.66bn",
        "fifty-five point seven billion US dollars",
    ],
)
def test_a_figure_the_reports_give_is_expected_and_nothing_is_must_not_show(shown: str) -> None:
    case = draft_case(
        turn(f"BHP's revenue for FY2024 was {shown} [1]."), [], FACTS, [], wrong_figure=True
    )
    assert expected_of(case).present == ["55,658"] and expected_of(case).absent == []


def test_a_turn_that_showed_no_figure_gets_the_reports_figures_for_what_it_asks() -> None:
    case = draft_case(
        turn("I could not find it.", "fallback", "What were BHP's revenue and net debt in FY2024?"),
        [],
        FACTS,
        ["probe single_figure/x: status fallback"],
        wrong_figure=False,
    )
    assert expected_of(case).status == "answered"
    assert expected_of(case).present == ["55,658", "9,120"] and case.tags == ["live", "probe"]


def test_what_the_draft_cannot_decide_is_left_to_the_reviewer() -> None:
    case = draft_case(
        turn(
            "Revenue grew strongly [1].", "answered", "How did BHP do on water recycling in FY2024?"
        ),
        [],
        FACTS,
        [],
        wrong_figure=True,
    )
    assert expected_of(case).present == [] and case.origin is not None
    assert any("no measure the vocabulary knows" in n for n in case.origin.notes)
    assert any("write the figures it must show" in n for n in case.origin.notes)


def test_a_drafted_case_round_trips_and_the_suites_refuse_it_until_confirmed() -> None:
    case = draft_case(
        turn("BHP's revenue for FY2024 was US$55,685 million [1]."),
        [],
        FACTS,
        ["rated wrong figure"],
        wrong_figure=True,
    )
    line = case.to_line()
    [again] = parse_cases(line, "evals/candidates/live.jsonl", "live")
    assert again.model_dump(exclude={"source"}) == case.model_dump(exclude={"source"})
    with pytest.raises(CaseError, match=r"calculation.jsonl:1: case 'live-turn-c1-2' is not"):
        parse_cases(line, "evals/suites/calculation.jsonl", "calculation")
    confirmed = json.dumps({**json.loads(line), "confirmed": True})
    assert parse_cases(confirmed, "evals/suites/calculation.jsonl", "calculation")[0].confirmed
    # Mock mode: a correct outcome passes and one missing each key fails, cites included.
    assert run_mock([again])[0].passed, run_mock([again])[0].problems


def test_a_source_to_cite_is_cited_only_on_one_of_its_pages() -> None:
    cite = ExpectedCite(company="BHP", fiscal_year=2024, pages=[4])
    expected = TurnExpected(status="answered", present=["55,658"], cites=[cite])
    right = turn("BHP's revenue for FY2024 was US$55,658 million [1].")
    assert score_turn(expected, right) == []
    elsewhere = right.model_copy(
        update={"citations": [right.citations[0].model_copy(update={"page": 9})]}
    )
    assert score_turn(expected, elsewhere) == ["no citation of the BHP FY2024 report p.4"]


def test_the_shadow_sample_is_decided_by_the_turn_id_alone() -> None:
    ids = [f"turn-c{i:05d}-1" for i in range(4000)]
    chosen = [t for t in ids if sampled(t, 0.1)]
    assert 300 < len(chosen) < 500
    assert chosen == [t for t in ids if sampled(t, 0.1)]  # the same every time
    assert not any(sampled(t, 0.0) for t in ids) and all(sampled(t, 1.0) for t in ids)
    assert set(chosen) <= {t for t in ids if sampled(t, 0.5)}  # a larger sample holds it


def outcome(status: str, confidence: str | None = None, unsupported: int = 0) -> Outcome:
    return Outcome(status=status, confidence=confidence, unsupported=unsupported)


@pytest.mark.parametrize(
    ("live", "shadow", "verdict"),
    [
        (outcome("answered", "high"), outcome("answered", "high"), "same"),
        (outcome("fallback"), outcome("answered", "medium", 1), "shadow better"),
        (outcome("answered", "high"), outcome("answered", "medium", 1), "shadow worse"),
        (outcome("answered", "medium", 1), outcome("answered", "medium", 2), "shadow worse"),
        (outcome("refused"), outcome("answered", "high"), "differs"),
    ],
)
def test_a_shadow_is_compared_with_its_live_turn(
    live: Outcome, shadow: Outcome, verdict: str
) -> None:
    assert compare(live, shadow) == verdict


def test_the_ab_report_counts_each_configuration() -> None:
    at = datetime(2026, 12, 1, tzinfo=UTC)
    pairs = [
        ShadowPair(
            turn_id=f"t{i}",
            question="q",
            live_config="offline",
            shadow_config="big",
            live=outcome("answered", "high"),
            shadow=shadow,
            recorded_at=at,
        )
        for i, shadow in enumerate([outcome("answered", "high"), outcome("fallback")])
    ]
    report = shadow_report(pairs)
    assert report.verdicts == {"same": 1, "shadow worse": 1}
    [live], [shadow] = report.live, report.shadow
    assert live.statuses == {"answered": 2} and live.high_confidence == 2
    assert shadow.statuses == {"answered": 1, "fallback": 1} and shadow.config == "big"


def test_a_slice_takes_its_healthy_rate_from_its_own_history() -> None:
    assert healthy_rate([], 0.95) == 0.95  # no history: the configured rate
    clean = healthy_rate([(31, 31)] * 20, 0.95)
    flaky = healthy_rate([(22, 19)] * 20, 0.95)
    assert clean > 0.99 > 0.9 > flaky > 0.85
    assert pass_threshold(31, clean) == 31 and pass_threshold(22, flaky) < pass_threshold(22, 0.95)


def test_a_shadow_engine_setting_is_checked_at_start_up(monkeypatch: pytest.MonkeyPatch) -> None:
    shadow = {
        "engine": "openai",
        "openai_base_url": "http://127.0.0.1:9/v1",
        "openai_api_key": "k",
        "model_synthesize": "large-1",
    }
    settings = Settings(
        shadow_sample=0.1, shadow_engine=json.dumps(shadow), home=Path("/nonexistent")
    )
    assert settings.shadow_settings().engine_label.startswith("openai: synthesize large-1")
    assert settings.engine_label == "offline" and settings.shadow_task_queue.endswith("-shadow")
    for bad, says in (
        ({"engine": "openai"}, "TURNSTILE_SHADOW_ENGINE: TURNSTILE_ENGINE=openai needs"),
        ({"task_queue": "x"}, "'task_queue' is not an engine setting"),
    ):
        monkeypatch.setenv("TURNSTILE_SHADOW_SAMPLE", "0.5")
        monkeypatch.setenv("TURNSTILE_SHADOW_ENGINE", json.dumps(bad))
        get_settings.cache_clear()
        with pytest.raises(SettingsError, match=says):
            get_settings()
    get_settings.cache_clear()


def test_drafted_cases_run_from_their_file_and_only_from_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from cli.main import main

    drafted = draft_case(
        turn("BHP's revenue for FY2024 was US$55,685 million [1]."),
        [],
        FACTS,
        ["rated wrong figure"],
        wrong_figure=True,
    )
    path = tmp_path / "live.jsonl"
    path.write_text(drafted.to_line() + "\n")
    assert main(["eval", "--mode", "mock", "--file", str(path), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [(c["suite"], c["id"], c["passed"]) for c in report["cases"]] == [
        ("live", "live-turn-c1-2", True)
    ]
    assert main(["eval", "--file", str(path), "--suite", "boundary"]) == 2
    assert capsys.readouterr().err.strip() == "turnstile: give --file or --suite, not both"
