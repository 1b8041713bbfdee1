"""Graphviz (DOT) pictures of the internal representation: the flow graph of one procedure,
with each basic block's instructions printed as source, and the call graph (paper fig. 16)."""
from __future__ import annotations

from .engine.il import Node, mk, walk

EDGE_STYLES = {"back": "dashed", "goto": "bold", "return": "dotted"}


class SourcePrinter:
    """Statements and expressions as one-line source text in the procedure's language."""

    def __init__(self, lang: str, filename: str = "<il>"):
        from .backends.c import CExpr, CWriter
        from .backends.fortran import FortranExpr, FortranWriter
        self.c = lang in ("c", "cuda")
        self.filename = filename
        cuda = lang == "cuda"       # CUDA's launches and words
        self.x = CExpr(filename, frozenset(), cuda) if self.c else FortranExpr(filename)
        self.new_writer = (lambda: CWriter(filename, frozenset(), cuda)) if self.c \
            else (lambda: FortranWriter("free", filename))

    def expr(self, node: Node) -> str:
        return self.x.expr(node)

    def stmt(self, node: Node) -> str:
        writer = self.new_writer()
        writer.emit(node)
        return " ".join(line.strip() for line in writer.lines.out if line.strip())


def instr_text(instr, printer: "SourcePrinter", proc=None) -> str:
    """One instruction as source; split calls appear as `temp = f(...)` and the instructions
    using them show the temporary where the call stood."""
    node = instr.node
    results = proc.call_results if proc is not None else {}
    names = _temp_names(proc)
    if instr.kind == "call" and instr.result is not None:
        return f"{names(instr.result)} = {printer.expr(_with_temps(node, results, names, keep=node))}"
    if instr.kind == "test":
        cond = printer.expr(_with_temps(instr.expr, results, names))
        return {"if": f"if ({cond})", "while": f"while ({cond})", "doWhile": f"do-while test ({cond})",
                "for": f"for test ({cond})", "switch": f"switch ({cond})", "where": f"where ({cond})",
                "forall": f"forall control {cond}"}.get(node.op, cond)
    if instr.kind == "loopEntry":
        var, lo, hi, step = (_with_temps(k, results, names) for k in node.kids[:4])
        bounds = ", ".join(printer.expr(e) for e in (lo, hi, step) if e is not None)
        return f"do {printer.expr(var)} = {bounds} (entry)"
    if instr.kind == "loop":
        return f"do {printer.expr(node.kids[0])} (next trip)"
    return printer.stmt(_with_temps(node, results, names))


def _temp_names(proc):
    zones = getattr(getattr(proc, "zones", None), "zones", None)

    def name(zone: int) -> str:
        return zones[zone].name if zones is not None and zone < len(zones) else f"tmp{zone}"
    return name


def _with_temps(k, results: dict, names, keep: Node | None = None):
    """k with every split call node (but `keep`) replaced by an identifier naming its
    temporary. Iterative: generated expressions can be thousands of levels deep."""
    if not any(n.op == "call" and id(n) in results and n is not keep for n in walk(k)):
        return k  # the common case, without rebuilding the tree
    done: dict[int, object] = {}
    stack = [(k, False)]
    while stack:
        x, expanded = stack.pop()
        if not isinstance(x, (Node, tuple)) or id(x) in done:
            continue
        if isinstance(x, Node) and x.op == "call" and id(x) in results and x is not keep:
            done[id(x)] = mk("ident", names(results[id(x)]))
            continue
        kids = x.kids if isinstance(x, Node) else x
        if not expanded:
            stack.append((x, True))
            stack.extend((c, False) for c in kids)
            continue
        new = tuple(done.get(id(c), c) for c in kids)
        if all(a is b for a, b in zip(new, kids)):
            done[id(x)] = x
        else:
            done[id(x)] = Node(x.op, new, x.ann) if isinstance(x, Node) else new
    return done[id(k)]


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _label(lines: list[str]) -> str:
    """A left-justified multi-line DOT label."""
    return _quote("\n".join(lines)).replace("\n", "\\l")[:-1] + '\\l"'


def flow_graph_dot(proc, printer: SourcePrinter | None = None) -> str:
    """DOT text of the flow graph of `proc` (engine.program.Procedure)."""
    flow = proc.flow
    printer = printer or SourcePrinter(proc.lang)
    headers = {loop.header: loop for loop in flow.loops}
    out = [f"digraph {_quote(proc.name)} {{", '  node [shape=box, fontname="monospace"];']
    for b in sorted(flow.blocks):
        block = flow.blocks[b]
        if block.kind != "normal":
            out.append(f"  b{b} [label={_quote(block.kind)}, shape=ellipse];")
            continue
        title = f"B{b}"
        if b in headers:
            title += f"  (loop header, depth {headers[b].depth})"
        lines = [title] + [f"{i.line or '':>4} {instr_text(i, printer, proc)}" for i in block.instrs]
        out.append(f"  b{b} [label={_label(lines)}];")
    for src, dst, data in flow.graph.edges(data=True):
        label = data.get("label", "next")
        style = EDGE_STYLES.get(label)
        attrs = [f"label={_quote(label)}"] if label != "next" else []
        if style:
            attrs.append(f"style={style}")
        out.append(f"  b{src} -> b{dst}" + (f" [{', '.join(attrs)}]" if attrs else "") + ";")
    out.append("}")
    return "\n".join(out) + "\n"


def call_graph_dot(program) -> str:
    """DOT text of the call graph: an edge per caller/callee pair labelled with its number of
    call sites; calls of procedures outside the program go to dashed nodes."""
    out = ["digraph callgraph {", "  node [shape=box];"]
    for name in program.procedures:
        out.append(f"  {_quote(name)};")
    for src, dst, data in program.callgraph.edges(data=True):
        n = len(data.get("sites", ()))
        out.append(f"  {_quote(src)} -> {_quote(dst)}" + (f" [label={_quote(str(n))}]" if n > 1 else "") + ";")
    external = sorted({(proc.name, instr.node.kids[0]) for proc, instr in program.external_calls})
    for name in sorted({callee for _, callee in external}):
        out.append(f"  {_quote('?' + name)} [label={_quote(name)}, style=dashed];")
    for caller, callee in external:
        out.append(f"  {_quote(caller)} -> {_quote('?' + callee)} [style=dashed];")
    out.append("}")
    return "\n".join(out) + "\n"


def write_dot_files(program, directory) -> list:
    """Write callgraph.dot and one <procedure>.dot flow graph per procedure into `directory`."""
    from pathlib import Path
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    written = [out / "callgraph.dot"]
    written[0].write_text(call_graph_dot(program))
    cuda = any(f.ann.get("dialect") == "cuda" for f in program.files)
    for proc in program.procedures.values():
        path = out / f"{proc.name.replace('.', '_')}.dot"
        path.write_text(flow_graph_dot(proc, SourcePrinter("cuda") if cuda else None))
        written.append(path)
    return written


class GraphvizError(Exception):
    """Graphviz's dot refused a file adspec wrote (a bug in the DOT text, not in the input)."""


def render_svg(dot_files, dot_command: str) -> list:
    """Render each .dot file to an .svg file beside it with Graphviz's `dot_command`."""
    import subprocess
    written = []
    for path in dot_files:
        svg = path.with_suffix(".svg")
        done = subprocess.run([dot_command, "-Tsvg", str(path), "-o", str(svg)],
                              capture_output=True, text=True)
        if done.returncode != 0:
            reason = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[0]
            raise GraphvizError(f"dot could not render {path}: {reason}")
        written.append(svg)
    return written
