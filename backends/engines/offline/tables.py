"""Comparison tables for three or more companies.

One Markdown table per unit base, a row per company and a column per year, every cell
cited or the not-found cell.
"""

from backends.engines.offline.compose import Composer
from backends.engines.offline.facts import Chosen, signed_base
from domain.checks.tables import NOT_FOUND_CELL
from domain.companies.roster import coverage, display_name
from domain.questions.metrics import metric_display
from domain.reports.figures import to_base
from domain.reports.open_answers import without_figures


def tables(
    composer: Composer,
    chosen: Chosen,
    companies: list[str],
    years: list[int],
    metric: str,
) -> list[str]:
    """One Markdown table per unit base: a row per company (ranked by the latest
    year's figure), a column per year, every cell in the table's one unit and cited.
    Figures in different currencies or kinds get separate tables, never one column.
    A company asked with no figure keeps its row, last, in the table of its reporting
    currency (else the first), every cell `NOT_FOUND_CELL`: its not-found line."""
    # long: one table per unit base, its rows and columns built in order.
    present = {
        (t, y): chosen[(t, y, metric)] for t in companies for y in years if (t, y, metric) in chosen
    }
    groups: dict[str, list[str]] = {}
    for (ticker, _), s in present.items():
        members = groups.setdefault(to_base(s.fact.value, s.fact.unit).base, [])
        if ticker not in members:
            members.append(ticker)
    absent = [t for t in companies if not any((t, y) in present for y in years)]
    for ticker in absent if groups else []:
        registered = coverage().companies.get(ticker)
        currency = registered.currency.lower() if registered else ""
        home = next((b for b in groups if b.startswith(currency)), next(iter(groups)))
        groups[home].append(ticker)
    display = metric_display(metric)
    title = display[:1].upper() + display[1:]
    basis = metric == "production"
    blocks: list[str] = []
    for tickers in groups.values():
        facts = [present[(t, y)].fact for t in tickers for y in years if (t, y) in present]
        unit = composer.unit_for(facts)

        def rank(ticker: str) -> float:
            latest = [present[(ticker, y)] for y in reversed(years) if (ticker, y) in present]
            return -signed_base(latest[0]).value if latest else 0.0

        header = [title, *(["Reported as"] if basis else []), *(f"FY{y}" for y in years)]
        lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        for ticker in sorted(tickers, key=lambda t: (t in absent, rank(t))):
            cells = [display_name(ticker)]
            if basis:
                label = next(
                    (present[(ticker, y)].fact.label for y in years if (ticker, y) in present),
                    None,
                )
                cells.append(without_figures(label) if label else "")
            for year in years:
                cell = present.get((ticker, year))
                cells.append(
                    f"{composer.value(cell.fact, unit)} [{cell.n}]" if cell else NOT_FOUND_CELL
                )
            lines.append("| " + " | ".join(cells) + " |")
        blocks.append("\n".join(lines))
    return blocks
