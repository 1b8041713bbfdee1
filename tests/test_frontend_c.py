"""C front end: snippets -> expected IL, errors with their lines, comments and directives."""
import pytest

from adspec.engine.errors import SourceError, UnsupportedError
from adspec.engine.il import STATEMENT_OPS, check, mk, walk
from adspec.frontends.c import parse_c


def parse(src, filename="t.c"):
    return check(parse_c(src, filename))


def proc(src, name=None):
    """The (first, or named) procedure of a C snippet."""
    procs = [u for u in parse(src).kids if u.op == "procedure"]
    return next(p for p in procs if name is None or p.name == name)


def body(stmts, decls=""):
    """Statements of `void f(...)` whose body is `stmts`."""
    return proc(f"{decls}\nvoid f(double x, double y, double *p, double *q, int i, int j, int n) {{\n{stmts}\n}}\n",
                "f").body.stmts


def stmt(src, decls=""):
    (s,) = body(src, decls)
    return s


def expr(src, decls=""):
    return stmt(f"x = {src};", decls).rhs


def units(src):
    return parse(src).kids


X, Y, P, I, J, N = (mk("ident", v) for v in "x y p i j n".split())


def T(base, kind=None):
    return mk("type", base, kind, None)


def i(v, kind=None):
    return mk("intCst", v, kind)


def var(typ, *declarators, attrs=()):
    return mk("varDecl", typ, attrs, declarators)


def dcl(name, dims=None, init=None, ptr=0):
    return mk("declarator", name, dims, init, ptr)


def dim(size):
    return mk("dim", None, size)


# --- the file node ---------------------------------------------------------------------

def test_file_annotations_and_header_declarations_dropped():
    src = '#include <math.h>\n#include <stdlib.h>\n#include "stdio.h"\nint a;\n'
    tree = parse(src, "dir/prog.c")
    assert tree.op == "file"
    assert tree.ann["lang"] == "c" and tree.ann["filename"] == "dir/prog.c"
    assert tree.ann["includes"] == ("#include <math.h>", "#include <stdlib.h>", '#include "stdio.h"')
    assert tree.kids == (var(T("integer", 4), dcl("a")),)


def test_no_includes_still_annotated():
    assert parse("int a;").ann["includes"] == ()


def test_macros_are_expanded():
    assert units("#define N 10\ndouble a[N];") == (var(T("real", 8), dcl("a", (dim(i(10)),))),)


# --- types and declarations ---------------------------------------------------------------

@pytest.mark.parametrize("ctype, il, attrs", [
    ("int", T("integer", 4), ()), ("long", T("integer", 8), ()), ("long long", T("integer", 8), ()),
    ("long int", T("integer", 8), ()), ("short", T("integer", 2), ()), ("char", T("character", 1), ()),
    ("float", T("real", 4), ()), ("double", T("real", 8), ()), ("long double", T("real", 16), ()),
    ("_Bool", T("logical", 1), ()), ("unsigned", T("integer", 4), ("unsigned",)),
    ("unsigned long", T("integer", 8), ("unsigned",)), ("const double", T("real", 8), ("const",)),
    ("static int", T("integer", 4), ("static",)), ("extern double", T("real", 8), ("extern",)),
    ("volatile int", T("integer", 4), ("volatile",)),
    ("static const unsigned int", T("integer", 4), ("static", "const", "unsigned")),
])
def test_scalar_types(ctype, il, attrs):
    assert units(f"{ctype} v;") == (var(il, dcl("v"), attrs=attrs),)


def test_one_declaration_many_declarators_with_pointers_arrays_and_init():
    (u,) = units("int a, *b[3], c = 3, **d;\ndouble m[3][4];")[:1]
    assert u == var(T("integer", 4), dcl("a"), dcl("b", (dim(i(3)),), None, 1), dcl("c", None, i(3)),
                    dcl("d", ptr=2))
    assert units("double m[3][4];") == (var(T("real", 8), dcl("m", (dim(i(3)), dim(i(4))))),)


def test_separate_declarations_stay_separate():
    assert len(units("int a; int b;")) == 2


def test_array_initialisers_nested():
    (u,) = units("double a[2][2] = {{1.0, 2.0}, {3.0, 4.0}};")
    row = lambda a, b: mk("arrayConstructor", (mk("realCst", a, 8), mk("realCst", b, 8)))
    assert u.declarators[0].init == mk("arrayConstructor", (row("1.0", "2.0"), row("3.0", "4.0")))


def test_struct_definitions_and_typedefs():
    src = """struct S { double x; int n[3]; };
typedef struct { double y; } T;
typedef struct P { int k; } PT;
typedef double real;
typedef double *dptr;
struct S s, *ps;
"""
    s_fields = (var(T("real", 8), dcl("x")), var(T("integer", 4), dcl("n", (dim(i(3)),))))
    assert units(src) == (
        mk("typeDef", "S", s_fields, "struct"),
        mk("typeDef", "T", (var(T("real", 8), dcl("y")),), "typedef"),
        mk("typeDef", "P", (var(T("integer", 4), dcl("k")),), "struct"),
        mk("typeAlias", "PT", mk("typeRef", "P")),
        mk("typeAlias", "real", T("real", 8)),
        mk("typeAlias", "dptr", mk("pointerType", T("real", 8))),
        var(mk("typeRef", "S"), dcl("s"), dcl("ps", ptr=1)),
    )


def test_struct_defined_with_variables():
    assert units("struct S { int a; } s1, s2;") == (
        mk("typeDef", "S", (var(T("integer", 4), dcl("a")),), "struct"),
        var(mk("typeRef", "S"), dcl("s1"), dcl("s2")))


def test_typedef_names_are_type_refs():
    (_, u) = units("typedef double real;\nreal r;")
    assert u == var(mk("typeRef", "real"), dcl("r"))


def test_header_typedefs():
    (u,) = units("#include <stdlib.h>\n#include <stdbool.h>\nsize_t n; bool b = true;")[:1]
    assert u == var(T("integer", 8), dcl("n"))
    assert units("#include <stdbool.h>\nbool b = false;") == (
        var(T("logical", 1), dcl("b", None, mk("boolCst", False))),)


# --- procedures -----------------------------------------------------------------------------

def test_function_definition():
    p = proc("static inline double f(double x, const double *a, int n[]) { return x; }")
    assert p == mk("procedure", "f", "function", ("x", "a", "n"), None, T("real", 8), ("static", "inline"),
                   (var(T("real", 8), dcl("x")), var(T("real", 8), dcl("a", ptr=1), attrs=("const",)),
                    var(T("integer", 4), dcl("n", (mk("dim", None, None),)))),
                   mk("block", mk("return", X)), ())
    assert p.line == 1 and all(d.line == 1 for d in p.decls)


def test_prototypes_void_and_pointer_results():
    ps = units("double g(double, int);\nvoid h(void);\ndouble *k();")
    assert ps[0] == mk("procedure", "g", "function", ("", ""), None, T("real", 8), (),
                       (var(T("real", 8), dcl("")), var(T("integer", 4), dcl(""))), None, ())
    assert ps[1] == mk("procedure", "h", "function", (), None, T("void"), (), (), None, ())
    assert ps[2].type == mk("pointerType", T("real", 8)) and ps[2].body is None


# --- statements -----------------------------------------------------------------------------

@pytest.mark.parametrize("op, il", [("+=", "add"), ("-=", "sub"), ("*=", "mul"), ("/=", "div"),
                                    ("%=", "mod"), ("&=", "bitAnd"), ("|=", "bitOr"), ("^=", "bitXor"),
                                    ("<<=", "lShift"), (">>=", "rShift")])
def test_compound_assignments(op, il):
    assert stmt(f"i {op} j;") == mk("assign", I, mk(il, I, J))


@pytest.mark.parametrize("src, op", [("i++;", "add"), ("++i;", "add"), ("i--;", "sub"), ("--i;", "sub")])
def test_increments(src, op):
    assert stmt(src) == mk("assign", I, mk(op, I, i(1)))


def test_calls_and_intrinsics():
    assert stmt("g(x, 2);", "void g(double a, int b);") == mk("call", "g", (X, i(2)))
    assert stmt("x = sin(y) + pow(x, 2.0);") == mk("assign", X, mk("add", mk("intrinsic", "sin", (Y,)),
                                                                 mk("intrinsic", "pow", (X, mk("realCst", "2.0", 8)))))
    assert stmt('printf("%d\\n", i);', "#include <stdio.h>") == mk("intrinsic", "printf",
                                                                   (mk("stringCst", "%d\n"), I))
    # a function of the file shadows the intrinsic of the same name
    assert expr("sin(y)", "double sin(double);") == mk("call", "sin", (Y,))
    assert stmt("(void) g(x);", "int g(double);") == mk("call", "g", (X,))


def test_if_else_chain():
    s = stmt("if (x > 0) y = 1; else if (x < 0) { y = 2; } else y = 3;")
    one, two, three = (mk("assign", Y, i(v)) for v in (1, 2, 3))
    zero = i(0)
    inner = mk("if", mk("lt", X, zero), mk("block", two), mk("block", three))
    assert s == mk("if", mk("gt", X, zero), mk("block", one), mk("block", inner))
    assert stmt("if (x) { }") == mk("if", X, mk("block"), None)


def test_loops():
    assert stmt("for (int k = 0; k < n; k++) x += k;") == mk(
        "for", var(T("integer", 4), dcl("k", None, i(0))), mk("lt", mk("ident", "k"), N),
        mk("assign", mk("ident", "k"), mk("add", mk("ident", "k"), i(1))),
        mk("block", mk("assign", X, mk("add", X, mk("ident", "k")))))
    assert stmt("for (i = 0; ; i += 2) { break; }") == mk(
        "for", mk("assign", I, i(0)), None, mk("assign", I, mk("add", I, i(2))), mk("block", mk("exit")))
    assert stmt("for (;;) continue;") == mk("for", None, None, None, mk("block", mk("cycle")))
    assert stmt("while (i < n) i++;") == mk("while", mk("lt", I, N), mk("block", mk("assign", I, mk("add", I, i(1)))))
    assert stmt("do { x = x * 2; } while (x < y);") == mk(
        "doWhile", mk("block", mk("assign", X, mk("mul", X, i(2)))), mk("lt", X, Y))


def test_return_goto_labels_empty_and_nested_blocks():
    ss = body("goto done;\n{ int k = 1; x = k; }\n;\ndone: return;")
    assert ss[0] == mk("goto", "done")
    assert ss[1] == mk("block", var(T("integer", 4), dcl("k", None, i(1))), mk("assign", X, mk("ident", "k")))
    assert ss[2] == mk("nop")
    assert ss[3] == mk("return", None) and ss[3].ann["label"] == "done"
    labelled = body("end: ;")[0]
    assert labelled == mk("nop") and labelled.ann["label"] == "end"
    assert proc("int f(int a) { return a + 1; }").body.stmts == (mk("return", mk("add", mk("ident", "a"), i(1))),)


def test_local_declarations_are_block_statements():
    ss = body("double t = x, u;\nstatic int count;\nt = u;")
    assert ss[0] == var(T("real", 8), dcl("t", None, X), dcl("u"))
    assert ss[1] == var(T("integer", 4), dcl("count"), attrs=("static",))


@pytest.mark.parametrize("rhs, count", [
    ("(double*)malloc(n*sizeof(double))", N),
    ("malloc(n * sizeof(double))", N),
    ("malloc(sizeof(double) * n)", N),
    ("malloc(sizeof(double))", i(1)),
    ("(double *) malloc((n+1)*i*sizeof(double))", mk("mul", mk("add", N, i(1)), I)),
])
def test_malloc_forms(rhs, count):
    assert stmt(f"p = {rhs};", "#include <stdlib.h>") == mk("allocate", P, (count,), T("real", 8))


def test_malloc_in_declaration_and_free():
    ss = body("double **r = (double**)malloc(n*sizeof(double*));\nfree(r);", "#include <stdlib.h>")
    R = mk("ident", "r")
    assert ss == (var(T("real", 8), dcl("r", ptr=2)),
                  mk("allocate", R, (N,), mk("pointerType", T("real", 8))),
                  mk("deallocate", R))
    assert ss[1].line == 3


@pytest.mark.parametrize("src", ["p = malloc(n*8);", "p = calloc(n, sizeof(double));",
                                 "x = *(double*)malloc(sizeof(double));", "p = realloc(p, 8);"])
def test_other_malloc_forms_unsupported(src):
    with pytest.raises(UnsupportedError) as e:
        body(src, "#include <stdlib.h>")
    assert e.value.line == 3


# --- expressions ----------------------------------------------------------------------------

@pytest.mark.parametrize("op, il", [
    ("+", "add"), ("-", "sub"), ("*", "mul"), ("/", "div"), ("%", "mod"), ("==", "eq"), ("!=", "ne"),
    ("<", "lt"), ("<=", "le"), (">", "gt"), (">=", "ge"), ("&&", "and"), ("||", "or"),
    ("&", "bitAnd"), ("|", "bitOr"), ("^", "bitXor"), ("<<", "lShift"), (">>", "rShift")])
def test_binary_operators(op, il):
    assert expr(f"i {op} j") == mk(il, I, J)


@pytest.mark.parametrize("op, il", [("-", "neg"), ("+", "pos"), ("!", "not"), ("~", "bitNot"),
                                    ("*", "deref"), ("&", "address")])
def test_unary_operators(op, il):
    assert expr(f"{op}y") == mk(il, Y)


def test_casts_sizeof_ternary_arrays_fields():
    assert expr("(double) i") == mk("cast", T("real", 8), I)
    assert expr("(int *) p") == mk("cast", mk("pointerType", T("integer", 4)), P)
    assert expr("sizeof(double)") == mk("sizeof", T("real", 8))
    assert expr("sizeof y") == mk("sizeof", Y)
    assert expr("i > 0 ? x : y") == mk("ifExpr", mk("gt", I, i(0)), X, Y)
    assert expr("p[i] + p[i+1]") == mk("add", mk("arrayAccess", P, (I,)),
                                       mk("arrayAccess", P, (mk("add", I, i(1)),)))
    m = mk("ident", "m")
    assert expr("m[i][j]", "double m[3][3];") == mk("arrayAccess", mk("arrayAccess", m, (I,)), (J,))
    s = mk("ident", "s")
    decls = "struct S { double v; struct S *next; }; struct S s, *ps;"
    assert expr("s.v", decls) == mk("fieldAccess", s, "v")
    assert expr("ps->next->v", decls) == mk(
        "fieldAccess", mk("deref", mk("fieldAccess", mk("deref", mk("ident", "ps")), "next")), "v")


@pytest.mark.parametrize("text, node", [
    ("42", i(42)), ("42L", i(42, 8)), ("42ll", i(42, 8)), ("42u", i(42)), ("0x1F", i(31)), ("010", i(8)),
    ("1.5", mk("realCst", "1.5", 8)), ("1.5E-3", mk("realCst", "1.5e-3", 8)), ("2.", mk("realCst", "2.", 8)),
    ("2.5f", mk("realCst", "2.5", 4)), ("1e10F", mk("realCst", "1e10", 4)), ("1.0L", mk("realCst", "1.0", 16)),
    ("'a'", i(97, 1)), ("'\\n'", i(10, 1)), ("'\\0'", i(0, 1)),
    ('"a\\tb\\"c"', mk("stringCst", 'a\tb"c')),
])
def test_constants(text, node):
    assert expr(text) == node


def test_true_false_with_stdbool_only_in_code():
    assert expr("true && !false", "#include <stdbool.h>") == mk("and", mk("boolCst", True),
                                                               mk("not", mk("boolCst", False)))
    s = stmt('g("true");', "#include <stdbool.h>\nvoid g(char *s);")
    assert s == mk("call", "g", (mk("stringCst", "true"),))


# --- unsupported constructs and errors -----------------------------------------------------

@pytest.mark.parametrize("src, what", [
    ("x = y++ + y;", "unspecified order of evaluation"),
    ("x = (y = 2) + y;", "unspecified order of evaluation"),
    ("x = (i > 0 && (y = 2) > 1);", "right operand of &&"),
    ("do x = 1; while (i++ < n);", "do-while condition"),
    ("switch (i) x = 1;", "switch whose body is not a { } block"),
    ("g(i++, i);", "unspecified order of evaluation"),
    ("x + 1;", "without effect"),
])
def test_unsupported_constructs_report_their_line(src, what):
    with pytest.raises(UnsupportedError) as e:
        body("x = 0;\n" + src, "void g(int k);")
    assert e.value.line == 4 and what in e.value.message and e.value.filename == "t.c"


def test_unsupported_types():
    for src in ("union U { int *a; double b; } u;", "union { int a; double b; } anon;", "void (*fp)(int);",
                "double (*pa)[3];", "struct { int a; } anon;"):
        with pytest.raises(UnsupportedError) as e:
            parse("\n" + src)
        assert e.value.line == 2, src


@pytest.mark.parametrize("src", ["double _Complex z;", "float f(float _Complex z);", "long double _Complex z;"])
def test_complex_types_are_refused_not_read_as_their_real_part(src):
    with pytest.raises(UnsupportedError, match="_Complex is not supported") as e:
        parse("\n" + src)
    assert e.value.line == 2


def test_cuda_read_since_issue_8():
    """A .cu file was refused before issue 8; it is read now (tests/test_cuda_reader.py)."""
    tree = parse_c("__global__ void k(double *x) { }", "k.cu")
    assert tree.ann["dialect"] == "cuda" and tree.kids[0].kids[5] == ("__global__",)


def test_syntax_error_line():
    with pytest.raises(SourceError) as e:
        parse_c("#include <math.h>\nint f() {\n  x = ;\n}\n", "bad.c")
    assert e.value.filename == "bad.c" and e.value.line == 3
    assert "bad.c:3:" in str(e.value)


def test_preprocessor_errors():
    with pytest.raises(SourceError) as e:
        parse_c("int a;\n#include <no_such_header.h>\n", "pp.c")
    assert (e.value.filename, e.value.line) == ("pp.c", 2)
    with pytest.raises(SourceError) as e:
        parse_c("int a;\n\n#error stop here\n", "pp.c")
    assert e.value.line == 3 and "stop here" in e.value.message


@pytest.mark.parametrize("text", ["", "  \n\n"])
def test_empty_file(text):
    with pytest.raises(SourceError) as e:
        parse_c(text, "e.c")
    assert e.value.line == 1


def test_lines_are_original_lines_and_on_every_statement():
    src = """#include <math.h>
#define SQ(a) ((a)*(a))
double f(double x) {
  double y = 0.0;
  for (int k = 0; k < 3; k++) {
    y += SQ(x);
  }
  if (y > 1.0) y = 1.0; else { y = -1.0; }
  return y;
}
"""
    tree = parse(src)
    f = tree.kids[0]
    assert f.line == 3
    assert [s.line for s in f.body.stmts] == [4, 5, 8, 9]
    stmts = [n for n in walk(tree) if n.op in STATEMENT_OPS or n.op in ("typeDef", "typeAlias")]
    assert stmts and all(n.line is not None for n in stmts)


# --- comments and directives -----------------------------------------------------------------

def c(text):
    return mk("comment", text)


def test_comments_in_blocks_and_units():
    src = """/* file header */
#include <math.h>
// about f
double f(double x) {
  /* first */
  x = 1; // on the line of x = 2? no: of x = 1
  x = 2;
  if (x) {
    x = 3;
    /* end of then */
  } // after the if
  x = 4;
  // end of body
}
/* trailing
   two lines */
"""
    tree = parse(src)
    assert tree.kids[0] == c("file header") and tree.kids[1] == c("about f")
    assert tree.kids[3] == c("trailing\n   two lines")
    assert tree.kids[3].line == 15
    ss = tree.kids[2].body.stmts
    one, two, three, four = (mk("assign", X, i(v)) for v in (1, 2, 3, 4))
    assert ss == (c("first"), c("on the line of x = 2? no: of x = 1"), one, two,
                  mk("if", X, mk("block", three, c("end of then")), None), c("after the if"), four,
                  c("end of body"))
    assert ss[0].line == 5


def test_comment_markers_inside_strings_are_not_comments():
    s = body('g("/* not */ a // comment");', "void g(char *s);")
    assert s == (mk("call", "g", (mk("stringCst", "/* not */ a // comment"),)),)


def test_comment_on_closing_line_of_one_line_block_goes_after():
    ss = body("for (;;) { x = 1; } /* after */\ny = 2;")
    assert ss[1] == c("after") and ss[0].op == "for"


def test_directives_annotate_the_next_statement():
    ss = body("/* $AD NOCHECKPOINT */\n// plain\n// $AD II-LOOP\nfor (;;) { break; }\nx = 1;")
    assert ss[0] == c("plain")
    assert ss[1].op == "for" and ss[1].ann["directives"] == ("NOCHECKPOINT", "II-LOOP")
    assert "directives" not in ss[2].ann
    tree = parse("/* $AD NOCHECKPOINT */\nvoid g(double x);\n")
    assert tree.kids[0].op == "procedure" and tree.kids[0].ann["directives"] == ("NOCHECKPOINT",)


def test_comments_in_a_nested_unbraced_position_stay_in_order():
    ss = body("if (x)\n  // why\n  y = 1;\nx = 2;")
    assert [s.op for s in ss] == ["if", "comment", "assign"]


def test_comment_after_closing_brace_before_else_goes_into_else():
    (s,) = body("if (x) {\n  x = 1;\n} else { // why\n  x = 2;\n}")
    assert s.kids[2].stmts == (c("why"), mk("assign", X, i(2)))


def test_directive_with_no_following_statement_stays_a_comment():
    ss = body("x = 1;\n/* $AD NOCHECKPOINT */")
    assert ss == (mk("assign", X, i(1)), c("$AD NOCHECKPOINT"))


def test_tabs_and_crlf_do_not_confuse_block_comments():
    src = "void f(double x) {\r\n\tif (x) {\r\n\t\tx = 1;\r\n\t\t// last in then\r\n\t}\r\n}\r\n"
    (f,) = parse(src).kids
    assert f.body.stmts[0].kids[1].stmts == (mk("assign", X, i(1)), c("last in then"))


def test_local_types_and_pragmas():
    ss = body("#pragma omp parallel\ntypedef double R;\nstruct Q { int a; } q;\nR r;")
    assert ss == (mk("typeAlias", "R", T("real", 8)),
                  mk("typeDef", "Q", (var(T("integer", 4), dcl("a")),), "struct"),
                  var(mk("typeRef", "Q"), dcl("q")), var(mk("typeRef", "R"), dcl("r")))


@pytest.mark.parametrize("src, what", [
    ("int f(a) int a; { return a; }", "K&R"),
    ("double g(double x, ...);", "variadic"),
    ("void f(double *p) { p = malloc(sizeof(*p)); }", "malloc"),
    ('void f(void) { char *s = L"wide"; }', "wide"),
    ("void f(void) { int k = sizeof(int[3]); }", "array type"),
    ("void f(double x) { x = 0x1p3; }", "hexadecimal"),
    ("void f(void (*g)(int)) { }", "function pointer"),
])
def test_more_unsupported(src, what):
    with pytest.raises(UnsupportedError) as e:
        parse("#include <stdlib.h>\n" + src)
    assert e.value.line == 2 and what in e.value.message


def test_unicode_and_octal_escapes():
    assert expr('"\\u00e9\\101\\x42"') == mk("stringCst", "éAB")


def test_local_headers_are_found_and_their_declarations_dropped(tmp_path):
    (tmp_path / "defs.h").write_text("#define M 4\ndouble helper(double x);\n")
    main = tmp_path / "main.c"
    tree = parse_c('#include "defs.h"\ndouble a[M];\n', str(main))
    assert tree.kids == (var(T("real", 8), dcl("a", (dim(i(4)),))),)
    (tmp_path / "bad.h").write_text("int ok;\nint broken(;\n")
    with pytest.raises(SourceError) as e:
        parse_c('#include "bad.h"\nint a;\n', str(main))
    assert e.value.filename.endswith("bad.h") and e.value.line == 2


# --- switch ----------------------------------------------------------------------------------------
def test_switch_groups_labels_keeps_breaks_and_falls_through():
    s = stmt("switch (i) {\ncase 1:\ncase 2: x = 1; break;\ncase 3: x = 2;\ndefault: x = 3;\n}")
    one = mk("intCst", 1, None)
    assert s == mk("switch", I, (
        mk("case", (one, mk("intCst", 2, None)), mk("block", mk("assign", X, mk("realCst", "1", 8) if False else
                                                                        mk("intCst", 1, None)), mk("exit"))),
        mk("case", (mk("intCst", 3, None),), mk("block", mk("assign", X, mk("intCst", 2, None)))),
        mk("case", (), mk("block", mk("assign", X, mk("intCst", 3, None))))), True)
    assert s.line == 3 and s.cases[1].line == 6


def test_switch_default_sharing_a_body_with_a_case_is_the_default():
    s = stmt("switch (i) { case 1: x = 1; default: case 4: x = 2; }")
    assert [c.values for c in s.cases] == [(mk("intCst", 1, None),), ()]


@pytest.mark.parametrize("src, what, line", [
    ("switch (i) {\n x = 1;\n case 1: break; }", "before the first case label", 4),
    ("switch (i) { case 1: { case 2: x = 1; } }", "case label outside the top level", 3),
    ("case 1: x = 1;", "case label outside", 3),
])
def test_switch_refusals(src, what, line):
    with pytest.raises(UnsupportedError) as e:
        body(src)
    assert e.value.line == line and what in e.value.message


# --- side effects hoisted out of expressions -----------------------------------------------------
def asg(lhs, rhs):
    return mk("assign", lhs, rhs)


def inc(v, op="add"):
    return asg(v, mk(op, v, i(1)))


A = lambda base, idx: mk("arrayAccess", base, (idx,))


def test_postfix_increment_in_an_index_goes_after_the_statement():
    assert body("p[i++] = x;") == (asg(A(P, I), X), inc(I))


def test_prefix_increment_goes_before_and_its_value_is_the_variable():
    assert body("x = ++i * 2;") == (inc(I), asg(X, mk("mul", I, i(2))))
    assert body("x = --i;") == (inc(I, "sub"), asg(X, I))


def test_nested_and_compound_assignments_are_hoisted_in_order():
    assert body("x = y = 0;") == (asg(Y, i(0)), asg(X, Y))
    assert body("x = (j = i + 1) * 2.0;") == (asg(J, mk("add", I, i(1))), asg(X, mk("mul", J, mk("realCst", "2.0", 8))))


CHAIN_DECLS = "struct pt { double x; double y; }; struct pt a; double b[3]; double c[3];"


def test_chained_assignments_to_different_parts_of_one_object_are_hoisted():
    """C defines `t1 = t2 = e` when t1 and t2 are different objects: fields of one struct,
    elements at different constant indices, elements of different arrays."""
    ax, ay = (mk("fieldAccess", mk("ident", "a"), f) for f in "xy")
    b = lambda k: A(mk("ident", "b"), k)
    assert body("a.x = a.y = 0;", CHAIN_DECLS) == (asg(ay, i(0)), asg(ax, ay))
    assert body("b[0] = b[1] = b[2] = x;", CHAIN_DECLS) == (asg(b(i(2)), X), asg(b(i(1)), b(i(2))),
                                                           asg(b(i(0)), b(i(1))))
    assert body("b[0x1] = c[i] = b[0] * y;", CHAIN_DECLS)[0] == asg(A(mk("ident", "c"), I),
                                                                    mk("mul", b(i(0)), Y))
    # what an inner assignment reads comes before its own write
    assert body("x = y = y + 1;") == (asg(Y, mk("add", Y, i(1))), asg(X, Y))
    assert body("a.x = a.y = a.y * a.x;", CHAIN_DECLS)[0] == asg(ay, mk("mul", ay, ax))


@pytest.mark.parametrize("src", ["a.x = a.x = 0;", "b[1] = b[01] = x;", "b[i] = b[j] = x;",
                                 "x = (y = y + 1) + y;", "b[0] = (b[1] = x) + b[i];", "b[b[0] = 1] = x;"])
def test_chained_assignments_that_may_share_an_object_stay_refused(src):
    with pytest.raises(UnsupportedError) as e:
        body(src, CHAIN_DECLS)
    assert e.value.line == 3 and "unspecified order of evaluation" in e.value.message, e.value.message


def test_side_effect_in_a_while_condition_runs_at_every_trip():
    (w,) = body("while ((j = g(i)) > 0) x = j;", "int g(int k);")
    call = mk("call", "g", (I,))
    leave = mk("if", mk("not", mk("gt", J, i(0))), mk("block", mk("exit")), None)
    assert w == mk("while", i(1), mk("block", asg(J, call), leave, asg(X, J)))


def test_postfix_effect_in_a_condition_runs_on_both_branches_and_on_loop_exit():
    (s,) = body("if (i-- > 0) x = 1;")
    assert s == mk("if", mk("gt", I, i(0)), mk("block", inc(I, "sub"), asg(X, i(1))), mk("block", inc(I, "sub")))
    (f,) = body("for (j = 0; i++ < n; j++) x = 1;")
    assert f.cond is None and f.body.stmts[0] == mk("if", mk("not", mk("lt", I, N)),
                                                    mk("block", inc(I), mk("exit")), None)
    assert f.body.stmts[1] == inc(I)


def test_comma_in_for_header_is_a_block_and_elsewhere_is_hoisted():
    (f,) = body("for (i = 0, j = n; i < j; i++, j--) x = 1;")
    assert f.init == mk("block", asg(I, i(0)), asg(J, N))
    assert f.step == mk("block", inc(I), inc(J, "sub"))
    assert body("x = (i = 1, i + 2);") == (asg(I, i(1)), asg(X, mk("add", I, i(2))))
    assert body("i = 1, j = 2;") == (asg(I, i(1)), asg(J, i(2)))


def test_declarations_split_around_hoisted_effects():
    ss = body("int a = i++, b = i;")
    assert ss == (var(T("integer", 4), dcl("a", init=I)), inc(I), var(T("integer", 4), dcl("b", init=I)))


@pytest.mark.parametrize("src, what, line", [
    ("x = 1;\ny = i++ + i;", "i is modified and also used elsewhere", 4),
    ("p[i] = i++;", "unspecified order of evaluation", 3),
    ("i = i++;", "unspecified order of evaluation", 3),
    ("x = g(i++, i);", "unspecified order of evaluation", 3),
    ("x = (i++) + (i++);", "unspecified order of evaluation", 3),
    ("x = i > 0 || (j = 1);", "right operand of ||", 3),
    ("x = i > 0 ? j++ : 0;", "a branch of ?:", 3),
    ("x = i++ > 0 && p[i] > 0;", "i++/-- before the right operand of &&", 3),
    ("x = p[i++]++;", "postfix ++ whose target depends", 3),
    ("return i++;", "return value", 3),
    ("do { x = 1; } while (--i > 0);", "do-while condition", 3),
    ("x = (p[g(1)] = 2.0);", "function call in the target", 3),
], ids=lambda v: str(v)[:30])
def test_side_effect_refusals_say_why_and_where(src, what, line):
    with pytest.raises(UnsupportedError) as e:
        body(src, "int g(int k);")
    assert e.value.line == line and what in e.value.message, e.value.message


def test_side_effects_in_file_level_initializers_are_refused():
    with pytest.raises(UnsupportedError) as e:
        parse("int k;\nint m = k++;")
    assert e.value.line == 2 and "only the expressions of statements" in e.value.message


# --- enums, unions, qualifiers ----------------------------------------------------------------------
def test_enums_tags_typedefs_and_enum_typed_variables():
    u = units("enum color { RED, GREEN = 4, BLUE };\ntypedef enum { LO = -1, HI } level;\n"
              "enum color c = GREEN;\nlevel l;\nenum { K = 2 } anon;")
    assert u[0] == mk("enumDef", "color", (mk("enumerator", "RED", None), mk("enumerator", "GREEN", i(4)),
                                           mk("enumerator", "BLUE", None)))
    assert u[1] == mk("typedefEnum", "level", (mk("enumerator", "LO", mk("neg", i(1))), mk("enumerator", "HI", None)))
    assert u[2] == var(mk("typeRef", "color"), dcl("c", init=mk("ident", "GREEN")))
    assert u[3] == var(mk("typeRef", "level"), dcl("l"))
    assert u[4] == mk("enumDef", None, (mk("enumerator", "K", i(2)),))
    assert u[5] == var(T("integer", 4), dcl("anon"))
    assert [x.line for x in u[:2]] == [1, 2]


def test_unions_and_typedef_unions():
    u = units("union bits { double d; long long i; };\ntypedef union { double d; int w[2]; } words;")
    assert u[0] == mk("typeDef", "bits", (var(T("real", 8), dcl("d")), var(T("integer", 8), dcl("i"))), "union")
    assert u[1] == mk("typeDef", "words", (var(T("real", 8), dcl("d")), var(T("integer", 4), dcl("w", (dim(i(2)),)))),
                      "typedefUnion")


def test_const_and_restrict_are_attrs_per_pointer_level():
    f = proc("void f(const double *restrict x, double *const p, double *const *restrict q) { "
             "static const int n = 4; double *restrict a, *b; }")
    assert [d.attrs for d in f.decls] == [("const", "*restrict"), ("*const",), ("*const", "**restrict")]
    assert f.body.stmts[0].attrs == ("static", "const")
    assert [(d.attrs, [x.name for x in d.declarators]) for d in f.body.stmts[1:]] == [(("*restrict",), ["a"]),
                                                                                    ((), ["b"])]
