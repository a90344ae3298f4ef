"""The domain: pure rules, no I/O, nothing else of ours (docs/architecture.md).

Rooms, each importing only the rooms below it (the `domain-rooms` import-linter
contract in pyproject.toml):

    evaluation   case formats, scorers, live cases, shadow runs, feedback
    memory       what a turn may remember
    checks       numeric grounding, relevance, citations, injection, personal data
    reports      facts, periods, units of a report; binding amounts to company and year
    questions    what a question asks: metrics, measures, years, intent
    companies    the covered companies and their years
    language     words, numbers, amounts, units and currencies, dates, sentences

The shared records sit at the top of the package, beside the rooms, and import no
room: `models` (slots, chunks, drafts and their checks), `turns`, `provenance`,
`usage`, `budget`, `failures`.
"""
