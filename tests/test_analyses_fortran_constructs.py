"""Symbols, zones, flow graphs, effects, call sites and the analysis chain on WHERE, FORALL,
DATA, INTERFACE blocks, USE renames, keyword and OPTIONAL arguments (hand-built IL)."""

from adspec.analyses import run_analyses
from adspec.analyses.inout import in_out
from adspec.engine.effects import instruction_effects
from adspec.engine.il import mk
from adspec.engine.program import build_program
from adspec.heads import parse_heads, resolve_heads

from construct_il import (A, C, I, I4, R, R8, asg, blk, call, data, dim, ffile, forall, func, iface_body,
                          implied, interface, io, module, named, op, present, rep, rng, sub, use, var, where)

IMPLICIT_NONE = mk("implicit", "none")


def vec(*names, n=4):
    return var(R8, *((name, (dim(C(n)),)) for name in names))


def masked_sub():
    """subroutine s(a, b, c, m): where (m > 0) a = b elsewhere a = c end where;
    forall (i = 1:4, m(i) > 1) c(i) = b(i); b = 2*b"""
    decls = [IMPLICIT_NONE, vec("a", "b", "c"), var(I4, ("m", (dim(C(4)),)), "i")]
    body = [where(op("gt", I("m"), C(0)), blk(asg(I("a"), I("b"))), blk(asg(I("a"), I("c")))),
            forall([rng("i", C(1), C(4))], blk(asg(A("c", I("i")), A("b", I("i")))),
                   mask=op("gt", A("m", I("i")), C(1))),
            asg(I("b"), op("mul", C(2), I("b")))]
    return sub("s", ["a", "b", "c", "m"], decls, *body)


def bits(proc, *names):
    s = 0
    for n in names:
        s |= proc.zones.var_zones(n)
    return s


def instrs(proc, kind=None):
    return [i for i in proc.flow.instructions() if kind is None or i.kind == kind]


# --- flow graph and effects of WHERE / FORALL -------------------------------------------------------
def test_where_and_forall_are_branches_of_masked_instructions():
    proc = build_program(ffile(masked_sub())).procedure("s")
    tests = instrs(proc, "test")
    assert [t.node.op for t in tests] == ["where", "where", "forall"]
    plain = instrs(proc, "plain")
    assert [i.masked for i in plain] == [True, True, True, False]
    graph = proc.flow.graph
    for t in tests:  # each arm may be skipped
        assert len(list(graph.successors(t.block))) == 2
    assert instruction_effects(tests[2], proc).reads == bits(proc, "i", "m")


def test_masked_assignment_is_a_may_write():
    proc = build_program(ffile(masked_sub())).procedure("s")
    a, b, c = (proc.zones.var_zones(n) for n in "abc")
    first, _, in_forall, last = instrs(proc, "plain")
    e = instruction_effects(first, proc)  # a = b under the mask
    za = a.bit_length() - 1
    assert e.writes == a and e.kills == 0
    assert e.dep.row(za) == a | b and e.diff_dep.row(za) == a | b
    assert instruction_effects(in_forall, proc).kills == 0
    assert instruction_effects(last, proc).kills == b  # outside: a plain total write


def test_inout_through_where_and_forall():
    program = build_program(ffile(masked_sub()))
    proc = program.procedure("s")
    io_ = in_out(program)
    assert io_.must_written(proc) & bits(proc, "a", "c") == 0  # masked: not certainly written
    assert io_.may_written(proc) & bits(proc, "a", "b", "c") == bits(proc, "a", "b", "c")
    assert io_.read(proc) & bits(proc, "a", "b", "c", "m") == bits(proc, "b", "c", "m")


def test_activity_through_a_where():
    program = build_program(ffile(masked_sub()))
    results = run_analyses(program, resolve_heads(program, parse_heads("s(a)/(b)")))
    proc = program.procedure("s")
    masked = instrs(proc, "plain")[0]
    assert results.activity.is_active_instr(proc, masked)
    # the masked active assignment is control dependent on the mask: the mask test is diff-live
    assert results.diff_live.is_live_for_diff(proc, instrs(proc, "test")[0]) is True


# --- computed GOTO and arithmetic IF --------------------------------------------------------------
def jumps_sub():
    """subroutine s(a, b, k): go to (10, 20), k; a = b; 10 if (b - 1) 20, 30, 30;
    20 a = a*b; 30 continue"""
    decls = [IMPLICIT_NONE, var(R8, "a", "b"), var(I4, "k")]
    body = [mk("computedGoto", ("10", "20"), I("k")), asg(I("a"), I("b")),
            mk("arithmeticIf", op("sub", I("b"), C(1)), "20", "30", "30", label="10"),
            asg(I("a"), op("mul", I("a"), I("b"))).with_ann(label="20"), mk("nop", label="30")]
    return sub("s", ["a", "b", "k"], decls, *body)


def test_computed_goto_and_arithmetic_if_read_their_expression_and_control_the_jumped_statements():
    program = build_program(ffile(jumps_sub()))
    proc = program.procedure("s")
    computed, arithmetic = instrs(proc, "test")
    assert instruction_effects(computed, proc).reads == bits(proc, "k")
    assert instruction_effects(arithmetic, proc).reads == bits(proc, "b")
    assert instruction_effects(arithmetic, proc).writes == 0
    results = run_analyses(program, resolve_heads(program, parse_heads("s(a)/(b)")))
    product = instrs(proc, "plain")[1]
    assert results.activity.is_active_instr(proc, product)
    # a = a*b has a derivative and runs or not as both jumps say: both are diff-live
    assert results.diff_live.is_live_for_diff(proc, computed) is True
    assert results.diff_live.is_live_for_diff(proc, arithmetic) is True


# --- symbols: interface bodies, generic names, DATA ------------------------------------------------
def test_interface_bodies_declare_external_procedures_without_leaking_dummies():
    body = iface_body("ext", ("y", "n"), (IMPLICIT_NONE, var(I4, "n"), var(R8, ("y", (dim(I("n")),)))))
    fbody = iface_body("g", ("t",), (var(R8, "t"), var(R8, "g")), kind="function")
    caller = sub("p", ["x"], [IMPLICIT_NONE, interface(procs=(body, fbody)), vec("x")],
                 call("ext", I("x"), C(4)), asg(A("x", C(1)), mk("call", "g", (A("x", C(2)),))))
    program = build_program(ffile(caller))
    proc = program.procedure("p")
    scope = proc.scope
    assert scope.symbols["ext"].kind == "external" and "y" not in scope.symbols and "n" not in scope.symbols
    assert scope.symbols["g"].type == R8
    assert {z.name for z in proc.zones.zones} >= {"x"} and "y" not in {z.name for z in proc.zones.zones}
    assert len(program.external_calls) == 2  # no definitions in the files


def test_interface_call_goes_to_the_definition_in_the_files():
    body = iface_body("ext", ("y",), (var(R8, "y"),))
    caller = sub("p", ["x"], [interface(procs=(body,)), var(R8, "x")], call("ext", I("x")))
    ext = sub("ext", ["y"], [var(R8, "y")], asg(I("y"), op("mul", I("y"), I("y"))))
    program = build_program(ffile(caller, ext))
    assert [s.callee.name for s in program.call_sites.values()] == ["ext"]


def test_generic_name_is_no_variable_and_may_name_a_specific():
    m = module("m", [interface("norm", names=("norm", "norm_v")), var(R8, "g")],
               func("norm", ["x"], R8, [var(R8, "x")], asg(I("norm"), I("x"))),
               func("norm_v", ["x"], R8, [vec("x")], asg(I("norm_v"), A("x", C(1)))))
    caller = sub("p", ["y"], [use("m"), var(R8, "y")], asg(I("y"), mk("call", "norm", (I("y"),))))
    program = build_program(ffile(m, caller))
    scope = program.procedure("m.norm").scope.parent
    assert scope.symbols["norm"].kind == "procedure"
    assert [s.callee.name for s in program.call_sites.values()] == ["m.norm"]
    only_generic = module("m2", [interface("twice", names=("twice_r",))],
                          func("twice_r", ["x"], R8, [var(R8, "x")], asg(I("twice_r"), I("x"))))
    program = build_program(ffile(only_generic))
    assert program.procedure("m2.twice_r").scope.parent.symbols["twice"].kind == "generic"


def test_data_is_an_initializer_that_implies_save():
    decls = [IMPLICIT_NONE, vec("w"), var(R8, "x"), var(I4, "i"),
             data([I("x"), implied([A("w", I("i"))], "i", C(1), C(4))], [R("1.0"), rep(4, R("0.5"))])]
    proc = build_program(ffile(sub("p", ["y"], decls + [var(R8, "y")], asg(I("y"), op("add", I("x"), A("w", C(2))))))
                         ).procedure("p")
    assert {"save", "data"} <= proc.scope.symbols["w"].attrs
    assert "data" not in proc.scope.symbols["i"].attrs
    assert not any(i.node.op == "data" for i in instrs(proc))


# --- USE renames -----------------------------------------------------------------------------------
def test_use_rename_maps_the_local_name_to_the_module_variable_zone():
    m = module("m", [var(R8, "v", "w")])
    plain = sub("p", ["y"], [use("m"), var(R8, "y")], asg(I("v"), I("y")))
    renamed = sub("q", ["y"], [use("m", only=("loc",), loc="v"), IMPLICIT_NONE, var(R8, "y")],
                  asg(I("y"), I("loc")))
    program = build_program(ffile(m, plain, renamed))
    p, q = program.procedure("p"), program.procedure("q")
    assert q.zones.var_zones("loc") == p.zones.var_zones("v") != 0
    assert q.scope.lookup("v") is None  # renamed away
    io_ = in_out(program)
    assert io_.read(q) & q.zones.var_zones("loc")


# --- keyword and OPTIONAL arguments in call sites -----------------------------------------------------
def axpy():
    decls = [var(R8, "y", "x", "alpha"), var(R8, "beta", attrs=("optional",))]
    body = [asg(I("y"), op("add", op("mul", I("alpha"), I("x")), I("y"))),
            mk("if", present("beta"), blk(asg(I("y"), op("mul", I("beta"), I("y")))), None)]
    return sub("axpy", ["y", "x", "alpha", "beta"], decls, *body)


def test_keyword_actuals_map_to_formals_by_name_and_absent_optionals_have_no_caller_zone():
    caller = sub("p", ["u", "v", "s"], [var(R8, "u", "v", "s")],
                 call("axpy", named("x", I("v")), named("alpha", I("s")), named("y", I("u"))))
    program = build_program(ffile(caller, axpy()))
    site = next(iter(program.call_sites.values()))
    p, callee = program.procedure("p"), program.procedure("axpy")
    cz = {n: callee.zones.var_zones(n) for n in ("y", "x", "alpha", "beta")}
    assert site.to_callee(p.zones.var_zones("v")) == cz["x"]
    assert site.to_callee(p.zones.var_zones("u")) == cz["y"]
    assert site.to_caller(cz["alpha"]) == p.zones.var_zones("s")
    assert site.to_caller(cz["beta"]) == 0  # absent
    results = run_analyses(program, resolve_heads(program, parse_heads("p(u)/(v)")))
    io_ = results.inout
    assert io_.may_written(p) & p.zones.var_zones("u") and not io_.may_written(p) & p.zones.var_zones("v")


# --- everything at once: the whole chain runs --------------------------------------------------------
def test_analysis_chain_runs_on_all_constructs():
    m = module("m", [var(R8, "scale"), data([I("scale")], [R("2.0")]), interface("twice", names=("twice_r",))],
               func("twice_r", ["x"], R8, [var(R8, "x")], asg(I("twice_r"), op("mul", C(2), I("x")))))
    decls = [use("m", only=("s", "twice_r"), s="scale"), vec("a", "b"), var(I4, "i"),
             interface(procs=(iface_body("ext", ("y",), (var(R8, "y"),)),))]
    body = [asg(I("b"), mk("arrayConstructor", (implied([op("mul", I("s"), I("i"))], "i", C(1), C(4)),))),
            where(op("gt", I("b"), I("a")), blk(asg(I("a"), mk("call", "twice_r", (I("s"),))))),
            forall([rng("i", C(1), C(4))], blk(asg(A("b", I("i")), op("mul", A("a", I("i")), I("s"))))),
            io("open", "unit=10, status='scratch'"), io("write", "10, 100", implied([A("a", I("i"))], "i", C(1), C(4))),
            io("format", "4f8.3", label="100"), io("close", "10"),
            call("axpy", I("b"), I("a"), named("alpha", I("s"))), call("ext", A("a", C(1)))]
    program = build_program(ffile(m, sub("p", ["a", "b"], decls, *body), axpy()))
    results = run_analyses(program, resolve_heads(program, parse_heads("p(b)/(a)")))
    p = program.procedure("p")
    assert results.activity.varied["p"].at_exit & p.zones.var_zones("b")
    s_zone = p.zones.var_zones("s")
    assert [z.name for z in p.zones.zones if s_zone >> z.index & 1] == ["scale"]
    assert p.zones.var_zones("s") & results.inout.read(p)


def test_implied_do_items_are_differentiable_values():
    # b = (/ (a(i) * x, i = 1, 4) /): b depends differentiably on a and x; the derivative uses x
    body = asg(I("b"), mk("arrayConstructor", (implied([op("mul", A("a", I("i")), I("x"))], "i", C(1), C(4)),)))
    decls = [vec("a", "b"), var(R8, "x"), var(I4, "i")]
    program = build_program(ffile(sub("p", ["a", "b", "x"], decls, body)))
    proc = program.procedure("p")
    instr = instrs(proc, "plain")[0]
    zb = proc.zones.var_zones("b").bit_length() - 1
    assert instruction_effects(instr, proc).diff_dep.row(zb) == bits(proc, "a", "x")
    results = run_analyses(program, resolve_heads(program, parse_heads("p(b)/(a)")))
    assert results.uses.uses(proc, instr) & bits(proc, "x")


def test_public_and_private_statements_name_procedures_and_generics():
    access = [mk("attrDecl", "private", ()),
              mk("attrDecl", "public", (mk("declarator", "energy", None, None, 0),
                                        mk("declarator", "energy_one", None, None, 0),
                                        mk("declarator", "wall", None, None, 0)))]
    m = module("box", access + [var(R8, ("wall", None, R("2.0")), attrs=("parameter",)),
                                interface("energy", names=("energy_one",))],
               func("energy_one", ["v"], R8, [var(R8, "v")], asg(I("energy_one"), op("mul", I("v"), I("wall")))))
    caller = sub("p", ["y"], [use("box"), var(R8, "y")], asg(I("y"), mk("call", "energy_one", (I("y"),))))
    program = build_program(ffile(m, caller))
    module_scope = program.procedure("box.energy_one").scope.parent
    assert module_scope.symbols["energy"].kind == "generic"
    assert module_scope.symbols["energy_one"].kind == "procedure"
    assert [s.callee.name for s in program.call_sites.values()] == ["box.energy_one"]
