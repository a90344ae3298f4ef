"""Language: how a text writes words, numbers, amounts, units, currencies, dates and
periods, sentences and short forms. The lowest room: it knows no company and no report."""
