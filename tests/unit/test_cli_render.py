"""The CLI's rendering of a turn for people: answer, sources, warnings, meta line."""

from cli.chat import render
from domain.models import Derived, UnsupportedClaim
from domain.turns import Citation, TurnResult


def test_render_shows_citations_calculations_warnings_and_confidence() -> None:
    result = TurnResult(
        turn_id="turn-c1-1",
        conversation_id="c1",
        status="answered",
        question="q",
        answer="BHP's revenue for FY2024 was US$55,658 million [1].",
        citations=[
            Citation(
                n=1,
                company="BHP",
                fiscal_year=2024,
                page=4,
                document="BHP Annual Report 2024",
                preview="Revenue 55,658",
            )
        ],
        derived=[Derived(label="BHP revenue change FY2023–FY2024", formula="(a − b) / b")],
        warnings=["FY2021 is not covered: the reports cover FY2023–FY2025."],
        grounded="yes",
        confidence="high",
    )
    text = render(result)
    assert "[1] BHP FY2024, BHP Annual Report 2024, p.4" in text
    assert "! FY2021 is not covered" in text
    assert "confidence high" in text and "BHP revenue change" in text
    assert "— Answered; confidence high · turn-c1-1" in text


def test_render_names_each_claim_the_checks_could_not_back() -> None:
    result = TurnResult(
        turn_id="turn-c1-1",
        conversation_id="c1",
        status="answered",
        question="q",
        answer="BHP's revenue for FY2024 was US$55,658 million [1].\n"
        "RIO FY2024 revenue: a figure the draft gave could not be verified and was removed",
        unsupported_claims=[
            UnsupportedClaim(label="RIO FY2024 revenue", reason="calculation"),
            UnsupportedClaim(label="BHP outlook", reason="general_knowledge"),
        ],
        grounded="partial",
        confidence="medium",
    )
    text = render(result)
    assert "! could not verify: RIO FY2024 revenue (a calculation that does not recompute)" in text
    assert "! could not verify: BHP outlook (not in the cited pages)" in text
    # Medium comes with its reason.
    assert "confidence medium: 2 statements could not be verified against the cited pages" in text
    clean = render(result.model_copy(update={"unsupported_claims": []}))
    assert "could not verify:" not in clean  # quiet: nothing unbacked, nothing named


def test_render_shows_a_clarifying_question_with_how_to_reply() -> None:
    result = TurnResult(
        turn_id="turn-c1-2",
        conversation_id="c1",
        status="needs_clarification",
        question="q",
        clarifying_question="Which company do you mean?",
    )
    text = render(result)
    assert "Which company do you mean?" in text and "turnstile reply turn-c1-2" in text


def test_render_says_a_turn_that_answered_nothing_in_words_not_status_names() -> None:
    from domain.models import NotFound
    from domain.turns import Degradation

    result = TurnResult(
        turn_id="turn-c1-4",
        conversation_id="c1",
        status="answered",
        question="q",
        route="needs_retrieval",
        confidence="low",
        grounded="no",
        cache="hint",
        answer="NST FY2023 underlying EBITDA: data not found in provided documents",
        not_found=[NotFound(company="NST", fiscal_year=2023, metric="underlying EBITDA")],
        degraded=[Degradation(layer="llm_grade_answer", reason="judge_unavailable: timeout")],
    )
    meta = render(result).splitlines()[-1]
    assert meta.startswith("— Not in the reports; confidence low: The reports give none of")
    assert "one step failed and the answer went on without" in meta
    assert "a lead, checked again" in meta
    # Firing on the old words: no status name, step name or model talk.
    for internal in (
        "status answered",
        "llm_grade_answer",
        "degraded",
        "offered to the model",
        "grounded no",
    ):
        assert internal not in meta


def test_render_says_when_an_answer_was_reused_and_what_was_carried() -> None:
    from domain.turns import Carried

    result = TurnResult(
        turn_id="turn-c1-3",
        conversation_id="c1",
        status="answered",
        question="And FY2023?",
        answer="Shown as you asked earlier: figures in billions.\n\nBHP's revenue ...",
        grounded="yes",
        confidence="high",
        cache="hit",
        summarised=8,
        carried=Carried(company="BHP", fiscal_year=None, metric="revenue"),
    )
    text = render(result)
    assert "reused an earlier checked answer" in text
    assert "carried BHP revenue" in text and "summarised 8 older messages" in text
