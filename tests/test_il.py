"""The IL itself: immutability, equality without annotations, the operator table checks."""
from pathlib import Path

import pytest

from adspec.engine.il import ILError, Node, called_names, check, format_tree, mk, walk

DOCS = Path(__file__).resolve().parents[1] / "docs" / "il.md"


def x_plus_one(line=None):
    return mk("assign", mk("ident", "x"), mk("add", mk("ident", "x"), mk("intCst", 1, None)), line=line)


def test_equality_ignores_annotations():
    a, b = x_plus_one(line=3), x_plus_one(line=7)
    assert a == b and hash(a) == hash(b)
    assert a.line == 3 and b.line == 7


def test_nodes_are_immutable():
    a = x_plus_one()
    with pytest.raises(AttributeError):
        a.op = "call"


def test_named_children_and_replace():
    a = x_plus_one(line=3)
    assert a.lhs == mk("ident", "x") and a.rhs.op == "add"
    b = a.replace(rhs=mk("intCst", 2, None))
    assert b.rhs == mk("intCst", 2, None) and a.rhs.op == "add" and b.line == 3
    block = mk("block", a, b)
    assert block.stmts == (a, b)


def test_check_rejects_wrong_arity_and_kinds():
    with pytest.raises(ILError):
        check(Node("assign", (mk("ident", "x"),)))
    with pytest.raises(ILError):
        check(mk("if", mk("ident", "c"), mk("assign", mk("ident", "x"), mk("ident", "y")), None))
    with pytest.raises(ILError):
        mk("noSuchOperator")
    assert check(mk("if", mk("ident", "c"), mk("block", x_plus_one()), None))


def test_walk_visits_every_node():
    assert [n.op for n in walk(x_plus_one())] == ["assign", "ident", "add", "ident", "intCst"]


def test_called_names_finds_call_statements_and_calls_nested_in_expressions():
    inner = mk("call", "g", (mk("ident", "x"),))
    stmts = (mk("call", "p", (mk("add", mk("ident", "y"), mk("call", "f", (inner,))),)),
             mk("assign", mk("ident", "z"), mk("mul", mk("ident", "z"), mk("call", "h", ()))),
             x_plus_one())
    block = mk("block", *stmts)
    assert called_names(block) == {"p", "f", "g", "h"} == {n.kids[0] for n in walk(block) if n.op == "call"}
    assert called_names(stmts[2]) == set() and called_names((stmts[1], None)) == {"h"}


def test_format_tree_shows_lines_and_labels():
    text = format_tree(mk("block", x_plus_one(line=4).with_ann(label="10")), lines=True)
    assert "@4" in text and "label=10" in text


def test_operator_reference_is_up_to_date():
    import importlib.util
    spec = importlib.util.spec_from_file_location("make_il_reference", DOCS.parent / "make_il_reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert DOCS.read_text() == module.reference(), "run: python docs/make_il_reference.py"
