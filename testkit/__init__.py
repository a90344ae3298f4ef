"""What the tests and the benchmarks share, so neither reaches into the other: the answer
cases (`answer_cases`), the hand-checked cells of the five ASX reports (`asx_suite`), the
report generator (`reportgen`) and the protocol-faithful fake model providers
(`fake_servers`). Nothing here is product code, and none of it imports tests/ or bench/
(an import-linter contract)."""
