"""The Imperative Language (IL): one immutable tree language for Fortran and C (paper 5.1).

An IL tree is made of `Node`s. A node has an operator name `op`, a tuple of children
`kids` (Nodes, tuples of Nodes, or plain str/int/bool/None values) and annotations `ann`
(a persistent map: source line, statement label, `$AD` directives, ...). Annotations
never take part in equality: two trees are equal when their operators and children are.

`OPS` is the operator table: for each operator its children (name and kind) and the
languages that have it ("f" Fortran, "c" C, "u" CUDA C). An operator exists once when
both languages have the construct; `check()` validates a tree against the table.

Conventions shared by all front ends, back ends and the interpreter:
- Fortran identifiers are lower-cased; C identifiers keep their case.
- Optional children are Python `None`; lists are Python tuples.
- `realCst.text` is the literal without kind marker, exponent letter `e`
  (e.g. "1.5", "2.0e-3"); the precision is in `kind` (4 or 8 bytes, 16 for quad).
- `dim(lo, hi)`: lo None means the language default (1 in Fortran, 0 in C);
  hi None means assumed shape `:`; hi `star()` means assumed size `*`.
- A C `for` keeps its C meaning (`for` op). A Fortran DO is `do` (its trip count is fixed
  at entry). Fortran `CONTINUE` is `nop`; C `continue` and Fortran `CYCLE` are `cycle`;
  C `break` and Fortran `EXIT` are `exit`.
- C `x += e` is `assign(x, add(x, e))`; `i++` as a statement is `assign(i, add(i, 1))`.
- C `p->f` is `fieldAccess(deref(p), f)` (the C-style pointer access promoted to the
  shared operators); `a[i][j]` is `arrayAccess(arrayAccess(a, (i,)), (j,))`.
- C `p = (T*)malloc(n*sizeof(T))` is `allocate(p, (n,), T)`; `free(p)` is `deallocate(p)`.
  Fortran `allocate(a(n, 0:m))` is `allocate(a, (dim(None,n), dim(0,m)), None)`. An
  allocate annotated `zeroed` is C `(T*)calloc(n, sizeof(T))` (derivative work arrays).
- C `p + k`, for p a pointer or one-dimensional array variable of the function, is
  `address(arrayAccess(p, (k,)))` annotated `pointer_sum` (printed back as `p + k`).
- Comments are `comment` nodes where they stand (in declaration lists, blocks, file units).
  `$AD` directives are not comments: they are the `directives` annotation (a tuple of
  strings such as "NOCHECKPOINT") of the statement that follows them.
- A C declaration inside a body is a `varDecl` statement of its block. C parameters are
  declared in the procedure's `decls`, one single-declarator `varDecl` each, in order.
- C `switch` is `switch(sel, cases, True)`: one `case` per group of labels sharing a body
  (`case 1: case 2:` gives values (1, 2); `default:` gives values ()), the `break`s kept as
  `exit` in the bodies. Fortran SELECT CASE is `switch(sel, cases, False)`.
- C side effects inside expressions (`a[i++] = x`, `y = ++i`, `(c = f()) > 0`, `x = (a = 1, a)`)
  are hoisted into statements in C's order of evaluation (`a[i] = x; i = i + 1`); a `for`
  init or step of several expressions (`i = 0, j = n`) is a `block` of statements.
- C qualifiers are varDecl attrs: `const`/`volatile` on the base type as the words themselves;
  a qualifier of the k-th pointer level as k stars and the word (`double *restrict x` has
  attrs ("*restrict",), `double *const *p` has ("*const",)); all declarators of one varDecl
  share them (the front end splits a declaration whose declarators differ).
- A C enum tag names an int type: `enum color c` is `typeRef("color")` with `enumDef("color",
  ...)` in scope; `typedef enum {...} mode;` is `typedefEnum("mode", items)` and `mode m` is
  `typeRef("mode")`. Enumerators are integer named constants, never variables.
- A C union is a `typeDef` of style union (`union u {...}`) or typedefUnion (`typedef union
  {...} u;`); its fields share one storage.

CUDA C (a .cu file; frontends/cuda.py maps its syntax onto C's, so these are C trees):
- The `file` has ann lang="c" and dialect="cuda"; the C back end writes CUDA for it.
- `__global__`, `__device__`, `__host__` are words of the procedure's attrs, in source order
  (`__device__ __host__ double f(...)` has ("__device__", "__host__")); a kernel returns void.
  `__launch_bounds__(256, 2)` is one word of them, as written (spaces after commas).
  C linkage is the first word, `extern "C"`, whether the source wrote it before the function
  or around it (`extern "C" { ... }`); variables with C linkage are refused.
- `__shared__`, `__constant__` and `__device__` variables: the words in the varDecl attrs,
  after the storage class (`extern __shared__ double s[];` has ("extern", "__shared__") and a
  dim with hi None).
- `threadIdx.x`, `blockIdx.y`, `blockDim.x`, `gridDim.z` are `fieldAccess(ident("threadIdx"), "x")`
  etc.: C field accesses of the four builtin names.
- `dim3` is `typeRef("dim3")`; `dim3 g(4, 2);` and `dim3 g = dim3(4, 2);` both give the
  declarator init `call("dim3", (4, 2))` (the components not given are 1); `dim3 g;`, with no
  init, is (1, 1, 1).
- `k<<<grid, block[, shmem]>>>(args)` is `kernelLaunch("k", grid, block, shmem or None, args)`;
  grid and block are dim3 values or plain integers.
- `__syncthreads()`, the atomics (`atomicAdd`, `atomicSub`, `atomicMax`, `atomicCAS`, ...) and
  the host runtime (`cudaMalloc`, `cudaMemcpy` with its kind an `ident` such as
  cudaMemcpyHostToDevice, `cudaMemcpyToSymbol`, `cudaFree`, `cudaDeviceSynchronize`, ...) are
  `call`s by name, statements or expressions (the names: engine/intrinsics.py CUDA_CALLS).
- CUDA's math functions (math.h's, plus rsqrt, fma, __expf, __sinf, ...: CUDA_MATH) are
  `intrinsic`s, as math.h's are in C; another `__name` call is refused as an unknown intrinsic.
- `__restrict__` is C's `restrict` (written back as `__restrict__`); `bool`, `true` and `false`
  are C's `_Bool` type and `boolCst`s, with or without stdbool.h (written back as C++'s words).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

from pyrsistent import pmap, PMap

__all__ = ["Node", "mk", "OPS", "OpSpec", "check", "ILError", "walk", "called_names", "has_op", "EMPTY_ANN",
           "STATEMENT_OPS", "EXPRESSION_OPS", "DECLARATION_OPS"]

EMPTY_ANN: PMap = pmap()


class ILError(Exception):
    """An IL tree that does not follow the operator table."""


class _NodeSlots:
    """The storage of Node (and of _NodeBeingBuilt, the same layout without Node's guard)."""

    __slots__ = ("op", "kids", "ann", "_hash", "_ground")
    # _hash and _ground: caches (the hash; whether the tree holds no logic variable, see
    # engine.kanren_il.is_ground), None until first asked. A node built of plain values and
    # nodes known ground is ground: known at once (the rule runner grounds most nodes the
    # rules build, and a walk of them later costs more than this loop now)


class _NodeBeingBuilt(_NodeSlots):
    # a new node is one of these while its slots are filled: plain attribute stores, three
    # times as fast as the slots' own setters past Node.__setattr__ (then it becomes a Node)
    __slots__ = ()


class Node(_NodeSlots):
    """An immutable IL node. Equality and hash ignore annotations."""

    __slots__ = ()

    def __new__(cls, op: str, kids: tuple = (), ann: PMap = EMPTY_ANN):
        # built here, not in an __init__: one Python frame, the object made a _NodeBeingBuilt
        # (no Node.__setattr__ on the way) then turned into a Node (a metaclass's __call__
        # would do the same but slows every isinstance(x, Node) of a non-node)
        if type(kids) is not tuple:
            kids = tuple(kids)
        node = _new_object(_NodeBeingBuilt)
        node.op = op
        node.kids = kids
        node.ann = ann
        node._hash = None
        node._ground = None     # not known here: engine.kanren_il decides when asked
        if type(op) is str and type(ann) is PMap:    # else a pattern's variables, maybe
            for kid in kids:
                kind = type(kid)
                if kind is Node:
                    if kid._ground is not True:
                        break
                elif kind is tuple:
                    if not _known_ground(kid):
                        break
                elif kind not in _PLAIN_VALUES:
                    break
            else:
                node._ground = True
        node.__class__ = cls
        return node

    def __setattr__(self, name, value):
        raise AttributeError("IL nodes are immutable")

    def __eq__(self, other):
        if self is other:
            return True
        if not isinstance(other, Node):
            return NotImplemented
        return self.op == other.op and self.kids == other.kids

    def __hash__(self):
        h = self._hash
        if h is None:
            h = hash((self.op, self.kids))
            _set_hash(self, h)     # the slot's own setter, past __setattr__: twice as fast as object.__setattr__
        return h

    def __getitem__(self, i):
        return self.kids[i]

    def __len__(self):
        return len(self.kids)

    def __getattr__(self, name):
        # Named access to children: node.lhs, node.body, ... per the operator table.
        spec = OPS.get(object.__getattribute__(self, "op"))
        if spec is not None:
            idx = spec.index_of(name)
            if idx is not None:
                kids = object.__getattribute__(self, "kids")
                if spec.variadic and idx == len(spec.kids) - 1:
                    return kids[idx:]
                return kids[idx]
        raise AttributeError(f"IL node {self.op!r} has no child {name!r}")

    @property
    def line(self) -> int | None:
        return self.ann.get("line")

    def with_kids(self, *kids) -> "Node":
        return Node(self.op, kids, self.ann)

    def replace(self, **named) -> "Node":
        """A copy with some children replaced by name."""
        spec = OPS[self.op]
        kids = list(self.kids)
        for name, value in named.items():
            idx = spec.index_of(name)
            if idx is None:
                raise ILError(f"{self.op} has no child {name}")
            kids[idx] = value
        return Node(self.op, kids, self.ann)

    def with_ann(self, **ann) -> "Node":
        return Node(self.op, self.kids, self.ann.update(ann))

    def without_ann(self) -> "Node":
        """The same tree with every annotation dropped (for display and debugging)."""
        return Node(self.op, tuple(_strip(k) for k in self.kids))

    def __repr__(self):
        return sexpr(self)


_set_op, _set_kids, _set_ann, _set_hash, _set_ground = (getattr(_NodeSlots, slot).__set__ for slot in _NodeSlots.__slots__)
_new_object = object.__new__
_PLAIN_VALUES = frozenset((str, int, float, bool, type(None)))


def _known_ground(kids: tuple) -> bool:
    """A tuple child of plain values and nodes known ground (the arguments of a call)."""
    for kid in kids:
        kind = type(kid)
        if kind is Node:
            if kid._ground is not True:
                return False
        elif kind not in _PLAIN_VALUES:
            return False
    return True


def _strip(k):
    if isinstance(k, Node):
        return k.without_ann()
    if isinstance(k, tuple):
        return tuple(_strip(x) for x in k)
    return k


def mk(op: str, *kids, **ann) -> Node:
    """Build a node: mk("assign", lhs, rhs, line=3). None-valued annotations are dropped."""
    if op not in OPS:
        raise ILError(f"unknown IL operator {op!r}")
    if not ann:                 # most nodes built by the rules and the derivative table
        return Node(op, kids, EMPTY_ANN)
    ann = {k: v for k, v in ann.items() if v is not None and v != ()}
    return Node(op, kids, pmap(ann) if ann else EMPTY_ANN)


def sexpr(k) -> str:
    if isinstance(k, Node):
        if not k.kids:
            return f"({k.op})"
        return "(" + k.op + " " + " ".join(sexpr(x) for x in k.kids) + ")"
    if isinstance(k, tuple):
        return "[" + " ".join(sexpr(x) for x in k) + "]"
    return repr(k)


_LEAVES = frozenset(("ident", "intCst", "realCst"))   # nodes whose children are plain values


def walk(k) -> Iterator[Node]:
    """Pre-order traversal of every node under k (a Node or a tuple)."""
    stack = [k]
    pop, push = stack.pop, stack.extend
    while stack:
        x = pop()
        kind = type(x)
        if kind is Node:
            yield x
            if x.op not in _LEAVES:   # names and numbers: plain values below
                push(x.kids[::-1])
        elif kind is tuple:
            push(x[::-1])
        elif kind in _PLAIN_VALUES:   # names, numbers, None
            continue
        elif isinstance(x, Node):
            yield x
            push(x.kids[::-1])
        elif isinstance(x, tuple):
            push(x[::-1])


def has_op(k, ops) -> bool:
    """Whether a node under k (a Node or a tuple, k included) has its operator in ops:
    `any(n.op in ops for n in walk(k))` without walk's order or generator, for the searches
    the adjoint asks of every statement and operand. The stack holds children tuples, looked
    at in place: names, numbers and leaves are never pushed."""
    if type(k) is Node:
        if k.op in ops:
            return True
        if k.op in _LEAVES:
            return False
        k = k.kids
    elif type(k) is not tuple:   # a name, a number, None
        return False
    stack = [k]
    pop, push = stack.pop, stack.append
    while stack:
        for x in pop():
            kind = type(x)
            if kind is Node:
                op = x.op
                if op in ops:
                    return True
                if op not in _LEAVES:
                    push(x.kids)
            elif kind is tuple:
                push(x)
    return False


def called_names(k) -> set:
    """The names of the procedures and functions called under k (a Node or a tuple): its
    `call` nodes, statements and expressions alike. walk's visit, without its order or its
    generator: the post-passes over whole generated procedures ask only this."""
    names = set()
    stack = [k]
    pop, push = stack.pop, stack.extend
    while stack:
        x = pop()
        kind = type(x)
        if kind is Node:
            op = x.op
            if op == "call":
                names.add(x.kids[0])
            elif op in _LEAVES:
                continue
            push(x.kids)
        elif kind is tuple:
            push(x)
    return names


def jump_targets(stmt: Node) -> tuple:
    """The labels a jump statement names (GOTO, computed GOTO, arithmetic IF); () for any
    other statement."""
    if stmt.op == "goto":
        return (stmt.kids[0],)
    if stmt.op == "computedGoto":
        return tuple(stmt.kids[0])
    if stmt.op == "arithmeticIf":
        return tuple(stmt.kids[1:])
    return ()


def substituted(node, values: dict):
    """node with every ident named in `values` replaced by its value (a Node)."""
    if isinstance(node, tuple):
        return tuple(substituted(k, values) for k in node)
    if not isinstance(node, Node):
        return node
    if node.op == "ident" and node.kids[0] in values:
        return values[node.kids[0]]
    return Node(node.op, tuple(substituted(k, values) for k in node.kids), node.ann)


def walk_statements(k) -> Iterator[Node]:
    """walk(k) without going into expressions: the statements, declarations and types under
    k, in the same order (no statement sits inside an expression). For searches that look
    for statements only: the expressions are most of a program's nodes."""
    stack = [k]
    pop, push = stack.pop, stack.extend
    while stack:
        x = pop()
        kind = type(x)
        if kind is Node or (kind is not tuple and kind not in _PLAIN_VALUES and isinstance(x, Node)):
            if x.op not in EXPRESSION_OPS:
                yield x
                push(x.kids[::-1])
        elif kind is tuple or (kind not in _PLAIN_VALUES and isinstance(x, tuple)):
            push(x[::-1])


# ---------------------------------------------------------------------------
# The operator table
# ---------------------------------------------------------------------------
# Child kinds:
#   expr  an expression node          stmt  a statement node       block  a `block` node
#   type  a type node                 decl  a declaration node     unit   a file unit
#   str / int / bool / num  a plain Python value
#   a trailing "?" means optional (None allowed); "*" after a kind means a tuple of them.
#   A last child written "name..." makes the operator variadic: the children themselves.


@dataclass(frozen=True)
class OpSpec:
    name: str
    kids: tuple  # of (child name, kind)
    langs: str
    category: str  # expr | stmt | decl | type | unit | aux
    doc: str

    @property
    def variadic(self) -> bool:
        return bool(self.kids) and self.kids[-1][1].endswith("...")

    def index_of(self, name):
        for i, (n, _) in enumerate(self.kids):
            if n == name:
                return i
        return None


OPS: dict[str, OpSpec] = {}


def _op(category, name, kids, langs, doc):
    parsed = tuple(tuple(k.split(":")) for k in kids.split()) if kids else ()
    OPS[name] = OpSpec(name, parsed, langs, category, doc)


# --- constants and references -------------------------------------------------------
_op("expr", "ident", "name:str", "fc", "a variable, parameter or constant name")
_op("expr", "intCst", "value:int kind:int?", "fc", "integer literal; kind in bytes when the source gives one (1_8, 1L)")
_op("expr", "realCst", "text:str kind:int", "fc", "real literal, exact source digits, kind 4/8/16")
_op("expr", "complexCst", "re:expr im:expr", "f", "Fortran complex literal (re, im)")
_op("expr", "boolCst", "value:bool", "fc", ".TRUE./.FALSE.; C true/false")
_op("expr", "stringCst", "value:str", "fc", "character string literal (the value, unescaped)")
_op("expr", "star", "", "f", "the `*` of an assumed-size dimension or a list-directed I/O unit")
_op("expr", "arrayAccess", "base:expr indices:expr*", "fc",
    "a(i,j) in Fortran (indices may be arrayTriplet); a[i] in C (one index per access)")
_op("expr", "arrayTriplet", "lo:expr? hi:expr? stride:expr?", "f", "array section lo:hi:stride")
_op("expr", "fieldAccess", "base:expr field:str", "fc", "x%f in Fortran, x.f in C; p->f is fieldAccess(deref(p), f)")
_op("expr", "address", "expr:expr", "c", "&x")
_op("expr", "deref", "expr:expr", "c", "*p")
_op("expr", "call", "name:str args:expr*", "fc", "call of a user procedure or function (also a statement)")
_op("expr", "intrinsic", "name:str args:expr*", "fc", "call of a language intrinsic or C library function (also a statement)")
_op("expr", "namedArg", "name:str value:expr", "f", "keyword actual argument name=value")
_op("expr", "cast", "type:type expr:expr", "c", "(T) e")
_op("expr", "sizeof", "arg:any", "c", "sizeof(T) or sizeof e (arg is a type or an expression node)")
_op("expr", "ifExpr", "cond:expr then:expr else:expr", "c", "c ? a : b")
_op("expr", "arrayConstructor", "items:expr*", "fc", "(/ a, b /) in Fortran; {a, b} initializer in C")
_op("expr", "impliedDo", "items:expr* var:expr lo:expr hi:expr step:expr?", "f",
    "(items, var = lo, hi, step) inside an array constructor, an I/O list or a DATA statement")
_op("expr", "dataRepeat", "count:expr value:expr", "f", "r*value in a DATA value list")
_op("expr", "caseRange", "lo:expr? hi:expr?", "f", "lo:hi in a CASE selector (either end may be open)")

# --- operators -----------------------------------------------------------------------
for _name, _langs, _doc in [
        ("add", "fc", "a + b"), ("sub", "fc", "a - b"), ("mul", "fc", "a * b"),
        ("div", "fc", "a / b (integer division truncates toward zero in both languages)"),
        ("mod", "c", "a % b"), ("power", "f", "a ** b"),
        ("eq", "fc", "=="), ("ne", "fc", "/= or !="), ("lt", "fc", "<"), ("le", "fc", "<="),
        ("gt", "fc", ">"), ("ge", "fc", ">="), ("and", "fc", ".AND. / &&"), ("or", "fc", ".OR. / ||"),
        ("eqv", "f", ".EQV."), ("neqv", "f", ".NEQV."), ("concat", "f", "//"),
        ("bitAnd", "c", "&"), ("bitOr", "c", "|"), ("bitXor", "c", "^"),
        ("lShift", "c", "<<"), ("rShift", "c", ">>")]:
    _op("expr", _name, "left:expr right:expr", _langs, _doc)
for _name, _langs, _doc in [("neg", "fc", "-a"), ("pos", "fc", "+a"), ("not", "fc", ".NOT. a / !a"),
                            ("bitNot", "c", "~a")]:
    _op("expr", _name, "expr:expr", _langs, _doc)

# --- statements ------------------------------------------------------------------------
_op("stmt", "block", "stmts:stmt...", "fc", "a sequence of statements (declarations allowed in C)")
_op("stmt", "assign", "lhs:expr rhs:expr", "fc", "lhs = rhs")
_op("stmt", "pointerAssign", "lhs:expr rhs:expr", "f", "p => target")
_op("stmt", "if", "cond:expr then:block else:block?", "fc", "if/else; else-if is an if alone in the else block")
_op("stmt", "do", "var:expr lo:expr hi:expr step:expr? body:block", "f",
    "Fortran DO var = lo, hi, step (trip count fixed at entry)")
_op("stmt", "for", "init:stmt? cond:expr? step:stmt? body:block", "c", "C for (init; cond; step)")
_op("stmt", "while", "cond:expr body:block", "fc", "DO WHILE / while; Fortran DO without control is while(.true.)")
_op("stmt", "doWhile", "body:block cond:expr", "c", "do { } while (cond)")
_op("stmt", "switch", "selector:expr cases:stmt* fallThrough:bool", "fc",
    "C switch (fallThrough True: a case runs on into the next one, `exit` leaves the switch) or "
    "Fortran SELECT CASE (fallThrough False: one case runs; EXIT belongs to the enclosing loop)")
_op("stmt", "case", "values:expr* body:block", "fc",
    "one case of a switch; values () is the default; a Fortran value may be a caseRange")
_op("stmt", "where", "mask:expr then:block else:block?", "f",
    "WHERE (mask) ... ELSEWHERE ...: masked array assignments; ELSEWHERE (m2) is a where alone in else")
_op("stmt", "forall", "ranges:expr* mask:expr? body:block", "f",
    "FORALL (i = lo:hi:step, ..., mask) body; each range is an impliedDo with no items")
_op("stmt", "goto", "label:str", "fc", "GOTO label (the target statement carries ann label)")
_op("stmt", "computedGoto", "labels:str* index:expr", "f",
    "GO TO (l1, ..., ln), I: to the I-th label; an I outside 1..n goes on to the next statement")
_op("stmt", "arithmeticIf", "expr:expr negative:str zero:str positive:str", "f",
    "IF (e) l1, l2, l3: to l1, l2 or l3 as e (integer or real) is negative, zero or positive")
_op("stmt", "return", "value:expr?", "fc", "return [value]")
_op("stmt", "exit", "", "fc", "EXIT / break")
_op("stmt", "cycle", "", "fc", "CYCLE / continue")
_op("stmt", "stop", "code:expr?", "f", "STOP [code]")
_op("stmt", "nop", "", "fc", "Fortran CONTINUE, C empty statement")
_op("stmt", "allocate", "target:expr dims:any* type:type?", "fc",
    "Fortran ALLOCATE(a(dims)); C target = malloc(count*sizeof(type)) with dims = (count,)")
_op("stmt", "deallocate", "target:expr", "fc", "DEALLOCATE(a) / free(p)")
_op("stmt", "io", "kind:str control:str items:expr*", "f",
    "Fortran PRINT/WRITE/READ/OPEN/CLOSE/REWIND/INQUIRE/BACKSPACE/ENDFILE/FORMAT; control is the "
    "source text between the parentheses (or the PRINT/READ format); passive for AD")
_op("stmt", "kernelLaunch", "name:str grid:expr block:expr shared:expr? args:expr*", "u",
    "CUDA name<<<grid, block, shared>>>(args)")
_op("stmt", "comment", "text:str", "fc", "a comment line (text without the comment marker)")

# --- types -----------------------------------------------------------------------------
_op("type", "type", "base:str kind:int? len:expr?", "fc",
    "elementary type: base in integer real complex logical character void; kind in bytes "
    "(complex: bytes of one component); len for Fortran character")
_op("type", "typeRef", "name:str", "fc", "a derived type / struct / typedef name")
_op("type", "pointerType", "target:type", "c", "T* (in casts and sizeof; declarators count their own stars)")
_op("type", "arrayType", "element:type sizes:expr*", "c",
    "C T[n]...: a declarator of it with stars points to whole rows, `double (*pd)[n]` (vector derivatives)")

# --- declarations ---------------------------------------------------------------------
_op("decl", "varDecl", "type:type attrs:str* declarators:decl*", "fc",
    "one declaration statement: type, attributes, declarators in source order")
_op("aux", "declarator", "name:str dims:decl*? init:expr? ptr:int", "fc",
    "one declared name; dims a tuple of dim (None: not an array); ptr = number of C '*'")
_op("aux", "dim", "lo:expr? hi:expr?", "fc", "one array dimension lo:hi")
_op("decl", "typeDef", "name:str fields:decl* style:str", "fc",
    "derived type / struct / union definition; style fortran | struct | typedef (C typedef struct {...} name) "
    "| union | typedefUnion")
_op("decl", "typeAlias", "name:str type:type", "c", "C typedef T name")
_op("decl", "common", "name:str vars:expr*", "f", "COMMON /name/ vars (ident, or arrayAccess giving dims)")
_op("decl", "equivalence", "groups:any", "f", "EQUIVALENCE groups: tuple of tuples of expressions")
_op("decl", "use", "module:str only:str*? renames:decl...", "f",
    "USE module [, ONLY: names]; renames local => remote (a renamed ONLY name is listed by its local name)")
_op("aux", "rename", "local:str remote:str", "f", "local => remote in a USE statement")
_op("decl", "data", "objects:expr* values:expr*", "f", "DATA objects / values / (one set per node)")
_op("decl", "interface", "name:str? names:str* procs:unit*", "f",
    "INTERFACE [generic name]: MODULE PROCEDURE names and interface bodies (procedures with no body)")
_op("decl", "enumDef", "name:str? items:decl*", "c", "C enum [name] { items }")
_op("aux", "enumerator", "name:str value:expr?", "c", "one enum constant, with its value when the source gives one")
_op("decl", "typedefEnum", "name:str items:decl*", "c", "C typedef enum { items } name (an anonymous enum named by a typedef)")
_op("decl", "implicit", "text:str", "f", "IMPLICIT statement, text after the keyword (e.g. 'none')")
_op("decl", "attrDecl", "attr:str declarators:decl*", "f",
    "attribute statement on names typed elsewhere: EXTERNAL f, SAVE x, SAVE /c/ (name '/c/'), "
    "DIMENSION a(n) (declarator dims), PARAMETER (n = 10) (declarator init)")

# --- program units ----------------------------------------------------------------------
_op("unit", "procedure",
    "name:str kind:str params:str* result:str? type:type? attrs:str* decls:decl* body:block? contains:unit*",
    "fc", "subroutine | function | program; C functions are 'function' (type void for void); "
    "body None is a C prototype; attrs hold C/CUDA qualifiers (static __global__ __device__)")
_op("unit", "module", "name:str decls:decl* contains:unit*", "f", "Fortran module")
_op("unit", "file", "units:unit...", "fc",
    "a source file: procedures, modules, C globals/types, comments; ann lang and form")

STATEMENT_OPS = frozenset(n for n, s in OPS.items() if s.category == "stmt") | {"call", "intrinsic", "varDecl"}
EXPRESSION_OPS = frozenset(n for n, s in OPS.items() if s.category == "expr")
DECLARATION_OPS = frozenset(n for n, s in OPS.items() if s.category == "decl") | {"comment"}

_KIND_CATEGORIES = {
    "expr": {"expr"},
    "stmt": {"stmt"} | {"call", "intrinsic", "varDecl", "typeDef", "typeAlias", "enumDef", "typedefEnum"},
    "block": {"block"},
    "type": {"type"},
    "decl": {"decl", "aux", "comment"},
    "unit": {"unit", "decl", "comment"},
}


def _kind_ok(value, kind: str) -> bool:
    base = kind.rstrip("?.").rstrip("*")
    if kind.endswith("?") and value is None:
        return True
    if kind.rstrip("?").endswith("*"):
        return isinstance(value, tuple) and all(_kind_ok(v, base) for v in value)
    if base == "any":
        return True
    if base == "str":
        return isinstance(value, str)
    if base == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if base == "bool":
        return isinstance(value, bool)
    if not isinstance(value, Node) or value.op not in OPS:
        return False
    if base == "block":
        return value.op == "block"
    cat = OPS[value.op].category
    allowed = _KIND_CATEGORIES[base]
    return cat in allowed or value.op in allowed


def check(tree: Node) -> Node:
    """Raise ILError at the first node that does not match the operator table."""
    for node in walk(tree):
        spec = OPS.get(node.op)
        if spec is None:
            raise ILError(f"unknown IL operator {node.op!r}")
        if spec.variadic:
            fixed, (vname, vkind) = spec.kids[:-1], spec.kids[-1]
            if len(node.kids) < len(fixed):
                raise ILError(f"{node.op}: expected at least {len(fixed)} children, got {len(node.kids)}")
            for k in node.kids[len(fixed):]:
                if not _kind_ok(k, vkind[:-3]):
                    raise ILError(f"{node.op}: child {vname} has kind {_describe(k)}, expected {vkind[:-3]}")
        else:
            fixed = spec.kids
            if len(node.kids) != len(fixed):
                raise ILError(f"{node.op}: expected {len(fixed)} children, got {len(node.kids)}: {sexpr(node)[:200]}")
        for (cname, ckind), k in zip(fixed, node.kids):
            if not _kind_ok(k, ckind):
                raise ILError(f"{node.op}: child {cname} is {_describe(k)}, expected {ckind}")
    return tree


def _describe(k) -> str:
    if isinstance(k, Node):
        return f"node {k.op}"
    return type(k).__name__


def format_tree(tree, lines: bool = False, indent: str = "  ") -> str:
    """An indented, readable rendering of an IL tree (for `adspec parse`).

    A node whose s-expression fits on one line is printed on one line; otherwise its
    children go one per line below it. With lines=True, source lines show as `@N`.
    """
    out: list[str] = []

    def shown_ann(node: Node) -> list[str]:
        extra = []
        if lines and node.line is not None:
            extra.append(f"@{node.line}")
        if "label" in node.ann:
            extra.append(f"label={node.ann['label']}")
        if "directives" in node.ann:
            extra.append("$AD " + ",".join(node.ann["directives"]))
        return extra

    def fits_flat(k, pad: str) -> bool:
        return len(sexpr(k)) + len(pad) <= 100 and not any(shown_ann(x) for x in walk(k))

    def emit(k, depth: int):
        pad = indent * depth
        if not isinstance(k, (Node, tuple)):
            out.append(pad + repr(k))
        elif fits_flat(k, pad):
            out.append(pad + sexpr(k))
        elif isinstance(k, Node):
            extra = shown_ann(k)
            out.append(pad + "(" + k.op + (" {" + " ".join(extra) + "}" if extra else ""))
            for x in k.kids:
                emit(x, depth + 1)
            out[-1] += ")"
        else:
            out.append(pad + "[")
            for x in k:
                emit(x, depth + 1)
            out[-1] += "]"

    emit(tree, 0)
    return "\n".join(out)
