"""`turnstile chat` and `turnstile ask` in a conversation another turn holds (409
`TurnInProgress`): the chat offers a waiting turn's question and asks the typed question
after it; `ask` names `turnstile reply` and `turnstile cancel` in its one line.

The API calls are replaced here; tests/e2e/test_stack.py runs the same in a terminal
against the real stack.
"""

from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from cli import chat
from cli.main import main
from domain.turns import TurnResult

BLOCKING = "turn-c1-1"
QUESTION = "What was BHP's net debt in FY2024?"


def turn(status: str, turn_id: str = BLOCKING, **fields: Any) -> TurnResult:
    base = {"turn_id": turn_id, "conversation_id": "c1", "status": status, "question": "q"}
    return TurnResult.model_validate({**base, **fields})


WAITING_TURN = turn(
    "needs_clarification",
    clarifying_question="Which company do you mean? I cover BHP Group (BHP), Rio Tinto (RIO)"
    ' and more. For example: "What was Fortescue\'s net debt in FY2024?"',
)


def busy(turn_id: str = BLOCKING) -> chat.ChatError:
    return chat.ChatError(
        f"turn {turn_id} is still running or waiting for a reply in this conversation",
        2,
        "TurnInProgress",
        turn_id,
    )


class FakeApi:
    """Stands in for the API calls the chat makes; records them in `calls`."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, lines: list[str]) -> None:
        self.calls: list[tuple[str, ...]] = []
        self.ask_results: list[TurnResult | chat.ChatError] = []
        self.reply_results: list[TurnResult | chat.ChatError] = []
        self.blocking: TurnResult | None = WAITING_TURN
        typed: Iterator[str] = iter(lines)
        self.prompts: list[str] = []

        def fake_input(prompt: str = "") -> str:
            self.prompts.append(prompt)
            try:
                return next(typed)
            except StopIteration:
                raise EOFError from None

        monkeypatch.setattr("builtins.input", fake_input)
        monkeypatch.setattr(chat, "ask", self.ask)
        monkeypatch.setattr(chat, "reply", self.reply)
        monkeypatch.setattr(chat, "cancel", self.cancel)
        monkeypatch.setattr(chat, "get_turn", self.get_turn)
        # A resumed conversation's history (tests/e2e/test_stack.py reads it for real).
        monkeypatch.setattr(chat, "_resume", lambda *a: None)

    @staticmethod
    def _next(results: list[TurnResult | chat.ChatError]) -> TurnResult:
        result = results.pop(0)
        if isinstance(result, chat.ChatError):
            raise result
        return result

    def ask(self, api_url: str, question: str, conversation: str | None, *a: Any) -> TurnResult:
        self.calls.append(("ask", question, str(conversation)))
        return self._next(self.ask_results)

    def reply(self, api_url: str, turn_id: str, text: str, *a: Any) -> TurnResult:
        self.calls.append(("reply", turn_id, text))
        return self._next(self.reply_results)

    def cancel(self, api_url: str, turn_id: str, *a: Any) -> TurnResult:
        self.calls.append(("cancel", turn_id))
        return turn("cancelled", answer="This question was cancelled before it was answered.")

    def get_turn(self, api_url: str, turn_id: str, *a: Any) -> TurnResult | None:
        self.calls.append(("get", turn_id))
        return self.blocking

    def run(self) -> int:
        return chat.chat("http://api.test", None, 5.0, conversation="c1")


def test_a_waiting_turn_is_offered_answered_by_typing_and_the_question_then_asked(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    api = FakeApi(monkeypatch, [QUESTION, "Rio Tinto in FY2024"])
    api.ask_results = [busy(), turn("answered", "turn-c1-2", answer="US$9.12 billion")]
    api.reply_results = [turn("answered", answer="US$53,658 million")]

    assert api.run() == 0

    assert api.calls == [
        ("ask", QUESTION, "c1"),
        ("get", BLOCKING),
        ("reply", BLOCKING, "Rio Tinto in FY2024"),
        ("ask", QUESTION, "c1"),
    ]
    assert api.prompts == ["> ", "reply> ", "> "]
    out = capsys.readouterr().out
    assert f"turn {BLOCKING} of this conversation waits for an answer" in out
    assert "your question was not asked yet" in out
    assert "? Which company do you mean?" in out
    assert "type your answer, or /cancel to drop the question" in out
    assert out.index("US$53,658") < out.index(f"(now asking your question: {QUESTION})")
    assert out.index("(now asking") < out.index("US$9.12 billion")


def test_a_waiting_turn_dropped_with_cancel_then_the_question_is_asked(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    api = FakeApi(monkeypatch, [QUESTION, "/cancel"])
    api.ask_results = [busy(), turn("answered", "turn-c1-2", answer="US$9.12 billion")]

    assert api.run() == 0

    assert api.calls == [
        ("ask", QUESTION, "c1"),
        ("get", BLOCKING),
        ("cancel", BLOCKING),
        ("ask", QUESTION, "c1"),
    ]
    out = capsys.readouterr().out
    assert out.index("cancelled before it was answered") < out.index("US$9.12 billion")


def test_a_second_clarifying_round_keeps_the_question_until_the_turn_settles(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    api = FakeApi(monkeypatch, [QUESTION, "that one", "BHP in FY2024"])
    api.ask_results = [busy(), turn("answered", "turn-c1-2", answer="US$9.12 billion")]
    api.reply_results = [
        turn("needs_clarification", clarifying_question="Which year?", clarification_round=2),
        turn("answered", answer="US$55,658 million"),
    ]

    assert api.run() == 0

    assert [c[0] for c in api.calls] == ["ask", "get", "reply", "reply", "ask"]
    assert api.prompts == ["> ", "reply> ", "reply> ", "> "]


def test_a_running_turn_is_said_in_one_line_and_the_question_dropped(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    api = FakeApi(monkeypatch, [QUESTION])
    api.ask_results = [busy()]
    api.blocking = turn("running")

    assert api.run() == 0

    assert api.calls == [("ask", QUESTION, "c1"), ("get", BLOCKING)]
    assert api.prompts == ["> ", "> "]
    out = capsys.readouterr().out.splitlines()
    said = [line for line in out if BLOCKING in line]
    assert said == [
        f"(turn {BLOCKING} of this conversation is still running, so your question was not"
        " asked: wait for it and ask again, or /new to start a new conversation)"
    ]


def test_a_turn_that_settled_in_between_frees_the_conversation_and_the_question_is_sent(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    api = FakeApi(monkeypatch, [QUESTION])
    api.ask_results = [busy(), turn("answered", "turn-c1-2", answer="US$9.12 billion")]
    api.blocking = turn("answered")

    assert api.run() == 0

    assert api.calls == [("ask", QUESTION, "c1"), ("get", BLOCKING), ("ask", QUESTION, "c1")]
    assert "US$9.12 billion" in capsys.readouterr().out


def test_a_question_resent_is_sent_once_more_at_most(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    api = FakeApi(monkeypatch, [QUESTION])
    api.ask_results = [busy(), busy()]
    api.blocking = turn("answered")

    assert api.run() == 0

    assert [c[0] for c in api.calls] == ["ask", "get", "ask", "get"]
    assert "has just settled, so your question was not asked: ask it again" in (
        capsys.readouterr().out
    )


def test_when_the_blocking_turn_cannot_be_read_the_apis_line_is_shown(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    api = FakeApi(monkeypatch, [QUESTION])
    api.ask_results = [busy()]
    api.blocking = None

    assert api.run() == 0

    err = capsys.readouterr().err
    assert err == f"turnstile: {busy()}\n"


def test_new_drops_the_offered_turn_and_says_the_question_was_not_asked(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    api = FakeApi(monkeypatch, [QUESTION, "/new"])
    api.ask_results = [busy()]

    assert api.run() == 0

    assert [c[0] for c in api.calls] == ["ask", "get"]
    assert api.prompts == ["> ", "reply> ", "> "]
    assert f"(your question was not asked: {QUESTION})" in capsys.readouterr().out


def test_a_reply_that_fails_says_the_question_was_not_asked(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    api = FakeApi(monkeypatch, [QUESTION, "BHP"])
    api.ask_results = [busy()]
    api.reply_results = [chat.ChatError(f"turn {BLOCKING} is not waiting", 2, "NotWaiting")]

    assert api.run() == 0

    out = capsys.readouterr()
    assert out.err == f"turnstile: turn {BLOCKING} is not waiting\n"
    assert f"(your question was not asked: {QUESTION})" in out.out
    assert api.prompts == ["> ", "reply> ", "> "]


def test_other_errors_are_the_one_line_they_were(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    api = FakeApi(monkeypatch, [QUESTION])
    api.ask_results = [chat.ChatError("no conversation c1", 2, "NotFound", None)]

    assert api.run() == 0

    assert capsys.readouterr().err == "turnstile: no conversation c1\n"
    assert [c[0] for c in api.calls] == ["ask"]


def test_a_409_body_gives_the_error_its_type_and_the_blocking_turn() -> None:
    busy_body = {
        "detail": "turn turn-c1-1 is still running",
        "error_type": "TurnInProgress",
        "turn_id": BLOCKING,
    }
    error = chat._client_error(httpx.Response(409, json=busy_body))
    assert (str(error), error.code, error.blocking_turn) == (busy_body["detail"], 2, BLOCKING)

    missing = chat._client_error(
        httpx.Response(404, json={"detail": "no turn x", "error_type": "NotFound", "turn_id": "x"})
    )
    assert missing.blocking_turn is None and str(missing) == "no turn x"
    assert chat._client_error(httpx.Response(409, text="busy")).blocking_turn is None


@pytest.mark.parametrize(
    ("blocking", "expected"),
    [
        (
            WAITING_TURN,
            f'{BLOCKING} of this conversation waits for an answer to "Which company'
            ' do you mean?", so your question was not asked',
        ),
        (turn("running"), "is still running, so your question was not asked"),
        (None, "is still running or waits for a clarification"),
    ],
    ids=["waiting", "running", "unreadable"],
)
def test_ask_names_reply_and_cancel_with_the_blocking_turn(
    blocking: TurnResult | None, expected: str
) -> None:
    line = chat.blocked_line(BLOCKING, blocking)

    assert expected in line
    assert f'turnstile reply {BLOCKING} "..."' in line
    assert f"turnstile cancel {BLOCKING}" in line
    assert "\n" not in line


def test_ask_in_a_busy_conversation_is_one_line_naming_the_ways_out(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def refused(*args: Any, **kwargs: Any) -> TurnResult:
        raise busy()

    monkeypatch.setattr(chat, "ask", refused)
    monkeypatch.setattr(chat, "get_turn", lambda *a: WAITING_TURN)

    code = main(["ask", "--conversation", "c1", QUESTION])

    out = capsys.readouterr()
    assert code == 2 and out.out == ""
    assert out.err == f"turnstile: {chat.blocked_line(BLOCKING, WAITING_TURN)}\n"
