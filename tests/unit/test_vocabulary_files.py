"""The vocabulary of questions and statements is data: text files beside the modules that
read them at import (domain/questions/*.txt, domain/reports/*.txt), through the readers
of domain/language/words.py. Each file parses, says no word twice where that would lose
one, and is what its module holds."""

from pathlib import Path

import pytest

from domain.language.words import group_members, read_entries, read_groups, read_map
from domain.questions import measures
from domain.reports import line_items

_ROOT = Path(__file__).resolve().parents[2]
_QUESTIONS = _ROOT / "domain" / "questions"
_REPORTS = _ROOT / "domain" / "reports"

_MAPS = [
    _QUESTIONS / "chinese_measures.txt",
    _QUESTIONS / "irregular_forms.txt",
    _QUESTIONS / "irregular_verbs.txt",
    _REPORTS / "statement_titles.txt",
]
_GROUPS = [
    _QUESTIONS / "measure_synonyms.txt",
    _REPORTS / "line_item_synonyms.txt",
    _REPORTS / "line_item_opposites.txt",
]
_LISTS = [_QUESTIONS / "scaffold_words.txt", _REPORTS / "line_item_soft_words.txt"]
_LOWER_CASE = [*_GROUPS, *_LISTS, _QUESTIONS / "irregular_forms.txt"]
"""Files whose words are all lower case: their readers compare lower-cased words (the
Chinese measures' English words keep "EBITDA"'s capitals; the irregular verbs and the
statement titles are checked on their own below)."""


def _lines(path: Path) -> list[str]:
    """The file's entry lines, read without the loader."""
    text = path.read_text(encoding="utf-8")
    return [s for line in text.splitlines() if (s := line.strip()) and not s.startswith("#")]


@pytest.mark.parametrize("path", [*_MAPS, *_GROUPS, *_LISTS], ids=lambda p: p.name)
def test_every_vocabulary_file_parses_and_has_entries(path: Path) -> None:
    assert read_entries(path)
    assert path.read_text(encoding="utf-8").startswith("# "), "a file says what it is first"


@pytest.mark.parametrize("path", _MAPS, ids=lambda p: p.name)
def test_a_map_says_each_word_once_with_one_value(path: Path) -> None:
    keys = [line.partition(" = ")[0].strip() for line in _lines(path)]
    assert len(keys) == len(set(keys))
    assert all(" = " in line and line.count("=") == 1 for line in _lines(path))
    assert list(read_map(path)) == keys


@pytest.mark.parametrize("path", _GROUPS, ids=lambda p: p.name)
def test_a_group_has_members_and_none_twice(path: Path) -> None:
    groups = read_groups(path)
    assert len(groups) == len(_lines(path))
    assert all(len(g) >= 2 and len(set(g)) == len(g) and all(g) for g in groups)


@pytest.mark.parametrize("path", _LISTS, ids=lambda p: p.name)
def test_a_word_list_says_each_word_once(path: Path) -> None:
    words = read_entries(path)
    assert len(words) == len(set(words))
    assert all(" " not in w and "," not in w for w in words)


@pytest.mark.parametrize("path", _LOWER_CASE, ids=lambda p: p.name)
def test_the_words_are_lower_case(path: Path) -> None:
    assert all(line == line.lower() for line in _lines(path))


def test_the_irregular_verbs_and_statement_titles_are_lower_case() -> None:
    for path in (_QUESTIONS / "irregular_verbs.txt", _REPORTS / "statement_titles.txt"):
        assert all(line == line.lower() for line in _lines(path))


def test_the_chinese_measures_are_chinese_words_read_as_english_ones() -> None:
    table = measures.CHINESE_MEASURES
    assert isinstance(table, dict) and len(table) == len(
        _lines(_QUESTIONS / "chinese_measures.txt")
    )
    assert all(not k.isascii() and v.isascii() for k, v in table.items())
    assert table["营业收入"] == "revenue"
    assert table["息税折旧摊销前利润"] == "EBITDA"
    assert table["公里"] == "kilometres"


def test_the_question_tables_are_the_files() -> None:
    synonyms = measures.SYNONYM_GROUPS
    assert isinstance(synonyms, tuple) and all(isinstance(g, tuple) for g in synonyms)
    assert synonyms[0][0] == "revenue" and synonyms[-1][0] == "paused"
    assert len(synonyms) == len(_lines(_QUESTIONS / "measure_synonyms.txt"))
    assert ("interim", "first-half", "half-year", "half-yearly", "1h") in synonyms
    assert "spend" in synonyms[4] and "spend" in synonyms[18]  # capex and costs, on purpose
    assert measures.base_form("Sold") == "sell" and measures.base_form("fell") == "fall"
    assert measures.stem("withdrawn") == measures.stem("withdraw")
    assert measures.stem("women") == measures.stem("woman")
    verbs = read_map(_QUESTIONS / "irregular_verbs.txt")
    assert all(measures.base_form(form) == verb for form, verb in verbs.items())


def test_the_scaffold_holds_the_file_s_words_and_the_shared_lists() -> None:
    scaffold = measures._SCAFFOLD
    assert isinstance(scaffold, frozenset)
    assert set(read_entries(_QUESTIONS / "scaffold_words.txt")) <= scaffold
    assert {"us", "may", "compare", "million", "money", "overall"} <= scaffold
    assert {"the", "which", "limited"} <= scaffold  # function words and legal forms
    assert not scaffold & {"not", "before", "sa", "ag", "revenue", "profit"}


def test_the_line_item_tables_are_the_files() -> None:
    alike = line_items.ALIKE
    assert isinstance(alike, tuple) and all(isinstance(g, tuple) for g in alike)
    assert alike[0][:2] == ("cost of goods sold", "cost of sales")
    assert alike[-1] == (
        "property plant and equipment",
        "property and equipment",
        "plant and equipment",
    )
    assert len(alike) == len(_lines(_REPORTS / "line_item_synonyms.txt"))
    assert line_items.stem("total") in line_items._SOFT
    assert line_items.stem("revenue") not in line_items._SOFT
    pairs = read_groups(_REPORTS / "line_item_opposites.txt")
    assert all(len(pair) == 2 for pair in pairs)
    assert len(line_items._OPPOSED) == len(pairs)
    assert (line_items.stem("paid"), line_items.stem("received")) == line_items._OPPOSED[0]
    titles = line_items.STATEMENT_TITLES
    assert list(titles) == ["balance sheet", "income statement", "cash flow statement"]
    assert all(isinstance(t, tuple) and t for t in titles.values())
    assert titles["balance sheet"] == ("balance sheet", "statement of financial position")
    assert "statement of profit or loss" in titles["income statement"]


def test_the_readers_refuse_a_broken_line(tmp_path: Path) -> None:
    path = tmp_path / "words.txt"
    path.write_text("# a comment\nsold = sell\n\nsold = sold\n", encoding="utf-8")
    with pytest.raises(ValueError, match="sold = sold"):
        read_map(path)
    path.write_text("sold sell\n", encoding="utf-8")
    with pytest.raises(ValueError):
        read_map(path)
    with pytest.raises(ValueError):
        group_members("sales, , turnover")
    path.write_text("# groups\n  a, b ,c  \n", encoding="utf-8")
    assert read_groups(path) == (("a", "b", "c"),)
