"""docs/operations.md lists every setting exactly as the code renders it from `Settings`,
and every setting has a description to render."""

from pathlib import Path

import pytest

from settings import DEV_PII_KEY, PROJECT_ROOT, SECTIONS, Settings
from settings.base import NonEmpty, Section
from settings.table import DOC_PATH, SECTION, describe, main, render_table, undocumented

REGENERATE = ".venv/bin/python -m settings.table"


def test_the_document_holds_the_table_the_settings_render() -> None:
    document = DOC_PATH.read_text("utf-8")

    assert SECTION.text_in(document) == render_table(), (
        f"docs/operations.md's settings table is stale: run {REGENERATE}"
    )


def test_every_setting_has_a_description() -> None:
    assert undocumented(Settings) == [], (
        "give each of these fields an attribute docstring (or Field(description=...)), "
        f"then run {REGENERATE}"
    )


def test_the_check_fires_on_a_setting_without_a_description() -> None:
    class Described(Section):
        documented: NonEmpty = "x"
        """What it sets."""
        bare: NonEmpty = "y"

    assert undocumented(Described) == ["bare"]


def test_every_setting_belongs_to_exactly_one_section() -> None:
    per_section = [name for section in SECTIONS for name in section.model_fields]

    assert sorted(per_section) == sorted(Settings.model_fields)
    assert set(SECTIONS) == {base for base in Settings.__mro__ if base in SECTIONS}


def test_the_table_has_one_row_per_setting_section_by_section() -> None:
    rows = render_table().splitlines()[2:]

    variables = [row.split("|")[1].strip().strip("`") for row in rows]
    assert variables == [
        f"TURNSTILE_{name.upper()}" for section in SECTIONS for name in section.model_fields
    ]


def test_the_table_is_the_same_on_every_checkout_and_shows_no_secret() -> None:
    table = render_table()

    assert str(PROJECT_ROOT) not in table
    assert DEV_PII_KEY not in table
    assert "| `TURNSTILE_CORPUS_DIR` | retrieval | path | `corpus/reports` |" in table


def test_a_setting_named_in_a_description_reads_as_its_variable() -> None:
    assert describe("under `home`, like `openai`") == "under `TURNSTILE_HOME`, like `openai`"


def test_the_document_says_how_to_regenerate_it() -> None:
    assert "python -m settings.table" in DOC_PATH.read_text("utf-8")


def test_the_section_is_rewritten_only_between_its_markers() -> None:
    document = DOC_PATH.read_text("utf-8")
    stale = document.replace("| `TURNSTILE_HOME` |", "| `TURNSTILE_HOME_OLD` |")

    assert stale != document
    assert SECTION.rewritten(stale) == document


def test_check_reports_a_stale_document(tmp_path: Path) -> None:
    path = tmp_path / "operations.md"
    path.write_text(DOC_PATH.read_text("utf-8").replace("The data directory", "x"))

    assert main(["--check", "--path", str(path)]) == 1
    assert main(["--path", str(path)]) == 0
    assert main(["--check", "--path", str(path)]) == 0


def test_a_document_without_markers_is_an_error() -> None:
    with pytest.raises(ValueError):
        SECTION.text_in("# no table here\n")
