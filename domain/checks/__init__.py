"""Checks: the controls an answer and its inputs pass: numeric grounding and its
arithmetic, relevance, citations, injection and untrusted evidence, clarifying questions,
comparison tables, personal data. Above reports."""
