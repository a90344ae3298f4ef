"""The drift alerts of ops/prometheus/alerts.yml, evaluated by promtool over synthetic series.

promtool (Debian's `prometheus` package; .ci/run installs it) runs the rule file itself:
the recording rules, then the alerts over them, hour by hour over eight weeks of counters
made here — the worker's own metric names and labels. Nothing is downloaded at test time.
Debian ships Prometheus 2.42 and production runs 3.x (docker-compose.yml): the rules use
only `increase`, `offset`, `sum`, arithmetic, comparisons, `and`/`or`, which mean the same
in both (3.x excludes a range's first instant, one sample of a week's 168 here).
"""

import random
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

RULES = Path(__file__).resolve().parents[2] / "ops" / "prometheus" / "alerts.yml"
DAYS = 56
"""Eight weeks: the trailing week and its 28-day baseline need 35 days of history."""
HOURS = DAYS * 24
DRIFT_DAYS = 21
DRIFTS = (
    "TurnstileRefusalRateDrift",
    "TurnstileClarificationRateDrift",
    "TurnstileUnsupportedClaimsDrift",
    "TurnstileCitationsDrift",
)

Rate = Callable[[int], float]
"""A quantity per turn (or per answer) at an hour of the series."""


def steady(level: float, seed: int, wobble: float = 0.25) -> Rate:
    """`level`, off by up to `wobble` of itself from day to day (seeded: the same series
    every run)."""
    rng = random.Random(seed)
    days = [level * (1 + rng.uniform(-wobble, wobble)) for _ in range(DAYS)]
    return lambda hour: days[hour // 24]


def drifting(start: float, end: float) -> Rate:
    """`start` until three weeks before the end, then a straight line to `end`."""
    begin = HOURS - DRIFT_DAYS * 24

    def rate(hour: int) -> float:
        if hour < begin:
            return start
        return start + (end - start) * (hour - begin) / (DRIFT_DAYS * 24)

    return rate


def counter(per_hour: Callable[[int], float]) -> str:
    """A counter's hourly samples from 0 (whole numbers: the running total rounded)."""
    total, values = 0.0, ["0"]
    for hour in range(HOURS):
        total += per_hour(hour)
        values.append(str(round(total)))
    return " ".join(values)


def series(
    turns_per_hour: float,
    refusals: Rate,
    clarifications: Rate,
    unsupported: Rate,
    citations: Rate,
) -> list[dict[str, str]]:
    """The worker's counters for traffic of `turns_per_hour` with these rates."""
    refused = lambda h: turns_per_hour * refusals(h)  # noqa: E731
    answered = lambda h: turns_per_hour - refused(h)  # noqa: E731
    return [
        {
            "series": 'turnstile_turns_total{status="answered",route="needs_retrieval"}',
            "values": counter(answered),
        },
        {
            "series": 'turnstile_turns_total{status="refused",route="out_of_scope"}',
            "values": counter(refused),
        },
        {"series": 'turnstile_refusals_total{reason="scope_rule"}', "values": counter(refused)},
        {
            "series": "turnstile_clarifications_total",
            "values": counter(lambda h: turns_per_hour * clarifications(h)),
        },
        {"series": "turnstile_unsupported_claims_count", "values": counter(answered)},
        {
            "series": "turnstile_unsupported_claims_sum",
            "values": counter(lambda h: answered(h) * unsupported(h)),
        },
        {"series": "turnstile_citations_count", "values": counter(answered)},
        {
            "series": "turnstile_citations_sum",
            "values": counter(lambda h: answered(h) * citations(h)),
        },
    ]


def rule(name: str) -> dict[str, Any]:
    groups = yaml.safe_load(RULES.read_text())["groups"]
    return next(r for g in groups for r in g["rules"] if r.get("alert") == name)


def expect(name: str, at: str, firing: bool) -> dict[str, Any]:
    """A promtool alert check: `name` firing at `at` (with its own labels and
    annotations), or not."""
    alerts = []
    if firing:
        found = rule(name)
        alerts = [{"exp_labels": found["labels"], "exp_annotations": found["annotations"]}]
    return {"eval_time": at, "alertname": name, "exp_alerts": alerts}


def case(
    turns_per_hour: float = 10.0,
    *,
    refusals: Rate | None = None,
    clarifications: Rate | None = None,
    unsupported: Rate | None = None,
    citations: Rate | None = None,
    firing: tuple[str, ...] = (),
    quiet_on_drift_day: int | None = None,
) -> dict[str, Any]:
    """A promtool test group: eight weeks of traffic (each rate steady unless given), and
    at the end exactly the alerts `firing` fire among the drift alerts (and none yet on
    `quiet_on_drift_day` of the drift)."""
    checks = [expect(name, f"{DAYS}d", name in firing) for name in DRIFTS]
    if quiet_on_drift_day is not None:
        early = f"{DAYS - DRIFT_DAYS + quiet_on_drift_day}d"
        checks += [expect(name, early, False) for name in DRIFTS]
    inputs = series(
        turns_per_hour,
        refusals or steady(0.04, 1),
        clarifications or steady(0.05, 2),
        unsupported or steady(0.3, 3),
        citations or steady(3.0, 4),
    )
    return {"interval": "1h", "input_series": inputs, "alert_rule_test": checks}


def promtool(tmp_path: Path, *groups: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    tests = tmp_path / "drift_test.yml"
    # Every 3 hours, not production's 15 minutes: a week's window moves little in either,
    # and promtool's time is in the number of evaluations (15 minutes: 50 s a case here).
    tests.write_text(
        yaml.safe_dump(
            {
                "rule_files": [str(RULES)],
                "evaluation_interval": "3h",
                "tests": list(groups),
            }
        )
    )
    return subprocess.run(
        [PROMTOOL, "test", "rules", str(tests)], capture_output=True, text=True, check=False
    )


PROMTOOL = shutil.which("promtool") or "promtool"


@pytest.fixture(autouse=True)
def _promtool() -> Iterator[None]:
    assert shutil.which("promtool"), "apt-get install prometheus (it ships promtool)"
    yield


def test_a_refusal_rate_drifting_from_4_to_19_percent_over_three_weeks_fires(
    tmp_path: Path,
) -> None:
    """It fires on the drift's seventh day (about 6% against the baseline's 4%); on its
    fifth, nothing yet."""
    drift = case(
        refusals=drifting(0.04, 0.19),
        firing=("TurnstileRefusalRateDrift",),
        quiet_on_drift_day=5,
    )
    ran = promtool(tmp_path, drift)
    assert ran.returncode == 0, ran.stdout + ran.stderr


def test_steady_rates_fire_no_drift_alert(tmp_path: Path) -> None:
    ran = promtool(tmp_path, case())
    assert ran.returncode == 0, ran.stdout + ran.stderr


def test_a_quiet_week_does_not_fire_whatever_its_rates(tmp_path: Path) -> None:
    """Two turns an hour (336 a week) is under the volume an alert needs."""
    ran = promtool(tmp_path, case(2.0, refusals=drifting(0.04, 0.19)))
    assert ran.returncode == 0, ran.stdout + ran.stderr


def test_unsupported_claims_rising_and_citations_falling_fire_their_own_alerts(
    tmp_path: Path,
) -> None:
    ran = promtool(
        tmp_path,
        case(unsupported=drifting(0.3, 1.2), firing=("TurnstileUnsupportedClaimsDrift",)),
        case(citations=drifting(3.0, 1.2), firing=("TurnstileCitationsDrift",)),
        case(clarifications=drifting(0.05, 0.15), firing=("TurnstileClarificationRateDrift",)),
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr


def test_a_refusal_rate_falling_away_fires_too(tmp_path: Path) -> None:
    """Refusals vanishing is drift as well: scope rules or routing stopped refusing."""
    ran = promtool(
        tmp_path, case(refusals=drifting(0.12, 0.01), firing=("TurnstileRefusalRateDrift",))
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr


def test_the_check_fails_when_an_alert_it_expects_does_not_fire(tmp_path: Path) -> None:
    """promtool's verdict is read, not assumed: a steady series said to fire fails."""
    ran = promtool(tmp_path, case(firing=("TurnstileRefusalRateDrift",)))
    assert ran.returncode != 0 and "TurnstileRefusalRateDrift" in ran.stdout + ran.stderr


def _suite_run(regressions: str) -> dict[str, Any]:
    """Six hours of the gauge the scheduled suite run sets (one value a 3-hour step)."""
    firing = regressions.split()[-1] != "0"
    return {
        "interval": "3h",
        "input_series": [{"series": "turnstile_suite_regressions", "values": regressions}],
        "alert_rule_test": [expect("TurnstileSuiteDrift", "6h", firing)],
    }


def test_a_scheduled_suite_run_that_regressed_fires_the_suite_drift_alert(tmp_path: Path) -> None:
    ran = promtool(tmp_path, _suite_run("0 0 2"))
    assert ran.returncode == 0, ran.stdout + ran.stderr


def test_a_suite_run_as_the_baseline_expects_is_quiet(tmp_path: Path) -> None:
    ran = promtool(tmp_path, _suite_run("0 1 0"))  # a regression fixed by the next run
    assert ran.returncode == 0, ran.stdout + ran.stderr
