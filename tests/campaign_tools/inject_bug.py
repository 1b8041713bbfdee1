"""A faulty AD tool for the campaign's tests: adspec, then one bug of the catalogue injected
into what it wrote.

    python inject_bug.py BUG MODE SRC HEAD OUTDIR

MODE: -d or -b. BUG:
- `sin`: a wrong intrinsic derivative: in every derivative statement (its left side a
  derivative: a name ending in d, or b in adjoint mode), cos( becomes sin(, so that the
  derivative of sin is wrong;
- `none`: adspec's output as it is (a tool without the bug);
- `crash`: adspec runs, then the tool exits with status 3 when the program has a GOTO or a
  C pointer walk (a tool refusing a construct).
"""
import re
import subprocess
import sys
from pathlib import Path

DERIVATIVE_LHS = re.compile(r"^\s*(?:\d+\s+)?\*?([A-Za-z_]\w*)[^=]*=(?!=)")


def inject_sin(text: str, suffix: str) -> str:
    lines = []
    for line in text.splitlines(keepends=True):
        m = DERIVATIVE_LHS.match(line)
        if m and m.group(1).lower().endswith(suffix):
            line = line.replace("cos(", "sin(")
        lines.append(line)
    return "".join(lines)


def main(bug, mode, src, head, outdir) -> int:
    # run from outdir: `python -m` puts the working directory first on sys.path, and a checkout's
    # adspec/ folder there is not the installed package
    done = subprocess.run([sys.executable, "-m", "adspec", mode, "-head", head, "-O", str(Path(outdir).resolve()),
                           str(Path(src).resolve())], cwd=outdir)
    if done.returncode != 0:
        return done.returncode
    if bug == "crash" and re.search(r"go to|p = ", Path(src).read_text()):
        print("inject_bug: refusing this construct", file=sys.stderr)
        return 3
    if bug == "sin":
        suffix = "d" if mode == "-d" else "b"
        for path in Path(outdir).iterdir():
            if path.suffix in (".f90", ".c"):
                path.write_text(inject_sin(path.read_text(), suffix))
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
