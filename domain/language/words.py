"""The function words of English and the legal forms of company names, as data.

Each list is a text file beside this module (`function_words.txt`, `legal_forms.txt`),
one word a line, read once at import. Every reader that skips function words or knows a
legal form builds on these, adding or leaving out a few words of its own where it means
something more (a question's scaffolding, a name's suffixes) and saying why there.

The readers of every vocabulary file of the domain are here too: a room's own vocabulary
(a question's measure words, a statement's line names) is a text file beside the module
that uses it, read once at import with `read_entries`, `read_map` or `read_groups`: one
entry a line, `#` lines are comments (the reasons for the words beside them), blank
lines are skipped.
"""

import re
from pathlib import Path


def read_entries(path: Path) -> tuple[str, ...]:
    """A vocabulary file's entries in its order: each line, stripped, that is neither
    blank nor a `#` comment."""
    text = path.read_text(encoding="utf-8")
    return tuple(s for line in text.splitlines() if (s := line.strip()) and s[0] != "#")


def read_map(path: Path) -> dict[str, str]:
    """A vocabulary file of `word = word` lines ("sold = sell"), in its order. A line
    without " = ", or a word said twice on the left, is an error in the file."""
    table: dict[str, str] = {}
    for entry in read_entries(path):
        key, equals, value = (s.strip() for s in entry.partition(" = "))
        if not (equals and key and value) or key in table:
            raise ValueError(f"{path.name}: not a new `word = word` line: {entry!r}")
        table[key] = value
    return table


def group_members(entry: str) -> tuple[str, ...]:
    """The members of a group written between commas ("sales, turnover, net sales")."""
    members = tuple(s.strip() for s in entry.split(","))
    if not all(members):
        raise ValueError(f"an empty member in the group {entry!r}")
    return members


def read_groups(path: Path) -> tuple[tuple[str, ...], ...]:
    """A vocabulary file of groups, one a line, its members between commas, in its order."""
    return tuple(group_members(entry) for entry in read_entries(path))


def _read(name: str) -> tuple[str, ...]:
    return read_entries(Path(__file__).with_name(name))


FUNCTION_WORDS: frozenset[str] = frozenset(_read("function_words.txt"))
"""English function words, lower case ("the", "of", "which", "would", "between")."""

_LEGAL_FORMS_AS_WRITTEN = _read("legal_forms.txt")

LEGAL_FORMS: tuple[str, ...] = tuple(form.replace(".", "") for form in _LEGAL_FORMS_AS_WRITTEN)
"""Company legal forms, lower case and without dots ("limited", "plc", "nv")."""


def legal_form_pattern(leave_out: frozenset[str] = frozenset(), *, cased: bool = False) -> str:
    """A regular expression alternation (no group of its own) of the legal forms, longest
    first, each with its dots optional ("N.V." and "NV").

    `leave_out`: forms (as in `LEGAL_FORMS`) a use does not want. With `cased`, each form
    only as a registered name writes it, capitalised or in capitals ("Limited",
    "LIMITED", "N.V."), for a pattern that tells a name by its capitals; else in lower
    case, for a pattern compiled with `re.IGNORECASE`.
    """
    written = [f for f in _LEGAL_FORMS_AS_WRITTEN if f.replace(".", "") not in leave_out]
    if cased:
        # Initials with dots between them are only ever written in capitals ("N.V.").
        written = [
            w
            for f in written
            for w in dict.fromkeys((f.upper() if "." in f[:-1] else f.capitalize(), f.upper()))
        ]
    alternatives = sorted(
        (re.escape(f).replace(r"\.", r"\.?") for f in written), key=len, reverse=True
    )
    return "(?:" + "|".join(alternatives) + ")"
