"""docs/failure-policy.md shows exactly the table the code renders from `workflows.policy`."""

from datetime import timedelta
from pathlib import Path

import pytest

from workflows.policy import POLICY, PURE_LAYERS
from workflows.policy_doc import DOC_PATH, SECTION, duration, main, render_table


def test_the_document_holds_the_table_the_code_renders() -> None:
    document = DOC_PATH.read_text("utf-8")

    assert SECTION.text_in(document) == render_table(), (
        "docs/failure-policy.md is stale: run .venv/bin/python -m workflows.policy_doc"
    )


def test_the_table_has_one_row_per_step() -> None:
    rows = render_table().splitlines()[2:]

    assert [row.split("|")[1].strip().strip("`") for row in rows] == [
        *POLICY,
        *PURE_LAYERS,
    ]


def test_the_document_says_how_to_regenerate_it() -> None:
    assert "python -m workflows.policy_doc" in DOC_PATH.read_text("utf-8")


def test_the_section_is_rewritten_only_between_its_markers() -> None:
    stale = DOC_PATH.read_text("utf-8").replace("| `final_gate` |", "| `final_gate_old` |")

    assert SECTION.rewritten(stale) == DOC_PATH.read_text("utf-8")


def test_check_reports_a_stale_document(tmp_path: Path) -> None:
    path = tmp_path / "failure-policy.md"
    path.write_text(DOC_PATH.read_text("utf-8").replace("closed by construction", "x"))

    assert main(["--check", "--path", str(path)]) == 1
    assert main(["--path", str(path)]) == 0
    assert main(["--check", "--path", str(path)]) == 0


def test_a_document_without_markers_is_an_error() -> None:
    with pytest.raises(ValueError):
        SECTION.text_in("# no table here\n")


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (timedelta(milliseconds=200), "200 ms"),
        (timedelta(seconds=30), "30 s"),
        (timedelta(seconds=90), "90 s"),
        (timedelta(minutes=2), "2 min"),
        (timedelta(hours=1), "1 h"),
        (None, "none"),
    ],
)
def test_durations_read_as_people_write_them(value: timedelta | None, text: str) -> None:
    assert duration(value) == text
