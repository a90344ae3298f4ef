"""The pure memory rules: the cache's slot guard, preferences, the summary's merge, and the
context budget."""

import pytest

from domain.memory.rules import (
    CLAIM_LABEL,
    SUMMARY_CHARS,
    Context,
    Excerpt,
    MemoryNote,
    RecentMessage,
    apply_preferences,
    assemble_context,
    cache_decision,
    cache_slots,
    cacheable,
    conversation_note,
    ends_first,
    fact_key,
    merge_summary,
    needs_summary,
    read_preference,
    strongest_first,
    without_markers_to,
)

# ---- the slot guard -------------------------------------------------------------------

SAME = [
    (
        "What was Fortescue's underlying EBITDA in FY2024?",
        "How much underlying EBITDA did Fortescue make in FY2024?",
    ),
    ("What was BHP's revenue in FY2024?", "BHP revenue for fiscal 2024"),
    (
        "Which company had the highest revenue in FY2024?",
        "Which miner had the largest revenue in FY2024?",
    ),
]
DIFFERENT = [
    (
        "What was Fortescue's underlying EBITDA in FY2024?",
        "What was Fortescue's underlying EBITDA in FY2023?",
        "fiscal_years",
    ),
    (
        "What was Fortescue's underlying EBITDA in FY2024?",
        "What was BHP's underlying EBITDA in FY2024?",
        "companies",
    ),
    ("What was BHP's revenue in FY2024?", "What was BHP's underlying EBITDA in FY2024?", "metrics"),
    (
        "What was BHP's final dividend in FY2024?",
        "What was BHP's interim dividend in FY2024?",
        "metrics",
    ),
    (
        "Which company had the highest revenue in FY2024?",
        "Which company had the lowest revenue in FY2024?",
        "polarity",
    ),
    ("Did BHP's revenue rise in FY2024?", "Did BHP's revenue fall in FY2024?", "polarity"),
    (
        "What was BHP's copper production in FY2024?",
        "What was BHP's iron ore production in FY2024?",
        "commodities",
    ),
    (
        "Which miners had revenue above US$10 billion in FY2024?",
        "Which miners had revenue above US$20 billion in FY2024?",
        "numbers",
    ),
    ("What was BHP's revenue in FY2024?", "What was BHP's revenue in FY2024 in billions?", "scale"),
    (
        "What was BHP's profit before tax in FY2024?",
        "What was BHP's profit after tax in FY2024?",
        "residual",
    ),
    (
        "What was BHP's revenue in FY2024?",
        "What was BHP's revenue in FY2024 as restated?",
        "residual",
    ),
    (
        "Was Rio Tinto's revenue above BHP's in FY2024?",
        "Was BHP's revenue above Rio Tinto's in FY2024?",
        "order",
    ),
    (
        "Which company had the highest revenue in FY2024?",
        "Which company had the second highest revenue in FY2024?",
        "residual",
    ),
    (
        "What was BHP's revenue in the first half of FY2024?",
        "What was BHP's revenue in the second half of FY2024?",
        "residual",
    ),
    (
        "By what percentage did BHP's revenue change in FY2024?",
        "By how much did BHP's revenue change in FY2024?",
        "residual",
    ),
    (
        "What was BHP's net profit per share in FY2024?",
        "What was BHP's net profit in FY2024?",
        "residual",
    ),
    ("Did BHP's revenue surge in FY2024?", "Did BHP's revenue plunge in FY2024?", "residual"),
    (
        "What was BHP's revenue in FY2024 in A$bn?",
        "What was BHP's revenue in FY2024 in US$bn?",
        "money",
    ),
    ("What was BHP's profit in FY2024?", "What was BHP's operating profit in FY2024?", "residual"),
    (
        "What was BHP's revenue from continuing operations in FY2024?",
        "What was BHP's revenue from discontinued operations in FY2024?",
        "residual",
    ),
]


@pytest.mark.parametrize(("a", "b"), SAME)
def test_paraphrases_have_equal_slots(a: str, b: str) -> None:
    assert cache_slots(a) == cache_slots(b)
    assert cacheable(cache_slots(a))


@pytest.mark.parametrize(("a", "b", "slot"), DIFFERENT)
def test_near_misses_differ_in_the_slot_that_makes_them_different(
    a: str, b: str, slot: str
) -> None:
    first, second = cache_slots(a).model_dump(), cache_slots(b).model_dump()
    assert first[slot] != second[slot], (first, second)


def test_narrative_and_vague_questions_are_not_cacheable() -> None:
    assert not cacheable(cache_slots("What did BHP's chair say about safety in FY2024?"))
    assert not cacheable(cache_slots("Tell me about BHP"))
    assert not cacheable(cache_slots("What was the revenue?"))


def test_similarity_decides_hit_hint_or_miss_at_the_thresholds() -> None:
    assert cache_decision(0.95, 0.95, 0.80) == "hit"
    assert cache_decision(0.9499, 0.95, 0.80) == "hint"
    assert cache_decision(0.80, 0.95, 0.80) == "hint"
    assert cache_decision(0.7999, 0.95, 0.80) == "miss"


# ---- preferences ----------------------------------------------------------------------


def test_preference_statements_are_read_and_questions_are_not() -> None:
    scale = read_preference("Show me figures in billions from now on")
    assert (
        scale
        and scale.preference
        and (scale.preference.kind, scale.preference.value)
        == (
            "scale",
            "bn",
        )
    )
    miners = read_preference("I only follow iron-ore miners")
    assert miners and miners.preference and miners.preference.value == "BHP,RIO,FMG"
    currency = read_preference("Always give me figures in A$")
    assert currency and currency.preference and currency.preference.value == "A$"
    assert read_preference("What was BHP's revenue in FY2024 in billions?") is None
    assert read_preference("What was BHP's revenue in FY2024?") is None


@pytest.mark.parametrize(
    "text",
    [
        "Remember that my favourite colour is blue",
        "Forget that I follow BHP",
        "I prefer not to see BHP",
        "Remember: I never want Rio Tinto",
        "I'd like to exclude Rio Tinto",
        "Remember I care about net debt",
    ],
)
def test_a_request_that_cannot_be_acted_on_is_answered_plainly(text: str) -> None:
    plain = read_preference(text)
    assert plain is not None and plain.preference is None, plain
    assert "have not stored" in plain.reply and "millions or billions" in plain.reply


@pytest.mark.parametrize(
    "text",
    [
        "Do you remember what I asked about BHP?",
        "Going forward, what is Rio's copper strategy?",
        "Who is the chair of BHP? I'd like to know.",
        "I'd like BHP's revenue for FY2024 in billions",
    ],
)
def test_questions_are_never_read_as_statements(text: str) -> None:
    assert read_preference(text) is None


def test_preferences_fill_only_what_the_question_leaves_open() -> None:
    prefs = [
        p.preference
        for p in (
            read_preference("Show me figures in billions from now on"),
            read_preference("I only follow iron-ore miners"),
        )
        if p and p.preference
    ]
    resolved, applied = apply_preferences("Which company had the highest revenue in FY2024?", prefs)
    assert "in billions" in resolved and "BHP Group, Rio Tinto, Fortescue" in resolved
    assert cache_slots(resolved).companies == ["BHP", "FMG", "RIO"]
    assert applied == [
        "figures in billions",
        "only the companies you follow (BHP Group, Rio Tinto, Fortescue)",
    ]
    own, applied_own = apply_preferences("What was South32's revenue in FY2024 in millions?", prefs)
    assert own == "What was South32's revenue in FY2024 in millions?" and applied_own == []


def test_a_newer_preference_of_a_kind_wins() -> None:
    old = read_preference("Show me figures in billions from now on")
    new = read_preference("I prefer figures in millions")
    assert old and new and old.preference and new.preference
    resolved, _ = apply_preferences("BHP revenue FY2024", [old.preference, new.preference])
    assert resolved.endswith("[your preference: in millions]")


# ---- the summary buffer and the context budget ----------------------------------------


def test_a_summary_is_due_past_ten_messages() -> None:
    assert not needs_summary(10) and needs_summary(11)


BHP_REVENUE = "BHP Group's revenue for FY2024 was US$55,658 million."


def test_the_same_fact_again_is_one_line_and_its_newest_value_wins() -> None:
    rio = "Rio Tinto's net debt in FY2024 was US$5,491 million."
    base = merge_summary(None, f"{BHP_REVENUE}\n{rio}")
    merged = merge_summary(base, "BHP's revenue in FY2024 was US$55,700 million, as restated.")
    assert merged.splitlines() == [
        rio,
        "BHP's revenue in FY2024 was US$55,700 million, as restated.",  # last: just mentioned
    ]


def test_a_mention_without_a_figure_keeps_the_figure_and_counts_as_recent() -> None:
    s32 = "South32's revenue in FY2025 was US$5,646 million."
    base = merge_summary(None, f"{BHP_REVENUE}\n{s32}")
    merged = merge_summary(base, "user: What was BHP's revenue in FY2024 again?")
    assert merged.splitlines() == [s32, BHP_REVENUE]


@pytest.mark.parametrize(
    ("one", "other"),
    [
        (
            "Rio Tinto's copper revenue in FY2024 was US$5 billion.",
            "Rio Tinto's iron ore revenue in FY2024 was US$30 billion.",
        ),
        ("BHP's revenue in FY2023 was US$53,817 million.", BHP_REVENUE),
        ("Rio Tinto's revenue in FY2024 was US$53,658 million.", BHP_REVENUE),
        ("BHP's net debt in FY2024 was US$9,120 million.", BHP_REVENUE),
        ("user: I prefer figures in billions.", "user: I only follow iron-ore miners."),
    ],
)
def test_different_facts_keep_a_line_each(one: str, other: str) -> None:
    assert fact_key(one) != fact_key(other)
    assert merge_summary(merge_summary(None, one), other).splitlines() == [one, other]


def test_a_first_round_fact_outlives_rounds_that_go_over_other_facts_again() -> None:
    summary = merge_summary(None, f"user: What was BHP's revenue in FY2024?\n{BHP_REVENUE}")
    for round_ in range(20):
        increment = "\n".join(
            f"{company}'s {measure} for FY2024 was US${1000 + round_:,} million, the figure"
            " the report sets out, with the movements against the prior year explained."
            for company in ("Rio Tinto", "Fortescue", "South32")
            for measure in ("revenue", "net debt")
        )
        summary = merge_summary(summary, increment)
        assert len(summary) <= SUMMARY_CHARS
    assert BHP_REVENUE in summary.splitlines()
    assert "US$1,019 million" in summary and "US$1,018 million" not in summary


def test_over_the_budget_the_least_recently_mentioned_fact_goes_first() -> None:
    facts = [
        f"{company}'s {measure} in FY{year} was US${n:,} million."
        for n, (company, measure, year) in enumerate(
            (c, m, y)
            for c in ("BHP", "Rio Tinto", "Fortescue", "South32", "Northern Star")
            for m in ("revenue", "net debt", "underlying EBITDA", "capital expenditure")
            for y in (2023, 2024, 2025)
        )
    ]
    summary = merge_summary(None, "\n".join(facts[:2]))
    summary = merge_summary(summary, "\n".join(facts[2:]))
    assert facts[0] not in summary.splitlines()  # over the budget: the oldest unmentioned
    summary = merge_summary(merge_summary(None, "\n".join(facts[:2])), "\n".join(facts[2:20]))
    assert facts[0] in summary.splitlines()  # within the budget nothing is dropped
    summary = merge_summary(summary, "user: What was BHP's revenue in FY2023?")  # facts[0]
    summary = merge_summary(summary, "\n".join(facts[20:32]))
    lines = summary.splitlines()
    assert len(summary) <= SUMMARY_CHARS
    assert facts[31] in lines and facts[1] not in lines  # never mentioned again: gone
    assert facts[0] in lines  # the oldest, but mentioned again: kept over later ones
    assert facts[5] not in lines  # newer than facts[0], less recently mentioned


def test_a_summary_stored_as_a_paragraph_merges_sentence_by_sentence() -> None:
    paragraph = f"{BHP_REVENUE} user: I prefer figures in billions."
    merged = merge_summary(paragraph, "BHP's revenue in FY2024 was US$55.7 billion.")
    assert merged.splitlines() == [
        "user: I prefer figures in billions.",
        "BHP's revenue in FY2024 was US$55.7 billion.",
    ]


SUMMARY = MemoryNote(kind="summary", text="S" * 100)
PREFERENCE = MemoryNote(kind="preference", text="P" * 100)
HINT = MemoryNote(kind="cached_answer", text="H" * 100)
CONVERSATION = MemoryNote(kind="conversation", text="\nuser: C\nassistant: C")


def excerpt(n: int, text: str, company: str = "BHP", rank: int = 0, score: float = 0.0) -> Excerpt:
    return Excerpt(n=n, text=text, company=company, rank=rank, score=score)


def texts(context: Context) -> list[str]:
    return [e.text for e in context.evidence]


def test_context_order_is_question_evidence_conversation_summary_then_hints() -> None:
    evidence = [excerpt(1, "e1"), excerpt(2, "e2")]
    notes = [HINT, PREFERENCE, SUMMARY, CONVERSATION]
    context = assemble_context("q?", evidence, notes, budget=10_000)
    assert context.question == "q?" and texts(context) == ["e1", "e2"]
    kinds = [n.kind for n in context.memory]
    assert kinds == ["conversation", "summary", "cached_answer", "preference"]
    assert context.dropped == [] and context.left_out == []
    assert all(n.labelled().startswith(CLAIM_LABEL) for n in context.memory)


def test_the_budget_drops_hints_before_the_summary_and_never_the_evidence() -> None:
    size = lambda text: len(text)  # noqa: E731 - characters, as offline
    evidence = [excerpt(1, "E" * 500)]
    notes = [SUMMARY, PREFERENCE, HINT]
    full = assemble_context("q?", evidence, notes, budget=100_000)
    needed = len("q?") + 500 + sum(size(n.labelled()) for n in full.memory)
    one_short = assemble_context("q?", evidence, notes, budget=needed - 1)
    assert [n.kind for n in one_short.memory] == ["summary", "preference"]
    assert one_short.dropped == ["cached_answer"]
    only_summary = len("q?") + 500 + size(SUMMARY.labelled())
    tight = assemble_context("q?", evidence, notes, budget=only_summary)
    assert [n.kind for n in tight.memory] == ["summary"]
    assert tight.dropped == ["cached_answer", "preference"]
    nothing = assemble_context("q?", evidence, notes, budget=only_summary - 1)
    assert nothing.memory == [] and nothing.dropped == ["cached_answer", "preference", "summary"]
    assert nothing.evidence == evidence, "without an evidence budget the evidence is never dropped"


def test_the_summary_goes_before_the_conversations_last_messages() -> None:
    evidence = [excerpt(1, "E" * 100)]
    base = len("q?") + 100 + len(CONVERSATION.labelled())
    context = assemble_context("q?", evidence, [SUMMARY, CONVERSATION, HINT], budget=base)
    assert [n.kind for n in context.memory] == ["conversation"]
    assert context.dropped == ["cached_answer", "summary"]
    gone = assemble_context("q?", evidence, [SUMMARY, CONVERSATION], budget=base - 1)
    assert gone.memory == [] and gone.dropped == ["summary", "conversation"]


def test_the_last_four_messages_are_a_labelled_claim_as_said_without_markers() -> None:
    said = [RecentMessage(role="user", text=f"question {i}") for i in range(3)] + [
        RecentMessage(role="assistant", text="BHP's revenue fell to US$55,658 million [1, 2]."),
        RecentMessage(role="user", text="And Rio Tinto's, for <EMAIL_1>?"),
    ]
    note = conversation_note(said)
    assert note is not None and note.kind == "conversation"
    assert note.text == (
        "\nuser: question 1\nuser: question 2"
        "\nassistant: BHP's revenue fell to US$55,658 million."
        "\nuser: And Rio Tinto's, for <EMAIL_1>?"
    )
    assert note.labelled().startswith(f"{CLAIM_LABEL} — the conversation's last messages")
    assert conversation_note([]) is None


def test_evidence_is_shown_strongest_at_the_ends_weakest_in_the_middle() -> None:
    # Six excerpts in source order; their search ranks say 4 is the strongest, then 1, …
    ranks = {1: 2, 2: 5, 3: 4, 4: 1, 5: 6, 6: 3}
    evidence = [excerpt(n, f"e{n}", rank=r) for n, r in ranks.items()]
    ranked = [e.n for e in strongest_first(evidence)]
    assert ranked == [4, 1, 6, 3, 2, 5]
    context = assemble_context("q?", evidence, [], budget=10_000)
    shown = [e.n for e in context.evidence]
    assert shown == [4, 6, 2, 5, 3, 1]
    assert shown[0] == 4 and shown[-1] == 1, "the two strongest at the two ends"
    assert set(shown[2:4]) == {2, 5}, "the two weakest in the middle"
    assert [e.n for e in ends_first([])] == []


def test_equal_ranks_fall_back_to_score_then_source_order() -> None:
    evidence = [
        excerpt(1, "a", rank=1, score=0.2),
        excerpt(2, "b", rank=1, score=0.9),
        excerpt(3, "c", rank=1, score=0.9),
        excerpt(4, "d"),
    ]
    assert [e.n for e in strongest_first(evidence)] == [4, 2, 3, 1]
    unranked = [excerpt(n, "x") for n in (1, 2, 3)]
    assert [e.n for e in strongest_first(unranked)] == [1, 2, 3], "source order without ranks"


def test_the_evidence_budget_leaves_out_the_weakest_first() -> None:
    evidence = [excerpt(n, "E" * 100, rank=n) for n in range(1, 7)]
    fits = assemble_context("q?", evidence, [], budget=10_000, evidence_budget=600)
    assert fits.left_out == [] and len(fits.evidence) == 6
    over = assemble_context("q?", evidence, [], budget=10_000, evidence_budget=399)
    assert over.left_out == [6, 5, 4], "the weakest first, until the rest fit"
    assert [e.n for e in over.evidence] == [1, 3, 2]
    assert sum(len(e.text) for e in over.evidence) <= 399


def test_the_evidence_budget_keeps_each_companys_only_excerpt_while_it_can() -> None:
    bhp = [excerpt(n, "B" * 100, "BHP", rank=n) for n in (1, 2, 3)]
    rio = [excerpt(4, "R" * 100, "RIO", rank=9)]  # the weakest, and all Rio Tinto has
    context = assemble_context("q?", bhp + rio, [], budget=10_000, evidence_budget=250)
    assert context.left_out == [3, 2], "BHP's weaker excerpts go before Rio Tinto's only one"
    assert sorted(e.company for e in context.evidence) == ["BHP", "RIO"]
    # When every company is down to one and it still does not fit, the weakest goes; the
    # strongest excerpt always stays.
    fmg = [excerpt(5, "F" * 100, "FMG", rank=1)]
    tight = assemble_context("q?", bhp[:1] + rio + fmg, [], budget=10_000, evidence_budget=150)
    assert tight.left_out == [4, 5] and [e.n for e in tight.evidence] == [1]
    none_fit = assemble_context("q?", bhp, [], budget=10_000, evidence_budget=10)
    assert [e.n for e in none_fit.evidence] == [1]


def test_the_evidence_budget_spans_retry_passes_and_companies_and_leaves_notes_room() -> None:
    # Excerpts kept over three passes, for two companies: one budget over all of them.
    passes = [
        excerpt(n, "X" * 200, company, rank=rank)
        for n, (company, rank) in enumerate(
            [("BHP", 1), ("RIO", 1), ("BHP", 2), ("RIO", 2), ("BHP", 1), ("RIO", 3)], start=1
        )
    ]
    budget = 2 + 800 + len(CONVERSATION.labelled()) + len(SUMMARY.labelled())
    context = assemble_context(
        "q?", passes, [SUMMARY, CONVERSATION], budget=budget, evidence_budget=800
    )
    assert len(context.evidence) == 4 and context.left_out == [6, 4]
    assert [n.kind for n in context.memory] == ["conversation", "summary"]
    # Without a cap of its own the evidence would have taken the notes' room.
    uncapped = assemble_context("q?", passes, [SUMMARY, CONVERSATION], budget=budget)
    assert uncapped.left_out == [] and uncapped.memory == []
    # The cap is never more than the budget less the question.
    small = assemble_context("q" * 500, passes, [], budget=900, evidence_budget=800)
    assert sum(len(e.text) for e in small.evidence) <= 400


def test_a_marker_to_an_excerpt_not_shown_is_taken_out() -> None:
    text = "Revenue was US$5m [1, 7]. Profit was US$3m [7]. Costs [2][7]."
    assert without_markers_to(text, {7}) == "Revenue was US$5m [1]. Profit was US$3m. Costs [2]."
    assert without_markers_to(text, set()) == text


def test_the_model_engine_budget_counts_tokens() -> None:
    from backends.engines.openai_engine import ModelConfig, OpenAIEngine

    engine = OpenAIEngine(
        ModelConfig(
            base_url="http://127.0.0.1:9",
            api_key="k",
            route_model="m",
            grade_model="m",
            synthesize_model="m",
            judge_model="j",
            summarize_model="m",
        )
    )
    assert engine.context_size("x" * 400) == 100
    tokens = assemble_context(
        "q", [excerpt(1, "e" * 400)], [SUMMARY], budget=200, size=engine.context_size
    )
    assert [n.kind for n in tokens.memory] == ["summary"]
    capped = assemble_context(
        "q",
        [excerpt(1, "e" * 400), excerpt(2, "f" * 400)],
        [],
        budget=1_000,
        size=engine.context_size,
        evidence_budget=150,
    )
    assert capped.left_out == [2], "800 characters are 200 tokens: one excerpt fits 150"
