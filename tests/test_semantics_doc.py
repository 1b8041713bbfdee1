"""docs/semantics.md (operator -> the interpreter function that gives its meaning) is up to date
and complete, and the interpreter package keeps its shape: one job per module, stated in its
docstring, no module over 600 lines, no import cycle between its modules."""
import ast
import importlib.util
from pathlib import Path

from adspec.engine.il import OPS, STATEMENT_OPS
from adspec.engine.interp.machine import EXPRESSIONS, PARTS, STATEMENTS

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs" / "semantics.md"
PACKAGE = ROOT / "engine" / "interp"


def test_semantics_reference_is_up_to_date():
    spec = importlib.util.spec_from_file_location("make_semantics_reference", DOCS.parent / "make_semantics_reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert DOCS.read_text() == module.reference(), "run: python docs/make_semantics_reference.py"


def test_every_expression_and_statement_operator_has_a_meaning():
    expressions = {n for n, s in OPS.items() if s.category == "expr"}
    assert expressions - set(EXPRESSIONS) - set(PARTS) == set()
    assert set(STATEMENT_OPS) - set(STATEMENTS) - set(PARTS) == set()
    assert set(EXPRESSIONS) | set(STATEMENTS) | set(PARTS) <= set(OPS), "a table names an operator the IL lacks"


def _imports(path: Path) -> set[str]:
    """The sibling modules `path` imports (`from . import x`, `from .x import y`)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            found |= {node.module} if node.module else {a.name for a in node.names}
    return found


def test_interpreter_modules_are_small_documented_and_acyclic():
    modules = {p.stem: p for p in PACKAGE.glob("*.py") if p.stem != "__init__"}
    graph = {name: _imports(path) & set(modules) for name, path in modules.items()}
    for name, path in modules.items():
        assert len(path.read_text().splitlines()) <= 600, f"{name}.py is over 600 lines"
        assert ast.get_docstring(ast.parse(path.read_text())), f"{name}.py does not state its job"
    done, active = set(), []

    def visit(name):
        assert name not in active, f"import cycle: {' -> '.join(active[active.index(name):] + [name])}"
        if name in done:
            return
        active.append(name)
        for dep in graph[name]:
            visit(dep)
        active.pop()
        done.add(name)
    for name in graph:
        visit(name)
