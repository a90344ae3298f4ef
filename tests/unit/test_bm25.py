"""The BM25 tokenizer keeps financial tokens whole and drops what cannot carry meaning."""

from ingestion import bm25


def test_tokens_are_lowercased() -> None:
    assert bm25.tokenize("Revenue EBITDA Escondida") == ["revenue", "ebitda", "escondida"]


def test_punctuation_is_stripped_so_revenue_comma_equals_revenue() -> None:
    assert bm25.tokenize("revenue,") == bm25.tokenize("revenue") == ["revenue"]
    assert bm25.tokenize("(revenue); 'revenue'.") == ["revenue", "revenue"]


def test_numbers_with_thousands_separators_and_decimals_stay_whole() -> None:
    assert bm25.tokenize("EBITDA of US$29,016 million.") == ["ebitda", "us", "29,016", "million"]
    assert "55.66" in bm25.tokenize("rounded to US$55.66bn")


def test_accounting_parentheses_leave_the_bare_figure() -> None:
    assert bm25.tokenize("| Profit/(loss) | (203) |") == ["profit", "loss", "203"]


def test_fiscal_year_codes_stay_whole() -> None:
    assert bm25.tokenize("FY2024, FY2023 (restated)") == ["fy2024", "fy2023", "restated"]


def test_stopwords_and_single_letters_are_dropped() -> None:
    assert bm25.tokenize("What was the revenue of BHP in a year?") == ["revenue", "bhp", "year"]
    assert bm25.tokenize("the of and to a is was") == []


def test_plurals_fold_to_the_singular() -> None:
    assert bm25.tokenize("dividends shipments") == ["dividend", "shipment"]
    assert bm25.tokenize("dividend shipment") == ["dividend", "shipment"]


def test_plural_folding_spares_short_words_and_double_s() -> None:
    assert bm25.tokenize("gross loss ores") == ["gross", "loss", "ores"]


def test_term_ids_are_stable_non_negative_int32() -> None:
    assert bm25.term_id("revenue") == bm25.term_id("revenue")
    assert bm25.term_id("revenue") != bm25.term_id("ebitda")
    assert 0 <= bm25.term_id("29,016") < 2**31


def test_document_vector_saturates_repeated_terms() -> None:
    indices, values = bm25.document_vector("revenue revenue revenue ebitda")
    weights = dict(zip(indices, values, strict=True))

    assert weights[bm25.term_id("revenue")] > weights[bm25.term_id("ebitda")]
    assert weights[bm25.term_id("revenue")] < 3 * weights[bm25.term_id("ebitda")]


def test_query_vector_weighs_each_distinct_term_once() -> None:
    indices, values = bm25.query_vector("Revenue, revenue and the FY2024 revenue")

    assert sorted(indices) == sorted({bm25.term_id("revenue"), bm25.term_id("fy2024")})
    assert values == [1.0, 1.0]


def test_a_query_of_only_stopwords_has_no_terms() -> None:
    assert bm25.query_vector("what was it?") == ([], [])
