"""The transposed forms of the array intrinsics that move data (paper 4.11: the adjoint of a
linear map is its transpose): what the arguments of TRANSPOSE, SPREAD, CSHIFT, EOSHIFT,
PACK, RESHAPE (pad= and order= too) and MATMUL receive from the adjoint VAL of the result.
EOSHIFT and PACK of arrays of rank 2 and more are refused at their line."""
from __future__ import annotations

from ...engine.il import Node

MOVES = frozenset("transpose spread cshift eoshift pack reshape matmul".split())


def _call(name: str, *args) -> Node:
    return Node("intrinsic", (name, tuple(args)))


def _negated(expr: Node) -> Node:
    """-expr, a constant negated in place (-(-1) is 1)."""
    if expr.op == "intCst":
        return Node("intCst", (-expr.kids[0], expr.kids[1]))
    return expr.kids[0] if expr.op == "neg" else Node("neg", (expr,))


def _product(values) -> int:
    out = 1
    for v in values:
        out *= v
    return out


def _named(args: tuple, names: tuple) -> dict:
    """The arguments by dummy name (positional first, then keywords)."""
    out = {}
    for i, a in enumerate(args):
        if a.op == "namedArg":
            out[a.kids[0]] = a.kids[1]
        elif i < len(names):
            out[names[i]] = a
    return out


_DUMMIES = {"transpose": ("matrix",), "spread": ("source", "dim", "ncopies"), "cshift": ("array", "shift", "dim"),
            "eoshift": ("array", "shift", "boundary", "dim"), "pack": ("array", "mask", "vector"),
            "reshape": ("source", "shape", "pad", "order"), "matmul": ("matrix_a", "matrix_b")}


class ArrayMoves:
    """Mixed into AdjointContext through ArraySupport (needs known_rank, refuse)."""

    def move_rank(self, expr: Node) -> int | None:
        name, args = expr.kids
        named = _named(args, _DUMMIES.get(name, ()))
        rank = self.value_rank
        if name == "transpose":
            return 2
        if name == "spread" and "source" in named:
            inner = rank(named["source"])
            return None if inner is None else inner + 1
        if name in ("cshift", "eoshift") and args:
            return rank(args[0] if args[0].op != "namedArg" else args[0].kids[1])
        if name == "pack":
            return 1
        if name == "reshape" and named.get("shape") is not None and named["shape"].op == "arrayConstructor":
            return len(named["shape"].kids[0])
        if name == "matmul" and "matrix_a" in named and "matrix_b" in named:
            a, b = rank(named["matrix_a"]), rank(named["matrix_b"])
            return None if None in (a, b) else a + b - 2
        return None

    def moved_operands(self, expr: Node, adj: tuple, stmt: Node) -> tuple:
        """((the arguments with an adjoint), (their ADJ)): the transposed move of VAL."""
        name, args = expr.kids
        val, vrank, mask = adj
        named = _named(args, _DUMMIES[name])
        if name in ("eoshift", "pack"):
            return self._rank1_moves(name, named, val, vrank, mask, stmt)
        if name == "reshape" and ("pad" in named or "order" in named):
            return self._reshape_padded(named, val, vrank, mask, stmt)
        if vrank == 0 and name != "spread":   # a scalar broadcast over the result: over the argument too
            first = named.get(_DUMMIES[name][0])
            if name == "matmul":
                self.refuse(stmt, "the adjoint of MATMUL inside SUM (its adjoint spread over the product)")
            return (first,), ((val, 0, mask),)
        if mask != Node("boolCst", (True,)):
            self.refuse(stmt, f"the adjoint of {name} under a mask")
        if name == "transpose":
            return (named["matrix"],), ((_call("transpose", val), 2, mask),)
        if name == "spread":
            source, dim, copies = named["source"], named["dim"], named["ncopies"]
            if vrank == 0:
                return (source,), ((Node("mul", (copies, val)), 0, mask),)
            return (source,), ((_call("sum", val, Node("namedArg", ("dim", dim))), vrank - 1, mask),)
        if name == "cshift":
            back = _negated(named["shift"])
            rest = (Node("namedArg", ("dim", named["dim"])),) if "dim" in named else ()
            return (named["array"],), ((_call("cshift", val, back, *rest), vrank, mask),)
        if name == "reshape":
            source = named["source"]
            return (source,), ((_call("reshape", val, _call("shape", source)), self.known_rank(source, stmt), mask),)
        return self._matmul_operands(named["matrix_a"], named["matrix_b"], val, stmt)

    def _reshape_padded(self, named: dict, val: Node, vrank: int, mask: Node, stmt: Node) -> tuple:
        """R = RESHAPE(s, SHAPE, pad=p, order=o) fills R, in the subscript order o, with the
        elements of s then those of p, p repeated. Transposed: the sequence Q of VAL read in
        the order o (RESHAPE(VAL, SHAPE permuted by o, order=o⁻¹), flattened); s gets the
        first SIZE(s) elements of Q (0 past the end of Q), and p, element k, the sum of the
        elements of Q after them at the places k, k + SIZE(p), ... (Q's tail laid out in
        SIZE(p) rows and summed along the second dimension). A scalar VAL (the result
        summed whole) is spread over SHAPE first. ORDER must be constants, SHAPE an array
        constructor."""
        source, shape, pad, order = named["source"], named["shape"], named.get("pad"), named.get("order")
        if mask != Node("boolCst", (True,)) or shape.op != "arrayConstructor":
            self.refuse(stmt, "the adjoint of RESHAPE with pad= or order=, under a mask or with a SHAPE that is "
                              "not an array constructor")
        zero = Node("realCst", ("0.0", self.kind_of(source) or 8))
        zeros = Node("arrayConstructor", ((zero,),))
        if vrank == 0:
            val = _call("reshape", Node("arrayConstructor", ((val,),)), shape,
                        Node("namedArg", ("pad", Node("arrayConstructor", ((val,),)))))
        if order is not None:
            values = [k.kids[0] for k in order.kids[0] if k.op == "intCst"] if order.op == "arrayConstructor" else []
            if sorted(values) != list(range(1, len(shape.kids[0]) + 1)):
                self.refuse(stmt, "the adjoint of RESHAPE with an order= that is not an array of constants")
            inverse = [values.index(k) + 1 for k in range(1, len(values) + 1)]
            permuted = Node("arrayConstructor", (tuple(shape.kids[0][k - 1] for k in values),))
            val = _call("reshape", val, permuted, Node("namedArg", ("order", Node("arrayConstructor", (
                tuple(Node("intCst", (k, None)) for k in inverse),)))))
        extents = shape.kids[0]
        total = Node("intCst", (_product(e.kids[0] for e in extents), None)) \
            if all(e.op == "intCst" for e in extents) else _call("size", val)
        sequence = _call("reshape", val, Node("arrayConstructor", ((total,),)))
        length = _call("size", source)
        out = [source]   # RESHAPE takes the elements it needs, then the zeros of pad
        adjs = [(_call("reshape", sequence, _call("shape", source), Node("namedArg", ("pad", zeros))),
                 self.known_rank(source, stmt), mask)]
        if pad is not None:
            width = _call("size", pad)
            one = Node("intCst", (1, None))
            tail = _call("eoshift", sequence, length, zero)   # Q's elements after SIZE(s), then zeros
            rows = Node("div", (Node("add", (Node("sub", (total, length)), Node("sub", (width, one)))), width))
            laid = _call("reshape", tail, Node("arrayConstructor", ((width, _call("max", rows, one)),)),
                         Node("namedArg", ("pad", zeros)))
            out.append(pad)
            adjs.append((_call("reshape", _call("sum", laid, Node("namedArg", ("dim", Node("intCst", (2, None))))),
                               _call("shape", pad)), self.known_rank(pad, stmt), mask))
        return tuple(out), tuple(adjs)

    def _rank1_moves(self, name: str, named: dict, val: Node, vrank: int, mask: Node, stmt: Node) -> tuple:
        """EOSHIFT(a, s, b): a gets EOSHIFT(VAL, -s) (0 shifted in), the boundary b the VAL of
        the places it filled, SUM(VAL) - SUM(EOSHIFT(VAL, -s)). PACK(a, m, v): a gets VAL
        unpacked on m (UNPACK(VAL, m, 0)); v the VAL of its places after the COUNT(m) packed
        ones (VAL shifted out and back in by COUNT(m)). A broadcast VAL is spread first."""
        nomask = Node("boolCst", (True,))
        array = named.get("array")
        if "dim" in named or array is None or self.known_rank(array, stmt) != 1 or mask != nomask:
            self.refuse(stmt, f"the adjoint of {name} other than of a rank-1 array without dim=")
        size = _call("size", named.get("vector") or array) if name == "pack" and "vector" in named else None
        if vrank == 0:
            length = size if size is not None else _call("size", array) if name == "eoshift" \
                else _call("count", named["mask"])
            val = _call("spread", val, Node("intCst", (1, None)), length)
        zero = Node("realCst", ("0.0", self.kind_of(array) or 8))
        if name == "eoshift":
            back = _negated(named["shift"])
            shifted = _call("eoshift", val, back, zero)
            out, adjs = [array], [(shifted, 1, nomask)]
            if "boundary" in named:
                out.append(named["boundary"])
                adjs.append((Node("sub", (_call("sum", val), _call("sum", shifted))), 0, nomask))
            return tuple(out), tuple(adjs)
        count = _call("count", named["mask"])
        out, adjs = [array], [(_call("unpack", val, named["mask"], zero), 1, nomask)]
        if "vector" in named:
            rest = _call("eoshift", _call("eoshift", val, count, zero), _negated(count), zero)
            out.append(named["vector"])
            adjs.append((rest, 1, nomask))
        return tuple(out), tuple(adjs)

    def _matmul_operands(self, a: Node, b: Node, val: Node, stmt: Node) -> tuple:
        """C = AB: Ab = Cb Bᵀ and Bb = Aᵀ Cb; a vector operand's side is an outer product."""
        mask = Node("boolCst", (True,))
        ra, rb = self.known_rank(a, stmt), self.known_rank(b, stmt)
        if ra == 2 and rb == 2:
            return (a, b), ((_call("matmul", val, _call("transpose", b)), 2, mask),
                            (_call("matmul", _call("transpose", a), val), 2, mask))
        if ra == 2:   # A v: Ab(i,j) = Cb(i) v(j), vb = Cb A
            outer = Node("mul", (_call("spread", val, Node("intCst", (2, None)), _call("size", b)),
                                 _call("spread", b, Node("intCst", (1, None)), _call("size", val))))
            return (a, b), ((outer, 2, mask), (_call("matmul", val, a), 1, mask))
        # v B: vb = B Cb, Bb(i,j) = v(i) Cb(j)
        outer = Node("mul", (_call("spread", a, Node("intCst", (2, None)), _call("size", val)),
                             _call("spread", val, Node("intCst", (1, None)), _call("size", a))))
        return (a, b), ((_call("matmul", b, val), 1, mask), (outer, 2, mask))
