"""`turnstile eval`'s subcommands: the suites (mock or real), the retrieval A/B harness, the
judge calibration, one golden-probe run, and the live cases and shadow report. Their
arguments and exit codes are in `evals.cli`."""

import argparse
import asyncio
import json
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
from pydantic import ValidationError
from temporalio.client import Client, WorkflowFailureError
from temporalio.service import RPCError

import payloads
from domain.evaluation.scoring import DRAFTS, SLICES, CaseError, EvalCase, SliceRun
from evals import ab, judge, live
from evals.cases import JUDGE_SET, load_file, load_probes, load_suites
from evals.cli import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_UNREACHABLE, CommandError
from evals.mock import run_mock
from evals.real import EvalError, Stack, run_real
from evals.results import Baseline, CaseResult, SuiteRun, gate, merge_repeats
from settings import Settings

FLOORS = ("retrieval.hit@5", "retrieval.mrr@5")
"""The measures a baseline keeps as floors (higher is better for both)."""
PROBE_RUN_MINUTES = 30


def run(
    command: Callable[..., Any],
    args: argparse.Namespace,
    settings: Settings,
    auth: Callable[[Settings], dict[str, str]],
) -> int:
    try:
        return int(asyncio.run(command(args, settings, auth)))
    except CaseError as err:
        raise CommandError(str(err), EXIT_BAD_INPUT) from None
    except (EvalError, WorkflowFailureError) as err:
        cause = getattr(err, "cause", None)
        raise CommandError(f"{err}: {cause}" if cause else str(err), EXIT_FAILED) from None
    except RPCError as err:
        raise CommandError(f"Temporal refused the request: {err}", EXIT_FAILED) from None
    except (httpx.TransportError, RuntimeError) as err:
        if isinstance(err, RuntimeError) and "connect" not in str(err).lower():
            raise
        raise CommandError(
            f"cannot reach the stack (API {settings.api_url}, Temporal "
            f"{settings.effective_temporal_address}): start it with `turnstile up`",
            EXIT_UNREACHABLE,
        ) from None


_CONNECTED: list[bool] = []


def used_temporal() -> bool:
    """Whether this process started a Temporal client, or tried to (`cli.main.entry`)."""
    return bool(_CONNECTED)


@asynccontextmanager
async def stack(
    settings: Settings, auth: Callable[[Settings], dict[str, str]]
) -> AsyncIterator[Stack]:
    _CONNECTED.append(True)  # even a failed attempt has started the SDK's runtime
    temporal = await Client.connect(
        settings.effective_temporal_address,
        namespace=settings.temporal_namespace,
        data_converter=payloads.data_converter(settings),
    )
    async with httpx.AsyncClient(
        base_url=settings.api_url, headers=auth(settings), timeout=httpx.Timeout(200.0)
    ) as http:
        yield Stack(temporal=temporal, task_queue=settings.task_queue, http=http)


async def engine_of(http: httpx.AsyncClient) -> tuple[str, str | None]:
    health = (await http.get("/healthz")).json()
    return str(health.get("engine", {}).get("name", "unknown")), health.get("corpus_version")


def _opt(args: argparse.Namespace, name: str) -> Any:
    """An option that a subcommand may leave unset (its default is "not given")."""
    return getattr(args, name, None)


def narrow(cases: list[EvalCase], ids: list[str] | None, limit: int | None) -> list[EvalCase]:
    if ids and limit:
        raise CaseError("give --case or --limit, not both")
    if ids:
        known = {c.id for c in cases}
        unknown = [i for i in ids if i not in known]
        if unknown:
            raise CaseError(f"no case {unknown[0]!r} in the suites chosen")
        cases = [c for c in cases if c.id in ids]
    return cases[:limit] if limit else cases


def chosen_cases(args: argparse.Namespace) -> list[EvalCase]:
    if args.file and args.suite:
        raise CaseError("give --file or --suite, not both")
    if args.file:
        suites = {path: load_file(Path(path), DRAFTS) for path in args.file}
    else:
        suites = load_suites(args.suite or None)
    if args.case and args.limit:
        raise CaseError("give --case or --limit, not both")
    out: list[EvalCase] = []
    for cases in suites.values():
        out += narrow(cases, None, args.limit)
    return narrow(out, args.case, None)


def _check_options(args: argparse.Namespace) -> None:
    if args.mode == "mock":
        for given, flag in (
            (args.engine, "--engine"),
            (args.baseline, "--baseline"),
            (args.write_baseline, "--write-baseline"),
        ):
            if given:
                raise CaseError(f"{flag} needs --mode real (mock mode runs no stack)")
    narrowed = bool(args.suite or args.case or args.limit or args.file)
    if args.write_baseline and (narrowed or args.repeat > 1):
        raise CaseError(
            "--write-baseline writes the whole baseline: run every suite once, "
            "without --suite, --file, --case, --limit or --repeat"
        )


def _read_baseline(text: str) -> Baseline:
    try:
        return Baseline.read(Path(text))
    except OSError as err:
        raise CaseError(f"{text}: cannot read the baseline ({err.strerror})") from None
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "the file"
        raise CaseError(f"{text}: not a baseline: {where}: {first['msg']}") from None


async def suites_command(
    args: argparse.Namespace, settings: Settings, auth: Callable[[Settings], dict[str, str]]
) -> int:
    # long: one run of the suites, from options through the stack to the gate and the exit code.
    _check_options(args)
    cases = chosen_cases(args)
    baseline = _read_baseline(args.baseline) if args.baseline else None
    runs: list[list[CaseResult]] = []
    metrics: dict[str, float] = {}
    engine, corpus = "none", None
    if args.mode == "mock":
        runs = [run_mock(cases) for _ in range(args.repeat)]
    else:
        async with stack(settings, auth) as target:
            engine, corpus = await engine_of(target.http)
            if args.engine and args.engine != engine:
                raise CaseError(
                    f"the stack runs the {engine} engine, not {args.engine}: "
                    f"restart it with TURNSTILE_ENGINE={args.engine}"
                )
            for _ in range(args.repeat):
                results, metrics = await run_real(target, cases)
                runs.append(results)
    run = SuiteRun(
        mode=args.mode,
        engine=engine,
        corpus_version=corpus,
        repeat=args.repeat,
        cases=merge_repeats(runs),
        metrics=metrics,
    )
    verdict: list[str] | None = None
    if baseline is not None:
        complete = not (args.suite or args.case or args.limit or args.file)
        verdict = gate(run, baseline, complete=complete)
    if args.write_baseline:
        failures = {f"{c.suite}/{c.id}": "; ".join(c.problems) for c in run.cases if not c.passed}
        wanted = {k: v for k, v in metrics.items() if k in FLOORS}
        try:
            Baseline(known_failures=failures, metrics=wanted).write(Path(args.write_baseline))
        except OSError as err:
            raise CaseError(f"{args.write_baseline}: cannot write ({err.strerror})") from None
    if args.json:
        print(json.dumps({**run.model_dump(mode="json"), "gate": verdict}, ensure_ascii=False))
    else:
        print(render_run(run, verdict))
    if verdict is not None:
        return EXIT_FAILED if verdict else 0
    return 0 if all(c.passed for c in run.cases) else EXIT_FAILED


def render_run(run: SuiteRun, verdict: list[str] | None) -> str:
    lines = []
    for suite, cases in run.by_suite().items():
        passed = sum(c.passed for c in cases)
        lines.append(f"{suite}: {passed}/{len(cases)} passed")
        for case in cases:
            if not case.passed:
                runs = f" ({case.passes} of {case.runs} passed)" if case.runs > 1 else ""
                lines.append(f"  FAIL {case.id}{runs}: {'; '.join(case.problems)}")
            elif case.runs > 1:
                lines.append(f"  ok   {case.id} ({case.passes} of {case.runs})")
    flaky = [c for c in run.cases if c.flaky]
    if run.repeat > 1:
        lines.append(f"flaky: {len(flaky)} case(s) passed some runs and failed others")
    for name, value in sorted(run.metrics.items()):
        lines.append(f"{name}: {value:.4f}")
    total = len(run.cases)
    passed = sum(c.passed for c in run.cases)
    lines.append(
        f"{run.mode} mode, engine {run.engine}, corpus {run.corpus_version or '-'}: "
        f"{passed}/{total} passed"
    )
    if verdict is not None:
        lines.append("release gate: " + ("no regression" if not verdict else "FAILED"))
        lines += [f"  {line}" for line in verdict]
    return "\n".join(lines)


async def ab_command(
    args: argparse.Namespace, settings: Settings, auth: Callable[[Settings], dict[str, str]]
) -> int:
    a, b = ab.load_config(args.a), ab.load_config(args.b)
    cases = narrow(load_suites(["retrieval"])["retrieval"], _opt(args, "case"), _opt(args, "limit"))
    async with stack(settings, auth) as target:
        report = await ab.compare(target, cases, a, b, pause=args.pause)
    print(report.model_dump_json() if _opt(args, "json") else ab.render(report))
    return EXIT_FAILED if report.not_scored else 0


async def judge_command(
    args: argparse.Namespace, settings: Settings, auth: Callable[[Settings], dict[str, str]]
) -> int:
    pairs = judge.load_pairs()
    ids, limit = _opt(args, "case"), _opt(args, "limit")
    if ids:
        unknown = [i for i in ids if i not in {p.id for p in pairs}]
        if unknown:
            raise CaseError(f"no pair {unknown[0]!r} in {JUDGE_SET.name}")
        pairs = [p for p in pairs if p.id in ids]
    pairs = pairs[:limit] if limit else pairs
    async with stack(settings, auth) as target:
        engine, _ = await engine_of(target.http)
        results = await judge.calibrate(target, pairs, args.model, engine)
    if _opt(args, "json"):
        print(json.dumps([r.model_dump(mode="json") for r in results], ensure_ascii=False))
    else:
        print("\n".join(judge.render(r) for r in results))
    return 0 if results[0].meets_target else EXIT_FAILED


async def probes_command(
    args: argparse.Namespace, settings: Settings, auth: Callable[[Settings], dict[str, str]]
) -> int:
    from workflows.probes import ProbeRequest, RunGoldenProbes, run_id

    # long: the formatter lays the workflow's request out one argument a line.
    slices = _opt(args, "slice") or []
    unknown = [s for s in slices if s not in SLICES]
    if unknown:
        raise CaseError(f"unknown slice {unknown[0]!r}: choose from {', '.join(SLICES)}")
    load_probes()  # a malformed probe file is named here, before anything starts
    workflow_id = run_id(settings.task_queue, "manual")
    async with stack(settings, auth) as target:
        engine, _ = await engine_of(target.http)
        print(
            f"running the golden probes as workflow {workflow_id} (the Temporal UI shows "
            "each probe turn as its child) ...",
            file=sys.stderr,
            flush=True,
        )
        try:
            result = await target.temporal.execute_workflow(
                RunGoldenProbes.run,
                ProbeRequest(
                    slices=slices,
                    limit=_opt(args, "limit"),
                    record=False,
                    engine_in_process=engine == "offline",
                    corpus_version=_opt(args, "corpus"),
                ),
                id=workflow_id,
                task_queue=settings.task_queue,
                execution_timeout=timedelta(minutes=PROBE_RUN_MINUTES),
                static_summary="golden probes, started by hand (not recorded)",
            )
        except WorkflowFailureError as err:
            raise EvalError(f"the probe run {workflow_id} failed: {err.cause or err}") from None
    if _opt(args, "json"):
        print(result.model_dump_json())
    else:
        print(render_probes(result.slices))
        print(f"corpus {result.corpus_version} (a frozen snapshot of the index)")
    return EXIT_FAILED if any(s.breached for s in result.slices) else 0


def render_probes(slices: list[SliceRun]) -> str:
    lines = []
    for s in slices:
        state = "BREACH" if s.breached else "ok"
        rate = f" (healthy rate {s.healthy_rate:.3f})" if s.healthy_rate is not None else ""
        lines.append(
            f"{s.slice:14} {s.passed:>3}/{s.cases:<3} threshold {s.threshold:>3}{rate}  {state}"
        )
        lines += [f"    {f}" for f in s.failed]
    return "\n".join(lines)


async def candidates_command(
    args: argparse.Namespace, settings: Settings, auth: Callable[[Settings], dict[str, str]]
) -> int:
    async with stack(settings, auth) as target:
        found = await live.candidates(
            target.temporal, settings.task_queue, _opt(args, "limit") or 50
        )
    if _opt(args, "json"):
        print(json.dumps([c.model_dump(mode="json") for c in found], ensure_ascii=False))
    else:
        print(live.render_candidates(found, live.known_drafts()))
    return 0


async def add_case_command(
    args: argparse.Namespace, settings: Settings, auth: Callable[[Settings], dict[str, str]]
) -> int:
    out = Path(args.out)
    async with stack(settings, auth) as target:
        case = await live.draft(target.temporal, settings.task_queue, args.from_turn)
    live.write_draft(case, out)
    if _opt(args, "json"):
        print(case.to_line())
    else:
        print(live.render_draft(case, out))
    return 0


async def shadow_command(
    args: argparse.Namespace, settings: Settings, auth: Callable[[Settings], dict[str, str]]
) -> int:
    async with stack(settings, auth) as target:
        report = await live.shadow(target.temporal, settings.task_queue, _opt(args, "limit") or 200)
    print(report.model_dump_json() if _opt(args, "json") else live.render_shadow(report))
    return 0
