"""The CLI explains itself: a version, help on a bare `turnstile`, help on every argument,
and `status` as an aligned table."""

import argparse

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
            "components": {"worker": {"ok": False, "error": "no pollers", "pollers": 0},
                           "qdrant": {"ok": True, "chunks": 574}},
            "engine": {"name": "openai", "models": {"route": "gpt-4o-mini"}},
        },
    }  # fmt: skip

    lines = status_table(report).splitlines()

    assert lines == [
        "temporal process  running  pid 11",
        "worker process    stopped",
        "worker            DOWN     error no pollers, pollers 0",
        "qdrant            ok       chunks 574",
        "engine            openai   route gpt-4o-mini",
        "not healthy",
    ]
