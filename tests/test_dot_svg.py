"""`adspec analyze --dot DIR`: the .dot files always; SVG pictures through Graphviz when its
`dot` is on PATH; one line saying so, exit 0, when it is not; one line and exit 2 when dot
refuses a file."""
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

FIG8 = Path(__file__).parent.parent / "docs" / "examples" / "fig8.f90"
HEAD = "top(y b)/(x z t)"
GRAPHS = {"callgraph", "foo", "top"}


def analyze_dot(outdir, path_variable=None):
    adspec = Path(sys.executable).parent / "adspec"
    env = dict(os.environ)
    if path_variable is not None:
        env["PATH"] = path_variable
    return subprocess.run([str(adspec), "analyze", "-head", HEAD, str(FIG8), "--dot", str(outdir)],
                          capture_output=True, text=True, env=env, timeout=120)


def stems(directory, suffix):
    return {p.stem for p in Path(directory).iterdir() if p.suffix == suffix}


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
def test_svg_pictures_beside_the_dot_files(tmp_path):
    result = analyze_dot(tmp_path)
    assert result.returncode == 0, result.stderr
    assert stems(tmp_path, ".dot") == stems(tmp_path, ".svg") == GRAPHS
    svg = ET.parse(tmp_path / "top.svg").getroot()
    assert svg.tag.endswith("svg")
    texts = [t.text for t in svg.iter() if t.tag.endswith("text") and t.text]
    assert any("foo(a, x, 2.5d0)" in t for t in texts), texts      # the block's statements, as source
    call_graph = " ".join(t.text or "" for t in ET.parse(tmp_path / "callgraph.svg").getroot().iter())
    assert "top" in call_graph and "foo" in call_graph
    assert f"wrote {tmp_path / 'top.svg'}" in result.stderr.splitlines()


def test_without_graphviz_the_dot_files_and_one_line(tmp_path):
    empty = tmp_path / "bin"
    empty.mkdir()
    out = tmp_path / "graphs"
    result = analyze_dot(out, path_variable=str(empty))
    assert result.returncode == 0, result.stderr
    assert stems(out, ".dot") == GRAPHS and stems(out, ".svg") == set()
    notes = [line for line in result.stderr.splitlines() if not line.startswith("wrote ")]
    assert len(notes) == 1 and "dot is not installed" in notes[0], result.stderr
    assert "subroutine top" in result.stdout    # the analysis itself is printed as without --dot


def test_a_file_dot_refuses_is_one_line_and_exit_2(tmp_path):
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "dot").write_text("#!/bin/sh\necho 'Error: syntax error in line 3' >&2\nexit 1\n")
    (fake / "dot").chmod(0o755)
    result = analyze_dot(tmp_path / "graphs", path_variable=str(fake))
    assert result.returncode == 2
    notes = [line for line in result.stderr.splitlines() if not line.startswith("wrote ")]
    assert len(notes) == 1 and "dot could not render" in notes[0] and "syntax error in line 3" in notes[0], notes
    assert "Traceback" not in result.stderr
