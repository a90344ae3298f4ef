"""The word lists are data, read once (domain/language/words.py), and no module keeps a
copy of its own."""

import ast
import re
from pathlib import Path

import pytest

from domain.companies.roster import aliases_for
from domain.language.words import FUNCTION_WORDS, LEGAL_FORMS, legal_form_pattern

_ROOT = Path(__file__).resolve().parents[2]
_LANGUAGE = _ROOT / "domain" / "language"
_SCANNED = ("domain", "ingestion", "workflows", "api")
_LOADER = _LANGUAGE / "words.py"


def _entries(name: str) -> list[str]:
    lines = (_LANGUAGE / name).read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


@pytest.mark.parametrize("name", ["function_words.txt", "legal_forms.txt"])
def test_word_list_files_are_one_sorted_lower_case_word_a_line(name: str) -> None:
    entries = _entries(name)
    assert entries
    assert all(e == e.lower() and " " not in e for e in entries)
    assert len(set(entries)) == len(entries)
    assert entries == sorted(entries)


def test_the_loader_reads_both_files() -> None:
    assert set(_entries("function_words.txt")) == FUNCTION_WORDS
    assert {"the", "of", "which", "would", "between"} <= FUNCTION_WORDS
    assert {"limited", "ltd", "plc", "inc", "corporation", "nv"} <= set(LEGAL_FORMS)
    assert len(LEGAL_FORMS) == len(_entries("legal_forms.txt"))


def test_the_words_of_another_meaning_in_reports_are_no_function_words() -> None:
    assert not FUNCTION_WORDS & {"us", "may", "mine"}


@pytest.mark.parametrize("written", ["Limited", "LTD.", "plc", "N.V.", "NV", "S.A.", "Inc."])
def test_a_legal_form_is_read_however_it_is_dotted_or_cased(written: str) -> None:
    assert re.fullmatch(legal_form_pattern(), written, re.IGNORECASE)


def test_a_cased_legal_form_is_capitalised_or_in_capitals() -> None:
    cased = legal_form_pattern(cased=True)
    assert all(re.fullmatch(cased, w) for w in ("Limited", "LIMITED", "Ltd.", "N.V.", "PLC"))
    assert not re.fullmatch(cased, "limited")


def test_a_left_out_legal_form_is_not_read() -> None:
    assert not re.fullmatch(legal_form_pattern(frozenset({"company"})), "company", re.I)


def test_a_company_is_known_without_any_legal_form_of_the_list() -> None:
    for form in ("N.V.", "LLC", "Ltd", "Incorporated"):
        assert "example mining" in aliases_for("EXM", f"Example Mining {form}")


def _word_lists(tree: ast.AST) -> list[tuple[int, list[str]]]:
    """Each string (not a docstring) and each literal collection of strings, as words; not
    the forms a use leaves out (`legal_form_pattern`'s argument), which name no list."""
    left_out = {
        id(inner)
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "legal_form_pattern"
        for arg in node.args
        for inner in ast.walk(arg)
    }
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    found: list[tuple[int, list[str]]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if id(node) not in docstrings | left_out:
                found.append((node.lineno, re.findall(r"[a-z]+", node.value.lower())))
        elif isinstance(node, ast.Set | ast.Tuple | ast.List) and id(node) not in left_out:
            found.append((node.lineno, _words_of(node)))
    return found


def _words_of(collection: ast.Set | ast.Tuple | ast.List) -> list[str]:
    """The words of a collection's strings, its unpacked parts' too (`{*("a", "b"), ...}`)."""
    words: list[str] = []
    for element in collection.elts:
        if isinstance(element, ast.Starred) and isinstance(element.value, ast.Tuple):
            words += _words_of(element.value)
        elif isinstance(element, ast.Constant) and isinstance(element.value, str):
            words += re.findall(r"[a-z]+", element.value.lower())
    return words


_RECORDED = {Path("workflows/rules/scope.py"), Path("domain/reports/passages.py")}
"""Lists that keep their own words for now. The scope rule: its forms are part of
recorded turns' decisions, so a new one comes only under a workflow patch. The passage
question words: built from the shared lists they changed a narrative answer (Rio Tinto's
new chief executive lost its 'successor' sentence), so they stay as they were until the
shared lists are tuned against the answer suites."""


def test_no_module_keeps_a_list_of_legal_forms_of_its_own() -> None:
    forms = set(LEGAL_FORMS)
    copies = []
    for folder in _SCANNED:
        for path in sorted((_ROOT / folder).rglob("*.py")):
            if path == _LOADER or path.relative_to(_ROOT) in _RECORDED:
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for line, words in _word_lists(tree):
                if len(named := forms.intersection(words)) >= 3:
                    copies.append(f"{path.relative_to(_ROOT)}:{line} {sorted(named)}")
    assert not copies, "legal forms listed outside domain/language/legal_forms.txt"
