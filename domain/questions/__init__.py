"""Questions: what a question asks, in its own words: its companies, years, metrics and
measures, its intent, choices and analyst calculations. Above companies."""
