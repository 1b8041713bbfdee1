"""Back ends: IL -> source text in Fortran or C (CUDA later)."""
from __future__ import annotations


def unparse(tree, lang: str, form: str | None = None) -> str:
    """Source text of an IL `file` (or procedure) node in language `lang` ('fortran' or 'c')."""
    if lang == "fortran":
        from .fortran import unparse_fortran
        return unparse_fortran(tree, form=form or tree.ann.get("form", "free"))
    if lang in ("c", "cuda"):
        from .c import unparse_c
        return unparse_c(tree, cuda=(lang == "cuda"))
    raise ValueError(f"unknown target language {lang!r}")
