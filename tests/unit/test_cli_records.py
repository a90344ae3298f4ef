"""`turnstile audit show`, `feedback` and `conversations` for people: the parts a reviewer
reads, in order, from whatever a record holds (records written before a field existed
lack it)."""

from cli.records import render_conversations, render_feedback, render_record

SHOWN = {
    "seq": 7,
    "turn_id": "turn-c1-2",
    "conversation_id": "c1",
    "recorded_at": "2026-12-03T18:00:01.5+00:00",
    "prev_hash": "a" * 64,
    "hash": "b" * 64,
    "record": {
        "status": "answered",
        "route": "needs_retrieval",
        "confidence": "high",
        "resolved_question": "What was BHP's revenue in FY2024?",
        "check_results": [
            {"check": "retrieval", "result": "kept 3 of 8"},
            {"check": "numeric_grounding", "result": "2 of 2 figures backed"},
        ],
        "checks": {"not_found": ["RIO FY2024 revenue"], "unsupported_claims": [], "warnings": []},
        "citations": [
            {
                "n": 1,
                "chunk_id": "x1",
                "company": "BHP",
                "fiscal_year": 2024,
                "document": "BHP Annual Report 2024",
                "page": 4,
            }
        ],
        "corpus_version": "e70b6e8a82ff",
        "seconds": 0.41,
    },
    "feedback": [
        {
            "rating": "wrong_figure",
            "user_id": "hank",
            "comment": "FY2023's figure",
            "created_at": "2026-12-03T18:05:00+00:00",
        }
    ],
}


def test_a_record_reads_decisions_checks_citations_feedback_then_the_chain() -> None:
    lines = render_record(SHOWN).splitlines()

    assert (
        lines[0] == "Decision record #7 of turn turn-c1-2 (conversation c1), 2026-12-03 18:00 UTC"
    )
    assert lines[1] == "status answered · route needs retrieval · confidence high"
    assert "  retrieval          kept 3 of 8" in lines
    assert "  not found: RIO FY2024 revenue" in lines
    assert "  [1] BHP FY2024, BHP Annual Report 2024, p.4 (chunk x1)" in lines
    at = lines.index("feedback:")
    assert lines[at + 1] == '  2026-12-03 18:05 UTC wrong figure by hank: "FY2023\'s figure"'
    assert lines[-1] == f"chain: {'a' * 12} → {'b' * 12}"


def test_a_record_shows_the_texts_shown_and_names_a_changed_cited_passage() -> None:
    record = {
        **SHOWN["record"],
        "citations": [
            {
                "n": 1,
                "chunk_id": "x1",
                "company": "BHP",
                "fiscal_year": 2024,
                "document": "BHP Annual Report 2024",
                "page": 4,
            },
            {
                "n": 2,
                "chunk_id": "x2",
                "company": "BHP",
                "fiscal_year": 2024,
                "document": "BHP Annual Report 2024",
                "page": 9,
            },
        ],
        "shown": [
            {
                "kind": "clarifying_question",
                "round": 1,
                "text": "Which company?",
                "sha256": "c" * 64,
            },
            {
                "kind": "answer",
                "text": "Revenue was US$55,658 million [1].\n\nSee [2].",
                "sha256": "d" * 64,
            },
        ],
        "evidence": [
            {
                "chunk_id": "x1",
                "cited_as": [1],
                "kept": True,
                "version": {
                    "chunk_id": "x1",
                    "corpus": "k",
                    "document_id": "BHP-FY2024",
                    "document_version": "94c1e7a0",
                    "page": 4,
                    "position": 3,
                    "text_sha256": "e" * 64,
                },
            }
        ],
    }
    passages = [
        {
            "n": 1,
            "chunk_id": "x1",
            "status": "changed",
            "now": ["y1"],
            "detail": "BHP-FY2024 was re-ingested (94c1e7a0 → 5b6c7d8e); page 4 holds other text now",  # noqa: E501
        },
        {"n": 2, "chunk_id": "x2", "status": "unchanged", "detail": "same text", "now": []},
    ]
    lines = render_record({**SHOWN, "record": record, "passages": passages}).splitlines()

    at = lines.index(f"shown (clarifying question, round 1, sha256 {'c' * 12}):")
    assert lines[at + 1] == "  Which company?"
    assert lines[at + 2] == f"shown (answer, sha256 {'d' * 12}):"
    assert lines[at + 3 : at + 6] == ["  Revenue was US$55,658 million [1].", "  ", "  See [2]."]
    assert "cited (and whether the index holds the same text today):" in lines
    assert (
        "  [1] BHP FY2024, BHP Annual Report 2024, p.4 (chunk x1): CHANGED (BHP-FY2024 was"
        " re-ingested (94c1e7a0 → 5b6c7d8e); page 4 holds other text now)" in lines
    )
    assert "  [2] BHP FY2024, BHP Annual Report 2024, p.9 (chunk x2): unchanged" in lines
    assert "  today: 1 changed, 1 unchanged" in lines
    assert "evidence from: BHP-FY2024 (version 94c1e7a0)" in lines


def test_a_record_missing_later_fields_still_reads() -> None:
    text = render_record({"seq": 1, "turn_id": "t", "record": {"status": "refused"}})

    assert "status refused · route - · confidence -" in text
    assert "feedback:" not in text and "cited:" not in text


def test_feedback_and_conversations_say_when_there_are_none() -> None:
    assert render_feedback([]) == "no feedback yet"
    assert render_conversations([]) == "no conversations yet"
    listed = render_conversations(
        [
            {
                "conversation_id": "c9",
                "turns": 1,
                "last_status": "needs_clarification",
                "last_question": "Revenue?",
                "updated_at": "2026-12-03T18:00:00+00:00",
            }
        ]
    )
    assert listed.splitlines() == [
        "c9  2026-12-03 18:00 UTC  1 turn  needs clarification: Revenue?",
        "(continue one with: turnstile chat --conversation ID)",
    ]
