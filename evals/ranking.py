"""Ranking metrics with ranx: hit rate and MRR at a cutoff from the rank of each case's
first relevant chunk (None: none returned).

Only the returned chunks can be judged through the stack, so each case's qrels hold one
relevant id per case: the first hit's position is what both metrics need. ranx computes
them; a direct count cross-checks the hit rate.
"""

import statistics
import sys
import warnings


def ranx_metrics(first_hits: dict[str, int | None], cutoff: int) -> dict[str, float]:
    """`hit@k`, `mrr@k` (ranx) and `mean_rank` (of the cases with a hit)."""
    import numba

    if "ranx" not in sys.modules:
        # ranx compiles each metric with numba on first use: about 31 CPU seconds per
        # process in a fresh virtualenv, for a few hundred cases that plain Python scores
        # in milliseconds (the same values; the hand-count test checks them). numba reads
        # this when ranx's functions are decorated, so it is set before ranx is imported;
        # nothing else here uses numba.
        numba.config.DISABLE_JIT = True  # type: ignore[attr-defined]  # set at import
    from ranx import Qrels, Run, evaluate

    if not first_hits:
        return {}
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    depth = max([cutoff, *(r for r in first_hits.values() if r)])
    for case, rank in first_hits.items():
        qrels[case] = {"relevant": 1}
        ids = [f"other-{i}" for i in range(1, depth + 1)]
        if rank is not None:
            ids[rank - 1] = "relevant"
        run[case] = {cid: float(depth - i) for i, cid in enumerate(ids)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", numba.NumbaTypeSafetyWarning)
        scores = evaluate(Qrels(qrels), Run(run), [f"hit_rate@{cutoff}", f"mrr@{cutoff}"])
    assert isinstance(scores, dict)
    hit = float(scores[f"hit_rate@{cutoff}"])
    counted = sum(1 for r in first_hits.values() if r is not None and r <= cutoff) / len(first_hits)
    if abs(hit - counted) > 1e-9:
        raise AssertionError(f"ranx hit rate {hit} disagrees with the count {counted}")
    ranks = [r for r in first_hits.values() if r is not None]
    return {
        f"hit@{cutoff}": round(hit, 4),
        f"mrr@{cutoff}": round(float(scores[f"mrr@{cutoff}"]), 4),
        "mean_rank": round(statistics.mean(ranks), 3) if ranks else 0.0,
    }
