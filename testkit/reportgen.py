"""Write full-length synthetic annual-report PDFs (fpdf2) laid out as real ones are.

No third-party report is committed: tests and benchmarks generate their own. A report
here has what a real ASX annual report has and a naive reader loses:

- an unnumbered cover and contents page, so the printed page number ("12" in the footer)
  is not the PDF page index;
- a running header and footer on every numbered page;
- statements in unruled columns: a row label, a note reference ("C1(c)"), this year's
  and last year's values, with "$'m" above the columns and losses in parentheses;
- a footnote marker in small type after a label;
- a statement that runs over a page break, its header not repeated;
- prose with figures, in one column and in two;
- a page with no text layer (drawn, as a scan would be), and one whose font has no
  character map (its text extracts as "(cid:12)");
- enough note pages to reach the page count asked for (100+ by default).

`write_report` returns what it wrote (`Written`): every statement figure with its label,
period and printed page, so a test can check what a reader made of it.
"""

import random
from dataclasses import dataclass, field
from pathlib import Path

from fpdf import FPDF


@dataclass(frozen=True)
class Figure:
    """One number the report prints in a statement."""

    label: str
    fiscal_year: int
    value: float
    text: str
    """As printed ("1,234", "(56)")."""
    printed_page: int
    pdf_page: int
    statement: str


@dataclass
class Written:
    path: Path
    pages: int
    figures: list[Figure] = field(default_factory=list)
    sentences: list[str] = field(default_factory=list)
    """Prose sentences with a figure, as written."""
    two_column_sentences: list[str] = field(default_factory=list)
    blank_pdf_pages: list[int] = field(default_factory=list)
    """PDF page indices (1-based) of the pages without a text layer."""
    garbled_pdf_pages: list[int] = field(default_factory=list)
    """PDF page indices of the pages whose font has no character map."""
    running_header: str = ""


def _amount(value: float) -> str:
    text = f"{abs(value):,.0f}"
    return f"({text})" if value < 0 else text


_INCOME = [
    ("Revenue", "C1(a)", 4200, 3900),
    ("Other income", "C1(b)", 35, 48),
    ("Cost of sales", "C2", -2610, -2488),
    ("Exploration and evaluation expense", "C2", -96, -84),
    ("Administration expenses", "C2", -141, -133),
    ("Finance costs", "C3(c)", -58, -61),
    ("Profit before income tax", "", 1330, 1182),
    ("Income tax expense", "C4", -399, -355),
    ("Profit after tax", "", 931, 827),
]

_BALANCE = [
    ("Cash and cash equivalents", "D1", 1120, 846),
    ("Trade and other receivables", "D2", 312, 288),
    ("Inventories", "D3", 655, 601),
    ("Property, plant and equipment", "D4", 8120, 7644),
    ("Mine development", "D5", 2210, 1987),
    ("Exploration and evaluation assets", "D6", 431, 402),
    ("Right-of-use assets", "D7", 188, 203),
    ("Deferred tax assets", "C4", 77, 91),
    ("Total assets", "", 13113, 12062),
    ("Trade and other payables", "D8", 702, 655),
    ("Borrowings", "E1", 1450, 1620),
    ("Lease liabilities", "E2", 201, 214),
    ("Provisions", "D9", 866, 809),
    ("Deferred tax liabilities", "C4", 544, 498),
    ("Total liabilities", "", 3763, 3796),
    ("Net assets", "", 9350, 8266),
    ("Issued capital", "E3", 6120, 6120),
    ("Reserves", "E4", 215, 188),
    ("Retained earnings", "", 3015, 1958),
    ("Total equity", "", 9350, 8266),
]


class _Report(FPDF):
    def __init__(self, header: str, numbered_from: int) -> None:
        super().__init__(format="A4")
        self.running_header = header
        self.numbered_from = numbered_from
        self.set_auto_page_break(auto=False)

    def printed(self) -> int:
        return self.page_no() - self.numbered_from + 1

    def header(self) -> None:
        if self.page_no() < self.numbered_from:
            return
        self.set_font("Helvetica", size=8)
        self.set_xy(15, 8)
        self.cell(0, 5, self.running_header)

    def footer(self) -> None:
        if self.page_no() < self.numbered_from:
            return
        self.set_font("Helvetica", size=8)
        self.set_xy(15, 285)
        self.cell(0, 5, str(self.printed()), align="R")


def _heading(pdf: _Report, text: str) -> None:
    pdf.set_font("Helvetica", style="B", size=15)
    pdf.set_xy(15, 20)
    pdf.cell(0, 9, text)
    pdf.set_xy(15, 34)


def _paragraph(pdf: _Report, text: str, width: float = 180.0, x: float = 15.0) -> None:
    pdf.set_font("Helvetica", size=10)
    pdf.set_x(x)
    pdf.multi_cell(width, 5, text)
    pdf.ln(3)


def _statement_header(pdf: _Report, fy: int, unit: str) -> None:
    pdf.set_font("Helvetica", style="B", size=9)
    y = pdf.get_y()
    pdf.set_xy(120, y)
    pdf.cell(20, 5, "Note", align="R")
    pdf.cell(30, 5, str(fy), align="R")
    pdf.cell(30, 5, str(fy - 1), align="R")
    pdf.set_xy(150, y + 5)
    pdf.cell(30, 5, unit, align="R")
    pdf.cell(30, 5, unit, align="R")
    pdf.set_xy(15, y + 12)


def _row(
    pdf: _Report, label: str, note: str, values: tuple[float, float], footnote: str = ""
) -> None:
    pdf.set_font("Helvetica", size=9)
    y = pdf.get_y()
    pdf.set_xy(15, y)
    pdf.cell(pdf.get_string_width(label) + 0.5, 5, label)
    if footnote:
        pdf.set_font("Helvetica", size=5)
        pdf.cell(3, 3, footnote)
        pdf.set_font("Helvetica", size=9)
    pdf.set_xy(120, y)
    pdf.cell(20, 5, note, align="R")
    pdf.cell(30, 5, _amount(values[0]), align="R")
    pdf.cell(30, 5, _amount(values[1]), align="R")
    pdf.set_xy(15, y + 6)


def write_report(
    path: Path,
    company: str,
    fiscal_year: int,
    *,
    pages: int = 110,
    seed: int = 7,
    unit: str = "$'m",
) -> Written:
    """Write a report of `pages` pages (at least 12) for `company` and `fiscal_year`."""
    rng = random.Random(seed)
    header = f"{company} Annual Report {fiscal_year}"
    pdf = _Report(header, numbered_from=3)
    written = Written(path, pages, running_header=header)
    fy, prior = fiscal_year, fiscal_year - 1

    def figure(label: str, year: int, value: float, statement: str) -> None:
        written.figures.append(
            Figure(label, year, value, _amount(value), pdf.printed(), pdf.page_no(), statement)
        )

    # Cover and contents: no header, footer or page number.
    pdf.add_page()
    pdf.set_font("Helvetica", style="B", size=28)
    pdf.set_xy(15, 120)
    pdf.cell(0, 14, company)
    pdf.set_xy(15, 140)
    pdf.set_font("Helvetica", size=18)
    pdf.cell(0, 10, f"Annual Report {fiscal_year}")
    pdf.add_page()
    _heading(pdf, "Contents")
    _paragraph(pdf, "Chair's letter 1. Operating review 2. Financial statements 4. Notes 8.")

    # Chair's letter: prose with figures.
    pdf.add_page()
    _heading(pdf, "Chair's letter")
    revenue, prior_revenue = _INCOME[0][2], _INCOME[0][3]
    sentences = [
        f"Revenue for the year ended 30 June {fy} was ${revenue:,} million, up from "
        f"${prior_revenue:,} million a year earlier.",
        f"The Board determined a final dividend of {rng.randint(10, 40)} cents per share.",
        "We thank our people, our communities and our shareholders for their support.",
    ]
    written.sentences += sentences[:2]
    _paragraph(pdf, " ".join(sentences))

    # Operating review in two columns.
    pdf.add_page()
    _heading(pdf, "Operating review")
    left = (
        f"Gold sold in the year reached {rng.randint(400, 900)} thousand ounces from three "
        "production centres. The mill expansion at the main site was completed on schedule "
        "and within its budget, and the new underground mine began stoping in March."
    )
    right = (
        "Exploration drilling extended the known resource at depth. Water use per tonne "
        f"processed fell to {rng.randint(300, 600)} litres as the recycling plant came "
        "online, and the tailings facilities were inspected by an independent engineer."
    )
    top = pdf.get_y()
    _paragraph(pdf, left, width=85, x=15)
    pdf.set_y(top)
    _paragraph(pdf, right, width=85, x=110)
    written.two_column_sentences += [left.split(". ")[1], right.split(". ")[0] + "."]

    # A page with no text layer: a scan, drawn.
    pdf.add_page()
    for i in range(30):
        pdf.rect(15, 30 + i * 8, rng.randint(60, 180), 4, style="F")
    written.blank_pdf_pages.append(pdf.page_no())

    # A page in a font without a character map: its text reads as "(cid:12)".
    pdf.add_page()
    pdf.add_font("Unmapped", fname=_truetype())
    _heading(pdf, "Remuneration report")
    pdf.set_font("Unmapped", size=10)
    pdf.set_x(15)
    pdf.multi_cell(180, 5, "Fixed pay rose 3 per cent and short-term incentives paid 61 per cent.")
    written.garbled_pdf_pages.append(pdf.page_no())

    # Income statement.
    pdf.add_page()
    _heading(pdf, "Consolidated statement of profit or loss")
    _statement_header(pdf, fy, unit)
    for i, (label, note, now, before) in enumerate(_INCOME):
        _row(pdf, label, note, (now, before), footnote="1" if i == 1 else "")
        figure(label, fy, now, "income")
        figure(label, prior, before, "income")
    pdf.set_font("Helvetica", size=7)
    pdf.set_x(15)
    pdf.cell(0, 5, "1. Other income includes gains on the sale of non-core assets.")

    # Balance sheet: runs over a page break without repeating its header.
    pdf.add_page()
    _heading(pdf, "Consolidated statement of financial position")
    _statement_header(pdf, fy, unit)
    for i, (label, note, now, before) in enumerate(_BALANCE):
        if i == 12:
            pdf.add_page()
            pdf.set_xy(15, 20)
        _row(pdf, label, note, (now, before))
        figure(label, fy, now, "balance")
        figure(label, prior, before, "balance")

    # Notes to the financial statements, to the length asked for.
    note_no = 1
    while pdf.page_no() < pages:
        pdf.add_page()
        _heading(pdf, f"Note {note_no}: Segment information")
        _paragraph(
            pdf,
            f"This note sets out segment {note_no}'s results, measured as the chief "
            "operating decision maker reviews them.",
        )
        _statement_header(pdf, fy, unit)
        for r in range(8):
            label = f"Segment {note_no} item {r + 1}"
            now, before = rng.randint(10, 900), rng.randint(10, 900)
            _row(pdf, label, "", (now, before))
            figure(label, fy, now, "notes")
            figure(label, prior, before, "notes")
        note_no += 1
    pdf.output(str(path))
    # The one TrueType font is the unmapped page's: its character map goes (the same
    # number of bytes, so the file's offsets hold).
    raw = path.read_bytes()
    path.write_bytes(raw.replace(b"/ToUnicode", b"/XoUnicode"))
    return written


def _truetype() -> str:
    """A TrueType font file on this machine: matplotlib's DejaVu Sans (a dependency of
    the dev tools), else Debian's."""
    try:
        import matplotlib

        found = Path(matplotlib.get_data_path()) / "fonts/ttf/DejaVuSans.ttf"
        if found.is_file():
            return str(found)
    except ImportError:
        pass
    return "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


def write_scan(source: Path, path: Path, pdf_pages: list[int], dpi: int = 200) -> None:
    """A scan of some pages of `source` (1-based PDF indices, in order): each page only
    an image of the page rendered at `dpi`, with no text layer, as a scanner writes."""
    import io

    import pdfplumber

    with pdfplumber.open(source) as pdf:
        width, height = float(pdf.pages[0].width), float(pdf.pages[0].height)
        images = [pdf.pages[i - 1].to_image(resolution=dpi).original for i in pdf_pages]
    scan = FPDF(unit="pt", format=(width, height))
    for image in images:
        scan.add_page()
        png = io.BytesIO()
        image.convert("L").save(png, format="PNG")
        scan.image(png, x=0, y=0, w=width, h=height)
    scan.output(str(path))
