"""The turn's carry-forward, asked through the patches that read short forms and years
said in words (and the merge of a clarification's reply).

`workflows.rules.carry.carry_entities` decides; before `relative-years-v1` "and the
previous year?" kept the year talked about (FY2025 again) and "the year before" was read
as a measure called "before"; before `short-forms-v1` "fortescue rev fy24 pls" found
nothing ("rev" and "pls" read as the measure); before `typed-measures-v1` "bhp revnue
fy24" was answered with a "revnue: data not found" line; before `common-words-v1` a
common English word one slip from a measure word was read as it ("divided by" as
"dividend by"); before `compared-with-v1` "how does that compare to Rio Tinto?" after
BHP's figure answered Rio Tinto's alone. Each patch is asked only for a question
it changes, so a turn begun before it replays as it ran."""

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from domain.language.shorthand import expand_short_forms, has_short_forms
    from domain.questions.metrics import correct_metric_words
    from domain.turns import Carried
    from workflows.rules.carry import carry_entities, merge_reply

__all__ = [
    "CARRIED_OWN_WORDS",
    "COMMON_WORDS",
    "COMPANY_SET",
    "COMPARED_WITH",
    "RELATIVE_YEARS",
    "SHORT_FORMS",
    "TYPED_MEASURES",
    "merge_reply",
    "turn_carry",
]

RELATIVE_YEARS = "relative-years-v1"
"""ChatTurn patch (2026-12-06): a year said in words is the year it means."""
SHORT_FORMS = "short-forms-v1"
"""ChatTurn patch (2026-12-06): a short form typed ("divs", "rev", "yr") is read as its
words (`domain/language/short_forms.tsv`), a courtesy ("pls") dropped."""
TYPED_MEASURES = "typed-measures-v1"
"""ChatTurn patch (2026-12-06): a measure word typed with a slip ("revnue") is read as the
word it is one slip from, for every step (the routing step alone read it so: the answer
then gave BHP's revenue and a "revnue: data not found" line, at low confidence)."""
COMMON_WORDS = "common-words-v1"
"""ChatTurn patch (2026-12-06): a common English word is never read as a slip of a measure
word ("Define working capital ratio as total current assets divided by total current
liabilities" was read with "dividend by", and its definition was lost)."""


CARRIED_OWN_WORDS = "carried-own-words-v1"
"""ChatTurn patch (2026-12-07): a measure no metric names is carried to a follow-up in the
words it was asked in ("what about the previous year?" after "South32's TRIF" carried
nothing and answered with South32's headline figures at high confidence)."""
COMPANY_SET = "carried-company-set-v1"
"""ChatTurn patch (2026-12-07): a follow-up of a question over every company is over every
company ("and the year before?" after "which company had the highest revenue?" asked back
which company)."""
COMPARED_WITH = "compared-with-v1"
"""ChatTurn patch (2026-12-07): "how does that compare to Rio Tinto?" after a figure of
BHP's compares the two (it answered Rio Tinto's figure alone)."""


def turn_carry(question: str, recent: list[str]) -> tuple[str, Carried]:
    """The question as it is read (short forms written out) with what the conversation
    fills in (workflow code only)."""
    if has_short_forms(question) and workflow.patched(SHORT_FORMS):
        question = expand_short_forms(question)
    corrected = correct_metric_words(question, keep_common=False)
    if (kept := correct_metric_words(question)) != corrected and workflow.patched(COMMON_WORDS):
        corrected = kept
    if corrected != question and workflow.patched(TYPED_MEASURES):
        question = corrected
    return carry_entities(
        question,
        recent,
        relative=lambda: workflow.patched(RELATIVE_YEARS),
        compared=lambda: workflow.patched(COMPARED_WITH),
        own_words=lambda: workflow.patched(CARRIED_OWN_WORDS),
        company_set=lambda: workflow.patched(COMPANY_SET),
    )
