"""Companies: who the covered companies are, what they are called, which years they
report. Above language."""
