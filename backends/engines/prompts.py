"""The model engine's prompts: one template file per step, each with a content hash.

Templates live in `prompt_templates/<step>.md` under version control and use `{{name}}`
placeholders. Not string.Template or str.format: financial prompts are full of "US$M" and
JSON braces, which those would read as placeholders. The hash of a
template's text goes with every model call into the turn's trace, so a reviewer can tell
which wording produced an answer; change a word and the hash changes.
"""

import hashlib
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

TEMPLATE_DIR = Path(__file__).resolve().parent / "prompt_templates"
_PLACEHOLDER = re.compile(r"\{\{([a-z_]+)\}\}")
STEPS = ("route", "rewrite", "grade_documents", "synthesize", "grade_answer", "summarize")


@dataclass(frozen=True)
class Prompt:
    step: str
    text: str

    @property
    def sha(self) -> str:
        """The first 12 hex digits of the template's SHA-256."""
        return hashlib.sha256(self.text.encode()).hexdigest()[:12]

    def render(self, **values: str) -> str:
        """Fill every placeholder in one pass (a value is never read for placeholders);
        a missing value is a KeyError, never a stray `{{name}}` sent to a model."""
        return _PLACEHOLDER.sub(lambda m: values[m.group(1)], self.text)


@cache
def prompt(step: str) -> Prompt:
    """The template of one step (read once per process)."""
    if step not in STEPS:
        raise KeyError(f"no prompt for step {step!r}")
    return Prompt(step, (TEMPLATE_DIR / f"{step}.md").read_text(encoding="utf-8"))


def prompt_hashes() -> dict[str, str]:
    """Every step's template hash, for start-up logs and `turnstile status`."""
    return {step: prompt(step).sha for step in STEPS}
