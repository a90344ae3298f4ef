"""`turnstile eval`: the suites (mock or real), the retrieval A/B harness, the judge
calibration and one golden-probe run, from the command line.

Exit codes: 0 every case passed (or, with `--baseline`, no regression against it);
1 a case failed or the gate found a regression; 2 bad input (an unknown suite, case or
configuration, a malformed case file — named by file and line); 3 the stack is not
reachable.
"""

import argparse
import asyncio
import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
from temporalio.client import Client

import payloads
from domain.evaluation import CaseError, EvalCase, SliceRun
from evals import ab, judge
from evals.cases import BASELINE, load_probes, load_suites
from evals.mock import run_mock
from evals.real import EvalError, Stack, run_real
from evals.results import Baseline, CaseResult, SuiteRun, gate, merge_repeats
from settings import Settings

EXIT_FAILED, EXIT_BAD_INPUT, EXIT_UNREACHABLE = 1, 2, 3


class CommandError(Exception):
    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.code = code


def add_parser(sub: Any, auth: Callable[[Settings], dict[str, str]]) -> None:
    """Register `eval` and its subcommands on the CLI's subparsers."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--json", action="store_true", help="print machine-readable results")
    common.add_argument("--limit", type=int, help="at most this many cases per suite")
    common.add_argument("--case", action="append", default=[], metavar="ID",
                        help="only this case id (repeatable)")  # fmt: skip

    description = ("Run the evaluation suites (mock or real mode), the retrieval A/B "
                   "harness, the judge calibration or one golden-probe run.")  # fmt: skip
    p = sub.add_parser("eval", parents=[common], help="run the evaluation suites",
                       description=description)  # fmt: skip
    p.add_argument("--mode", choices=["mock", "real"], default="mock",
                   help="mock: synthetic outcomes through the scorers (no stack); "
                        "real: the running stack (default mock)")  # fmt: skip
    p.add_argument(
        "--suite",
        action="append",
        default=[],
        metavar="NAME",
        help="routing, retrieval, calculation or boundary (repeatable; default all)",
    )
    p.add_argument("--repeat", type=int, default=1, help="run each case N times: k of N passed")
    p.add_argument(
        "--engine",
        choices=["offline", "openai"],
        help="real mode: the engine the stack must run (checked, never switched)",
    )
    p.add_argument(
        "--baseline",
        nargs="?",
        const=str(BASELINE),
        metavar="PATH",
        help="the release gate: fail only on a regression against the baseline",
    )
    p.add_argument(
        "--write-baseline",
        nargs="?",
        const=str(BASELINE),
        metavar="PATH",
        help="write this run's failures and measures as the new baseline",
    )
    p.set_defaults(func=lambda args, settings: _run(suites_command, args, settings, auth))
    cmds = p.add_subparsers(dest="eval_command", metavar="{retrieval-ab,judge,probes}")

    r = cmds.add_parser(
        "retrieval-ab",
        parents=[common],
        help="compare two retrieval configurations on the retrieval suite",
    )
    r.add_argument(
        "--a",
        required=True,
        metavar="CONFIG",
        help="a configuration name (evals/configs/NAME.json) or a JSON file",
    )
    r.add_argument("--b", required=True, metavar="CONFIG", help="the configuration to compare")
    r.add_argument(
        "--pause",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="wait between cases (a reranker's rate limit); runs one at a time",
    )
    r.set_defaults(func=lambda args, settings: _run(ab_command, args, settings, auth))

    j = cmds.add_parser(
        "judge",
        parents=[common],
        help="agreement of the numeric check (and the judge) with labelled pairs",
    )
    j.add_argument(
        "--model",
        action="store_true",
        help="also run the judge step (the model judge with a model engine; the offline "
        "engine's judge is the numeric check)",
    )
    j.set_defaults(func=lambda args, settings: _run(judge_command, args, settings, auth))

    g = cmds.add_parser(
        "probes", parents=[common], help="run the golden probes once now, as the schedule does"
    )
    g.set_defaults(func=lambda args, settings: _run(probes_command, args, settings, auth))


def _run(command: Callable[..., Any], args: argparse.Namespace, settings: Settings,
         auth: Callable[[Settings], dict[str, str]]) -> int:  # fmt: skip
    try:
        return int(asyncio.run(command(args, settings, auth)))
    except CaseError as err:
        raise CommandError(str(err), EXIT_BAD_INPUT) from None
    except EvalError as err:
        raise CommandError(str(err), EXIT_FAILED) from None
    except (httpx.TransportError, RuntimeError) as err:
        if isinstance(err, RuntimeError) and "connect" not in str(err).lower():
            raise
        raise CommandError(
            f"cannot reach the stack (API {settings.api_url}, Temporal "
            f"{settings.effective_temporal_address}): start it with `turnstile up`",
            EXIT_UNREACHABLE,
        ) from None


@asynccontextmanager
async def stack(
    settings: Settings, auth: Callable[[Settings], dict[str, str]]
) -> AsyncIterator[Stack]:
    temporal = await Client.connect(
        settings.effective_temporal_address,
        namespace=settings.temporal_namespace,
        data_converter=payloads.data_converter(settings),
    )
    async with httpx.AsyncClient(base_url=settings.api_url, headers=auth(settings),
                                 timeout=httpx.Timeout(200.0)) as http:  # fmt: skip
        yield Stack(temporal=temporal, task_queue=settings.task_queue, http=http)


async def engine_of(http: httpx.AsyncClient) -> tuple[str, str | None]:
    health = (await http.get("/healthz")).json()
    return str(health.get("engine", {}).get("name", "unknown")), health.get("corpus_version")


def narrow(cases: list[EvalCase], ids: list[str], limit: int | None) -> list[EvalCase]:
    if ids:
        known = {c.id for c in cases}
        unknown = [i for i in ids if i not in known]
        if unknown:
            raise CaseError(f"no case {unknown[0]!r} in the suites chosen")
        cases = [c for c in cases if c.id in ids]
    return cases[:limit] if limit else cases


def chosen_cases(args: argparse.Namespace) -> list[EvalCase]:
    suites = load_suites(args.suite or None)
    out: list[EvalCase] = []
    for cases in suites.values():
        out += cases[: args.limit] if args.limit and not args.case else cases
    return narrow(out, args.case, None)


async def suites_command(args: argparse.Namespace, settings: Settings,
                         auth: Callable[[Settings], dict[str, str]]) -> int:  # fmt: skip
    if args.repeat < 1:
        raise CaseError("--repeat must be at least 1")
    cases = chosen_cases(args)
    runs: list[list[CaseResult]] = []
    metrics: dict[str, float] = {}
    engine, corpus = "none", None
    if args.mode == "mock":
        runs = [run_mock(cases) for _ in range(args.repeat)]
    else:
        async with stack(settings, auth) as target:
            engine, corpus = await engine_of(target.http)
            if args.engine and args.engine != engine:
                raise CaseError(f"the stack runs the {engine} engine, not {args.engine}: "
                                f"restart it with TURNSTILE_ENGINE={args.engine}")  # fmt: skip
            for _ in range(args.repeat):
                results, metrics = await run_real(target, cases)
                runs.append(results)
    run = SuiteRun(mode=args.mode, engine=engine, corpus_version=corpus, repeat=args.repeat,
                   cases=merge_repeats(runs), metrics=metrics)  # fmt: skip
    verdict: list[str] | None = None
    if args.baseline:
        verdict = gate(run, Baseline.read(_path(args.baseline)))
    if args.write_baseline:
        failures = {f"{c.suite}/{c.id}": "; ".join(c.problems) for c in run.cases if not c.passed}
        Baseline(known_failures=failures, metrics=run.metrics).write(_path(args.write_baseline))
    if args.json:
        print(json.dumps({**run.model_dump(mode="json"), "gate": verdict}, ensure_ascii=False))
    else:
        print(render_run(run, verdict))
    if verdict is not None:
        return EXIT_FAILED if verdict else 0
    return 0 if all(c.passed for c in run.cases) else EXIT_FAILED


def _path(text: str) -> Path:
    return Path(text)


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
    lines.append(f"{run.mode} mode, engine {run.engine}, corpus {run.corpus_version or '-'}: "
                 f"{passed}/{total} passed")  # fmt: skip
    if verdict is not None:
        lines.append("release gate: " + ("no regression" if not verdict else "FAILED"))
        lines += [f"  {line}" for line in verdict]
    return "\n".join(lines)


async def ab_command(args: argparse.Namespace, settings: Settings,
                     auth: Callable[[Settings], dict[str, str]]) -> int:  # fmt: skip
    a, b = ab.load_config(args.a), ab.load_config(args.b)
    cases = narrow(load_suites(["retrieval"])["retrieval"], args.case, args.limit)
    async with stack(settings, auth) as target:
        report = await ab.compare(target, cases, a, b, pause=args.pause)
    print(report.model_dump_json() if args.json else ab.render(report))
    return 0


async def judge_command(args: argparse.Namespace, settings: Settings,
                        auth: Callable[[Settings], dict[str, str]]) -> int:  # fmt: skip
    pairs = judge.load_pairs()
    if args.case:
        pairs = [p for p in pairs if p.id in args.case]
    pairs = pairs[: args.limit] if args.limit else pairs
    async with stack(settings, auth) as target:
        engine, _ = await engine_of(target.http)
        results = await judge.calibrate(target, pairs, args.model, engine)
    if args.json:
        print(json.dumps([r.model_dump(mode="json") for r in results], ensure_ascii=False))
    else:
        print("\n".join(judge.render(r) for r in results))
    return 0 if results[0].meets_target else EXIT_FAILED


async def probes_command(args: argparse.Namespace, settings: Settings,
                         auth: Callable[[Settings], dict[str, str]]) -> int:  # fmt: skip
    from workflows.probes import ProbeRequest, RunGoldenProbes, run_id

    load_probes()  # a malformed probe file is named here, before anything starts
    async with stack(settings, auth) as target:
        result = await target.temporal.execute_workflow(
            RunGoldenProbes.run,
            ProbeRequest(limit=args.limit),
            id=run_id(settings.task_queue, "manual"),
            task_queue=settings.task_queue,
        )
    if args.json:
        print(result.model_dump_json())
    else:
        print(render_probes(result.slices))
    return EXIT_FAILED if any(s.breached for s in result.slices) else 0


def render_probes(slices: list[SliceRun]) -> str:
    lines = []
    for s in slices:
        state = "BREACH" if s.breached else "ok"
        lines.append(f"{s.slice:14} {s.passed:>3}/{s.cases:<3} threshold {s.threshold:>3}  {state}")
        lines += [f"    {f}" for f in s.failed]
    return "\n".join(lines)
