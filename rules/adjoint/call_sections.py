"""The adjoint context's saving of array sections (issue 16, the call rules of paper 5.4):
an array whose size the caller does not know (a C pointer, a Fortran assumed-size array) is
saved around a call as the sections the callee may write, or read and write, through it,
bounded by the callee's region summary (analyses/regions.py) translated to the actual
arguments; a block the procedure allocates itself, whole; never its first element only
(Tapenade's `pushReal8(*proj)`). A mixin of CallSupport: `self` is the context."""
from __future__ import annotations

from ...analyses.regions import Affine, Regions, affine, assigned_names
from ...engine.il import Node, walk
from .c_data import _moves, pointer_key

INTEGER = Node("type", ("integer", 4, None))


class SectionSupport:
    """Mixed into CallSupport."""

    def structure_saved(self, name: str, node: Node) -> tuple:
        """(push, pop) of the C struct *name, when the call reaches no other element of the
        array the pointer `name` may point into (its region is element 0)."""
        sections = self._sections(name, node)
        if sections == ():
            return Node("block", ()), Node("block", ())
        if sections != ((Affine.of(0), Affine.of(0)),):
            self.refuse(node, f"saving the structures {name} points to around a call (their number is not known here)")
        target = Node("deref", (Node("ident", (name,)),))
        return self.push(target), self.pop(target)

    def _sections(self, name: str, node: Node) -> tuple | None:
        """The (low, high) sections of the array `name` to save around the call node (or the
        procedure node, at the exit of P_fwd): those the callee may write, and read too when
        the sequel may change them before its rerun; None when not bounded."""
        if name in assigned_names(self.procedure.node.kids[7]):
            return None   # a pointer that walks: the sections would move with it
        if node.op == "call":
            written_only = name not in self.facts.modified_after_names(node)
            return self._regions().at_call(self.procedure, node, name, written_only)
        region = self._regions().of(self.procedure.name).get(name)
        return None if region is None else region.accessed()

    def sections_saved(self, name: str, node: Node, word: str, restored=frozenset()) -> tuple:
        """(forward, backward) statements pushing and popping, section by section, what of the
        array `name` the call node (or, for P_fwd / P_bwd, the procedure node) may change and
        its rerun read; refused when a section is not bounded. restored: the scalars saved
        with it, popped before it."""
        sections = self._sections(name, node)
        if sections is None:
            self.refuse(node, f"saving the array {name} around a call (its size is not known here)")
        return self._saved_sections(name, sections, word, restored)

    def heap_saved(self, zone: str, node: Node, restored=frozenset()) -> tuple:
        """(forward, backward) for the memory of the C allocation site `zone` (heap@LINE) of
        this procedure: the whole block, through the one pointer that receives it, whose
        length expression the procedure does not change (else refused)."""
        line = int(zone.split("@")[1]) if zone.startswith("heap@") and zone[5:].isdigit() else None
        body = self.procedure.node.kids[7]
        sites = [s for s in walk(body) if isinstance(s, Node) and s.op == "allocate" and s.line == line]
        target = sites[0].kids[0] if len(sites) == 1 and sites[0].kids[0].op == "ident" else None
        count = affine(sites[0].kids[1][0]) if target is not None and len(sites[0].kids[1]) == 1 else None
        name = target.kids[0] if target is not None else None
        assigned = assigned_names(body)
        if count is None or name in assigned or sum(s.kids[0] == target for s in walk(body) if isinstance(s, Node)
                                                    and s.op == "allocate") != 1 \
                or any(n.op == "ident" and n.kids[0] in assigned - restored for n in walk(count.node())):
            self.refuse(node, f"saving {zone} around a call (the memory allocated there, of a size not known here)")
        word = self._kind_word(target, sites[0].kids[2]) + "Array"
        return self._saved_sections(name, ((Affine.of(0), count.minus(Affine.of(1))),), word, restored)

    def component_of_block(self, zone: str) -> Node | None:
        """The pointer component of a local structure (`m.data`, not `rows[k].data`) through
        which the memory of the zone is reached: the zone `*m.data`, or an allocation site
        heap@LINE that only `m.data = malloc(..)` fills; None for any other zone."""
        if zone.startswith("*"):
            owner, _, field = zone[1:].partition(".")
            target = Node("fieldAccess", (Node("ident", (owner,)), field)) if field and "." not in field else None
        else:
            line = int(zone[5:]) if zone.startswith("heap@") and zone[5:].isdigit() else None
            sites = [s for s in walk(self.procedure.node.kids[7]) if isinstance(s, Node) and s.op == "allocate"
                     and s.line == line]
            target = sites[0].kids[0] if len(sites) == 1 else None
        if target is None or target.op != "fieldAccess" or target.kids[0].op != "ident":
            return None
        sym = self.symbol_of(target.kids[0])
        return target if sym is not None and sym.formal is None and not sym.dims and not sym.ptr else None

    def component_block_saved(self, component: Node, node: Node, restored=frozenset()) -> tuple:
        """(forward, backward) for the block the pointer component (`m.data`) points to at
        the call node: the block of the last allocation into it before the call's statement,
        at the top of the body, whole (its length expression reads no variable the procedure
        changes); refused where another allocation, an assignment or a call may have moved
        the pointer since."""
        body = self.procedure.node.kids[7].kids
        key = pointer_key(component)
        here = next((i for i, s in enumerate(body) if any(n is node for n in walk(s))), 0)
        sites = [(i, s) for i, top in enumerate(body) for s in walk(top)
                 if isinstance(s, Node) and s.op == "allocate" and pointer_key(s.kids[0]) == key]
        before = [(i, s) for i, s in sites if i < here]
        last = before[-1] if before else None
        count = affine(last[1].kids[1][0]) if last is not None and len(last[1].kids[1]) == 1 else None
        between = body[last[0] + 1:here + 1] if last is not None else ()
        moved = last is None or last[1] is not body[last[0]] or any(i == here for i, _ in sites) \
            or any(n.op in ("assign", "pointerAssign") and pointer_key(n.kids[0]) == key
                   for n in walk(self.procedure.node.kids[7])) \
            or any(n.op == "call" and _moves(self, n, component) for s in between for n in walk(s))
        assigned = assigned_names(self.procedure.node.kids[7])
        if moved or count is None or any(n.op == "ident" and n.kids[0] in assigned - restored
                                         for n in walk(count.node())):
            self.refuse(node, f"saving the memory {self._show(component)} points to around a call (its size is "
                              f"not known here)")
        word = self._kind_word(component, last[1].kids[2]) + "Array"
        return self._saved_sections(component, ((Affine.of(0), count.minus(Affine.of(1))),), word, restored)

    def _saved_sections(self, name: str | Node, sections: tuple, word: str, restored) -> tuple:
        proc = self.procedure
        assigned = assigned_names(proc.node.kids[7])
        forward, backward = [], []
        for low, high in sections:
            count = high.minus(low).plus(Affine.of(1))
            if not count.terms and count.const <= 0:
                continue
            offset, count = low.node(), count.node()
            forward_ints = backward_ints = ()
            pushed = popped = (self._section(name, offset, count), count)
            if any(n.op == "ident" and n.kids[0] in assigned - restored for n in walk(Node("block", (offset, count)))):
                # the bounds read variables the procedure changes: the backward sweep pops them first
                temps = self.fresh("ad_offset", INTEGER), self.fresh("ad_count", INTEGER)
                forward_ints = tuple(Node("call", (self._stack_name("push", "Integer4"), (v,))) for v in (offset, count))
                backward_ints = tuple(Node("call", (self._stack_name("pop", "Integer4"), (Node("address", (v,)),)))
                                      for v in reversed(temps))
                popped = (self._section(name, temps[0], temps[1]), temps[1])
            push, pop = (self._guarded(Node("call", (self._stack_name(verb, word), args)))
                         for verb, args in (("push", pushed), ("pop", popped)))
            forward.append(Node("block", (push,) + forward_ints))
            backward.append(Node("block", backward_ints + (pop,)))
        return tuple(forward), tuple(backward)

    @staticmethod
    def _guarded(call: Node) -> Node:
        """The push or pop of a section whose length is not a constant, under `if (length > 0)`."""
        count = call.kids[1][1]
        if count.op == "intCst":
            return call
        return Node("if", (Node("gt", (count, Node("intCst", (0, None)))), Node("block", (call,)), None))

    def _section(self, name: str | Node, offset: Node, count: Node) -> Node:
        """The section's first argument to push/pop: C NAME + OFFSET (NAME for a zero offset),
        Fortran NAME(OFFSET:OFFSET+COUNT-1) (offsets are indices there)."""
        ref = Node("ident", (name,)) if isinstance(name, str) else name
        if not self.c:
            last = Affine.of(-1).plus(affine(offset)).plus(affine(count)).node()
            return Node("arrayAccess", (ref, (Node("arrayTriplet", (offset, last, None)),)))
        return ref if offset == Node("intCst", (0, None)) else Node("add", (ref, offset))

    def _regions(self) -> Regions:
        found = getattr(self, "_region_summaries", None)
        if found is None or found.program is not self.program:
            found = self._region_summaries = Regions(self.program)
        return found

