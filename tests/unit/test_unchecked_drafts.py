"""A draft whose numeric check could not run is never shown (`shown_passes`, under the
`numbers-unchecked-closed-v1` patch): fires on an unchecked draft, quiet on checked ones."""

from domain.models import Draft
from workflows.rules.gate import JUDGE_UNAVAILABLE, NUMBERS_UNCHECKED
from workflows.turn.answer import Pass, shown_passes

DRAFT = Draft(answer="BHP Group's revenue for FY2024 was US$55,658 million [1].")


def drafted(number: int, *, unchecked: bool = False, judge_closed: bool = False) -> Pass:
    return Pass(
        number, DRAFT, [], [], [], True, numbers_unverified=unchecked, judge_closed=judge_closed
    )


def test_an_unchecked_draft_alone_is_withheld_with_its_own_fallback() -> None:
    shown, reason = shown_passes([drafted(1, unchecked=True)], lambda: True)
    assert shown == {} and reason == NUMBERS_UNCHECKED


def test_a_checked_pass_is_shown_instead_of_an_unchecked_one() -> None:
    shown, reason = shown_passes([drafted(1, unchecked=True), drafted(2)], lambda: True)
    assert list(shown) == [2] and reason is None


def test_before_the_patch_an_unchecked_draft_was_shown() -> None:
    shown, reason = shown_passes([drafted(1, unchecked=True)], lambda: False)
    assert list(shown) == [1] and reason is None


def test_checked_drafts_never_ask_the_patch_and_are_all_shown() -> None:
    def never() -> bool:
        raise AssertionError("the patch is asked only when a check could not run")

    shown, reason = shown_passes([drafted(1), drafted(2)], never)
    assert list(shown) == [1, 2] and reason is None


def test_a_judge_that_failed_closed_keeps_its_own_fallback() -> None:
    done = [drafted(1, unchecked=True, judge_closed=True)]
    assert shown_passes(done, lambda: True) == ({}, JUDGE_UNAVAILABLE)
