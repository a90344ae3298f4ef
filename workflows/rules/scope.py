"""Scope rules: deterministic refusals for unambiguous, high-consequence phrasings.

They run before any model call (free). A refusal is a fixed, human-written constant,
never generated text.
"""

import re
from dataclasses import dataclass

from domain.companies import company_names, how_many, year_span

REFUSAL_TEXT = (
    f"I can only answer questions about the annual reports of {how_many()} ASX-listed "
    f"miners — {company_names()} — for {year_span(' to ')}: "
    "revenue, EBITDA, profit, dividends, net debt, capital expenditure and production, "
    "with each figure cited to a report page. I do not give investment advice or write "
    'creative pieces. Try, for example: "What was BHP\'s revenue in FY2024?"'
)

_RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "instruction_override",
        re.compile(
            r"\b(ignore|disregard|forget)\b.{0,40}\b(instructions?|rules|prompt|guidelines)\b"
            r"|\bsystem prompt\b|\byou are now\b|\bact as\b|\bjailbreak\b|\bdeveloper mode\b",
            re.I,
        ),
    ),
    (
        "investment_advice",
        re.compile(
            r"\bshould i (buy|sell|invest|hold|short)\b|\bis it worth\b"
            r"|\b(do|would|could|can) you recommend\b|\brecommend (buying|selling|investing"
            r"|i (buy|sell|invest))\b|\bwhich (one|company|miner) (do|would) you recommend\b"
            r"|\bworth (buying|investing)\b|\bgood (investment|buy)\b|\bbuy or sell\b"
            r"|\bprice target\b|\bshould we (buy|sell|invest)\b|\bwhich (stock|share)s? should\b",
            re.I,
        ),
    ),
    (
        "creative",
        re.compile(
            r"\b(write|compose|create|make up)\b.{0,30}\b(poem|story|song|haiku|joke|limerick"
            r"|essay|rap|script|tweet)\b|\b(poem|haiku|limerick|song) about\b",
            re.I,
        ),
    ),
    (
        "other_company",
        re.compile(
            r"\b(glencore|vale|anglo american|newmont|barrick|freeport|newcrest|mineral resources"
            r"|pilbara minerals|lynas|igo|woodside|santos|evolution mining|alcoa|teck|antofagasta"
            r"|apple|tesla|microsoft|amazon|google|nvidia|commonwealth bank|westpac|telstra"
            r"|wesfarmers|woolworths|csl|macquarie)\b",
            re.I,
        ),
    ),
)


@dataclass(frozen=True)
class ScopeDecision:
    refuse: bool
    reason: str | None = None


def scope_rules(question: str) -> ScopeDecision:
    """Refuse by rule when a phrasing is unambiguous; otherwise let the classifier decide."""
    for reason, pattern in _RULES:
        if pattern.search(question):
            return ScopeDecision(True, reason)
    return ScopeDecision(False)
