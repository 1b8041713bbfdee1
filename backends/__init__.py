"""Back ends: IL -> source text in Fortran or C (CUDA later)."""
from __future__ import annotations


def unparse(tree, lang: str, form: str | None = None) -> str:
    """Source text of an IL `file` (or procedure) node in language `lang` ('fortran' or 'c')."""
    if lang == "fortran":
        from .fortran import unparse_fortran
        return unparse_fortran(tree, form=form or tree.ann.get("form", "free"))
    if lang in ("c", "cuda"):
        from .c import unparse_c
        return unparse_c(tree, cuda=(lang == "cuda" or tree.ann.get("dialect") == "cuda"))
    raise ValueError(f"unknown target language {lang!r}")


def source_text(node, lang: str) -> str:
    """A statement or an expression as one line of source text (for messages and explain)."""
    from ..engine.il import OPS
    if lang == "fortran":
        from .fortran import FortranExpr, FortranWriter
        printer, writer = FortranExpr("<il>"), FortranWriter("free", "<il>")
    else:
        from .c import CExpr, CWriter
        printer, writer = CExpr("<il>", {}), CWriter("<il>", {}, lang == "cuda")
    spec = OPS.get(node.op)
    if spec is not None and spec.category == "expr" and node.op not in ("call", "intrinsic"):
        return printer.expr(node)
    writer.emit(node)
    return "; ".join(line.strip() for line in writer.lines.out if line.strip())
