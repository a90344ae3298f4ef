"""Confidence is derived from the count of unsupported claims, never asked of a model."""

from dataclasses import dataclass
from typing import Literal

CHECK_REPORT_WARNING = (
    "Several statements could not be verified against the reports; please check the "
    "cited report pages before relying on this answer."
)
PARTIAL_DISCLAIMER = "Some statements in this answer could not be verified against the reports."
JUDGE_UNAVAILABLE_WARNING = (
    "The answer check was unavailable; figures were checked numerically only."
)


@dataclass(frozen=True)
class Band:
    grounded: Literal["yes", "partial", "no"]
    confidence: Literal["high", "medium", "low"]
    warnings: tuple[str, ...]


def confidence_band(unsupported: int, judge_unavailable: bool = False) -> Band:
    """0 unsupported → yes/high; 1–3 → partial/medium; more → no/low with a warning.

    When the judge was unavailable (fail-open), confidence is capped at medium.
    """
    if unsupported == 0:
        band = Band("yes", "high", ())
    elif unsupported <= 3:
        band = Band("partial", "medium", (PARTIAL_DISCLAIMER,))
    else:
        band = Band("no", "low", (CHECK_REPORT_WARNING,))
    if judge_unavailable:
        confidence = "medium" if band.confidence == "high" else band.confidence
        band = Band(band.grounded, confidence, (*band.warnings, JUDGE_UNAVAILABLE_WARNING))
    return band


MEDIUM_SHARE = 0.5
"""An answer to a question asking for figure items is medium when at least this share of
them is answered and verified, low below it (high only when all are). Calibrated on the
labelled suites and the FinanceBench development half (docs/controls.md, the reliability
table): no answer below half its items was right as a whole."""


def share_confidence(
    asked: int, missing: int, unsupported: int
) -> Literal["high", "medium", "low"] | None:
    """Confidence as the share of the asked items answered and verified (an unsupported
    claim counts against one item); None when the question asks for no items."""
    if asked <= 0:
        return None
    share = max(0, asked - missing - unsupported) / asked
    if share >= 1:
        return "high"
    return "medium" if share >= MEDIUM_SHARE else "low"


NUMBERS_UNVERIFIED_WARNING = "The figures could not be checked against the reports."
NO_FIGURE_GIVEN_WARNING = "The answer gives none of the figures asked for."


_ORDER = ("low", "medium", "high")


def min_confidence(
    a: Literal["high", "medium", "low"], b: Literal["high", "medium", "low"]
) -> Literal["high", "medium", "low"]:
    """The lower of two confidences."""
    return a if _ORDER.index(a) <= _ORDER.index(b) else b


@dataclass(frozen=True)
class Shape:
    """How a graded answer is shown: its bands, its warnings and its disclaimer line."""

    grounded: Literal["yes", "partial", "no"]
    confidence: Literal["high", "medium", "low"]
    warnings: tuple[str, ...]
    disclaimer: str | None
    """Appended to the answer text itself (the band's first warning), if any."""


def _covered(
    band: Band,
    items: tuple[int, int],
    missing: int,
    unsupported: int,
    judge_unavailable: bool,
    figures_given: bool,
) -> Literal["high", "medium", "low"]:
    """The band's confidence with coverage counted: the share of the asked items (`items`:
    how many were asked, how many of them the answer does not give) answered and
    verified when the question asks for items; else at most medium while a figure is
    missing. Low when the answer gives none of the figures asked for."""
    by_share = share_confidence(items[0], items[1], unsupported)
    if by_share is not None:
        confidence = min_confidence(by_share, band.confidence) if judge_unavailable else by_share
        if missing > items[1]:  # a figure not asked for taken out, or its gap: a draft
            confidence = min_confidence(confidence, "medium")  # partly wrong stays medium
        # More than three unsupported claims: not grounded, and never more than low.
        return "low" if not figures_given or band.grounded == "no" else confidence
    if missing:
        # No warning of its own: the answer says each missing figure (its line or its
        # table row) and `TurnResult.confidence_reason` says why confidence is lower; a
        # notice repeating them was one more box saying the same thing.
        return "low" if not figures_given else min_confidence("medium", band.confidence)
    return band.confidence


def shape_answer(
    unsupported: int,
    judge_unavailable: bool,
    numbers_unverified: bool,
    missing: int = 0,
    figures_given: bool = True,
    figures_asked: bool = False,
    asked: int = 0,
    asked_missing: int = 0,
) -> Shape:
    """Confidence from the unsupported count; an unchecked figure forces no / low.

    When the numeric check could not run (fail-closed), no figure counts as verified,
    whatever the judge said. Coverage counts per requested figure, not per company: with
    `missing` figures asked for and not found, confidence is at most medium, and low when
    the answer gives none of the figures asked for (only its not-found lines). An answer
    to a question that asks for figures (`figures_asked`) that gives none is not
    grounded, whatever else it says: zero figures checked backs nothing that was asked.
    A question asking for `asked` (company, year, metric) items takes its confidence from
    the share of them answered and verified (`share_confidence`), capped as the judge's
    band caps it when the judge was unavailable.
    """
    band = confidence_band(unsupported, judge_unavailable)
    grounded = band.grounded
    confidence = _covered(
        band, (asked, asked_missing), missing, unsupported, judge_unavailable, figures_given
    )
    warnings: tuple[str, ...] = ()
    if figures_asked and not figures_given:
        grounded, confidence = "no", "low"
        if not missing:  # else its not-found lines say so already, each figure by name
            warnings = (*warnings, NO_FIGURE_GIVEN_WARNING)
    if numbers_unverified:
        grounded, confidence = "no", "low"
        warnings = (*warnings, NUMBERS_UNVERIFIED_WARNING)
    first = band.warnings[0] if band.warnings else None
    return Shape(grounded, confidence, (*warnings, *band.warnings), first)
