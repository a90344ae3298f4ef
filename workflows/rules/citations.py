"""Citation binding: validate, post-check, renumber, prune and dedupe `[n]` markers.

Runs before any rendering. Markers index the source list the model was given
(1-based). Out-of-range markers are dropped; a marker whose source names a different
company than its sentence is dropped with a warning; the remaining sources are
deduplicated by (company, fiscal year, page) and renumbered in order of first appearance;
the reference list holds only cited sources.
"""

import re
from dataclasses import dataclass, field

from domain.companies.roster import find_companies
from domain.models import Source

MARKER = re.compile(r"\s*\[(\d+(?:\s*,\s*\d+)*)\]")
# A sentence ends at . ! ? (plus any markers right after it) followed by white space, or
# at a line break: "US$55.7 billion" stays whole and "rose. [2]" keeps its marker.
_SENTENCE = re.compile(r".*?(?:[.!?]+(?:\s*\[[\d,\s]+\])*(?=\s|$)|\n|$)", re.S)


@dataclass
class Bound:
    answer: str
    cited: list[tuple[int, Source]] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def sentences(text: str) -> list[str]:
    """Split text into sentences, keeping every character (joined, they give `text`)."""
    return [s for s in _SENTENCE.findall(text) if s]


def bind_citations(answer: str, sources: list[Source]) -> Bound:
    """Return the answer with clean, renumbered markers and the cited sources in order."""
    bound = Bound(answer="")
    numbering: dict[tuple[str, int, int], int] = {}
    first_source: dict[int, Source] = {}
    out: list[str] = []
    for sentence in sentences(answer):
        named = set(find_companies(MARKER.sub("", sentence)))

        def renumber(match: re.Match[str], named: set[str] = named) -> str:
            numbers: list[int] = []
            for raw in match.group(1).split(","):
                n = int(raw)
                if not 1 <= n <= len(sources):
                    bound.dropped.append(f"[{n}] out of range")
                    continue
                src = sources[n - 1]
                if named and src.company not in named:
                    bound.dropped.append(f"[{n}] cites {src.company}")
                    bound.warnings.append(
                        f"A citation to a {src.company} source was removed from a sentence "
                        f"about {', '.join(sorted(named))}."
                    )
                    continue
                key = (src.company, src.fiscal_year, src.page)
                if key not in numbering:
                    numbering[key] = len(numbering) + 1
                    first_source[numbering[key]] = src
                if numbering[key] not in numbers:
                    numbers.append(numbering[key])
            if not numbers:
                return ""
            return " [" + ",".join(str(n) for n in sorted(numbers)) + "]"

        out.append(MARKER.sub(renumber, sentence))
    bound.answer = re.sub(r" +([.,;:])", r"\1", "".join(out)).strip()
    bound.cited = sorted(first_source.items())
    return bound
