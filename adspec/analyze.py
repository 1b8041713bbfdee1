"""`adspec analyze`: the source annotated with the data-flow sets around every instruction."""
from __future__ import annotations

from .engine.bitsets import zones_of

ANALYSES = ("Varied", "Useful", "Active", "Diff-live", "TBR", "Adj-out")
_LOOP_MARKS = {"loopEntry": "loop entry: index = lo, trip count fixed", "loop": "loop header: next trip"}


def analyze_files(paths, head, vars: str | None = None, outvars: str | None = None, order: str = "good"):
    """Parse the source files (one path or a list, in any order) into one program, build its
    call graph, run every analysis for the heads (a -head string or a list of them; `vars` /
    `outvars` as Tapenade's -vars / -outvars); returns (program, results, sources) where
    sources maps each file name to its lines."""
    from .analyses import run_analyses
    from .engine.program import build_program
    from .frontends import parse_files
    from .heads import parse_heads, resolve_heads
    paths = [paths] if isinstance(paths, str) else list(paths)
    program = build_program(parse_files(paths))
    heads = resolve_heads(program, parse_heads(head, vars, outvars))
    results = run_analyses(program, heads, order)
    sources = {}
    for path in paths:
        with open(path, errors="replace") as f:
            sources[path] = f.read().splitlines()
    return program, results, sources


def sets_around(results, proc, instr) -> dict:
    """name -> (before, after) bitsets for every analysis of ANALYSES."""
    act, live = results.activity, results.diff_live
    varied, useful = act.varied[proc.name], act.useful[proc.name]
    return {
        "Varied": (varied.before(instr), varied.after(instr)),
        "Useful": (useful.before(instr), useful.after(instr)),
        "Active": (act.active_before(proc, instr), act.active_after(proc, instr)),
        "Diff-live": (live.before(proc, instr), live.after(proc, instr)),
        "TBR": (results.tbr[proc.name].before(instr), results.tbr[proc.name].after(instr)),
        "Adj-out": (results.adj_out[proc.name].before(instr), results.adj_out[proc.name].after(instr)),
    }


def format_analysis(program, results, sources: dict) -> str:
    """The report; `sources`: file name -> its lines (several files: each title names its file)."""
    out = []
    for proc in program.procedures.values():
        zones = proc.zones
        shown = {}  # the same sets recur around thousands of instructions

        def names_of(zones, s, shown=shown):
            text = shown.get(s)
            if text is None:
                text = shown[s] = "{" + ", ".join(zones.zones[z].name for z in zones_of(s)) + "}"
            return text
        head = results.heads.get(proc.name)
        filename = program.filenames[proc.name]
        lines = sources.get(filename, [])
        title = f"{proc.node.kind} {proc.source_name}" + (f"  ({filename})" if len(sources) > 1 else "")
        out.append("=" * len(title))
        out.append(title)
        out.append("=" * len(title))
        if head is not None:
            out.append(f"independents {names_of(zones, head[0])}   dependents {names_of(zones, head[1])}")
        summary = results.inout.summary(proc)
        if summary is not None:
            out.append(f"in-out: reads {names_of(zones, summary[0])}  may write {names_of(zones, summary[1])}"
                       f"  must write {names_of(zones, summary[2])}")
        for label, solution in (("Dep", results.dep), ("Diff-dep", results.diff_dep)):
            relation = solution.summaries.get(proc.name)
            if relation is not None:
                rows = [f"{zones.zones[v].name} <- {names_of(zones, deps)}" for v, deps in sorted(relation.rows.items())]
                out.append(f"{label}(P): " + ("; ".join(rows) if rows else "identity"))
        for instr in sorted(proc.flow.instructions(), key=lambda i: (i.line or 0, i.block, i.index)):
            text = lines[instr.line - 1].strip() if instr.line and instr.line <= len(lines) else instr.node.op
            marks = []
            if instr.kind in _LOOP_MARKS:
                marks.append(_LOOP_MARKS[instr.kind])
            if instr.kind == "call" and instr.result is not None:
                marks.append(f"call {instr.node.kids[0]} split out of the statement")
            if results.diff_live.is_live_for_diff(proc, instr):
                marks.append("live for diff")
            snapshot = results.snapshots.get(id(instr))
            if snapshot is not None:
                marks.append(f"checkpointed: SNP {names_of(zones, snapshot.snp)} SBK {names_of(zones, snapshot.sbk)}")
            out.append(f"{instr.line or '?':>5} | {text}" + (f"    [{'; '.join(marks)}]" if marks else ""))
            for name, (before, after) in sets_around(results, proc, instr).items():
                out.append(f"      |   {name:<9} {names_of(zones, before)} -> {names_of(zones, after)}")
        out.append("")
    return "\n".join(out)
