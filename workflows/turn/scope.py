"""The turn's scope rules, asked through the patch that reads company names as names.

`workflows.rules.scope.scope_rules` decides; a company of the coverage whose name reads
as words of advice ("Best Buy") was refused as advice before this patch. The patch is
asked only for a question on which the two readings differ, so a turn begun before it
replays as it ran. So is `scope-typed-names-v1`: a formed name typed in lower case
before a measure ("pilbara minerals revenue fy24?") is another company's, and
`scope-lowercase-names-v1`: one typed without a company's form ("newmont's aisc?")."""

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from workflows.rules.scope import ScopeDecision, scope_rules

SCOPE_NAMES = "scope-names-masked-v1"
"""ChatTurn patch (2026-12-06): a covered company's name is no phrasing of advice."""
SCOPE_TYPED = "scope-typed-names-v1"
"""ChatTurn patch (2026-12-07): another company's name typed in lower case before a measure
("pilbara minerals revenue fy24?") is another company's (it was asked back which
company)."""
SCOPE_LOWERED = "scope-lowercase-names-v1"
"""ChatTurn patch (2026-12-07): another company's name typed in lower case without a
company's form ("newmont's aisc?", "what did glencore pay") is another company's (it was
asked back which company, or answered a covered company's figure without a word)."""


def turn_scope(question: str) -> ScopeDecision:
    """The scope rules' decision for a turn's question (workflow code only)."""
    return scope_rules(
        question,
        masked=lambda: workflow.patched(SCOPE_NAMES),
        typed=lambda: workflow.patched(SCOPE_TYPED),
        lowered=lambda: workflow.patched(SCOPE_LOWERED),
    )
