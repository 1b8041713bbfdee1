"""The oracle: `adspec check` for other tools' derivative code, and random-program campaigns.

    from adspec.oracle import check, CheckReport, init_args_template

check.py orchestrates; prototype.py reads derivative procedures' prototypes and header comments;
argsfile.py the arguments file; points.py shapes and random points; runs.py and compare.py the
driver's calls and the entry-by-entry comparison; reference.py adspec's own tangent and complex
step; contract.py the observed contract; report.py the report. harness.py compiles and runs
procedures through C drivers.
"""
from .argsfile import init_args_template
from .check import check
from .report import CheckReport

__all__ = ["check", "CheckReport", "init_args_template"]
