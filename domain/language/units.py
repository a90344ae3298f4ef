"""The money scale and currency a question asks its figures in ("in billions", "in
Australian dollars")."""

import re

_SCALE = re.compile(
    r"\b(?:in|into|as)\s+(?:(?:(?:US|A|AU)\$|USD|AUD|\$)\s*(?P<a>billions?|bn|b|millions?|mn|m)|"
    r"(?P<b>billions?|millions?|bn|mn))\b",
    re.IGNORECASE,
)


def requested_scale(text: str) -> str | None:
    """The money scale a question asks its figures in ("in billions" → "bn", "in US$m"
    → "m"), or None."""
    match = _SCALE.search(text)
    if not match:
        return None
    word = (match.group("a") or match.group("b") or "").lower()
    return "bn" if word.startswith("b") else "m"


_CURRENCY_NAMES: tuple[tuple[str, str], ...] = (
    ("US$", r"US\s*dollars?|U\.S\.\s*dollars?|American\s+dollars?|USD|US\$"),
    ("A$", r"Australian\s+dollars?|Aussie\s+dollars?|AUD|AU?\$"),
    ("euros", r"euros?|EUR|€"),
    ("pounds sterling", r"pounds?(?:\s+sterling)?|sterling|GBP|£"),
    ("yen", r"(?:Japanese\s+)?yen|JPY"),
    ("yuan", r"(?:Chinese\s+)?yuan|renminbi|RMB|CNY"),
    ("rand", r"(?:South\s+African\s+)?rand|ZAR"),
    ("Canadian dollars", r"Canadian\s+dollars?|CAD"),
    ("New Zealand dollars", r"New\s+Zealand\s+dollars?|NZD"),
    ("rupees", r"(?:Indian\s+)?rupees?|INR"),
)
_CURRENCY = re.compile(
    r"(?:\b(?:in|into|to|as)\s+(?:the\s+)?(?:"
    + "|".join(f"(?P<c{i}>{pattern})" for i, (_, pattern) in enumerate(_CURRENCY_NAMES))
    + r")(?![A-Za-z])"
    + r"|(?P<t>\b(?:"
    + "|".join(pattern for _, pattern in _CURRENCY_NAMES)
    + r")\s+terms\b))",
    re.IGNORECASE,
)


def requested_currency(text: str) -> str | None:
    """The currency a question asks its figures in ("in euros" → "euros", "in AUD" →
    "A$"), or None. Only a currency asked for counts, not one quoted in a figure."""
    match = _CURRENCY.search(text)
    if not match:
        return None
    if match.group("t"):
        term = match.group("t")
        for name, pattern in _CURRENCY_NAMES:
            if re.match(pattern, term, re.IGNORECASE):
                return name
        return None
    index = int((match.lastgroup or "c0")[1:])
    return _CURRENCY_NAMES[index][0]
