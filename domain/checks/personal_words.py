"""Personal details written in words: a name with a title, a date of birth, a health
detail, a street address. `domain.checks.pii.find` reads these beside the numbered kinds.

The numbered kinds have checksums; these have none, so each is found only in the shape a
person writes about themselves or someone they name: a title before capitalised names
("Dr Jane O'Brien"), "my name is ...", a date a birth word stands before ("born on 3 March
1981", "DOB 03/04/1981"), a health word after a person ("I was diagnosed with ...", "my
condition is ..."), a number before capitalised words and a street word ("12 Smith St,
Perth WA 6000") or any address after "I live at". What a report says stays what it is:
the company is never "I", a fiscal date has no birth word, a figure has no street.

Hand-written for the reason `domain.checks.pii` gives (the well-kept detectors load spaCy models
at run time). The words that carry the shapes (titles, months, street types, health
verbs) are English's grammar for them, not a list of names, conditions or places: a name,
an illness or a street no one here has seen is found by its shape.
"""

import re
from collections.abc import Iterator

from wordfreq import top_n_list

_CAPITALISED = r"[A-Z][A-Za-z'’]*[a-z](?:-[A-Z][A-Za-z'’]*[a-z])?"
"""One capitalised name: "Smith", "O'Brien", "McDonald", "Smith-Jones"."""

_TITLES = r"Mr|Mrs|Ms|Miss|Mx|Mister|Dr|Prof|Professor|Sir|Dame"
"""The titles written before a person's name. Not "Brother", "Justice", "Hon" or "Lord":
as often a company's or a department's first word ("Brother Industries", "Hon Hai")."""
_TITLED_NAME = re.compile(
    rf"(?<![A-Za-z])(?:{_TITLES})\.? (?:[A-Z]\.? ){{0,2}}{_CAPITALISED}(?: {_CAPITALISED}){{0,2}}"
)

_COMMON = frozenset(top_n_list("en", 300))
"""English's 300 most used words (wordfreq, shipped in its wheel): "my name is jane smith
and ..." ends the name at "and". A first or family name among them ("will", "may") ends
it early; the words before it are still tokenised."""
_INTRODUCED = re.compile(
    r"(?i)\b(?:my (?:full |legal )?name is|my name's|i am called|i'm called|call me)"
    r" ((?:[A-Za-z][A-Za-z'’-]*\.? ?){1,4})"
)

_MONTHS = (
    r"jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?"
)
_DAY = r"\d{1,2}(?:st|nd|rd|th)?"
_DATE = (
    rf"(?:\d{{1,2}}[/.-]\d{{1,2}}[/.-]\d{{2,4}}|\d{{4}}-\d{{2}}-\d{{2}}"
    rf"|{_DAY} (?:of )?(?:{_MONTHS})\.?,? \d{{4}}|(?:{_MONTHS})\.? {_DAY},? \d{{4}})"
)
_BIRTH = re.compile(
    rf"(?i)\b(?:(?:born|birth|birthday|dob)\b|d\.o\.b\b\.?)(?:[^.?!\n]|\.(?=\S)){{0,25}}?({_DATE})(?![\d/])"
)

_KIN = (
    r"wife|husband|partner|son|daughter|child|children|kids?|mother|father|mum|mom|dad"
    r"|brother|sister|baby|friend|fianc[ée]e?|grandmother|grandfather|grandson|granddaughter"
)
_PERSON = rf"(?:i|i'm|i am|i was|i've been|i have been|i've|i have|my (?:{_KIN}))"
"""Who a health detail is about: the writer or a person close to them (never "my shares
are treated for tax", "my company is undergoing a restructure")."""
_HEALTH_VERBS = (
    r"diagnosed with|suffer(?:s|ed|ing)? from|(?:being |been )?treated for|allergic to"
    r"|recovering from|undergoing|living with|on medication for|taking medication for"
    r"|prescribed|hospitali[sz]ed (?:for|with)"
)
_DETAIL = r"[^.,;:?!\n()]{1,60}?(?=$|[.,;:?!\n()]| and | but | so | because | what | how )"
_HEALTH = re.compile(
    rf"(?i)\b{_PERSON} (?:\w+ ){{0,2}}?(?:{_HEALTH_VERBS}) {_DETAIL}"
    rf"|\bmy (?:medical |health |mental health )?(?:condition|diagnosis|illness|disability"
    rf"|medical history|medication)s?(?: (?:is|are|was|were|includes?))? {_DETAIL}"
    r"|\bi(?:'m| am) (?:pregnant|disabled|diabetic|epileptic|asthmatic|hiv[- ]positive)\b"
)

_STREET_TYPES = (
    r"Street|St|Road|Rd|Avenue|Ave|Drive|Dr|Lane|Ln|Place|Pl|Court|Ct|Crescent|Cres"
    r"|Parade|Pde|Boulevard|Blvd|Way|Terrace|Tce|Highway|Hwy|Close|Circuit|Cct|Grove"
    r"|Square|Sq|Esplanade|Esp|Row|Mews|Track|Trail|Rise|Walk|Loop|Quay"
)
_UNIT = r"(?:(?:Unit|Apt|Apartment|Flat|Level|Suite|Shop) ?\d{1,4}[A-Za-z]?,? )?"
_LOCALITY = rf"(?:,? (?:{_CAPITALISED} ){{0,2}}(?:[A-Z]{{2,3}} )?\d{{4}}\b)?"
# A house number reads as a year ("the 2019 Federal Court ruling", "2023 Half Year Close")
# only after a unit ("Unit 4, 1959 ...") or "I live at" (below).
_HOUSE = rf"(?:{_UNIT[:-1]}\d|(?!(?:19|20)\d\d\b)\d)\d{{0,4}}[A-Za-z]?(?:[/-]\d{{1,5}})?"
_STREET = re.compile(
    rf"(?<![\w$.,]){_HOUSE} (?:{_CAPITALISED} ){{1,3}}(?:{_STREET_TYPES})\b\.?{_LOCALITY}"
)
_LIVES_AT = re.compile(
    r"(?i)\b(?:i live at|i live on|i reside at|we live at"
    r"|my (?:home |postal |street |residential )?address is|send (?:it|them|mail|post) to)"
    r" ([^?!;\n]{4,80}?)(?=$|[?!;\n]| and | but |\. )"
)

_A_PLACE = re.compile(r"^[^@⟦]*\d[^@⟦]* [A-Za-z]{2,}[^@⟦]*$")
"""An address after "I live at" has a number and a word, and is no email or token."""


def _introduced(text: str) -> Iterator[tuple[int, int]]:
    """The name after "my name is": its capitalised words ("Will Smith": a name may be a
    common word), or, typed in lower case, its words up to the first common one."""
    for m in _INTRODUCED.finditer(text):
        start = end = m.start(1)
        words = list(re.finditer(r"[A-Za-z][A-Za-z'’-]*(\.)?", m.group(1)))
        capitalised = bool(words) and words[0].group()[0].isupper()
        for word in words:
            bare = word.group().rstrip(".")
            if capitalised and not bare[0].isupper():
                break
            initial = len(bare) == 1 and bare.isupper()
            if not capitalised and not initial and bare.lower() in _COMMON:
                break
            end = m.start(1) + word.end()
        if end > start:
            yield start, end


def spans(text: str) -> Iterator[tuple[str, int, int]]:
    """(kind, start, end) of each detail in `text` (normalised by `domain.checks.pii`), in
    the order their kinds win an overlap: address, birth date, health, name."""
    for m in _STREET.finditer(text):
        yield "address", m.start(), m.end()
    for m in _LIVES_AT.finditer(text):
        if _A_PLACE.search(m.group(1)):  # "my address is jo@example.com": an email's
            yield "address", m.start(1), m.end(1)
    for m in _BIRTH.finditer(text):
        yield "birth", m.start(1), m.end(1)
    for m in _HEALTH.finditer(text):
        yield "health", m.start(), m.end()
    for m in _TITLED_NAME.finditer(text):
        yield "name", m.start(), m.end()
    for start, end in _introduced(text):
        yield "name", start, end
