"""Generated personal values and look-alikes, for measuring the detector both ways.

Seeded, so a failure names a case that comes back. Personal values are built from
their rules (Luhn and the networks' prefixes for cards, the TFN's weighted check, IBAN
check digits, Australian numbering) and written the ways people type them: other
separators (two spaces, slashes, underscores, dots), zero-width characters, full-width
digits, keywords glued to the number, brackets and plus signs, obfuscated emails. The
look-alikes are what ids and questions really carry: random UUIDs (v1, v4, bare hex),
ULIDs, timestamps and timestamp-style keys, and figures as annual reports print them.
"""

import random
import string
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from domain.checks.pii import PiiKind, luhn_valid


@dataclass(frozen=True)
class Planted:
    """A text holding one personal value at `start:end`."""

    text: str
    kind: PiiKind
    start: int
    end: int

    @property
    def value(self) -> str:
        return self.text[self.start : self.end]


def _luhn_complete(partial: str) -> str:
    return next(partial + d for d in "0123456789" if luhn_valid(partial + d))


_CARD_BRANDS = [  # prefix choices, length, grouping
    (["4"], 16, (4, 4, 4, 4)),
    (["4"], 13, (4, 4, 5)),
    (["51", "52", "53", "54", "55"], 16, (4, 4, 4, 4)),
    (["2221", "2500", "2720"], 16, (4, 4, 4, 4)),
    (["34", "37"], 15, (4, 6, 5)),
    (["6011", "65"], 16, (4, 4, 4, 4)),
    (["3528", "3589"], 16, (4, 4, 4, 4)),
    (["36"], 14, (4, 6, 4)),
    (["62"], 19, (4, 4, 4, 4, 3)),
]


def card(rng: random.Random) -> tuple[str, tuple[int, ...]]:
    prefixes, length, grouping = rng.choice(_CARD_BRANDS)
    prefix = rng.choice(prefixes)
    body = prefix + "".join(rng.choice(string.digits) for _ in range(length - len(prefix) - 1))
    return _luhn_complete(body), grouping


def tfn(rng: random.Random) -> str:
    weights = (1, 4, 3, 7, 5, 8, 6, 9, 10)
    while True:
        digits = "".join(rng.choice(string.digits) for _ in range(9))
        total = sum(int(d) * w for d, w in zip(digits, weights, strict=True))
        if total % 11 == 0 and not digits.endswith("000"):
            return digits


def _iban(rng: random.Random) -> str:
    country, length = rng.choice([("GB", 22), ("DE", 22), ("FR", 27), ("NL", 18), ("ES", 24)])
    if country == "GB":
        bban = "".join(rng.choice(string.ascii_uppercase) for _ in range(4)) + "".join(
            rng.choice(string.digits) for _ in range(14)
        )
    elif country == "NL":
        bban = "".join(rng.choice(string.ascii_uppercase) for _ in range(4)) + "".join(
            rng.choice(string.digits) for _ in range(10)
        )
    else:
        bban = "".join(rng.choice(string.digits) for _ in range(length - 4))
    numeric = "".join(str(int(ch, 36)) for ch in bban + country + "00")
    check = 98 - int(numeric) % 97
    return f"{country}{check:02d}{bban}"


_SEPARATORS = [" ", "  ", "-", " - ", "/", "_", ".", "\u200b", " \u200b", "\u00a0", "\u2013"]


def _grouped(digits: str, grouping: tuple[int, ...], sep: str) -> str:
    parts, at = [], 0
    for size in grouping:
        parts.append(digits[at : at + size])
        at += size
    if at < len(digits):
        parts.append(digits[at:])
    return sep.join(p for p in parts if p)


def _fullwidth(text: str) -> str:
    return "".join(chr(ord(ch) - 0x30 + 0xFF10) if ch.isdigit() else ch for ch in text)


def _zero_width_inside(rng: random.Random, text: str) -> str:
    out = []
    for ch in text:
        out.append(ch)
        if ch.isdigit() and rng.random() < 0.3:
            out.append(rng.choice(["\u200b", "\u200c", "\u200d", "\u2060", "\ufeff", "\u00ad"]))
    return "".join(out)


def _digits_variant(rng: random.Random, digits: str, grouping: tuple[int, ...]) -> str:
    plain = rng.random() < 0.15
    written = digits if plain else _grouped(digits, grouping, rng.choice(_SEPARATORS))
    twist = rng.random()
    if twist < 0.15:
        written = _fullwidth(written)
    elif twist < 0.3:
        written = _zero_width_inside(rng, written)
    return written


def _phone(rng: random.Random) -> str:
    d = lambda k: "".join(rng.choice(string.digits) for _ in range(k))  # noqa: E731
    sep = rng.choice([" ", "  ", "-", ".", "/", "_", "\u200b", ""])
    form = rng.randrange(9)
    if form == 0:
        return sep.join(["04" + d(2), d(3), d(3)])
    if form == 1:
        return f"(0{rng.choice('2378')}) " + sep.join([d(4), d(4)])
    if form == 2:
        return sep.join(["0" + rng.choice("2378"), d(4), d(4)])
    if form == 3:
        return "+61 " + sep.join(["4" + d(2), d(3), d(3)])
    if form == 4:
        return "+61" + rng.choice([" ", ""]) + rng.choice("2378") + " " + sep.join([d(4), d(4)])
    if form == 5:
        return " ".join(["61", "4" + d(2), d(3), d(3)])
    if form == 6:
        return " ".join([rng.choice(["1300", "1800"]), d(3), d(3)])
    if form == 7:
        return "+44 20 " + " ".join([d(4), d(4)])
    return "+1 " + " ".join([d(3), d(3), d(4)])


_LOCAL_PARTS = ["jo", "jo.citizen", "a.b-c", "first_last", "x+tag", "j0hn.smith99", "ops"]
_DOMAINS = ["example.com", "mail.example.com.au", "uni.edu.au", "x-y.io", "corp.co.uk"]


def _email(rng: random.Random) -> str:
    local = rng.choice(_LOCAL_PARTS) + rng.choice(["", str(rng.randrange(100))])
    domain = rng.choice(_DOMAINS)
    form = rng.randrange(6)
    if form == 0:
        return f"{local}@{domain}"
    if form == 1:
        return f"{local.upper()}@{domain.upper()}"
    if form == 2:
        return f"{local} [at] {domain.replace('.', ' [dot] ')}"
    if form == 3:
        return f"{local}(at){domain}"
    if form == 4:
        return "".join(
            chr(ord(ch) + 0xFEE0) if "!" <= ch <= "~" else ch for ch in f"{local}@{domain}"
        )
    return _zero_width_inside(rng, f"{local}@{domain}").replace("@", "\u200b@")


_LEADS = [
    "My {kind} is ",
    "Here is my {kind}: ",
    "{kind} ",
    "please note {kind} ",
    "",
]
_TAILS = [
    " — what was BHP's revenue in FY2024?",
    ". And Fortescue's net debt?",
    "",
    ", thanks",
    " and compare Rio Tinto with South32",
]
_KEYWORDS = {
    PiiKind.CARD: ["card", "Visa", "credit card number", "CC"],
    PiiKind.TFN: ["TFN", "tax file number", "tfn"],
    PiiKind.PHONE: ["mobile", "phone", "ph", "number", "contact"],
    PiiKind.EMAIL: ["email", "e-mail address", "address"],
    PiiKind.BANK_ACCOUNT: ["account number", "acct", "account"],
}
_GLUED = {
    PiiKind.CARD: ["card", "cc", "visa"],
    PiiKind.TFN: ["tfn", "TFN:", "TFN#"],
    PiiKind.PHONE: ["mobile", "ph", "tel", "mob:"],
    PiiKind.BANK_ACCOUNT: ["acct", "acc#"],
}


def _place(rng: random.Random, kind: PiiKind, value: str, glue: bool = False) -> Planted:
    if glue:
        lead = "My details: " + rng.choice(_GLUED[kind])
    else:
        lead = rng.choice(_LEADS).format(kind=rng.choice(_KEYWORDS[kind]))
        if kind == PiiKind.TFN and not lead.strip():
            lead = "TFN "
    tail = rng.choice(_TAILS)
    text = lead + value + tail
    return Planted(text, kind, len(lead), len(lead) + len(value))


def personal_values(count: int, seed: int = 22) -> list[Planted]:
    """`count` texts, each holding one personal value in a varied format."""
    rng = random.Random(seed)
    makers: list[Callable[[], Planted]] = []

    def card_case() -> Planted:
        digits, grouping = card(rng)
        return _place(rng, PiiKind.CARD, _digits_variant(rng, digits, grouping), rng.random() < 0.2)

    def tfn_case() -> Planted:
        value = _digits_variant(rng, tfn(rng), (3, 3, 3))
        return _place(rng, PiiKind.TFN, value, rng.random() < 0.2)

    def phone_case() -> Planted:
        value = _phone(rng)
        if rng.random() < 0.15:
            value = _fullwidth(value)
        glue = rng.random() < 0.2 and value[0] in "0+"
        return _place(rng, PiiKind.PHONE, value, glue)

    def email_case() -> Planted:
        return _place(rng, PiiKind.EMAIL, _email(rng))

    def account_case() -> Planted:
        d = lambda k: "".join(rng.choice(string.digits) for _ in range(k))  # noqa: E731
        form = rng.randrange(3)
        if form == 0:
            sep = rng.choice(["-", " ", "  ", "/"])
            value = f"{d(3)}{sep}{d(3)} {d(rng.randrange(6, 10))}"
            lead = rng.choice(["BSB ", "my BSB and account: BSB ", "bsb: "])
            return Planted(
                lead + value + " please", PiiKind.BANK_ACCOUNT, len(lead), len(lead) + len(value)
            )
        if form == 1:
            iban = _iban(rng)
            value = _grouped(iban, (4,) * 8, rng.choice([" ", "", "-"]))
            return _place(rng, PiiKind.BANK_ACCOUNT, value)
        value = rng.choice([d(8), f"{d(4)} {d(4)}", f"{d(3)}-{d(3)}-{d(3)}", d(9)])
        lead = rng.choice(["account number ", "acct ", "acc no. ", "bank account: "])
        return Planted(lead + value + ".", PiiKind.BANK_ACCOUNT, len(lead), len(lead) + len(value))

    makers = [card_case, tfn_case, phone_case, email_case, account_case]
    return [makers[i % len(makers)]() for i in range(count)]


_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def _ulid(rng: random.Random, when: datetime) -> str:
    ms = int(when.timestamp() * 1000)
    head = ""
    for _ in range(10):
        head = _CROCKFORD[ms % 32] + head
        ms //= 32
    return head + "".join(rng.choice(_CROCKFORD) for _ in range(16))


def _when(rng: random.Random) -> datetime:
    start = datetime(2020, 1, 1, tzinfo=UTC)
    return start + timedelta(seconds=rng.randrange(int(timedelta(days=365 * 11).total_seconds())))


def _timestamp(rng: random.Random) -> str:
    when = _when(rng)
    ms = rng.randrange(1000)
    forms = [
        when.isoformat(),
        when.strftime("%Y-%m-%dT%H:%M:%SZ"),
        when.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms:03d}Z",
        when.strftime("%Y-%m-%d %H:%M:%S"),
        when.strftime("%Y%m%d%H%M%S"),
        when.strftime("%Y%m%d%H%M%S") + f"{ms:03d}",
        when.strftime("%Y%m%d-%H%M%S"),
        when.strftime("%d/%m/%Y %H:%M"),
        when.strftime("%Y/%m/%d"),
        when.strftime("%d-%m-%Y"),
        str(int(when.timestamp())),
        str(int(when.timestamp() * 1000)),
        when.strftime("%a, %d %b %Y %H:%M:%S GMT"),
    ]
    return rng.choice(forms)


def _timestamp_key(rng: random.Random) -> str:
    stamp = _timestamp(rng).replace(" ", "-").replace(":", "").replace("/", "-").replace(",", "")
    suffix = "".join(rng.choice(string.hexdigits.lower()) for _ in range(rng.choice([0, 4, 8])))
    prefix = rng.choice(["", "key-", "req_", "idem-", "turn-", "k"])
    return prefix + stamp + (f"-{suffix}" if suffix else "") + rng.choice(["", "-1", "-42"])


def _figure(rng: random.Random) -> str:
    value = rng.randrange(1, 10**9)
    forms = [
        f"US${value:,} million",
        f"A${value / 1000:,.1f} billion",
        f"{value:,}",
        f"({value:,})",
        f"{rng.random() * 100:.1f}%",
        f"{rng.random():.3f}",
        f"{value % 100000:,} Mt",
        f"{value:,} oz",
        f"FY{rng.randrange(2000, 2031)}",
        f"{rng.randrange(2000, 2030)}-{rng.randrange(2000, 2031)}",
        f"{rng.randrange(1, 29)} June {rng.randrange(2000, 2031)}",
        f"{rng.randrange(10, 500)} US cents",
        f"{value:,}".replace(",", " ") + rng.choice([" tonnes", " t", " oz", " Mt", " m"]),
        f"US${value:,}".replace(",", " "),
        f"{rng.random() * 10:.9f}",
        f"{value:,} shares",
        f"{rng.randrange(100000, 999999)}-{rng.randrange(100000, 999999)}",
    ]
    return rng.choice(forms)


def look_alikes(count: int, seed: int = 22) -> list[str]:
    """`count` strings that carry digits and are never personal data."""
    rng = random.Random(seed)
    makers: list[Callable[[], str]] = [
        lambda: str(uuid.UUID(int=rng.getrandbits(128), version=4)),
        lambda: str(uuid.UUID(int=rng.getrandbits(128), version=4)).upper(),
        lambda: uuid.UUID(int=rng.getrandbits(128), version=4).hex,
        lambda: str(
            uuid.UUID(
                fields=(
                    rng.getrandbits(32),
                    rng.getrandbits(16),
                    0x1000 | rng.getrandbits(12),
                    0x80 | rng.getrandbits(6),
                    rng.getrandbits(8),
                    rng.getrandbits(48),
                )
            )
        ),
        lambda: _ulid(rng, _when(rng)),
        lambda: _timestamp(rng),
        lambda: _timestamp_key(rng),
        lambda: _figure(rng),
        lambda: f"In FY2024 revenue was {_figure(rng)} against {_figure(rng)} in FY2023.",
        lambda: f"c{uuid.UUID(int=rng.getrandbits(128)).hex[:17]}",
        lambda: f"turn-c{uuid.UUID(int=rng.getrandbits(128)).hex[:17]}-{rng.randrange(1, 99)}",
    ]
    return [makers[i % len(makers)]() for i in range(count)]


# ---- personal details written in words ---------------------------------------------
# Names, streets and conditions are made of random syllables, so no case is a word the
# detector could know; only the grammar around them (a title, a street word, "born",
# "diagnosed with") is English's.

_SYLLABLES = [
    "ka",
    "lo",
    "mir",
    "tan",
    "bel",
    "or",
    "ve",
    "qui",
    "dra",
    "sel",
    "un",
    "zo",
    "pha",
    "rin",
    "gwe",
    "thu",
    "ash",
    "el",
    "nok",
    "ba",
]


def _word(rng: random.Random, syllables: tuple[int, int] = (2, 3)) -> str:
    return "".join(rng.choice(_SYLLABLES) for _ in range(rng.randint(*syllables)))


def _name(rng: random.Random) -> str:
    parts = [_word(rng).capitalize() for _ in range(rng.randint(1, 3))]
    if rng.random() < 0.2:
        parts[-1] = f"O'{parts[-1]}" if rng.random() < 0.5 else f"{parts[-1]}-{_word(rng).title()}"
    if rng.random() < 0.2:
        parts.insert(0, rng.choice(string.ascii_uppercase) + rng.choice([".", ""]))
    return " ".join(parts)


_MONTH_NAMES = [
    "January",
    "Feb",
    "March",
    "Apr",
    "May",
    "June",
    "Jul",
    "August",
    "Sept",
    "October",
    "Nov",
    "December",
]


def _birth_date(rng: random.Random) -> str:
    d, m, y = rng.randint(1, 28), rng.randint(1, 12), rng.randint(1930, 2010)
    forms = [
        f"{d}/{m}/{y}",
        f"{d:02d}-{m:02d}-{y}",
        f"{y}-{m:02d}-{d:02d}",
        f"{d} {_MONTH_NAMES[m - 1]} {y}",
        f"{_MONTH_NAMES[m - 1]} {d}, {y}",
        f"{d}th of {_MONTH_NAMES[m - 1]} {y}",
        f"{d}.{m}.{str(y)[2:]}",
    ]
    return rng.choice(forms)


_STREET_WORDS = [
    "Street",
    "St",
    "Road",
    "Rd",
    "Avenue",
    "Ave",
    "Crescent",
    "Parade",
    "Lane",
    "Drive",
    "Terrace",
    "Highway",
    "Close",
    "Way",
    "Circuit",
    "Esplanade",
]


def _address(rng: random.Random) -> str:
    unit = rng.choice(["", "", f"Unit {rng.randint(1, 40)}, ", f"{rng.randint(1, 40)}/"])
    number = rng.randint(1, 2999)
    if not unit and 1900 <= number < 2100:  # without a unit, a year's digits are a year
        number -= 1000  # (docs/controls.md: such a number is an address after "I live at")
    number = f"{unit}{number}"
    street = " ".join(_word(rng).capitalize() for _ in range(rng.randint(1, 2)))
    text = f"{number} {street} {rng.choice(_STREET_WORDS)}"
    if rng.random() < 0.6:
        state = rng.choice(["WA", "NSW", "VIC", "QLD", "SA", "TAS", "NT", "ACT", ""])
        text += f", {_word(rng).capitalize()} {state} {rng.randint(800, 7999):04d}".replace(
            "  ", " "
        )
    return text


def personal_details(count: int, seed: int = 45) -> list[Planted]:
    """`count` texts, each holding one personal detail written in words."""
    rng = random.Random(seed)
    out: list[Planted] = []
    for i in range(count):
        kind = [PiiKind.NAME, PiiKind.BIRTH, PiiKind.HEALTH, PiiKind.ADDRESS][i % 4]
        if kind == PiiKind.NAME:
            title = rng.choice(["Mr", "Mrs", "Ms", "Dr", "Dr.", "Prof", "Sir", "Miss", "Mx"])
            lead, value = (
                rng.choice(["", "I am ", "This is ", "Regards, "]),
                f"{title} {_name(rng)}",
            )
            if rng.random() < 0.25:
                lead, value = rng.choice(["my name is ", "My name's ", "call me "]), _name(rng)
        elif kind == PiiKind.BIRTH:
            lead = rng.choice(
                ["I was born on ", "born ", "DOB ", "dob: ", "date of birth ", "My birthday is "]
            )
            value = _birth_date(rng)
        elif kind == PiiKind.HEALTH:
            who = rng.choice(["I was", "I've been", "my son was", "My wife has been", "I am"])
            verb = rng.choice(
                ["diagnosed with", "treated for", "suffering from", "recovering from"]
            )
            lead, value = "", f"{who} {verb} {_word(rng)} {_word(rng, (3, 4))}"
        else:
            lead, value = (
                rng.choice(["I live at ", "my address is ", "send it to ", ""]),
                _address(rng),
            )
        tail = rng.choice(_TAILS)
        out.append(Planted(lead + value + tail, kind, len(lead), len(lead) + len(value)))
    return out


def word_look_alikes(count: int, seed: int = 45) -> list[str]:
    """Questions that use the same words in their company sense, never personal data."""
    rng = random.Random(seed)
    company = lambda: rng.choice(["BHP", "Rio Tinto", "Fortescue", "South32", "Northern Star"])  # noqa: E731
    year = lambda: rng.randint(2015, 2030)  # noqa: E731
    makers: list[Callable[[], str]] = [
        lambda: (
            f"How is the {rng.choice(['impairment', 'royalty', 'lease'])} treated for tax"
            f" in FY{year()}?"
        ),
        lambda: (
            f"{company()} suffered from {rng.choice(['lower prices', 'wet weather', 'costs'])}"
            f" in {year()}"
        ),
        lambda: f"Revenue as at {rng.randint(1, 30)} June {year()} for {company()}",
        lambda: f"What was Mt {_word(rng).capitalize()} production in FY{year()}?",
        lambda: f"{company()} recovered from the {year()} downturn; what was EBITDA?",
        lambda: f"the {rng.randint(12, 24)} months ended 30 June {year()}",
        lambda: f"{company()} was born of a merger in {year()}: net debt?",
        lambda: (
            f"How many {rng.choice(['St', 'Rd', 'Way'])} projects did {company()} run in {year()}?"
        ),
        lambda: f"{rng.randint(2, 400)} Mt of iron ore shipped via Port Hedland in FY{year()}",
        lambda: f"my question is about {company()} capex in FY{year()}",
        lambda: f"I live in Perth: what did {company()} pay in dividends in {year()}?",
        lambda: f"Is St Barbara's {year()} gold output above {company()}'s?",
        lambda: (
            f"{company()} had {rng.randint(2, 90)} Mt Newman trains: I am asking about"
            f" FY{year()} costs"
        ),
    ]
    return [makers[i % len(makers)]() for i in range(count)]
