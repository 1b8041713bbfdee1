"""`adspec campaign`: the command line's side (arguments checked, progress, summary, report).
Exit status 0 when every program passed, 1 when some failed, 2 on bad input."""
from __future__ import annotations

import sys

from ..progress import TerminalProgress
from .campaign import Campaign, run_campaign
from .executors import ClusterUnavailable, executor_for
from .report import summary, write_report
from .runner import Tool

EXIT_BAD_INPUT = 2
PLACEHOLDERS = ("{src}", "{head}", "{outdir}")


def run_campaign_command(args) -> int:
    problem = _bad_input(args)
    if problem:
        print(f"adspec campaign: {problem}", file=sys.stderr)
        return EXIT_BAD_INPUT
    campaign = Campaign(Tool(args.tool, args.mode, args.timeout, args.points), args.lang, args.n, args.seed,
                        args.shrink, heads=args.heads)
    progress = TerminalProgress(sys.stderr) if sys.stderr.isatty() else None
    try:
        with executor_for(args.jobs, args.scheduler) as (executor, name):
            result = run_campaign(campaign, executor, _shown(progress), name)
    except ClusterUnavailable as e:
        print(f"adspec campaign: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    finally:
        if progress is not None:
            progress.clear()
    s = summary(result)
    for symptom, outcomes in result.groups().items():
        best = outcomes[0]
        size = f", shrunk to {best['shrunk']['statements']} statements" if best.get("shrunk") else ""
        print(f"{symptom}: {len(outcomes)} program(s), e.g. program {best['index']}{size}")
    if args.report:
        write_report(result, args.report)
        print(f"wrote {args.report}/report.md, report.json and programs/", file=sys.stderr)
    unchecked = f", {s['unchecked']} could not be checked (adspec's reference in doubt)" if s["unchecked"] else ""
    print(f"adspec campaign: {s['failed']} of {s['n']} programs failed{unchecked} ({s['seconds']} s on {s['executor']})")
    return 1 if s["failed"] else 0


def _bad_input(args) -> str | None:
    missing = [p for p in PLACEHOLDERS if p not in args.tool]
    if missing:
        return f"--tool must contain {', '.join(missing)} (the program, its head and the output directory)"
    if args.n < 1 or args.jobs < 1 or args.points < 1:
        return "--n, --jobs and --points must be positive"
    return None


def _shown(progress):
    if progress is None:
        return None
    return lambda done, total, failed: progress.show(f"adspec campaign: {done}/{total} programs, {failed} failed")
