"""What a conversation's summary loses: conversations whose later turns need early facts.

A conversation here asks `length` questions, each for a figure the reports print (typed-
suite cases, as people type them, no follow-ups), so that its first answers fall out of
the last messages synthesis is given (`KEEP_RECENT`) and a summary is made of them. At
the end, every figure an early answer showed is looked for in what the next turn's
synthesis would get: **with the summary buffer** (the newest summary and the last
messages) and **without** (the last messages alone). The share kept each way is the
suite's score: what the buffer saves, and what it still loses (figures of answers
neither summarised yet nor among the last messages, and figures the summary dropped).

Pure: the conversations come from the suites' cases, the runner asks them (tests/
workflows/test_summary_loss.py through a real worker), and `score` judges what it read.
"""

import random
from collections.abc import Sequence
from dataclasses import dataclass

from domain.evaluation.scoring import EvalCase, TurnExpected, shows
from domain.memory.rules import KEEP_RECENT


@dataclass(frozen=True)
class Conversation:
    questions: list[str]
    figures: list[str]
    """The figure each question's answer should show (the case's own `present`)."""


def conversations(
    cases: Sequence[EvalCase], count: int, length: int, seed: int = 8
) -> list[Conversation]:
    """`count` conversations of `length` single-figure questions, no figure twice in one."""
    usable = [
        c
        for c in cases
        if not c.before
        and isinstance(c.expected, TurnExpected)
        and c.expected.status == "answered"
        and len(c.expected.present) == 1
        and any(ch.isdigit() for ch in c.expected.present[0])  # a figure, not a ranking's words
    ]
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        picked: list[EvalCase] = []
        for case in rng.sample(usable, len(usable)):
            assert isinstance(case.expected, TurnExpected)
            if all(p.expected.present != case.expected.present for p in picked):  # type: ignore[union-attr]
                picked.append(case)
            if len(picked) == length:
                break
        figures = [c.expected.present[0] for c in picked]  # type: ignore[union-attr]
        out.append(Conversation([c.query for c in picked], figures))
    return out


@dataclass(frozen=True)
class Kept:
    early: int
    """Figures early answers showed (answers no longer among the last messages)."""
    with_summary: int
    without_summary: int
    dropped: int
    """Figures of answers the summary covers that it does not keep: the summary's loss."""
    waiting: int
    """Figures of answers neither summarised yet nor among the last messages: lost to
    the next turn's synthesis until the next summary (more than 10 messages wait)."""


def score(
    conversation: Conversation,
    answers: Sequence[str],
    summary: str | None,
    recent: Sequence[str],
    summarised_turns: int,
) -> Kept:
    """How many of the figures early answers showed the next turn could still see;
    `summarised_turns`: how many of the first turns the summary covers."""
    early_turns = len(answers) - KEEP_RECENT // 2
    early = [
        (turn, figure)
        for turn, (figure, answer) in enumerate(zip(conversation.figures, answers, strict=False))
        if turn < early_turns and shows(answer, figure)  # never given: not the summary's loss
    ]
    last = "\n".join(recent)
    buffered = f"{summary or ''}\n{last}"
    kept = [(t, f) for t, f in early if shows(buffered, f)]
    return Kept(
        early=len(early),
        with_summary=len(kept),
        without_summary=sum(shows(last, f) for _, f in early),
        dropped=sum(t < summarised_turns and (t, f) not in kept for t, f in early),
        waiting=sum(t >= summarised_turns and (t, f) not in kept for t, f in early),
    )
