"""The request and response bodies of the turn routes, and their shared headers and
query parameters (`api/routes/turns.py` serves them, `api/turn_service.py` does the work).
"""

import re
from typing import Annotated

from fastapi import Header, Query
from pydantic import BaseModel, ConfigDict, Field, RootModel, field_validator

from api.text import ID_CHARS, STORABLE, check_opaque, check_user_id
from domain.models import CITATION_EXAMPLE
from domain.turns import TurnResult

CONVERSATION_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
MAX_QUESTION_CHARS = 4000
MAX_RAW_CHARS = 8000
"""The longest question or reply accepted as sent, surrounding white space included; it
must be at most MAX_QUESTION_CHARS once trimmed. Both are checked while the body is
parsed, before redaction reads a character of it."""


def _text(value: str, what: str) -> str:
    value = value.strip()
    if not value:
        raise ValueError(f"{what} must not be empty")
    if len(value) > MAX_QUESTION_CHARS:
        raise ValueError(f"{what} is longer than {MAX_QUESTION_CHARS} characters")
    return value


class TurnRequest(BaseModel):
    """A question that starts a turn: in a new conversation, or continuing a named one."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"question": "What was BHP's revenue in FY2024?"},
                {
                    "question": "And its net debt?",
                    "conversation_id": "c35c244d68fec4309",
                    "user_id": "analyst-7",
                },
            ]
        },
    )

    question: Annotated[
        str,
        Field(
            min_length=1,
            max_length=MAX_RAW_CHARS,
            description="The question, in plain English (at most 4000 characters once"
            " trimmed). Personal data in it (email, phone, card, bank account, tax file"
            " number) is replaced by tokens before anything is stored.",
            examples=["What was BHP's revenue in FY2024?"],
        ),
        STORABLE,
    ]
    conversation_id: str | None = Field(
        default=None,
        description="The conversation to continue (a follow-up such as `And its net"
        " debt?` carries the company and year from it), or a new id of your choosing."
        " Omitted, the turn starts a new conversation and the result names its id.",
        examples=["c35c244d68fec4309"],
        json_schema_extra={"pattern": CONVERSATION_ID.pattern},
    )
    user_id: Annotated[str, Field(min_length=1, max_length=128), ID_CHARS] | None = Field(
        default=None,
        description="An opaque id for the person asking, never an email address or other"
        " personal data. It scopes the rate limit, remembered preferences, and an"
        " Idempotency-Key sent without a conversation.",
        examples=["analyst-7"],
    )

    @field_validator("question")
    @classmethod
    def _question(cls, value: str) -> str:
        return _text(value, "question")

    @field_validator("conversation_id")
    @classmethod
    def _conversation(cls, value: str | None) -> str | None:
        if value is not None and not CONVERSATION_ID.fullmatch(value):
            raise ValueError("conversation_id must be 1-64 characters of A-Z a-z 0-9 _ -")
        return None if value is None else check_opaque(value)

    @field_validator("user_id")
    @classmethod
    def _user(cls, value: str | None) -> str | None:
        return None if value is None else check_user_id(value)


class ClarificationRequest(BaseModel):
    """The answer to a turn's clarifying question (exactly one reply per question)."""

    model_config = ConfigDict(
        extra="forbid", json_schema_extra={"examples": [{"reply": "Fortescue, FY2024"}]}
    )

    reply: Annotated[
        str,
        Field(
            min_length=1,
            max_length=MAX_RAW_CHARS,
            description="The reply, merged into the turn's question (at most 4000"
            " characters once trimmed; personal data is tokenised as in a question).",
            examples=["Fortescue, FY2024", "BHP"],
        ),
        STORABLE,
    ]

    @field_validator("reply")
    @classmethod
    def _reply(cls, value: str) -> str:
        return _text(value, "reply")


class MessageOut(BaseModel):
    """One message of a conversation: a user's question or the assistant's answer."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "turn_id": "turn-c35c244d68fec4309-1",
                    "role": "user",
                    "content": "What was BHP's revenue in FY2024?",
                    "status": "answered",
                    "citations": [],
                    "summarised": False,
                },
                {
                    "turn_id": "turn-c35c244d68fec4309-1",
                    "role": "assistant",
                    "content": "BHP Group's revenue for FY2024 (year ended 30 June 2024) was"
                    " US$55,658 million [1].",
                    "status": "answered",
                    "citations": [CITATION_EXAMPLE],
                    "summarised": False,
                },
            ]
        }
    )

    turn_id: str = Field(
        description="The turn the message belongs to: each turn has one user and one"
        " assistant message.",
        examples=["turn-c35c244d68fec4309-1"],
    )
    role: str = Field(
        description="`user` (the question, as stored) or `assistant` (the answer).",
        examples=["assistant"],
    )
    content: str = Field(
        description="The message text; an answer's `[n]` markers refer to its citations.",
        examples=[
            "BHP Group's revenue for FY2024 (year ended 30 June 2024) was US$55,658 million [1]."
        ],
    )
    status: str = Field(
        description="The turn's status (a TurnResult status: `answered`, `refused`, ...).",
        examples=["answered"],
    )
    citations: list[dict[str, object]] = Field(
        description="The answer's cited sources, shaped as TurnResult's `citations`"
        " (empty for a user message).",
    )
    summarised: bool = Field(
        default=False,
        description="Covered by the conversation's summary (kept in full all the same).",
        examples=[False],
    )


STILL_RUNNING: dict[int | str, dict[str, object]] = {
    202: {
        "model": TurnResult,
        "description": "Accepted and still running (asked with `Prefer: respond-async` or"
        " `wait=false`, or it took longer than the request timeout): poll Location, or"
        " follow the turn's event stream (`Link`).",
        "headers": {
            "Location": {"description": "the turn's URL", "schema": {"type": "string"}},
            "Link": {
                "description": 'the turn\'s event stream, `rel="events"`',
                "schema": {"type": "string"},
            },
            "Preference-Applied": {
                "description": "`respond-async` when a `Prefer` header asked for it",
                "schema": {"type": "string"},
            },
        },
    }
}

PreferHeader = Annotated[
    str | None,
    Header(
        max_length=200,
        description="`respond-async`: answer 202 at once with the turn's id and Location"
        " instead of waiting for the outcome (RFC 7240)",
    ),
]
WaitQuery = Annotated[
    bool,
    Query(description="`false` does what `Prefer: respond-async` does: 202 at once"),
]


def prefers_async(prefer: str | None) -> bool:
    """Whether a Prefer header asks for `respond-async` (RFC 7240: a comma-separated
    list of preferences, each a name with an optional value and parameters)."""
    names = {p.split(";")[0].split("=")[0].strip().lower() for p in (prefer or "").split(",")}
    return "respond-async" in names


class Messages(RootModel[list[MessageOut]]):
    """A conversation's messages, oldest first."""
