"""Extractive passages for questions that are not about a figure (pure, on the corpus)."""

from backends.embeddings import LocalEmbedder, similarity_of
from domain.models import ChunkText
from domain.reports.passages import (
    TIME,
    _prose_sentences,
    carries_other_figure,
    find_passages,
    role_asked,
    role_holder,
    topic_terms,
)
from tests.unit.corpus_chunks import corpus, report


def test_the_chairs_letter_is_preferred_when_the_chair_is_asked_about() -> None:
    passages = find_passages("What did BHP's chair say about safety?", corpus(), "BHP", [], [])
    assert passages and passages[0].from_role
    assert passages[0].chunk.section.startswith("Chair")
    assert all("safety" in p.sentence.lower() for p in passages)


def test_only_the_companys_own_sources_and_years_count() -> None:
    passages = find_passages("What did Rio Tinto acquire?", corpus(), "RIO", [2025], [])
    assert passages
    assert {(p.chunk.company, p.chunk.fiscal_year) for p in passages} == {("RIO", 2025)}
    assert any("Arcadium" in p.sentence for p in passages)


def test_a_sentence_with_a_figure_not_asked_for_is_never_a_passage() -> None:
    assert carries_other_figure("Revenue was US$15.54 billion.", [])
    assert carries_other_figure("Revenue was US$15.54 billion.", ["underlying_ebitda"])
    assert not carries_other_figure(
        "Underlying EBITDA of US$7.9 billion reflected prices.", ["underlying_ebitda"]
    )
    assert not carries_other_figure("The agreement was reached in October 2024.", [])
    passages = find_passages("What did BHP say about nickel?", corpus(), "BHP", [], [])
    assert passages and not any(carries_other_figure(p.sentence, []) for p in passages)


def test_a_why_question_prefers_sentences_that_give_a_cause() -> None:
    passages = find_passages(
        "Why did Fortescue's underlying EBITDA fall?",
        list(report("FMG", 2025)),
        "FMG",
        [2025],
        ["underlying_ebitda"],
    )
    assert passages and "reflected lower prices" in passages[0].sentence


def test_a_topic_word_the_reports_never_use_finds_nothing() -> None:
    assert find_passages("What did BHP say about bitcoin?", corpus(), "BHP", [], []) == []
    assert (
        find_passages("What did BHP say about the weather on Mars?", corpus(), "BHP", [], []) == []
    )


def test_frame_words_search_with_the_words_reports_use() -> None:
    assert {"ahead", "expected"} <= set(topic_terms("What is the outlook for Rio Tinto?"))
    assert "rio" not in topic_terms("What is the outlook for Rio Tinto?")
    assert role_asked("What did the CEO say?") == "chief executive"
    assert role_asked("What did the executive chairman say?") == "chair"
    assert role_asked("What did BHP say?") is None


def test_a_number_written_into_a_name_is_not_a_figure() -> None:
    assert not carries_other_figure("We paused the PEM50 electrolyser facility.", [])
    assert not carries_other_figure("Hermosa was accepted to the FAST-41 process.", [])
    assert carries_other_figure("We shipped 50 cargoes.", [])


def _chunk(sentences: list[str]) -> ChunkText:
    text = "[Example Mining FY2025, Operations review, page 3]\n" + " ".join(sentences)
    return ChunkText(
        chunk_id="c1",
        company="FMG",
        fiscal_year=2025,
        document="Example",
        section="Operations review",
        page=3,
        text=text,
        is_table=False,
        unit=None,
    )


def test_the_rare_word_of_a_question_outweighs_the_common_ones() -> None:
    # A third of the sentences say "green energy projects"; one says the word asked
    # about, by its synonym ("put on hold" / "deferred"). The rare word decides.
    common = [
        "Our green energy projects advanced in several regions this year.",
        "We will only fund green energy projects with acceptable returns.",
        "Green energy projects remain central to the future of the company.",
        "The board reviewed each of the green energy projects twice during the year.",
        "Green energy projects in Africa moved to the feasibility stage.",
    ]
    other = [
        f"The {w} operations ran safely and met their plans this year."
        for w in (
            "Pilbara",
            "Solomon",
            "Chichester",
            "Eliwana",
            "Cloudbreak",
            "Christmas Creek",
            "Iron Bridge",
            "Port Hedland",
            "Herb Elliott",
            "Kings Valley",
        )
    ]
    rare = "We deferred two green hydrogen plants until costs fall."
    chunk = _chunk([*common, *other, rare])
    passages = find_passages(
        "Which green energy projects were put on hold?", [chunk], "FMG", [2025], []
    )
    assert passages and passages[0].sentence == rare, passages
    quiet = find_passages("Which green energy projects advanced?", [chunk], "FMG", [2025], [])
    assert quiet and quiet[0].sentence == common[0]


def test_a_verb_asked_finds_its_noun_in_ision() -> None:
    """ "What did BHP decide to do with its nickel business?" quoted a profit sentence
    sharing "nickel" and "business": the answer says "a decision" ("decis" is not
    "decid" to a five-letter stem). A noun in -ision is read as its verb in -ide too."""
    decided = "The Board moved the smelter into care and maintenance, a decision it will review."
    chunk = _chunk(
        [
            "The smelter business made a loss of US$300 million as prices fell.",
            "Smelter employees were offered roles at other sites.",
            decided,
        ]
    )
    passages = find_passages("What did they decide about the smelter?", [chunk], "FMG", [2025], [])
    assert passages and passages[0].sentence == decided, passages
    divided = find_passages("How was the smelter divided?", [chunk], "FMG", [2025], [])
    assert not divided or divided[0].sentence != decided  # no "division" said: quiet


def test_a_when_question_prefers_sentences_that_say_a_time() -> None:
    question = "When did the Oyu Tolgoi underground mine start producing?"
    passages = find_passages(question, corpus(), "RIO", [], [])
    assert passages and all(TIME.search(p.sentence) for p in passages)
    assert any("March 2023" in p.sentence for p in passages)
    # Quiet: a question that does not ask when keeps the timeless sentences too.
    around = find_passages(
        "What did Rio say about the Oyu Tolgoi underground mine?", corpus(), "RIO", [], []
    )
    assert any(not TIME.search(p.sentence) for p in around)


def test_a_sentence_that_refers_back_completes_the_quote() -> None:
    # "The key project in that plan is ..." says what the plan's centrepiece is; the
    # sentence before it, alone, does not.
    passages = find_passages(
        "What's the centerpiece of Northern Star's five-year growth plan?",
        list(report("NST", 2023)),
        "NST",
        [2023],
        [],
    )
    quoted = next(p.sentence for p in passages if "five-year plan to grow" in p.sentence)
    assert quoted.endswith("Thunderbox and Pogo.")
    assert "The key project in that plan" in quoted


def test_a_sentence_that_does_not_refer_back_stays_alone() -> None:
    passages = find_passages("What did Rio Tinto acquire?", corpus(), "RIO", [2025], [])
    assert passages
    for p in passages:
        # Exactly one of its source's sentences: nothing was joined to it.
        assert p.sentence in _prose_sentences(p.chunk)


def test_the_sentence_closest_in_meaning_joins_what_the_words_found(
    embedder: LocalEmbedder,
) -> None:
    # "restructure" and "reorganised" share no letters' stem: the words find the
    # governance sentence that says "restructure"; meaning finds the one that says how.
    question = "How did Fortescue restructure itself in FY2024?"
    sources = list(report("FMG", 2024))
    by_words = find_passages(question, sources, "FMG", [2024], [])
    assert not any("two businesses" in p.sentence for p in by_words)
    by_meaning = find_passages(
        question, sources, "FMG", [2024], [], similarity=similarity_of(embedder)
    )
    assert any("two businesses" in p.sentence for p in by_meaning)
    assert len(by_meaning) <= 3


def test_meaning_alone_never_answers_what_the_reports_do_not_address(
    embedder: LocalEmbedder,
) -> None:
    similarity = similarity_of(embedder)
    for question in (
        "What did BHP say about bitcoin?",
        "What did BHP say about the weather on Mars?",
    ):
        assert find_passages(question, corpus(), "BHP", [], [], similarity=similarity) == []


def test_meaning_adds_nothing_when_the_words_found_the_closest(embedder: LocalEmbedder) -> None:
    # The sentence the words rank second ("We are in the middle of a five-year plan")
    # is also the closest in meaning: nothing joins.
    question = "What's the centerpiece of Northern Star's five-year growth plan?"
    sources = list(report("NST", 2023))
    by_words = find_passages(question, sources, "NST", [2023], [])
    by_meaning = find_passages(
        question, sources, "NST", [2023], [], similarity=similarity_of(embedder)
    )
    assert [p.sentence for p in by_meaning] == [p.sentence for p in by_words]


def _prose(sentences: list[str]) -> list[ChunkText]:
    return [
        ChunkText(
            chunk_id=f"p{i}",
            company="S32",
            fiscal_year=2024,
            document="S32_FY2024.md",
            page=10 + i,
            section="Portfolio",
            is_table=False,
            unit=None,
            text=f"[South32 · Annual Report 2024 · FY2024 · Portfolio · page {10 + i}]\n{s}",
        )
        for i, s in enumerate(sentences)
    ]


BOILERPLATE = (
    "This release contains forward-looking statements about future operating and business "
    "performance, which readers should not rely on."
)


def test_a_sentence_with_a_figure_that_speaks_to_the_question_most_is_a_passage() -> None:
    """The one sentence that says which business becomes a discontinued operation carries
    an unasked figure (the gain on it); boilerplate that shares only "operating" and
    "business" is figure-free. The sentence that speaks to the question most is quoted."""
    answer = (
        "Following the sale, South32 will report its Illawarra coal business as a "
        "discontinued operation, recognising a gain of about US$450 million."
    )
    passages = find_passages(
        "Which South32 business is treated as a discontinued operation from FY2024?",
        _prose([BOILERPLATE, answer]),
        "S32",
        [2024],
        [],
    )
    assert passages and passages[0].sentence == answer, passages


def test_a_sentence_with_a_figure_no_nearer_than_a_figure_free_one_stays_out() -> None:
    """Quiet: where a figure-free sentence speaks to the question as much, the one that
    carries an unasked figure is not quoted beside it."""
    free = "South32 treats its Illawarra coal business as a discontinued operation."
    figure = "South32's Illawarra coal business is a discontinued operation worth US$2 billion."
    passages = find_passages(
        "Which South32 business is treated as a discontinued operation from FY2024?",
        _prose([free, figure]),
        "S32",
        [2024],
        [],
    )
    assert [p.sentence for p in passages] == [free], passages


_RECEIVABLES = (
    "[BHP Group · Annual Report 2024 · FY2024 · Working capital · page 31]\n"
    "Trade receivables at the end of the year totalled $412 million compared to $380 "
    "million a year earlier. The $32 million increase in receivables was primarily due to "
    "longer payment terms agreed with two steelmaking customers in Asia. Payables were little "
    "changed over the year."
)


def test_a_sentence_opening_on_a_change_it_does_not_name_is_quoted_with_what_changed() -> None:
    """ "The $32 million increase was primarily due to ..." alone never says what rose:
    the sentence before it, side by side in the report, is quoted with it. Quiet: a
    sentence that names its subject is quoted alone."""
    chunk = ChunkText(
        chunk_id="wc",
        company="BHP",
        fiscal_year=2024,
        document="BHP_FY2024.md",
        page=31,
        section="Working capital",
        text=_RECEIVABLES,
        is_table=False,
        unit=None,
    )
    why = find_passages("Why did BHP's trade receivables increase?", [chunk], "BHP", [2024], [])
    assert why and why[0].sentence.startswith("Trade receivables at the end of the year")
    assert why[0].sentence.endswith("two steelmaking customers in Asia.")
    alone = find_passages("Were BHP's payables changed?", [chunk], "BHP", [2024], [])
    assert alone and alone[0].sentence == "Payables were little changed over the year."


def _board(lines: list[str], fiscal_year: int = 2025) -> ChunkText:
    text = "[Example Mining FY2025, Board of directors, page 8]\n# Board of directors\n\n"
    return ChunkText(
        chunk_id=f"b{fiscal_year}",
        company="FMG",
        fiscal_year=fiscal_year,
        document="Example",
        section="Board of directors",
        page=8,
        text=text + "\n\n".join(lines),
        is_table=False,
        unit=None,
    )


def test_who_holds_a_role_is_the_line_the_board_heads_with_it() -> None:
    board = _board(
        [
            "**Chair of the Audit Committee.** Chartered accountant; Marta Oyelaran-Voss chairs it.",  # noqa: E501
            "**Chief Executive Officer.** Mining engineer who has led the group from a single "
            "mine in Western Australia.",
            "**Chair.** Independent non-executive director.",
        ]
    )
    ceo = role_holder("who's the ceo of fortescue?", [board], "FMG")
    assert ceo is not None and ceo.heading == "Chief Executive Officer"
    assert not ceo.named  # "Western Australia" names a place, not the holder
    chair = role_holder("Who is Fortescue's chair?", [board], "FMG")
    assert chair is not None and chair.heading == "Chair" and not chair.named


def test_a_role_holder_named_is_said_to_be_named() -> None:
    for line in (
        "**Chief Executive Officer.** Tavita Okonkwo-Lindqvist leads the company's operations.",
        "**Chief Executive Officer.** Dr Okonkwo leads the company's operations.",
        "Our chief executive officer Tavita Okonkwo-Lindqvist said the year was a good one.",
    ):
        holder = role_holder("Who is the CEO of Fortescue?", [_board([line])], "FMG")
        assert holder is not None and holder.named, line


def test_a_question_that_asks_no_who_has_no_role_holder() -> None:
    board = _board(["**Chief Executive Officer.** Leads the company's operations."])
    assert role_holder("What did Fortescue's CEO say about safety?", [board], "FMG") is None
    assert role_holder("Who is the CEO of Fortescue?", [board], "BHP") is None
