"""The assistant's fixed replies, built from the coverage in force: what it does, and the
question it asks when no company is named.

Both engines give these texts as they are (a refusal or a direct answer is never
generated text), so every list of companies and years a user reads follows the registry.
"""

from domain.companies.roster import (
    calendars,
    companies,
    company_names,
    how_many,
    latest_fiscal_year,
    year_span,
)


def direct_answer() -> str:
    """What the assistant does, built from the coverage in force (a fixed text, never a
    generated one): the companies and years held, and example questions about them."""
    held = list(companies().values())
    if not held:
        return (
            "I answer questions about the annual reports ingested here, with every figure "
            "cited to a report page and checked against it, but no report has been "
            "ingested yet: add one with `turnstile ingest`. I do not give investment advice."
        )
    latest = latest_fiscal_year()
    first = held[0]
    examples = [f'"What was {first.name}\'s revenue in FY{first.fiscal_years[-1]}?"']
    if len(held) > 1:
        second = held[1]
        common = sorted(set(first.fiscal_years) & set(second.fiscal_years))
        year = common[-1] if common else latest
        examples.append(f'"Compare {second.name} and {first.name} underlying EBITDA in FY{year}"')
    if len(first.fiscal_years) > 1:
        examples.append(
            f"\"How did {first.name}'s net debt change from FY{first.fiscal_years[0]} to "
            f'FY{first.fiscal_years[-1]}?"'
        )
    listed = examples[0] if len(examples) == 1 else ", ".join(examples[:-1]) + " or " + examples[-1]
    return (
        f"I answer questions about the annual reports of {how_many()} "
        f"{'company' if len(held) == 1 else 'companies'}: "
        f"{company_names(with_tickers=True)}, for the fiscal years {year_span(' to ')}. I can "
        "give any figure the reports print, in their own words or yours, say what they say about "
        "strategy, risks and outlook, compare companies and years, and work out growth and "
        "differences. Every figure is cited to a report page and checked against it. "
        f"{calendars()} I do not give investment advice. You could ask, for example: {listed}"
    )


def clarifying_question() -> str:
    """The question asked when no company is named, built from the coverage in force."""
    held = list(companies().values())
    example = ""
    if held:
        last = held[-1]
        example = f' For example: "What was {last.name}\'s net debt in FY{last.fiscal_years[-1]}?"'
    return (
        f"Which company do you mean? I cover {company_names(with_tickers=True)}, for "
        f"{year_span(' to ')}.{example}"
    )
