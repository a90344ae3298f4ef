"""Request text must be storable in PostgreSQL: refused at the edge with a readable 422.

JSON `{"question": "a\\ud800"}` decodes to a Python str holding a lone surrogate, and
pydantic accepts it; so is `"a\\u0000"`. Left alone, either fails later as a 500: psycopg
cannot encode the surrogate as UTF-8, and PostgreSQL `text`/`jsonb` refuse NUL. Checking
where the request is parsed names the field instead. The rule is hand-written (see
`domain.language.text`: no validator library checks exactly "storable by PostgreSQL"), and
it is that module's, so the API, the workflow and the save agree on one rule.

Use `CleanText` / `CleanId` as a field's type. With constraints (length, pattern), write
them first and the check last, so pydantic still reports them as string constraints
("at most 128 characters") rather than generic ones ("128 items after validation"):
`Annotated[str, Field(max_length=128), STORABLE]`. FastAPI parameters work the same way:
`Annotated[str, Path(max_length=100), ID_CHARS]`, and for an optional one
`Annotated[str | None, Header(max_length=200), ID_CHARS]` (None passes unchecked).
"""

import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated

from pydantic import GetCoreSchemaHandler, GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema, core_schema

from domain.checks import pii
from domain.language.text import unstorable


def check_storable(value: str) -> str:
    """Return `value` unchanged if PostgreSQL can store it.

    Raises:
        ValueError: it holds a NUL or a lone surrogate; the message names which.
    """
    problem = unstorable(value)
    if problem is not None:
        raise ValueError(f"must not contain {problem}")
    return value


def check_id(value: str) -> str:
    """Return `value` unchanged if it is storable and has no control characters.

    Ids end up in log lines, workflow ids and headers, where a newline or an escape
    sequence would forge or garble what an operator reads.

    Raises:
        ValueError: it is not storable, or holds a control character.
    """
    check_storable(value)
    for ch in value:
        if unicodedata.category(ch) == "Cc":
            raise ValueError(f"must not contain control characters (found U+{ord(ch):04X})")
    return value


@dataclass(frozen=True, slots=True)
class TextCheck:
    """A pydantic annotation: run `check` after the str is parsed; publish `pattern`.

    The pattern tells schema readers (clients, Schemathesis) what the check refuses. It
    cannot name surrogates: JSON Schema patterns are ECMA-262 regexes, which without the
    `u` flag see text as UTF-16 code units, so excluding U+D800-U+DFFF would also exclude
    every character outside the Basic Multilingual Plane (each is a surrogate pair).
    """

    check: Callable[[str], str]
    pattern: str

    def _validate(self, value: object) -> object:
        # Optional parameters (`Annotated[str | None, Header(), ID_CHARS]`) pass None here.
        return self.check(value) if isinstance(value, str) else value

    def __get_pydantic_core_schema__(
        self, source: object, handler: GetCoreSchemaHandler
    ) -> CoreSchema:
        return core_schema.no_info_after_validator_function(self._validate, handler(source))

    def __get_pydantic_json_schema__(
        self, schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        json_schema = handler(schema)
        for branch in json_schema.get("anyOf", [json_schema]):
            if branch.get("type") == "string":
                branch.setdefault("pattern", self.pattern)
        return json_schema


STORABLE = TextCheck(check_storable, "^[^\\x00]*$")
ID_CHARS = TextCheck(check_id, "^[^\\x00-\\x1f\\x7f-\\x9f]*$")

CleanText = Annotated[str, STORABLE]
"""Free text (a question, a reply): anything PostgreSQL can store."""

CleanId = Annotated[str, ID_CHARS]
"""An identifier or key from the client: storable, and no control characters."""


def check_opaque(value: str) -> str:
    """`value` unchanged unless it holds personal data: ids are stored and logged as they
    are, so one carrying an email address or a phone number is refused (never tokenised:
    an opaque id works as well), with the kind it looks like.

    The same detector as the redaction of questions (`domain.checks.pii.find`), so an id is
    refused exactly when the same characters in a question would be tokenised.

    Raises:
        ValueError: naming what the id looks like.
    """
    found = pii.find(value)
    if found:
        raise ValueError(
            f"must be an opaque id: this one looks like it holds {pii.describe(found)},"
            " which is personal data, and ids are stored as they are"
        )
    return value


def check_user_id(value: str) -> str:
    """A user id as every route takes it: not blank, no surrounding spaces ("hank " would
    be another user than "hank"), and opaque (`check_opaque`)."""
    if not value.strip():
        raise ValueError("user id must not be blank")
    if value != value.strip():
        raise ValueError("user id must not start or end with a space")
    return check_opaque(value)
