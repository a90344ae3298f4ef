"""One table of units and currencies (`domain/language/units.py`): the question reader, the
amounts an answer claims, the table units of the facts, the numeric check and the PDF
statement reader all read it, so every currency in it is known to each of them, and a
currency added to it is known everywhere without another edit."""

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from domain.checks.numeric import check_numbers
from domain.language.amounts import claimed_amounts
from domain.language.units import CURRENCIES, Currency, currency_of, requested_currency
from domain.models import ChunkText
from domain.reports.figures import UNITS, format_value, unit_key
from ingestion.documents import UNIT_NOTES
from ingestion.statements import _unit_of

ROOT = Path(__file__).resolve().parents[2]


def _written_forms(c: Currency) -> list[str]:
    """How a text writes the currency right before a figure."""
    return [*c.codes, *(f"{letters}$" for letters in c.letters), *c.symbols]


def _table(currency: Currency, value: str, *, unit: str | None = None) -> ChunkText:
    key = unit or f"{currency.prefix}m"
    return ChunkText(
        chunk_id="t1",
        company="BHP",
        fiscal_year=2024,
        page=4,
        section="Financial review",
        document="BHP Annual Report 2024",
        is_table=True,
        unit=key,
        text=(
            "[BHP Group (BHP) · BHP Annual Report 2024 · FY2024 · Financial review · page 4]\n"
            f"Table ({UNIT_NOTES[key]}):\n| {currency.sign}M | FY2024 |\n|---|---|\n"
            f"| Revenue | {value} |"
        ),
    )


@pytest.mark.parametrize("currency", CURRENCIES, ids=lambda c: c.codes[0])
def test_every_currency_is_asked_for_written_and_kept_in_a_table(currency: Currency) -> None:
    for code in currency.codes:
        assert requested_currency(f"What was revenue in {code}?") == currency.name
    for form in _written_forms(currency):
        spacer = " " if form[-1].isalpha() else ""
        (amount,) = claimed_amounts(f"Revenue was {form}{spacer}5.2 million in FY2024.")
        assert (amount.kind, amount.currency, amount.factor) == ("money", currency.sign, 1.0)
        assert currency_of(form) == currency
    for code in currency.codes:
        key = unit_key(f"{code} m")
        assert key is not None and UNITS[key].currency == currency.sign, code
    assert format_value(5.2, f"{currency.prefix}bn", 1) == f"{currency.sign}5.2 billion"


@pytest.mark.parametrize("currency", CURRENCIES, ids=lambda c: c.codes[0])
def test_the_numeric_check_backs_a_figure_only_in_its_own_currency(currency: Currency) -> None:
    us, other = CURRENCIES[0], currency if currency is not CURRENCIES[0] else CURRENCIES[1]
    claim = f"BHP's revenue for FY2024 was {_written_forms(other)[0]} 5,200 million [1]."
    assert check_numbers(claim, [_table(other, "5,200")]).unsupported == []
    flagged = check_numbers(claim, [_table(us, "5,200")]).unsupported
    assert [c.label for c in flagged] == ["BHP FY2024 revenue"]


def test_a_statement_header_in_a_currency_of_the_table_is_read_as_its_unit() -> None:
    assert unit_key(_unit_of("£m", "US$")) == "£m"
    assert unit_key(_unit_of("HK$'000", "US$")) == "hk$k"
    assert unit_key(_unit_of("$m", "A$")) == "a$m"  # a bare "$" is the report's currency
    assert unit_key(_unit_of("Pence per share", "£")) == "pence"


def test_a_bare_dollar_sign_and_an_article_name_no_currency() -> None:
    assert currency_of("$") is None
    (amount,) = claimed_amounts("A $6.3 billion decrease")  # an article, not A$
    assert amount.currency is None


NEW_CURRENCY = """
CURRENCIES = (*CURRENCIES, Currency(
    sign="Ƶ", name="zorkmids", codes=("ZMD",), letters=("ZK",), symbols=("Ƶ",),
    words=r"zorkmids?", cents=r"zorkpence", minor="zorkpence",
    minor_words=" zorkpence per share",
))
"""


def test_a_currency_added_to_the_table_is_known_everywhere() -> None:
    """A made-up currency, appended to the table and to nothing else, read by the question
    reader, the amounts, the table units, the numeric check and the statement reader."""
    script = textwrap.dedent(
        f"""
        import sys, types
        from pathlib import Path
        path = Path({str(ROOT / "domain/language/units.py")!r})
        source = path.read_text()
        anchor = "\\n\\n@dataclass(frozen=True)\\nclass Scale"
        assert anchor in source
        source = source.replace(anchor, {NEW_CURRENCY!r} + anchor, 1)
        module = types.ModuleType("domain.language.units")
        module.__file__ = str(path)
        sys.modules["domain.language.units"] = module
        exec(compile(source, str(path), "exec"), module.__dict__)

        from domain.checks.numeric import check_numbers
        from domain.language.amounts import claimed_amounts
        from domain.language.units import requested_currency
        from domain.models import ChunkText
        from domain.reports.figures import format_value, unit_key
        from ingestion.statements import _unit_of

        assert requested_currency("revenue in zorkmids please") == "zorkmids"
        (a,) = claimed_amounts("Revenue was ZK$5,200 million.")
        assert (a.currency, a.factor) == ("Ƶ", 1.0), a
        (c,) = claimed_amounts("a dividend of 12 zorkpence per share")
        assert (c.kind, c.currency) == ("per_share", "Ƶ"), c
        assert unit_key("ZMD m") == "ƶm" and unit_key(_unit_of("Ƶm", "US$")) == "ƶm"
        assert format_value(5.2, "ƶbn", 1) == "Ƶ5.2 billion"
        table = ChunkText(chunk_id="t", company="BHP", fiscal_year=2024, page=4, section="s",
            document="d", is_table=True, unit="ƶm",
            text="[BHP Group (BHP) · d · FY2024 · s · page 4]\\n| ƵM | FY2024 |\\n|---|---|\\n"
                 "| Revenue | 5,200 |")
        claim = "BHP's revenue for FY2024 was Ƶ5,200 million [1]."
        assert check_numbers(claim, [table]).unsupported == []
        us = table.model_copy(update={{"unit": "us$m", "text": table.text.replace("ƵM", "US$M")}})
        assert check_numbers(claim, [us]).unsupported != []
        print("known everywhere")
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "known everywhere" in done.stdout
