"""adspec: automatic differentiation by source transformation, following the Tapenade AD model.

Public Python API:
    adspec.parse(path_or_text, ...)  -> IL `file` node
    adspec.unparse(tree, tgtlang)     -> source text
    adspec.differentiate(sources, head=..., mode="tangent")
                                      -> text, messages and derivation record (adspec.pipeline)
"""
from __future__ import annotations

import os

from .engine.errors import SourceError, UnsupportedError
from .engine.il import Node, mk

__all__ = ["parse", "unparse", "differentiate", "Node", "mk", "SourceError", "UnsupportedError"]
__version__ = "0.1.0"


def parse(source: str, lang: str | None = None, form: str | None = None, filename: str | None = None) -> Node:
    """Parse a source file (a path) or source text (when `lang` is given) into IL."""
    from .frontends import parse_file, parse_source
    if lang is None and filename is None and os.path.exists(source):
        return parse_file(source)
    if lang is None and filename is None:
        raise SourceError("no such file (pass lang= to parse source text)", source)
    return parse_source(source, filename or "<string>", lang, form)


def unparse(tree: Node, tgtlang: str | None = None, form: str | None = None) -> str:
    """Source text of an IL tree, in the tree's own language unless `tgtlang` is given."""
    from .backends import unparse as _unparse
    lang = tree.ann.get("lang")
    if tree.ann.get("dialect") == "cuda":
        lang = "cuda"  # CUDA source is written back as CUDA
    tgt = tgtlang or lang
    if lang and tgt != lang and not (lang == "c" and tgt == "cuda"):
        raise SourceError(f"translating {lang} source to {tgt} is not supported", tree.ann.get("filename", "<il>"))
    return _unparse(tree, tgt, form)


def differentiate(sources, head, mode: str = "tangent", **options):
    """Differentiate source files (paths; or source text with lang=...) for the heads
    ("f(y)/(x)"). Returns adspec.pipeline.Differentiated: .text, .messages, .derivations."""
    from .pipeline import differentiate as _differentiate
    return _differentiate(sources, head, mode, **options)
