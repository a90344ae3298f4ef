"""The chaos benchmark's careful client and its question mix.

Each turn is driven through the HTTP API as a careful client drives it: one Idempotency-Key
per turn, the POST resent unchanged on 5xx and transport errors, 202s polled, clarifying
questions answered; every response the client had to retry or could not use is timed.
"""

import asyncio
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

from domain.turns import SETTLED, WAITING

# "failed" and "cancelled" are listed here as well so that the benchmark counts them as
# settled whether or not the contract it runs against has them yet.
TERMINAL: frozenset[str] = frozenset(SETTLED) | {"failed", "cancelled"}


@dataclass(frozen=True)
class Question:
    """One question of the mix; `reply` answers its clarifying question, if it asks one."""

    kind: str
    text: str
    reply: str | None = None
    expected: str = "answered"


QUESTIONS: tuple[Question, ...] = (
    Question("figure", "What was BHP's revenue in FY2024?"),
    Question("figure", "What was Fortescue's net debt in FY2023?"),
    Question("figure", "What was South32's underlying EBITDA in FY2025?"),
    Question("figure", "What was Northern Star's revenue in FY2024?"),
    Question("figure", "What was Rio Tinto's net earnings in FY2023?"),
    Question("comparison", "Compare the revenue of BHP, Rio Tinto and Fortescue in FY2024"),
    Question("comparison", "Compare net debt of BHP, Fortescue and South32 in FY2025"),
    Question("comparison", "Compare the revenue of all five companies in FY2024"),
    Question("refusal", "Should I buy BHP shares?", expected="refused"),
    Question("refusal", "Write a poem about Fortescue", expected="refused"),
    Question("refusal", "What is the capital of France?", expected="refused"),
    Question("clarification", "Tell me about this company", "BHP FY2024"),
    Question("clarification", "What was this company's revenue in FY2024?", "Fortescue"),
)


@dataclass
class Turn:
    """One turn as the client saw it; times are seconds since the run's start."""

    index: int
    question: Question
    conversation_id: str
    idempotency_key: str
    turn_id: str | None = None
    sent_at: float | None = None
    accepted_at: float | None = None
    settled_at: float | None = None
    status: str | None = None
    answer: str | None = None
    clarification_round: int = 0
    outcome: str = "pending"  # settled | lost | unaccepted | rejected | not_sent
    asked_clarification: bool = False
    replay: str | None = None  # what a second, identical POST got back
    polls: int = 0
    http: Counter[str] = field(default_factory=Counter)

    @property
    def in_flight(self) -> bool:
        return self.sent_at is not None and self.outcome == "pending"


@dataclass
class HttpEvent:
    """A response the client had to retry or could not use (5xx, 4xx, transport error)."""

    at: float
    route: str
    code: str
    turn_index: int
    turn_id: str | None
    detail: str
    seconds: float | None = None
    """How long the API took to give this answer (None for a transport error)."""


def _done(data: dict[str, Any], after_round: int) -> bool:
    status = data.get("status")
    if status in TERMINAL:
        return True
    return status == WAITING and int(data.get("clarification_round", 0)) > after_round


class Driver:
    """Drives turns through the HTTP API like a careful client, timing everything."""

    def __init__(self, api_url: str, settle_timeout: float, hard_deadline: float) -> None:
        self.http = httpx.AsyncClient(
            base_url=api_url, timeout=httpx.Timeout(60.0, connect=5.0), trust_env=False
        )
        self.t0 = time.monotonic()
        self.settle_timeout = settle_timeout
        self.hard_deadline = hard_deadline
        # Until every fault is over, no turn may be given up on: a deadline only starts
        # once the stack is whole again (or, for a later turn, once it was sent).
        self.faults_over = False
        self.last_fault_end = 0.0
        self.events: list[HttpEvent] = []
        self.poll_interval = 0.25

    def now(self) -> float:
        return time.monotonic() - self.t0

    def _expired(self, turn: Turn) -> bool:
        now = self.now()
        if now > self.hard_deadline:
            return True
        if not self.faults_over:
            return False
        return now > max(self.last_fault_end, turn.sent_at or 0.0) + self.settle_timeout

    def _event(
        self, turn: Turn, route: str, code: str, detail: str, seconds: float | None = None
    ) -> None:
        turn.http[f"{route} {code}"] += 1
        self.events.append(
            HttpEvent(self.now(), route, code, turn.index, turn.turn_id, detail, seconds)
        )

    async def _call(
        self, turn: Turn, method: str, url: str, route: str, **kwargs: Any
    ) -> httpx.Response | None:
        """Send until the API answers below 500; None once the turn's deadline passed.

        Retrying a POST is safe only because it is resent unchanged (same body, same
        Idempotency-Key): the API must answer it with the turn it already started.
        """
        backoff = 0.25
        while not self._expired(turn):
            sent = time.monotonic()
            try:
                response = await self.http.request(method, url, **kwargs)
            except httpx.TransportError as exc:
                self._event(turn, route, type(exc).__name__, str(exc)[:200])
            else:
                if response.status_code < 500:
                    return response
                self._event(
                    turn,
                    route,
                    str(response.status_code),
                    response.text[:300],
                    round(time.monotonic() - sent, 3),
                )
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, 2.0)
        return None

    async def _poll(
        self, turn: Turn, data: dict[str, Any], after_round: int
    ) -> dict[str, Any] | None:
        """Poll GET /v1/turns/{id} until the turn settles or asks after `after_round`."""
        while not _done(data, after_round):
            if self._expired(turn):
                return None
            await asyncio.sleep(self.poll_interval)
            turn.polls += 1
            response = await self._call(
                turn, "GET", f"/v1/turns/{turn.turn_id}", "GET /v1/turns/{id}"
            )
            if response is None:
                return None
            if response.status_code != 200:
                self._event(turn, "GET /v1/turns/{id}", str(response.status_code), response.text)
                continue
            data = response.json()
        return data

    async def _reply(self, turn: Turn, data: dict[str, Any]) -> dict[str, Any] | None:
        assert turn.question.reply is not None and turn.turn_id is not None
        asked = int(data.get("clarification_round", 0))
        route = "POST /v1/turns/{id}/clarification"
        while True:
            response = await self._call(
                turn,
                "POST",
                f"/v1/turns/{turn.turn_id}/clarification",
                route,
                json={"reply": turn.question.reply},
            )
            if response is None:
                return None
            if response.status_code in (200, 202):
                turn.http[f"{route} {response.status_code}"] += 1
                data = response.json()
                break
            self._event(turn, route, str(response.status_code), response.text[:300])
            if response.status_code != 409:
                turn.outcome = "rejected"
                return None
            # 409 NotWaiting: an earlier attempt (answered 5xx) may have been delivered.
            # Read the turn: still waiting on the same round means the reply was not
            # taken, so it is sent again; anything else means it was.
            current = await self._call(
                turn, "GET", f"/v1/turns/{turn.turn_id}", "GET /v1/turns/{id}"
            )
            if current is None:
                return None
            data = current.json()
            if data.get("status") != WAITING or int(data.get("clarification_round", 0)) != asked:
                break
            await asyncio.sleep(self.poll_interval)
        return await self._poll(turn, data, asked)

    async def drive(self, turn: Turn, replay: bool = False) -> None:
        """Send one turn and follow it until it settles (or its deadline passes).

        With `replay`, the same POST is sent once more after the turn settled, as a
        client whose first answer got lost would: the API must answer with this turn.
        """
        body = {"question": turn.question.text, "conversation_id": turn.conversation_id}
        headers = {"Idempotency-Key": turn.idempotency_key}
        turn.sent_at = self.now()
        response = await self._call(
            turn, "POST", "/v1/turns", "POST /v1/turns", json=body, headers=headers
        )
        if response is None:
            turn.outcome = "unaccepted"
            return
        if response.status_code not in (200, 202):
            self._event(turn, "POST /v1/turns", str(response.status_code), response.text[:300])
            turn.outcome = "rejected"
            return
        data: dict[str, Any] | None = response.json()
        assert data is not None
        turn.http[f"POST /v1/turns {response.status_code}"] += 1
        turn.turn_id = str(data["turn_id"])
        turn.accepted_at = self.now()
        data = await self._poll(turn, data, 0)
        if data is not None and data.get("status") == WAITING and turn.question.reply:
            turn.asked_clarification = True
            data = await self._reply(turn, data)
        if data is None:
            if turn.outcome == "pending":
                turn.outcome = "lost"
            return
        turn.settled_at = self.now()
        turn.status = str(data.get("status"))
        turn.answer = data.get("answer")
        turn.clarification_round = int(data.get("clarification_round", 0))
        turn.outcome = "settled"
        if replay:
            await self._replay(turn, body, headers)

    async def _replay(self, turn: Turn, body: dict[str, str], headers: dict[str, str]) -> None:
        """Send a settled turn's POST again, unchanged; note whether it came back as itself."""
        again = await self._call(
            turn, "POST", "/v1/turns", "POST /v1/turns", json=body, headers=headers
        )
        code = "none" if again is None else str(again.status_code)
        same = again is not None and again.json().get("turn_id") == turn.turn_id
        turn.replay = f"{code} {'same turn' if same else 'ANOTHER TURN OR NO ANSWER'}"


async def drive_all(
    driver: Driver,
    pending: list[Turn],
    concurrency: int,
    may_send: Callable[[int], bool] | None = None,
) -> None:
    """Drive the turns of `pending` (last first), `concurrency` at a time; a turn whose
    index `may_send` refuses waits until it allows it. Others may take turns from
    `pending` too."""

    async def lane() -> None:
        while pending:
            turn = pending.pop()
            while may_send is not None and not may_send(turn.index):
                await asyncio.sleep(0.02)
            if driver.now() > driver.hard_deadline:
                turn.outcome = "not_sent"  # the run's hard cap passed: send no more
                continue
            await driver.drive(turn)

    await asyncio.gather(*(lane() for _ in range(concurrency)))
