"""Reports: what a report prints, as facts: its figures, their periods and units, the
line items and passages, and which company, year and metric each amount of a text is
bound to. Above questions."""
