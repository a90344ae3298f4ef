"""Comparison tables in an answer, and the figures their rows say are not in the reports.

A comparison of several companies is one Markdown table per measure (and unit base): a
row per company asked, a column per year. A company whose figure the reports do not give
keeps its row, its cell saying so (`NOT_FOUND_CELL`): the table shows every company asked,
and that cell is the figure's not-found line, so the answer does not repeat it below.
"""

from domain.companies.roster import display_name
from domain.models import NotFound

NOT_FOUND_CELL = "not found in the reports"
"""A table cell for a figure the reports do not give (its not-found line, in the table)."""


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def _tables(answer: str) -> list[list[list[str]]]:
    """Each Markdown table of `answer` as rows of cells: its header first, no divider."""
    tables: list[list[list[str]]] = []
    current: list[list[str]] = []
    for line in [*answer.splitlines(), ""]:
        if line.lstrip().startswith("|"):
            cells = _cells(line)
            if not all(set(c) <= set("-: ") for c in cells):
                current.append(cells)
            continue
        if current:
            tables.append(current)
            current = []
    return tables


def said_in_table(gap: NotFound, answer: str) -> bool:
    """Whether a table of `answer` for the gap's measure has the gap's company's row with
    `NOT_FOUND_CELL` in the gap's year's column (the company by name or ticker). Where no
    company registry is loaded (a scorer outside a turn), the name cannot be told, and any
    such row counts."""
    name = display_name(gap.company)
    names = {gap.company.lower(), name.lower()}
    anyone = name == gap.company
    for header, *rows in _tables(answer):
        year = f"FY{gap.fiscal_year}"
        if header[0].lower() != gap.metric.lower() or year not in header:
            continue
        column = header.index(year)
        for row in rows:
            if (
                len(row) > column
                and (anyone or row[0].lower() in names)
                and row[column].lower() == NOT_FOUND_CELL
            ):
                return True
    return False


def said(gap: NotFound, answer: str) -> bool:
    """Whether `answer` says the gap is not in the reports: its line, or its table row."""
    return gap.line() in answer or said_in_table(gap, answer)
