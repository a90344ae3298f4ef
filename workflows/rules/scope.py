"""Scope rules: deterministic refusals for unambiguous, high-consequence phrasings.

They run before any model call (free). A refusal is a fixed, human-written constant,
never generated text.
"""

import re
from dataclasses import dataclass

from domain.companies import company_names, find_companies, how_many, year_span
from domain.question import find_metrics

REFUSAL_TEXT = (
    f"I can only answer questions about the annual reports of {how_many()} ASX-listed "
    f"miners — {company_names()} — for {year_span(' to ')}: "
    "revenue, EBITDA, profit, dividends, net debt, capital expenditure and production, "
    "with each figure cited to a report page. I do not give investment advice, predict share "
    "prices or write "
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


DECLINE_LINE = (
    "I do not give investment advice, predict share prices or forecast figures, so that "
    "part of the question is left unanswered; here is what the reports say."
)
"""Opens an answer whose question wrapped advice or a prediction around a fact."""

# Share-price predictions and forecasts (scope rules version 2).
_FORECAST = re.compile(
    r"\b(?:predict|forecast|project)\w*\b"
    r"|\b(?:share|stock)\s+price\b.{0,60}\b(?:go(?:ing)?\s+(?:up|down)|rise|fall|climb|drop"
    r"|increase|decrease|next\s+(?:year|month|week|quarter)|tomorrow|in\s+(?:19|20)\d\d)\b"
    r"|\bwill\b.{0,60}\b(?:share|stock)\s+price"
    r"|\b(?:price\s+target|target\s+price)\b",
    re.I,
)
# Advice phrasings that only version 2 recognises ("is BHP a buy?").
_ADVICE_V2 = re.compile(
    r"\bis\b.{0,40}\ba\s+(?:good\s+|strong\s+)?(?:buy|sell)\b|\bbuy\s+(?:the\s+)?(?:shares?|stock)\b"
    r"|\b(?:invest|investing)\s+in\b",
    re.I,
)
_ADVICE_REASONS = ("investment_advice", "forecast")


@dataclass(frozen=True)
class ScopeDecision:
    refuse: bool
    reason: str | None = None
    decline: str | None = None
    """Set when the question wraps advice or a prediction around a factual question:
    the fact is answered and this line, in the answer text, declines the rest."""


def scope_rules_v2(question: str) -> ScopeDecision:
    """Version 2: share-price predictions and more advice phrasings are out of scope too,
    and a question that wraps them around a fact (a covered company and a metric) gets
    the fact answered with a constant line declining the rest — never silently."""
    decision = scope_rules(question)
    if decision.refuse and decision.reason not in _ADVICE_REASONS:
        return decision
    reason = decision.reason
    advice = _RULES_BY_REASON["investment_advice"]
    for name, pattern in (("investment_advice", _ADVICE_V2), ("forecast", _FORECAST)):
        if reason is None and pattern.search(question):
            reason = name
    if reason is None:
        return ScopeDecision(False)
    factual = question
    for pattern in (advice, _ADVICE_V2, _FORECAST):
        factual = pattern.sub(" ", factual)
    if find_companies(factual) and find_metrics(factual):
        return ScopeDecision(False, reason, decline=DECLINE_LINE)
    return ScopeDecision(True, reason)


def scope_rules(question: str) -> ScopeDecision:
    """Refuse by rule when a phrasing is unambiguous; otherwise let the classifier decide."""
    for reason, pattern in _RULES:
        if pattern.search(question):
            return ScopeDecision(True, reason)
    return ScopeDecision(False)


_RULES_BY_REASON = dict(_RULES)
