"""The turn's carry-forward, asked through the patch that reads years said in words (and
the merge of a clarification's reply).

`workflows.rules.carry.carry_entities` decides; before this patch "and the previous year?"
kept the year talked about (FY2025 again) and "the year before" was read as a measure
called "before". The patch is asked only for a question that says a year in words, so a
turn begun before it replays as it ran."""

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from domain.turns import Carried
    from workflows.rules.carry import carry_entities, merge_reply

__all__ = ["RELATIVE_YEARS", "merge_reply", "turn_carry"]

RELATIVE_YEARS = "relative-years-v1"
"""ChatTurn patch (2026-12-06): a year said in words is the year it means."""


def turn_carry(question: str, recent: list[str]) -> tuple[str, Carried]:
    """The question with what the conversation fills in (workflow code only)."""
    return carry_entities(question, recent, relative=lambda: workflow.patched(RELATIVE_YEARS))
