"""Company descriptions read from files: a folder's `companies.toml` and a report's own
front matter. The registry (PostgreSQL) keeps what ingestion registered from them.

A folder of reports may describe its companies in a `companies.toml` (the sample
corpus does: `corpus/companies.toml`); a report's front matter may name its company's
full name, period end and currency; and the ingest command's flags describe a company
neither does. See docs/corpus.md.
"""

import tomllib
from dataclasses import dataclass
from pathlib import Path

from domain.companies.roster import Company, aliases_for, check_ticker, check_year_end

COMPANIES_FILE = "companies.toml"


class CompaniesFileError(Exception):
    """A companies.toml that cannot be read or describes a company badly (with its path)."""


@dataclass(frozen=True)
class Description:
    """A company as a file or a command describes it, before it is registered."""

    ticker: str
    name: str
    aliases: tuple[str, ...] = ()
    year_end: str = "06-30"
    currency: str = "US$"
    commodities: tuple[str, ...] = ()

    def company(self) -> Company:
        if not self.name.strip():
            raise ValueError("a company needs a name")
        return Company(
            check_ticker(self.ticker),
            " ".join(self.name.split()),
            aliases_for(self.ticker, self.name, self.aliases),
            check_year_end(self.year_end),
            self.currency.strip() or "US$",
            commodities=tuple(" ".join(c.lower().split()) for c in self.commodities),
        )


def read_companies_file(path: Path) -> list[Company]:
    """The companies a companies.toml describes, in its order (`[[company]]` tables with
    ticker, name, and optionally aliases, year_end "MM-DD" and currency)."""
    try:
        data = tomllib.loads(path.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise CompaniesFileError(f"{path}: cannot be read ({exc})") from exc
    entries = data.get("company", [])
    if not isinstance(entries, list):
        raise CompaniesFileError(f"{path}: expected [[company]] tables")
    found: list[Company] = []
    for n, entry in enumerate(entries, start=1):
        try:
            found.append(
                Description(
                    ticker=str(entry["ticker"]),
                    name=str(entry["name"]),
                    aliases=tuple(str(a) for a in entry.get("aliases", ())),
                    year_end=str(entry.get("year_end", "06-30")),
                    currency=str(entry.get("currency", "US$")),
                    commodities=tuple(str(c) for c in entry.get("commodities", ())),
                ).company()
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise CompaniesFileError(f"{path}: company {n}: {exc}") from exc
    return found


def companies_beside(report: Path) -> list[Company]:
    """The companies the companies.toml in a report's folder describes (none without one)."""
    path = report.parent / COMPANIES_FILE
    return read_companies_file(path) if path.is_file() else []


def sample_coverage(corpus_dir: Path) -> list[Company]:
    """The coverage the sample corpus gives once ingested: its companies.toml's companies
    with the fiscal years of the reports in the folder (read from their front matter)."""
    years: dict[str, set[int]] = {}
    for path in sorted(corpus_dir.glob("*.md")):
        meta = _front_matter(path)
        if meta.get("company") and meta.get("fiscal_year", "").isdigit():
            years.setdefault(meta["company"].upper(), set()).add(int(meta["fiscal_year"]))
    return [
        c.with_years(years[c.ticker])
        for c in read_companies_file(corpus_dir / COMPANIES_FILE)
        if c.ticker in years
    ]


def _front_matter(path: Path) -> dict[str, str]:
    lines = path.read_text("utf-8").splitlines()
    meta: dict[str, str] = {}
    if not lines or lines[0] != "---":
        return meta
    for line in lines[1:]:
        if line == "---":
            break
        key, _, value = line.partition(":")
        meta[key.strip()] = value.strip()
    return meta
