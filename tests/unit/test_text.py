"""The API's text checks: what PostgreSQL cannot store is refused with a readable reason."""

import json
from typing import Annotated

import pytest
from pydantic import BaseModel, Field, ValidationError

from api.text import ID_CHARS, CleanId, CleanText, check_id, check_storable


class _Body(BaseModel):
    question: CleanText
    user_id: Annotated[str, Field(max_length=8), ID_CHARS] | None = None
    key: CleanId | None = None


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("a\x00b", "NUL"),
        ("a\ud800", "lone surrogate"),
        ("\udfff tail", "lone surrogate"),
    ],
    ids=["nul", "high-surrogate", "low-surrogate"],
)
def test_unstorable_text_is_refused_naming_the_character(value: str, reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        check_storable(value)


@pytest.mark.parametrize(
    "value",
    ["", "BHP revenue FY2024?", "Rio Tinto — net debt 😀", "tabs\tand\nnewlines", "\ufffd"],
    ids=["empty", "ascii", "astral", "whitespace", "replacement-char"],
)
def test_storable_text_passes_unchanged(value: str) -> None:
    assert check_storable(value) is value


def test_json_with_an_escaped_lone_surrogate_is_refused_by_the_model() -> None:
    # json.loads (what the request body goes through) yields the lone surrogate as is.
    payload = json.loads('{"question": "a\\ud800"}')
    assert payload["question"] == "a\ud800"

    with pytest.raises(ValidationError) as caught:
        _Body.model_validate(payload)

    (error,) = caught.value.errors()
    assert error["loc"] == ("question",)
    assert "lone surrogate" in error["msg"]


def test_ids_refuse_control_characters_but_not_other_unicode() -> None:
    assert check_id("conv-ä_1") == "conv-ä_1"
    for value in ("a\nb", "a\x1bb", "a\x85b"):
        with pytest.raises(ValueError, match="control characters"):
            check_id(value)
    with pytest.raises(ValueError, match="NUL"):
        check_id("a\x00")


def test_length_constraint_before_the_check_is_reported_as_characters() -> None:
    with pytest.raises(ValidationError) as caught:
        _Body(question="q", user_id="x" * 9)

    (error,) = caught.value.errors()
    assert error["type"] == "string_too_long"
    assert "at most 8 characters" in error["msg"]


def test_schema_publishes_what_the_checks_refuse() -> None:
    properties = _Body.model_json_schema()["properties"]

    assert properties["question"]["pattern"] == "^[^\\x00]*$"
    user_id = properties["user_id"]["anyOf"][0]
    assert user_id["maxLength"] == 8 and user_id["pattern"].startswith("^[^\\x00-\\x1f")


def test_optional_field_with_the_check_after_its_constraints_accepts_none() -> None:
    class Optional(BaseModel):
        key: Annotated[str | None, Field(max_length=4), ID_CHARS] = None

    assert Optional().key is None
    assert Optional(key="k-1").key == "k-1"
    with pytest.raises(ValidationError, match="control characters"):
        Optional(key="k\n")
    with pytest.raises(ValidationError, match="at most 4 characters"):
        Optional(key="k-123")
    (branch, _) = Optional.model_json_schema()["properties"]["key"]["anyOf"]
    assert branch["pattern"].startswith("^[^\\x00")
