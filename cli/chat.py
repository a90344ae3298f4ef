"""`turnstile ask / reply / chat`: talk to the API and render TurnResults for people."""

import atexit
import contextlib
import json
import sys
import time
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import httpx

from workflows.contracts import SETTLED, WAITING, TurnResult

EXIT_BAD_INPUT, EXIT_UNREACHABLE, EXIT_TIMEOUT = 2, 3, 4


class ChatError(Exception):
    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code


def _detail(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return f"HTTP {response.status_code}"
    return str(body.get("detail", body)) if isinstance(body, dict) else str(body)


def _settle(client: httpx.Client, response: httpx.Response, timeout: float) -> TurnResult:
    """Turn a 200/202 answer into a settled (or waiting) TurnResult, polling if needed."""
    if 400 <= response.status_code < 500:
        raise ChatError(_detail(response), EXIT_BAD_INPUT)
    if response.status_code >= 500:
        raise ChatError(f"the API failed: {_detail(response)}", 1)
    result = TurnResult.model_validate(response.json())
    deadline = time.monotonic() + timeout
    location = response.headers.get("Location") or f"/v1/turns/{result.turn_id}"
    after_round = result.clarification_round
    while result.status == "running" or (
        response.status_code == 202 and result.status == WAITING
        and result.clarification_round <= after_round
    ):  # fmt: skip
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


def render(result: TurnResult, in_chat: bool = False) -> str:
    """A person-readable turn: answer, sources, confidence, warnings, or the question
    (with how to answer it: in `chat` you just type; elsewhere `turnstile reply`)."""
    lines: list[str] = []
    if result.status == WAITING:
        lines.append(f"? {result.clarifying_question}")
        if in_chat:
            lines.append("  (type your answer, or /cancel to drop the question)")
        else:
            lines.append(f'  (reply with: turnstile reply {result.turn_id} "...", '
                         f"or drop it: turnstile cancel {result.turn_id})")  # fmt: skip
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
    for warning in result.warnings:
        lines.append(f"! {warning}")
    meta = [f"status {result.status}"]
    if result.confidence:
        meta.append(f"confidence {result.confidence} (grounded {result.grounded})")
    if result.fallback_reason:
        meta.append(f"fallback {result.fallback_reason}")
    if result.failure_reason:
        meta.append(result.failure_reason)
    if result.degraded:
        meta.append("degraded " + ", ".join(d.layer for d in result.degraded))
    if result.cache == "hit":
        meta.append("reused an earlier checked answer")
    elif result.cache == "hint":
        meta.append("an earlier answer was offered to the model as a hint")
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


def print_result(result: TurnResult, as_json: bool) -> None:
    if as_json:
        print(json.dumps(result.model_dump(mode="json"), ensure_ascii=False))
    else:
        print(render(result))


HELP = (
    "Type a question. When the assistant asks back, type your answer, or /cancel to drop "
    "its question. /new starts a new conversation; an empty line, /quit or Ctrl-D leaves. "
    "Arrow keys edit the line and walk the history."
)


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


def chat(
    api_url: str, user: str | None, timeout: float, headers: Mapping[str, str] | None = None,
    history: Path | None = None,
) -> int:  # fmt: skip
    """Interactive chat; a reply to a clarifying question is sent as its answer."""
    _history(history)
    conversation = f"c{uuid.uuid4().hex[:16]}"
    waiting: TurnResult | None = None
    print(f"Turnstile chat (conversation {conversation}). /help for commands; "
          "an empty line or /quit leaves.")  # fmt: skip
    while True:
        try:
            text = input("> " if waiting is None else "reply> ").strip()
        except (EOFError, KeyboardInterrupt):
            print()
            return 0
        if not text or text == "/quit":
            return 0
        if text == "/help":
            print(HELP)
            continue
        if text == "/new":
            conversation, waiting = f"c{uuid.uuid4().hex[:16]}", None
            print(f"(new conversation {conversation})")
            continue
        if text == "/cancel" and waiting is None:
            print("(no question is waiting for an answer)")
            continue
        try:
            if waiting is not None and text == "/cancel":
                result = cancel(api_url, waiting.turn_id, timeout, headers)
            elif waiting is not None:
                result = reply(api_url, waiting.turn_id, text, timeout, headers)
            else:
                result = ask(api_url, text, conversation, user, timeout, headers)
        except ChatError as exc:
            print(f"turnstile: {exc}", file=sys.stderr)
            waiting = None
            continue
        print(render(result, in_chat=True))
        waiting = result if result.status == WAITING else None
