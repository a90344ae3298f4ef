"""Evaluation: the suites (evals/suites/), the golden probe sets (evals/probes/), the judge
calibration set (judge.jsonl), the retrieval configurations (configs/) and the release
gate's baseline (baseline.json), with the code that runs them (`turnstile eval`).

The case format and the scorers are `domain.evaluation.scoring` (pure, shared with the golden
probes' workflow); this package loads files and drives runs: mock mode (synthetic
outcomes through the real scorers), real mode (the running stack), the retrieval A/B
harness and the judge calibration. See docs/evaluation.md.
"""
