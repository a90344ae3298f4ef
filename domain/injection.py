"""Words a model-written text has no business with: instructions to the reader (or about
the assistant's own instructions), and claims about its own verification.

Pure and deterministic. A model's text is shown only after the checks, and the checks
are the only thing that may say an answer is verified; a sentence telling the reader to
ignore instructions, or claiming the answer "has been verified", is an injected
instruction (or a model repeating one from its input), never part of the answer.
Matched on what such a sentence does (it names instructions, prompts or a mode; it
calls the answer itself verified), not on any one phrasing of a company or a figure.
"""

import re

from domain.grounding import split_sentences

INSTRUCTIONS = re.compile(
    r"\b(?:ignore|disregard|forget|override|bypass)\s+(?:(?:all|any|the|your|my|these|those|"
    r"previous|prior|above|earlier|system|safety|other)\s+){0,4}(?:instructions?|rules|"
    r"prompts?|guidelines|checks?|guardrails?)\b"
    r"|\b(?:ignore|disregard)\s+(?:all\s+|everything\s+)?(?:the\s+)?above\b"
    r"|\bsystem\s+(?:prompt|message)\b|\bdeveloper\s+(?:message|mode)\b|\bjailbreak\b"
    r"|\bas\s+an\s+(?:ai|assistant|language\s+model)\b"
    r"|\b(?:no\s+need\s+to|don'?t|do\s+not|never)\s+(?:check|verify|double-check)\b",
    re.IGNORECASE,
)
"""A sentence about instructions, prompts or checks (to the reader or the assistant)."""
SELF_VERIFIED = re.compile(
    r"\b(?:this|the|my|these|our)\s+(?:answer|response|reply|figures?|numbers?|information|"
    r"data|output)\s+(?:is|are|has\s+been|have\s+been|was|were)\s+(?:\w+\s+){0,2}?"
    r"(?:verified|checked|guaranteed|certified|confirmed|validated|accurate|correct)\b",
    re.IGNORECASE,
)
"""A sentence calling the text itself verified: only the checks may say that."""


def speaks_to_the_reader(sentence: str) -> bool:
    """Whether `sentence` carries an instruction or a claim about its own verification."""
    return bool(INSTRUCTIONS.search(sentence) or SELF_VERIFIED.search(sentence))


def without_instructions(answer: str) -> tuple[str, list[str]]:
    """`answer` without its sentences that speak to the reader; and those sentences."""
    dropped = [s for s in split_sentences(answer) if speaks_to_the_reader(s)]
    text = answer
    for sentence in dropped:
        text = text.replace(sentence, " ", 1)
    if not dropped:
        return answer, []
    kept = "\n".join(" ".join(line.split()) for line in text.splitlines())
    return re.sub(r"\n{3,}", "\n\n", kept).strip(), dropped
