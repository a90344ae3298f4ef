"""The CLI explains itself: a version, help on a bare `turnstile`, help on every argument,
and `status` as an aligned table."""

import argparse
from pathlib import Path

import pytest

from cli.main import build_parser, main, status_table


def parsers(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    found = [parser]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in dict.fromkeys(action.choices.values()):
                found += parsers(child)
    return found


def test_every_argument_of_every_command_says_what_it_is() -> None:
    missing = [
        f"{p.prog} {a.dest}"
        for p in parsers(build_parser())
        for a in p._actions
        if not isinstance(a, argparse._SubParsersAction) and not a.help
    ]

    assert missing == []


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.startswith("turnstile ")


def test_a_bare_turnstile_prints_help_not_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 0
    out = capsys.readouterr()
    assert out.out.startswith("usage: turnstile") and "ask" in out.out and out.err == ""


def test_status_is_an_aligned_table() -> None:
    report = {
        "processes": {"temporal": 11, "worker": None},
        "healthy": False,
        "health": {
            "components": {
                "worker": {"ok": False, "error": "no pollers", "pollers": 0},
                "qdrant": {"ok": True, "chunks": 574},
            },
            "engine": {"name": "openai", "models": {"route": "gpt-4o-mini"}},
        },
    }

    lines = status_table(report).splitlines()

    assert lines == [
        "temporal process  running  pid 11",
        "worker process    stopped",
        "worker            DOWN     error no pollers, pollers 0",
        "qdrant            ok       chunks 574",
        "engine            openai   route gpt-4o-mini",
        "not healthy",
    ]


def test_a_fiscal_year_is_read_as_people_write_it() -> None:
    for written in ("2024", "FY2024", "fy24", " FY2024 "):
        assert build_parser().parse_args(["search", "revenue", "--fy", written]).fy == 2024


def test_a_bad_fiscal_year_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["search", "revenue", "--fy", "next year"]) == 2
    assert "is not a fiscal year such as 2024" in capsys.readouterr().err


def test_describing_a_company_needs_its_name(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["ingest", "report.pdf", "--company", "XMP", "--fy", "2022", "--alias", "x"])
    assert code != 0
    assert "need --name" in capsys.readouterr().err


def test_a_described_company_needs_a_ticker_and_a_real_year_end(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    report = tmp_path / "r.pdf"
    report.write_bytes(b"%PDF-1.4")
    code = main(["ingest", str(report), "--company", "Example Mining", "--name", "Example"])
    assert code != 0 and "ticker" in capsys.readouterr().err
    code = main(["ingest", str(report), "--company", "XMP", "--name", "X", "--year-end", "13-40"])
    assert code != 0 and "year" in capsys.readouterr().err
