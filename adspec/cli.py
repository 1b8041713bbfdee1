"""The `adspec` command line.

Errors in the user's input print one line `file:line: message` on stderr and exit 1,
never a traceback (set ADSPEC_DEBUG=1 to see one).
"""
from __future__ import annotations

import argparse
import gc
import os
import sys

from .engine.errors import SourceError
from .options import Parser, UsageError, reject_unknown_options
from .pipeline import NOOPTIM

EXIT_INPUT_ERROR = 1
EXIT_INTERNAL_ERROR = 2
EXIT_CHECK_INPUT_ERROR = 2   # `adspec check`: 0 pass, 1 fail, 2 bad input

DESCRIPTION = """\
adspec: automatic differentiation by source transformation (the Tapenade AD model),
as an executable specification.

differentiate, as Tapenade:
  adspec -d -head "f(y)/(x)" FILE... [-O DIR] [-o NAME] [-nooptim OPTIM]
                                  the tangent, in DIR/<stem>_d.<ext>, warnings in <stem>_d.msg
                                  (-tgtlang cuda: C input, the tangent in <stem>_d.cu)
  adspec -b -head "f(y)/(x)" FILE...  the adjoint, in DIR/<stem>_b.<ext> and <stem>_b.msg
                                  (-nocheckpoint: every call split, g_fwd / g_bwd)

sub-commands:
  parse FILE                      print the IL tree of a Fortran, C or CUDA (.cu) file
  unparse FILE [-tgtlang LANG]    parse, then write the source back from the IL
                                  (the round trip source -> IL -> source; -tgtlang cuda
                                  writes C as CUDA)
  analyze FILE... -head HEADS     the source annotated with the data-flow sets
                                  (Varied, Useful, Active, Diff-live, TBR, Adj-out)
                                  over one call graph of all the files (--dot DIR: the
                                  flow graphs and the call graph, .dot and .svg by Graphviz)
  rules                           print every inference rule (premises, bar, conclusion)
  explain FILE... -head H --line N  the derivation (rules, premises, facts) behind the
                                  derivative statements of source line N (-b: of the adjoint's,
                                  why a value is pushed included)
  campaign --tool "CMD {src} {head} {outdir}" --mode tangent|adjoint --lang fortran|c --n N
                                  differential testing of another AD tool on random programs:
                                  failures shrunk, grouped by symptom, reported in --report DIR
                                  (--jobs J local processes, or --scheduler ADDRESS: a Dask cluster)
  runtime -O DIR                  copy the push/pop runtime of adjoint code (adStack.h,
                                  adStack.c, adStack_cuda.cuh) into DIR
  check PRIMAL... -head H --tangent F... | --adjoint F...
                                  check another tool's derivative code against adspec's:
                                  wrong (dependent, independent) pairs, the first wrong
                                  procedure, the adjoint's contract; exit 0 pass, 1 fail,
                                  2 bad input (docs/oracle.md)
  check --init PRIMAL... -head H [-o args.toml]
                                  write the commented template of the arguments file

heads, as in Tapenade:
  -head "f(y z)/(a b)"            head f, dependents y z, independents a b
                                  (names separated by spaces or commas)
  -head "f(y)/(x) g(z)/(w)"       several heads (or give -head several times)
  -head f                         every differentiable output / input of f
  -outvars "y z" -vars "a b"      dependents / independents of the heads given
                                  without lists

Options are single-dash words as in Tapenade (-head, -vars, -outvars, -tgtlang, -o);
the double-dash spellings (--head, ...) work too.
"""


def _build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="adspec", description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version="adspec 0.1.0")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    parser.commands = sub.choices     # name -> the sub-command's own parser

    p_parse = sub.add_parser("parse", help="print the IL tree of a source file")
    p_parse.add_argument("file")
    p_parse.add_argument("--lines", action="store_true", help="show source line numbers of statements")

    p_unparse = sub.add_parser("unparse", help="parse then regenerate source from the IL")
    p_unparse.add_argument("file")
    p_unparse.add_argument("-tgtlang", "--tgtlang", choices=("fortran", "c", "cuda"), default=None,
                           help="target language (default: the source's own)")
    p_unparse.add_argument("-form", "--form", choices=("free", "fixed"), default=None,
                           help="Fortran source form of the output (default: the input's)")
    p_unparse.add_argument("-o", "--output", default=None, help="write to this file instead of stdout")

    p_analyze = sub.add_parser("analyze", help="print the data-flow sets around every instruction")
    _add_program_options(p_analyze)
    p_analyze.add_argument("--dot", metavar="DIR", default=None,
                           help="also write the flow graphs and the call graph as Graphviz files in DIR,"
                                " and as SVG pictures when Graphviz's dot is installed")

    sub.add_parser("rules", help="print every inference rule as natural semantics")

    p_explain = sub.add_parser("explain", help="the derivation behind the derivative statements of a line")
    _add_program_options(p_explain)
    p_explain.add_argument("-b", "-reverse", "--reverse", dest="mode", action="store_const", const="adjoint",
                           default="tangent", help="explain the adjoint's statements (push/pop included)")
    p_explain.add_argument("--line", type=int, required=True, metavar="N", help="source line of the statement")

    p_runtime = sub.add_parser("runtime", help="copy the push/pop runtime of adjoint code into a directory")
    p_runtime.add_argument("-O", "--outdir", default=".", metavar="DIR", help="where to write the files")

    _add_campaign_parser(sub)
    _add_check_parser(sub)

    p_diff = sub.add_parser("differentiate", help="differentiate (Tapenade's form: adspec -d -head ... FILE...)")
    mode = p_diff.add_mutually_exclusive_group(required=True)
    mode.add_argument("-d", "-tangent", "--tangent", dest="mode", action="store_const", const="tangent",
                      help="tangent mode: P_D in <stem>_d.<ext>")
    mode.add_argument("-vector", "--vector", dest="mode", action="store_const", const="vector",
                      help="vector tangent mode: P_DV in <stem>_dv.<ext>, nbdirsmax from module DIFFSIZES")
    mode.add_argument("-b", "-reverse", "--reverse", dest="mode", action="store_const", const="adjoint",
                      help="adjoint mode: P_b in <stem>_b.<ext> (straight-line code, IF, DO and C for loops"
                           " for now)")
    _add_program_options(p_diff)
    p_diff.add_argument("-O", "--outdir", default=".", metavar="DIR", help="directory of the output files")
    p_diff.add_argument("-o", "--output", default=None, metavar="NAME",
                        help="stem of the output files (default: the first file's)")
    p_diff.add_argument("-tgtlang", "--tgtlang", choices=("fortran", "c", "cuda"), default=None,
                        help="output language: the input's, or cuda for C input (<stem>_d.cu)")
    p_diff.add_argument("-nooptim", "--nooptim", action="append", default=[], metavar="OPTIM",
                        choices=NOOPTIM,
                        help="switch an improvement off (tbr, spareinit, mergediff, splitdiff, looporder, trippairs: adjoint mode)")
    p_diff.add_argument("-nocheckpoint", "--nocheckpoint", action="store_true",
                        help="adjoint mode: no call is checkpointed (split mode, P_fwd and P_bwd)")
    return parser


def _add_campaign_parser(sub) -> None:
    p = sub.add_parser("campaign", help="differential testing of another AD tool on random programs")
    p.add_argument("--tool", required=True, metavar="CMD",
                   help="the tool's command, with {src} (the program), {head} and {outdir} (where it writes"
                        " its candidate files)")
    p.add_argument("--mode", required=True, choices=("tangent", "adjoint"))
    p.add_argument("--lang", required=True, choices=("fortran", "c"))
    p.add_argument("--n", required=True, type=int, metavar="N", help="number of programs")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="seed of the programs (default 0)")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1, metavar="J",
                   help="local worker processes (default: the number of cores)")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="run on the Dask distributed cluster of this scheduler (pip install 'adspec[cluster]')")
    p.add_argument("--report", default=None, metavar="DIR", help="write report.md, report.json and programs/ here")
    p.add_argument("--shrink", action=argparse.BooleanOptionalAction, default=True,
                   help="shrink every failing program (default: on)")
    p.add_argument("--timeout", type=float, default=120.0, metavar="SECONDS", help="of one run of the tool")
    p.add_argument("--points", type=int, default=1, help="points of each check (default 1)")
    p.add_argument("--heads", choices=("random", "all"), default="random",
                   help="dependents and independents: drawn among the head's real arguments (default), or all of them")


def _add_check_parser(sub) -> None:
    p = sub.add_parser("check", help="check another tool's tangent or adjoint code against adspec's")
    p.add_argument("files", nargs="+", metavar="PRIMAL", help="the primal program's source files")
    p.add_argument("-head", "--head", required=True, help='the head: "f(dependents)/(independents)"')
    cand = p.add_mutually_exclusive_group()
    cand.add_argument("--tangent", "-tangent", nargs="+", metavar="F", help="the candidate tangent's files")
    cand.add_argument("--adjoint", "-adjoint", nargs="+", metavar="F", help="the candidate adjoint's files")
    cand.add_argument("--jacobian", "-jacobian", metavar="PROC",
                      help="a hand-written Jacobian procedure of the primal program")
    cand.add_argument("--init", action="store_true", help="write the arguments file's template and stop")
    p.add_argument("--tangent-of-candidate", nargs="+", metavar="F",
                   help="adjoint mode: the candidate tool's own tangent, checked too")
    p.add_argument("--args", metavar="FILE", help="the arguments file (TOML; --init writes a template)")
    p.add_argument("--points", type=int, default=3, metavar="N", help="random points (default 3)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="seed of the points and directions (default 0)")
    p.add_argument("--runtime", metavar="DIR", help="the push/pop runtime to compile adjoints with "
                                                    "(default adspec's)")
    p.add_argument("--json", metavar="FILE", help="write the full report as JSON (- for stdout)")
    p.add_argument("--workdir", metavar="DIR", help="build in DIR and keep it")
    p.add_argument("--keep", action="store_true", help="keep the build directory (its path is printed)")
    p.add_argument("-o", "--output", metavar="FILE", help="--init: write the template here (default stdout)")


def _cmd_check(args) -> int:
    import json
    import tempfile

    from .oracle import check, init_args_template
    if args.init:
        text = init_args_template(args.files, args.head)
        if args.output:
            with open(args.output, "w") as f:
                f.write(text)
            print(f"wrote {args.output}", file=sys.stderr)
        else:
            sys.stdout.write(text)
        return 0
    if not (args.tangent or args.adjoint or args.jacobian):
        raise UsageError("check: give --tangent F..., --adjoint F..., --jacobian PROC or --init")
    workdir = args.workdir or (tempfile.mkdtemp(prefix="adspec-check-", dir=".") if args.keep else None)
    report = check(args.files, args.head, tangent=args.tangent, adjoint=args.adjoint, jacobian=args.jacobian,
                   tangent_of_candidate=args.tangent_of_candidate, args_file=args.args, points=args.points,
                   seed=args.seed, runtime=args.runtime, workdir=workdir)
    text = report.text()
    if workdir:
        text = f"build directory kept: {workdir}\n" + text
    if args.json == "-":
        sys.stdout.write(json.dumps(report.to_dict(), indent=1) + "\n")
        sys.stderr.write(text + "\n")
    else:
        if args.json:
            with open(args.json, "w") as f:
                json.dump(report.to_dict(), f, indent=1)
        sys.stdout.write(text + "\n")
    return 0 if report.ok else 1


def _add_program_options(parser) -> None:
    """The source files of one program and Tapenade's head options."""
    parser.add_argument("files", nargs="+", metavar="FILE",
                        help="Fortran and C source files, in any order: one program")
    parser.add_argument("-head", "--head", required=True, action="append",
                        help='head procedure(s): "proc(dependents)/(independents)", several '
                             'separated by spaces; the option may be repeated')
    parser.add_argument("-vars", "--vars", default=None, metavar="NAMES",
                        help="independents of the heads given without a list of independents")
    parser.add_argument("-outvars", "--outvars", default=None, metavar="NAMES",
                        help="dependents of the heads given without a list of dependents")


def _cmd_explain(args) -> int:
    from .pipeline import differentiate, explain
    result = differentiate(args.files, args.head, args.mode, vars=args.vars, outvars=args.outvars)
    text = explain(result, args.line)
    if not text:
        raise UsageError(f"no statement of line {args.line} is in a differentiated procedure")
    sys.stdout.write(text + "\n")
    return 0


def _cmd_differentiate(args) -> int:
    from .pipeline import differentiate, write_outputs
    from .progress import progress_for
    if args.mode == "adjoint" and args.tgtlang not in (None, "fortran", "c"):
        raise UsageError("adjoint mode writes the input's language only (-tgtlang cuda is not available yet)")
    progress = progress_for(args.files, sys.stderr)
    try:
        result = differentiate(args.files, args.head, args.mode, vars=args.vars, outvars=args.outvars,
                               nooptim=frozenset(args.nooptim) | ({"checkpoint"} if args.nocheckpoint else set()),
                               tgtlang=args.tgtlang,
                               progress=progress)
    finally:
        if progress is not None:
            progress.clear()
    for path in write_outputs(result, args.outdir, args.output):
        print(f"wrote {path}", file=sys.stderr)
    return 0


def _cmd_campaign(args) -> int:
    from .campaign.cli import run_campaign_command
    return run_campaign_command(args)


def _cmd_rules(args) -> int:
    from .rules import adjoint, tangent  # noqa: F401  (importing the rule modules registers their rule sets)
    from .engine.rules import RULE_SETS
    if not RULE_SETS:
        print("no rule set is registered yet (adspec.rules registers none)")
    for ruleset in RULE_SETS:
        sys.stdout.write(ruleset.render() + "\n\n")
    return 0


def _cmd_analyze(args) -> int:
    from .analyze import analyze_files, format_analysis
    program, results, sources = analyze_files(args.files, args.head, args.vars, args.outvars)
    sys.stdout.write(format_analysis(program, results, sources) + "\n")
    if args.dot:
        return _write_graphs(program, args.dot)
    return 0


def _write_graphs(program, directory) -> int:
    """The .dot files, then their SVG pictures when Graphviz is installed (the .dot files
    alone, and one line saying so, when it is not)."""
    import shutil
    from .dot import GraphvizError, render_svg, write_dot_files
    dot_files = write_dot_files(program, directory)
    for path in dot_files:
        print(f"wrote {path}", file=sys.stderr)
    dot_command = shutil.which("dot")
    if dot_command is None:
        print("adspec: Graphviz's dot is not installed: no SVG pictures (the .dot files are written;"
              " install graphviz, or render them elsewhere)", file=sys.stderr)
        return 0
    try:
        svg_files = render_svg(dot_files, dot_command)
    except GraphvizError as e:
        print(f"adspec: internal error: {e}", file=sys.stderr)
        return EXIT_INTERNAL_ERROR
    for path in svg_files:
        print(f"wrote {path}", file=sys.stderr)
    return 0


def _cmd_parse(args) -> int:
    from . import parse
    from .engine.il import format_tree
    tree = parse(args.file)
    sys.stdout.write(format_tree(tree, lines=args.lines) + "\n")
    return 0


def _cmd_unparse(args) -> int:
    from . import parse, unparse
    tree = parse(args.file)
    text = unparse(tree, args.tgtlang, form=args.form)
    if args.output:
        with open(args.output, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


def _cmd_runtime(args) -> int:
    from .backends.runtime_files import copy_runtime
    try:
        written = copy_runtime(args.outdir)
    except OSError as e:
        raise UsageError(f"cannot write the runtime into {args.outdir}: {e.strerror}") from None
    for path in written:
        print(f"wrote {path}", file=sys.stderr)
    return 0


COMMANDS = {"check": _cmd_check, "runtime": _cmd_runtime, "parse": _cmd_parse, "unparse": _cmd_unparse, "analyze": _cmd_analyze, "rules": _cmd_rules,
            "differentiate": _cmd_differentiate, "explain": _cmd_explain, "campaign": _cmd_campaign}
_MODE_OPTIONS = frozenset(("-d", "-tangent", "--tangent", "-vector", "--vector", "-b", "-reverse", "--reverse"))


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        parser = _build_parser()
        args = _parse_command_line(parser, argv)
        if not args.command:
            parser.print_help()
            return 0
        return COMMANDS[args.command](args)
    except UsageError as e:
        print(f"adspec: {e}", file=sys.stderr)
        return _input_error(argv)
    except SourceError as e:
        print(str(e), file=sys.stderr)
        return _input_error(argv)
    except KeyboardInterrupt:
        return 130
    except Exception as e:  # a bug in adspec, not in the input: still one line
        if os.environ.get("ADSPEC_DEBUG"):
            raise
        print(f"adspec: internal error: {type(e).__name__}: {e} (set ADSPEC_DEBUG=1 for a traceback)",
              file=sys.stderr)
        return EXIT_INTERNAL_ERROR


def _input_error(argv) -> int:
    """Bad input's exit status: 2 for `adspec check` and `adspec campaign` (whose 1 means FAIL), else 1."""
    at = next((i for i, word in enumerate(argv) if not word.startswith("-")), None)
    return EXIT_CHECK_INPUT_ERROR if at is not None and argv[at] in ("check", "campaign") else EXIT_INPUT_ERROR


def _parse_command_line(parser, argv: list[str]) -> argparse.Namespace:
    """The sub-command's own parser reads the words after it, options and files in any order
    (Tapenade puts the files last; `adspec analyze a.f90 -head f` works as well)."""
    at = next((i for i, word in enumerate(argv) if not word.startswith("-")), len(argv))
    if any(word in _MODE_OPTIONS for word in argv[:at]) and not (at < len(argv) and argv[at] in parser.commands):
        argv, at = ["differentiate"] + argv, 0   # Tapenade's form: adspec -d -head ... FILE
    reject_unknown_options(parser, argv[:at])
    if at < len(argv) and argv[at] in parser.commands:
        sub = parser.commands[argv[at]]
        reject_unknown_options(sub, argv[at + 1:])
        args = sub.parse_intermixed_args(argv[at + 1:])
        args.command = argv[at]
        return args
    return parser.parse_args(argv)   # help, version, no or an unknown command


def run() -> None:
    """The `adspec` command: main() as a short-lived process. The cyclic garbage collector is
    off (adspec builds large acyclic trees, which it would scan again and again) and the exit
    skips tearing down the heap, which for a large program takes longer than writing it out."""
    gc.disable()
    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code or 0)


if __name__ == "__main__":
    run()
