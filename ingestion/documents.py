"""Turn report files (Markdown with front matter, or PDF) into retrievable chunks.

A chunk is one table, or up to ~120 words of prose, from one page and one section.
Every chunk starts with a context line naming company, fiscal year, section and page,
and a table chunk states its unit in words, because in the reports the unit sits only
in the table header ("US$M") and a bare "29,016" must not lose it.

A document is identified by company and fiscal year (`BHP-FY2024`), not by its file
name: there is one annual report per company and year, and a file that happens to share
a report's name must not be able to stand in for it. A filing of another kind that its
first page names (a quarter's report, a current report, a results release) is that
year's too, identified by its kind and date besides (`JNJ-FY2023-current-2023-08-30`).
"""

import hashlib
import itertools
import re
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import Field

from domain.companies.roster import (
    Company,
    aliases_for,
    check_report_year,
    check_ticker,
    check_year_end,
    companies,
    normalise_ticker,
)
from domain.language.units import CURRENCIES, QUANTITIES, SCALES
from domain.models import ChunkText
from domain.provenance import chunk_ids_for
from domain.reports.figures import table_cells, unit_key
from ingestion.companies import CompaniesFileError, companies_beside
from ingestion.identity import Identity, ticker_from_name
from ingestion.pdf import PdfError, read_pdf
from ingestion.statements import ReadContext

PROSE_WORDS = 120


def _unit_notes() -> dict[str, str]:
    """What a table's unit says of all its figures, for each unit of the units table that
    a report's table heads ("all figures in US$ millions")."""
    notes: dict[str, str] = {}
    for c in CURRENCIES:
        for s in SCALES:
            if s.suffix != "tn":
                notes[c.prefix + s.suffix] = f"all figures in {c.sign}{s.word}" + "s" * bool(s.word)
        if c.minor:
            notes[c.prefix] = f"all figures in {c.sign} per share"
            notes[c.minor] = f"all figures in{c.minor_words}"
    for q in QUANTITIES:
        if q.table and q.headers and q.kind != "percent":
            notes[q.key] = f"all figures in {q.headers[0]} ({q.shown.strip()})"
    return notes


UNIT_NOTES = _unit_notes()


class DocumentError(Exception):
    """The file cannot be read or is not a report we understand (reported with its path)."""


class Chunk(ChunkText):
    """One retrievable piece of a report, as stored in Qdrant's payload: the evidence
    shape plus the storage bookkeeping."""

    unit: str | None = None
    document_id: str
    content_hash: str
    source_path: str = ""
    """The resolved path the document was read from (empty on chunks stored before it was)."""
    years: list[int] = Field(default_factory=list)
    """The fiscal years its figures are printed for: its report's own, and those of its
    tables' other columns (a FY2017 10-K's income statement prints FY2015 and FY2016):
    a search for a year finds the passages that print it."""

    def as_text(self) -> ChunkText:
        """The chunk as evidence travels to engines and checks (no storage bookkeeping)."""
        return ChunkText.narrowed(self)


@dataclass
class ParsedDocument:
    document_id: str
    title: str
    company: str
    fiscal_year: int
    content_hash: str
    source_path: str
    """The file's resolved path (symlinks and `..` removed)."""
    file_sha256: str
    """The hash of the file's bytes alone: identical content under another path matches."""
    chunks: list[Chunk] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    """Pages read but not indexed, each with why ("page 5: no text layer ...")."""
    described: Company | None = None
    """Who its company is, as ingestion registers it."""
    identified: str | None = None
    """What was read from its first pages of who and when (and what could not be), in one
    line; None when the command said both."""


def document_key(ticker: str, fiscal_year: int, part: str = "") -> str:
    """The id of the one annual report of a company and year, e.g. `BHP-FY2024`; with
    `part`, of another filing of that year (`JPM-FY2021-interim-2021-03-31`)."""
    return f"{ticker}-FY{fiscal_year}" + (f"-{part}" if part else "")


_KIND_TITLES = {
    "annual": "Annual Report",
    "interim": "Interim Report",
    "current": "Current Report",
    "release": "Results Release",
}


def _filing(identity: Identity, raw: bytes, fy: int) -> tuple[str, str]:
    """A filing's part of its id ("" for the year's annual report) and its title's words:
    its kind and the date it is of (a quarter's end, a report's date), else its bytes'
    digest, so the same file is always the same document."""
    words = _KIND_TITLES.get(identity.kind, "Report")
    if identity.kind == "annual":
        return "", f"{words} {fy}"
    day = identity.period_end if identity.kind == "interim" else identity.dated
    said = f"{day:%Y-%m-%d}" if day else hashlib.sha256(raw).hexdigest()[:8]
    return f"{identity.kind}-{said}", f"{words} {day:%d %B %Y}" if day else f"{words} {fy}"


def legacy_document_id(path: Path) -> str:
    """The id chunks were stored under before documents were keyed by company and year."""
    return re.sub(r"[^A-Za-z0-9_-]+", "-", path.stem).strip("-") or "document"


@dataclass
class _Block:
    page: int
    section: str
    text: str
    is_table: bool


def _check_metadata(
    path: Path,
    company: "str | Company | None",
    fiscal_year: int | None,
    meta: dict[str, str] | None = None,
) -> tuple[Company, int]:
    try:
        check_report_year(fiscal_year)
    except ValueError as exc:
        raise DocumentError(f"{path}: {exc}") from exc
    if fiscal_year is None:
        raise DocumentError(f"{path}: no fiscal year (give it: --fy 2024)")
    if isinstance(company, Company):
        return company, fiscal_year
    return _company_for(path, company, meta or {}), fiscal_year


def _company_for(path: Path, value: str | None, meta: dict[str, str]) -> Company:
    """Who a report's company is: a registered company its ticker or name resolves to
    (the coverage in force: the ingest step pins the registry), else one the
    companies.toml beside the report describes, else the report's own front matter
    (`company` and `company_name`, with `period_end` and `currency` if it says them)."""
    if not value:
        raise DocumentError(f"{path}: no company (give its ticker: --company XMP)")
    ticker = normalise_ticker(value)
    if ticker is not None:
        return companies()[ticker]
    try:
        beside = companies_beside(path)
    except CompaniesFileError as exc:
        raise DocumentError(str(exc)) from exc
    for c in beside:
        if value.strip().upper() == c.ticker or " ".join(value.lower().split()) in c.aliases:
            return c
    try:
        key = check_ticker(value)
    except ValueError as exc:
        raise DocumentError(f"{path}: unknown company {value!r} ({exc})") from exc
    if name := meta.get("company_name"):
        end = meta.get("period_end", "")
        try:
            year_end = check_year_end(end[5:]) if len(end) == 10 else "06-30"
        except ValueError:
            year_end = "06-30"
        return Company(key, name, aliases_for(key, name), year_end, meta.get("currency") or "US$")
    raise DocumentError(
        f"{path}: unknown company {value!r}: register it with its name"
        ' (--name "Example Mining", and --year-end, --currency if not 06-30 and US$)'
    )


def unit_of_header(cell: str) -> str | None:
    """Return the canonical unit key of a table's first header cell, if it names one."""
    key = unit_key(cell)
    return key if key in UNIT_NOTES else None


def _front_matter(text: str, path: Path) -> tuple[dict[str, str], str]:
    if not text.startswith("---\n"):
        raise DocumentError(f"{path}: no front matter (expected a '---' block)")
    end = text.find("\n---", 4)
    if end < 0:
        raise DocumentError(f"{path}: front matter is not closed")
    meta: dict[str, str] = {}
    for line in text[4:end].splitlines():
        if ":" in line:
            key, value = line.split(":", 1)
            meta[key.strip()] = value.strip()
    return meta, text[end + 4 :]


def _markdown_blocks(body: str) -> list[_Block]:
    blocks: list[_Block] = []
    page, section = 1, ""
    lines: list[str] = []
    table = False

    def flush() -> None:
        nonlocal lines
        text = "\n".join(lines).strip()
        if text:
            blocks.append(_Block(page, section, text, table))
        lines = []

    for raw in body.splitlines():
        line = raw.rstrip()
        page_marker = re.fullmatch(r"<!--\s*page:\s*(\d+)\s*-->", line.strip())
        if page_marker:
            flush()
            page = int(page_marker.group(1))
            continue
        if line.startswith("#"):
            flush()
            heading = line.lstrip("#").strip()
            if line.startswith("# ") or not section:
                section = heading
            else:
                section = f"{section.split(' — ')[0]} — {heading}"
            continue
        is_table_line = line.lstrip().startswith("|")
        if not line.strip():
            flush()
            table = False
            continue
        if is_table_line != table:
            flush()
            table = is_table_line
        lines.append(line)
    flush()
    return blocks


TABLE_ROWS = 16
"""A table of more rows is cut into parts of about this many, each under the table's own
header: a statement's forty rows in one passage dilute what a search matches in it."""


def _table_parts(block: _Block) -> list[_Block]:
    """A long table as parts under its header, cut before a heading row (a row with no
    figures: "Current liabilities", "Cash flows from investing activities") where one
    falls near the cut."""
    lines = block.text.splitlines()
    if len(lines) <= TABLE_ROWS + 4 or not lines[0].lstrip().startswith("|"):
        return [block]
    head, rows = lines[:2], lines[2:]
    parts: list[list[str]] = [[]]
    for n, row in enumerate(rows):
        part = parts[-1]
        heading = not re.search(r"\|\s*[-(]?[\d.,]+\)?\s*\|", row)
        full = len(part) >= TABLE_ROWS or (heading and len(part) >= TABLE_ROWS * 2 // 3)
        if part and full and n < len(rows) - 2:
            parts.append([])
        parts[-1].append(row)
    return [_Block(block.page, block.section, "\n".join(head + p), True) for p in parts if p]


def _chunk_blocks(blocks: list[_Block]) -> list[_Block]:
    """Merge adjacent prose of the same page and section up to PROSE_WORDS; a table stays
    whole, or is cut into parts under its header when long (`_table_parts`)."""
    merged: list[_Block] = []
    for block in (part for b in blocks for part in (_table_parts(b) if b.is_table else [b])):
        last = merged[-1] if merged else None
        if (
            not block.is_table
            and last is not None
            and not last.is_table
            and (last.page, last.section) == (block.page, block.section)
            and len(last.text.split()) + len(block.text.split()) <= PROSE_WORDS
        ):
            last.text = f"{last.text}\n\n{block.text}"
        else:
            merged.append(_Block(block.page, block.section, block.text, block.is_table))
    return merged


def _table_unit(block: _Block) -> str | None:
    """The unit a table's first header cell names (None for prose, or no unit named)."""
    if not block.is_table:
        return None
    return unit_of_header(block.text.lstrip().lstrip("|").split("|", 1)[0])


def _context(company_name: str, ticker: str, title: str, fiscal_year: int, block: _Block) -> str:
    """The line a chunk starts with (and, for a table, the line stating its unit)."""
    context = (
        f"[{company_name} ({ticker}) · {title} · FY{fiscal_year} · "
        f"{block.section or 'Report'} · page {block.page}]"
    )
    if block.is_table:
        unit = _table_unit(block)
        context += f"\nTable ({UNIT_NOTES[unit] if unit else 'units as stated in the table'}):"
    return context + "\n"


_PAGE_CELL = re.compile(r"[1-9]\d{0,2}")


def contents_table(text: str) -> bool:
    """Whether a table is a list of contents: no period or unit over its columns, and each
    row's one figure a page number, rising down the rows ("Consolidated Balance Sheets |
    59"). A page number is no figure of a year: such a table is read as text, and a
    search for a statement's tables does not take it for one."""
    lines = [line.strip() for line in text.splitlines() if line.lstrip().startswith("|")]
    rows = [
        [c.strip() for c in line.strip("|").split("|")]
        for line in lines
        if not re.fullmatch(r"[|\s:]*-[|\s:-]*", line)  # the rule under the header
    ]
    if not rows or any(rows[0]):  # a header row names its columns' periods or units
        return False
    pages: list[int] = []
    for row in rows[1:]:
        figures = [c for c in row[1:] if c]
        if len(figures) > 1 or (figures and not _PAGE_CELL.fullmatch(figures[0])):
            return False
        pages.extend(int(f) for f in figures)
    return len(pages) >= 2 and all(a < b for a, b in itertools.pairwise(pages))


def _contents_as_text(block: _Block) -> _Block:
    """A list of contents as the text it is ("Consolidated Balance Sheets (page 59)."),
    each row an entry; any other block as it is."""
    if not block.is_table or not contents_table(block.text):
        return block
    entries = []
    for line in block.text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.lstrip().startswith("|") or not any(cells) or cells[0].strip("-: ") == "":
            continue
        page = next((c for c in cells[1:] if c), "")
        entries.append(f"{cells[0]} (page {page})." if page else f"{cells[0].rstrip('.:')}.")
    return _Block(block.page, block.section, " ".join(entries), False)


def _build(
    path: Path,
    title: str,
    company: Company,
    fiscal_year: int,
    raw: bytes,
    blocks: list[_Block],
    problems: list[str] | None = None,
    part: str = "",
) -> ParsedDocument:
    ticker = company.ticker
    # The hash covers the metadata the chunks carry as well as the bytes, so re-ingesting a
    # file under corrected flags (company, fiscal year) replaces its chunks, not "unchanged".
    content_hash = hashlib.sha256(raw + f"\0{ticker}:{fiscal_year}".encode()).hexdigest()[:16]
    document_id = document_key(ticker, fiscal_year, part)
    company_name = company.name
    source_path = str(path.resolve())
    doc = ParsedDocument(
        document_id,
        title,
        ticker,
        fiscal_year,
        content_hash,
        source_path,
        hashlib.sha256(raw).hexdigest(),
        problems=list(problems or []),
        described=company,
    )
    blocks = [_contents_as_text(b) for b in _chunk_blocks(blocks)]
    texts = [_context(company_name, ticker, title, fiscal_year, b) + b.text for b in blocks]
    # Ids follow the text (`domain.provenance`): re-ingesting an edited report gives the
    # edited passages new ids and keeps the others', so an id never names other text.
    ids = chunk_ids_for(document_id, texts)
    doc.chunks = [_chunk(doc, *made) for made in zip(blocks, texts, ids, strict=True)]
    if not doc.chunks:
        why = f" ({'; '.join(doc.problems)})" if doc.problems else ""
        raise DocumentError(f"{path}: no text found{why}")
    return doc


def _chunk(doc: ParsedDocument, block: _Block, text: str, chunk_id: str) -> Chunk:
    """One block of `doc` as a chunk, with the years its table prints a figure of."""
    printed = {
        c.period.fiscal_year
        for c in (table_cells(text, report_year=doc.fiscal_year) if block.is_table else [])
        if c.period is not None and c.period.annual
    }
    return Chunk(
        chunk_id=chunk_id,
        document_id=doc.document_id,
        document=doc.title,
        company=doc.company,
        fiscal_year=doc.fiscal_year,
        page=block.page,
        section=block.section or "Report",
        is_table=block.is_table,
        unit=_table_unit(block),
        text=text,
        content_hash=doc.content_hash,
        source_path=doc.source_path,
        years=sorted(printed | {doc.fiscal_year}),
    )


def parse_markdown(
    path: Path, company: "str | Company | None" = None, fiscal_year: int | None = None
) -> ParsedDocument:
    """Parse a Markdown report whose front matter names company and fiscal year.

    Flags override front matter. Raises DocumentError naming the path when the file is
    unreadable or lacks what a report needs.
    """
    try:
        raw = path.read_bytes()
        text = raw.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise DocumentError(f"{path}: cannot be read ({exc.__class__.__name__})") from exc
    meta, body = _front_matter(text.replace("\r\n", "\n"), path)
    fy_text = meta.get("fiscal_year", "")
    described, fy = _check_metadata(
        path,
        company or meta.get("company"),
        fiscal_year or (int(fy_text) if fy_text.isdigit() else None),
        meta,
    )
    title = meta.get("title") or f"{described.name} Annual Report {fy}"
    return _build(path, title, described, fy, raw, _markdown_blocks(body))


def parse_pdf(
    path: Path, company: "str | Company | None", fiscal_year: int | None, ocr: bool = False
) -> ParsedDocument:
    """Parse a PDF report. Who and when it is of come from the flags, else from its first
    pages (`ingestion.identity`: its name, listing code, period end and currency), which
    the document then says in its `identified` line, with what could not be told. Tables
    keep their columns and periods (`ingestion.statements`); pages whose text cannot be
    used are listed in the document's `problems`, and not indexed unless `ocr` reads
    them."""
    # long: who and when resolved while the file is read (its tables need them), then built.
    try:
        check_report_year(fiscal_year)
    except ValueError as exc:
        raise DocumentError(f"{path}: {exc}") from exc
    chosen: list[tuple[Company, int, Identity]] = []

    def resolve(identity: Identity) -> ReadContext:
        described = _pdf_company(path, company, identity)
        # A registered company's calendar dates the report (a quarter of a year that ends
        # in February is that later year's); a new one's is what its pages say.
        known = described.ticker in companies() and described == companies()[described.ticker]
        fy = fiscal_year or identity.fiscal_year(described.year_end if company or known else None)
        if fy is None:
            raise DocumentError(
                f"{path}: could not tell its fiscal year from its first pages (give it: --fy 2024)"
            )
        try:
            check_report_year(fy)
        except ValueError as exc:
            raise DocumentError(f"{path}: {exc}") from exc
        chosen.append((described, fy, identity))
        interim = identity.period_end if identity.interim else None
        return ReadContext(described.currency, described.year_end, fy, interim)

    try:
        raw = path.read_bytes()
        read = read_pdf(path, ocr=ocr, resolve=resolve)
    except OSError as exc:
        raise DocumentError(f"{path}: cannot be read ({exc.__class__.__name__})") from exc
    except PdfError as exc:
        raise DocumentError(f"{path}: not a readable PDF: {exc}") from exc
    described, fy, identity = chosen[-1]
    blocks = [_Block(b.page, b.section, b.text, b.is_table) for b in read.blocks]
    part, kind = _filing(identity, raw, fy)
    title = f"{described.name} {kind}"
    doc = _build(path, title, described, fy, raw, blocks, read.problems, part)
    doc.identified = _identified(described, fy, identity, company, fiscal_year)
    return doc


def _pdf_company(path: Path, company: "str | Company | None", identity: Identity) -> Company:
    """The company a PDF is of: the flag's, else the registered one its first pages name
    (by listing code or name), else a new one described by them."""
    if isinstance(company, Company):
        return company
    if company:
        return _company_for(path, company, {})
    if identity.name is None:
        raise DocumentError(
            f"{path}: could not tell its company from its first pages (give --company,"
            ' and --name "Example Mining" for a company not registered yet)'
        )
    for value in (identity.ticker, identity.name):
        ticker = normalise_ticker(value) if value else None
        if ticker is not None:
            return companies()[ticker]
    ticker = identity.ticker or ticker_from_name(identity.name)
    if ticker in companies():
        raise DocumentError(
            f"{path}: its code {ticker} is registered to {companies()[ticker].name}, not"
            f" {identity.name} (give --company and --name)"
        )
    # An interim report does not say when the year ends: the calendar's, as its fiscal
    # year was named by (`Identity.fiscal_year`), and the ingest line says so.
    year_end = identity.year_end or ("12-31" if identity.interim else "06-30")
    return Company(
        ticker,
        identity.name,
        aliases_for(ticker, identity.name),
        year_end,
        identity.currency or "US$",
    )


def _identified(
    described: Company, fy: int, identity: Identity, company: object, fiscal_year: int | None
) -> str | None:
    """The one line that says what was read from the report's first pages, and what was
    not; None when the flags said everything."""
    if company and fiscal_year:
        return None
    read: list[str] = []
    if not company:
        read.append(f"{described.name} ({described.ticker}), in {described.currency}")
    if not fiscal_year:
        end = identity.period_end
        said = f", {'period' if identity.interim else 'year'} ended {end:%d %B %Y}" if end else ""
        read.append(f"FY{fy}{said}")
    line = "read from its first pages: " + "; ".join(read)
    unknown = [u for u in identity.unknown if not (company and u != "the period it covers")]
    if unknown:
        line += f"; could not tell {_and(unknown)}"
        if "its listing code" in unknown and not company:
            line += f" (registered as {described.ticker}; --company sets another)"
        if "its reporting currency" in unknown and not company:
            line += f" (taken as {described.currency}; --currency sets another)"
        if "its fiscal-year end" in unknown and not company:
            line += f" (taken as {described.year_ends}; --year-end sets another)"
    return line


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]


def parse_document(
    path: Path,
    company: "str | Company | None" = None,
    fiscal_year: int | None = None,
    *,
    ocr: bool = False,
) -> ParsedDocument:
    """Parse a report by its suffix; raise DocumentError for anything unusable. `ocr`
    reads a PDF's pages without a usable text layer with tesseract."""
    if not path.is_file():
        raise DocumentError(f"{path}: no such file")
    suffix = path.suffix.lower()
    if suffix in (".md", ".markdown"):
        return parse_markdown(path, company, fiscal_year)
    if suffix == ".pdf":
        return parse_pdf(path, company, fiscal_year, ocr)
    raise DocumentError(f"{path}: unrecognised file type {suffix or '(none)'}; use .md or .pdf")
