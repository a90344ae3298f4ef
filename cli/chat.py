"""`turnstile ask / reply / chat`: talk to the API and render TurnResults for people."""

import atexit
import contextlib
import json
import sys
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx

from domain.turns import SETTLED, WAITING, TurnResult

EXIT_BAD_INPUT, EXIT_UNREACHABLE, EXIT_TIMEOUT = 2, 3, 4


class ChatError(Exception):
    """An error to show in one line. `error_type` and `turn_id` are the API's, when it
    answered with its error body: a 409 `TurnInProgress` names the blocking turn."""

    def __init__(
        self, message: str, code: int, error_type: str | None = None, turn_id: str | None = None
    ) -> None:
        super().__init__(message)
        self.code = code
        self.error_type = error_type
        self.turn_id = turn_id

    @property
    def blocking_turn(self) -> str | None:
        """The turn that keeps the conversation busy, when the API refused a new turn
        because of it (409 `TurnInProgress`)."""
        return self.turn_id if self.error_type == "TurnInProgress" else None


def _detail(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return f"HTTP {response.status_code}"
    return str(body.get("detail", body)) if isinstance(body, dict) else str(body)


def _client_error(response: httpx.Response) -> ChatError:
    """A 4xx as a ChatError: the API's `detail` as the message, its error type and turn."""
    error_type = turn_id = None
    with contextlib.suppress(ValueError):
        body = response.json()
        if isinstance(body, dict):
            error_type = body.get("error_type")
            turn_id = body.get("turn_id")
    return ChatError(
        _detail(response),
        EXIT_BAD_INPUT,
        error_type if isinstance(error_type, str) else None,
        turn_id if isinstance(turn_id, str) else None,
    )


def _settle(client: httpx.Client, response: httpx.Response, timeout: float) -> TurnResult:
    """Turn a 200/202 answer into a settled (or waiting) TurnResult, polling if needed."""
    if 400 <= response.status_code < 500:
        raise _client_error(response)
    if response.status_code >= 500:
        raise ChatError(f"the API failed: {_detail(response)}", 1)
    result = TurnResult.model_validate(response.json())
    deadline = time.monotonic() + timeout
    location = response.headers.get("Location") or f"/v1/turns/{result.turn_id}"
    after_round = result.clarification_round
    while result.status == "running" or (
        response.status_code == 202
        and result.status == WAITING
        and result.clarification_round <= after_round
    ):
        if time.monotonic() > deadline:
            raise ChatError(
                f"turn {result.turn_id} did not settle within {timeout:.0f}s", EXIT_TIMEOUT
            )
        time.sleep(0.5)
        polled = client.get(location)
        if polled.status_code != 200:
            raise ChatError(_detail(polled), 1)
        result = TurnResult.model_validate(polled.json())
        if result.status in SETTLED:
            break
    return result


def ask(
    api_url: str,
    question: str,
    conversation: str | None,
    user: str | None,
    timeout: float,
    headers: Mapping[str, str] | None = None,
    fresh: bool = False,
) -> TurnResult:
    """Start a turn and wait for it; `fresh` asks for an answer not from the cache."""
    body: dict[str, str] = {"question": question}
    if fresh:
        headers = {**(headers or {}), "Cache-Control": "no-cache"}
    if conversation:
        body["conversation_id"] = conversation
    if user:
        body["user_id"] = user
    with httpx.Client(base_url=api_url, timeout=timeout + 5, headers=headers) as client:
        return _settle(client, client.post("/v1/turns", json=body), timeout)


def reply(
    api_url: str, turn_id: str, text: str, timeout: float, headers: Mapping[str, str] | None = None
) -> TurnResult:
    with httpx.Client(base_url=api_url, timeout=timeout + 5, headers=headers) as client:
        response = client.post(f"/v1/turns/{turn_id}/clarification", json={"reply": text})
        return _settle(client, response, timeout)


def cancel(
    api_url: str, turn_id: str, timeout: float, headers: Mapping[str, str] | None = None
) -> TurnResult:
    with httpx.Client(base_url=api_url, timeout=timeout + 5, headers=headers) as client:
        response = client.post(f"/v1/turns/{turn_id}/cancel")
        return _settle(client, response, timeout)


def get_turn(
    api_url: str, turn_id: str, headers: Mapping[str, str] | None = None
) -> TurnResult | None:
    """The turn as the API stores it (`GET /v1/turns/{id}`), or None when it cannot say
    (not found, an error, not reachable): callers then fall back to what they knew."""
    try:
        response = httpx.get(
            f"{api_url}/v1/turns/{quote(turn_id, safe='')}", timeout=10.0, headers=headers
        )
        if response.status_code != 200:
            return None
        return TurnResult.model_validate(response.json())
    except (httpx.HTTPError, ValueError):
        return None


def _gist(question: str | None, limit: int = 100) -> str:
    """A clarifying question's first sentence, on one line: the gist, for an error line."""
    text = " ".join((question or "").split())
    end = text.find("?")
    if 0 <= end < limit:
        return text[: end + 1]
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def blocked_line(blocking_id: str, blocking: TurnResult | None) -> str:
    """What `turnstile ask` says when another turn holds its conversation (409
    `TurnInProgress`): that the question was not asked, and the commands that free the
    conversation, with the blocking turn's id filled in. `blocking` is that turn as
    `get_turn` read it (None when it could not)."""
    turn = f"turn {blocking_id} of this conversation"
    ways_out = (
        f'answer it with turnstile reply {blocking_id} "..." or drop it with turnstile cancel'
        f" {blocking_id}"
    )
    if blocking is None:
        return (
            f"{turn} is still running or waits for a clarification, so your question was not"
            f" asked: if it waits, {ways_out}, then ask again"
        )
    if blocking.status == WAITING:
        return (
            f'{turn} waits for an answer to "{_gist(blocking.clarifying_question)}", so your'
            f" question was not asked: {ways_out}, then ask again"
        )
    if blocking.status in SETTLED:
        return f"{turn} has just settled, so your question was not asked: ask again"
    return (
        f"{turn} is still running, so your question was not asked: ask again once it has"
        f" settled (if it asks back, {ways_out})"
    )


def render(result: TurnResult, in_chat: bool = False) -> str:
    """A person-readable turn: answer, sources, confidence, warnings, or the question
    (with how to answer it: in `chat` you just type; elsewhere `turnstile reply`)."""
    # long: a turn's parts printed in reading order.
    lines: list[str] = []
    if result.status == WAITING:
        lines.append(f"? {result.clarifying_question}")
        if in_chat:
            lines.append("  (type your answer, or /cancel to drop the question)")
        else:
            lines.append(
                f'  (reply with: turnstile reply {result.turn_id} "...", '
                f"or drop it: turnstile cancel {result.turn_id})"
            )
        return "\n".join(lines)
    lines.append(result.answer or "")
    if result.citations:
        lines.append("")
        lines.append("Sources:")
        for c in result.citations:
            lines.append(f"  [{c.n}] {c.company} FY{c.fiscal_year}, {c.document}, p.{c.page}")
    if result.derived:
        lines.append("Calculated:")
        for d in result.derived:
            lines.append(f"  {d.label}: {d.formula}")
    for claim in result.unsupported_claims:  # each claim the checks could not back
        lines.append(f"! could not verify: {claim.label} ({CLAIM_WORDS.get(claim.reason, '')})")
    for warning in result.warnings:
        lines.append(f"! {warning}")
    meta = [result.status_text]
    if result.confidence:
        reason = f": {result.confidence_reason.rstrip('.')}" if result.confidence_reason else ""
        meta.append(f"confidence {result.confidence}{reason}")
    if result.failure_reason and result.status == "cancelled":
        meta.append(result.failure_reason)
    if result.degraded:
        meta.append(f"{_steps(len(result.degraded))} failed and the answer went on without")
    if result.cache == "hit":
        meta.append("reused an earlier checked answer")
    elif result.cache == "hint":
        meta.append("an earlier answer to a similar question was a lead, checked again")
    carried = result.carried
    if carried.company or carried.fiscal_year or carried.metric:
        parts = (
            carried.company,
            carried.metric,
            carried.fiscal_year and f"FY{carried.fiscal_year}",
        )
        meta.append("carried " + " ".join(str(p) for p in parts if p))
    if result.summarised:
        meta.append(f"summarised {result.summarised} older messages")
    lines.append("")
    lines.append(f"— {'; '.join(meta)} · {result.turn_id}")
    return "\n".join(lines)


CLAIM_WORDS = {
    "calculation": "a calculation that does not recompute",
    "interpolation": "an estimate",
    "general_knowledge": "not in the cited pages",
}
"""Why the checks could not back a claim, as people say it (`UnsupportedClaim.reason`)."""


def _steps(n: int) -> str:
    return "one step" if n == 1 else f"{n} steps"


def print_result(result: TurnResult, as_json: bool) -> None:
    if as_json:
        print(json.dumps(result.model_dump(mode="json"), ensure_ascii=False))
    else:
        print(render(result))


COMMANDS = ("/help", "/new", "/cancel", "/quit")

HELP = (
    "Type a question. When the assistant asks back, type your answer, or /cancel to drop "
    "its question. If the conversation already has a question waiting for an answer (asked "
    "in another window, on the web page or through the API), your question is not asked "
    "yet: that question is shown instead, and once you have answered it or dropped it "
    "with /cancel, your question is asked. /new starts a new conversation; /quit or Ctrl-D "
    "leaves, saying how to come back. Arrow keys edit the line and walk the history."
)

SHOWN_ON_RESUME = 6
"""Messages of a resumed conversation printed before its prompt (the latest ones)."""


def follow_up_line(conversation_id: str) -> str:
    return (
        f"(conversation {conversation_id}: follow up with turnstile ask --conversation"
        f' {conversation_id} "...", or turnstile chat --conversation {conversation_id})'
    )


def _resume(
    api_url: str, conversation: str, headers: Mapping[str, str] | None
) -> TurnResult | None:
    """Print the end of an existing conversation; return its turn that waits for a
    clarification, if any (the chat then takes the next line as its answer).

    Raises:
        ChatError: the conversation does not exist for this caller (2), or the API failed.
    """
    path = f"{api_url}/v1/conversations/{quote(conversation, safe='')}"
    try:
        found = httpx.get(path, timeout=15.0, headers=headers)
        if found.status_code == 404:
            raise ChatError(
                f"no conversation {conversation}: turnstile conversations lists yours",
                EXIT_BAD_INPUT,
            )
        if found.status_code != 200:
            raise ChatError(_detail(found), 1)
        response = httpx.get(f"{path}/messages", timeout=15.0, headers=headers)
    except httpx.HTTPError as exc:
        raise ChatError(f"cannot reach the API at {api_url}", EXIT_UNREACHABLE) from exc
    messages = response.json() if response.status_code == 200 else []
    if len(messages) > SHOWN_ON_RESUME:
        print(f"({len(messages) - SHOWN_ON_RESUME} earlier messages)")
    for message in messages[-SHOWN_ON_RESUME:]:
        who = "you" if message["role"] == "user" else "turnstile"
        print(f"{who}: {message['content']}")
    latest = found.json()
    if latest.get("last_status") != WAITING:
        return None
    waiting = get_turn(api_url, str(latest["last_turn_id"]), headers)
    if waiting is not None and waiting.status == WAITING:
        print(f"you: {waiting.question}")
        print(render(waiting, in_chat=True))
        return waiting
    return None


def _history(path: Path | None) -> None:
    """Line editing and history for `input()`, kept in `path` between sessions.

    readline (the standard library's) is missing on some platforms: then input stays
    plain, and the chat works the same."""
    if path is None:
        return
    try:
        import readline
    except ImportError:  # pragma: no cover - not on this platform
        return
    readline.set_history_length(1000)
    with contextlib.suppress(OSError):
        readline.read_history_file(path)
    atexit.register(lambda: _save_history(readline, path))


def _save_history(readline: Any, path: Path) -> None:
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        readline.write_history_file(path)


def _new_conversation() -> str:
    return f"c{uuid.uuid4().hex[:16]}"


def _blocked(
    api_url: str,
    exc: ChatError,
    blocking_id: str,
    question: str,
    resent: bool,
    headers: Mapping[str, str] | None,
) -> tuple[TurnResult | None, str | None]:
    """The chat's answer to 409 `TurnInProgress` on `question`: the turn that holds the
    conversation and the question to ask once it settles, each None when there is none.

    A blocking turn that waits for a clarification is offered as the chat's own question
    (answer it by typing, or /cancel), and `question` is asked after it; one still
    running is said in a line, the question not asked. One that has settled in between
    frees the conversation, so `question` is sent again (once: not when `resent`).
    """
    blocking = get_turn(api_url, blocking_id, headers)
    if blocking is None:  # cannot tell what it is: the API's own sentence
        print(f"turnstile: {exc}", file=sys.stderr)
        return None, None
    if blocking.status == WAITING:
        print(
            f"(turn {blocking_id} of this conversation waits for an answer, so your question"
            " was not asked yet: answer this one, or /cancel it, and yours is asked next)"
        )
        print(render(blocking, in_chat=True))
        return blocking, question
    if blocking.status in SETTLED:
        if not resent:
            return None, question
        print(
            f"(turn {blocking_id} of this conversation has just settled, so your question"
            " was not asked: ask it again)"
        )
        return None, None
    print(
        f"(turn {blocking_id} of this conversation is still running, so your question was"
        " not asked: wait for it and ask again, or /new to start a new conversation)"
    )
    return None, None


@dataclass
class _Session:
    """One interactive chat: where to send, and where its conversation stands."""

    api_url: str
    user: str | None
    timeout: float
    headers: Mapping[str, str] | None
    conversation: str
    waiting: TurnResult | None = None
    """The turn whose clarifying question the next line answers."""
    deferred: str | None = None
    """A question typed while another turn waited, asked once that turn has settled."""
    asked: bool = False


def chat(
    api_url: str,
    user: str | None,
    timeout: float,
    headers: Mapping[str, str] | None = None,
    history: Path | None = None,
    conversation: str | None = None,
) -> int:
    """Interactive chat; a reply to a clarifying question is sent as its answer.

    `conversation` continues an existing conversation (a new one when None). A question
    typed while another turn of the conversation waits for a clarification is kept in
    `deferred` and asked once that turn has settled (answered or cancelled here)."""
    _history(history)
    waiting = None if conversation is None else _resume(api_url, conversation, headers)
    session = _Session(
        api_url, user, timeout, headers, conversation or _new_conversation(), waiting
    )
    session.asked = waiting is not None
    print(
        f"Turnstile chat (conversation {session.conversation}). /help for commands;"
        " /quit or Ctrl-D leaves."
    )
    while True:
        resent = session.waiting is None and session.deferred is not None
        if resent:
            assert session.deferred is not None
            text, session.deferred = session.deferred, None
            print(f"(now asking your question: {text})")
        else:
            text = _typed(session)
            if not text:
                continue
            if text == "/quit":
                _leaving(session.conversation, session.waiting, session.asked)
                return 0
            if _command(session, text):
                continue
        _send(session, text, resent)


def _typed(session: _Session) -> str:
    """The next line typed at the prompt; end of input or Ctrl-C is `/quit`."""
    try:
        return input("> " if session.waiting is None else "reply> ").strip()
    except (EOFError, KeyboardInterrupt):
        print()
        return "/quit"


def _command(session: _Session, text: str) -> bool:
    """Carry out `text` if it is a command other than /quit and /cancel of a waiting
    question; False when it is to be sent."""
    if text == "/help":
        print(HELP)
        return True
    if text == "/new":
        _leaving(session.conversation, session.waiting, session.asked)
        if session.deferred is not None:
            print(f"(your question was not asked: {session.deferred})")
        session.conversation, session.waiting, session.deferred = _new_conversation(), None, None
        session.asked = False
        print(f"(new conversation {session.conversation})")
        return True
    if text.startswith("/") and text.split()[0] not in COMMANDS:
        print(f"(unknown command {text.split()[0]}: {', '.join(COMMANDS)}; nothing was asked)")
        return True
    if text == "/cancel" and session.waiting is None:
        print("(no question is waiting for an answer)")
        return True
    return False


def _send(session: _Session, text: str, resent: bool) -> None:
    """Send `text` and print what came back; on 409 `TurnInProgress` (a new question
    only), offer the turn that holds the conversation instead (`_blocked`)."""
    try:
        result = _request(session, text)
    except ChatError as exc:
        blocking_id = exc.blocking_turn
        if session.waiting is None and blocking_id is not None:
            session.waiting, session.deferred = _blocked(
                session.api_url, exc, blocking_id, text, resent, session.headers
            )
            return
        print(f"turnstile: {exc}", file=sys.stderr)
        if session.deferred is not None:
            print(f"(your question was not asked: {session.deferred})")
        session.waiting, session.deferred = None, None
        return
    print(render(result, in_chat=True))
    session.waiting = result if result.status == WAITING else None
    session.asked = True


def _request(session: _Session, text: str) -> TurnResult:
    """`text` as the waiting turn's answer (or its /cancel), else as a new question."""
    api_url, timeout, headers = session.api_url, session.timeout, session.headers
    if session.waiting is not None and text == "/cancel":
        return cancel(api_url, session.waiting.turn_id, timeout, headers)
    if session.waiting is not None:
        return reply(api_url, session.waiting.turn_id, text, timeout, headers)
    return ask(api_url, text, session.conversation, session.user, timeout, headers)


def _leaving(conversation: str, waiting: TurnResult | None, asked: bool) -> None:
    """What a person leaving a conversation needs: how to come back, and that a question
    the assistant asked still waits (the turn stays open until answered or cancelled)."""
    if waiting is not None:
        print(
            f'(the question "{_gist(waiting.clarifying_question)}" still waits for your'
            " answer and keeps the conversation busy until it times out (a day by default):"
            f" come back with turnstile chat --conversation {conversation}, or drop it with"
            f" turnstile cancel {waiting.turn_id})"
        )
    elif asked:
        print(f"(to continue: turnstile chat --conversation {conversation})")
