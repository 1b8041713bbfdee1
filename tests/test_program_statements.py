"""Program.statement: the table stamping finds on the way (engine/program.py `_stamped`) is
the one a walk of every procedure, then of every file, builds (`_index_statements`): the same
statement nodes, each with the innermost procedure holding it (None outside every body)."""
import glob
import os

import pytest

from adspec.engine.program import build_program
from adspec.frontends import parse_files

HERE = os.path.dirname(__file__)
PROGRAMS = sorted(glob.glob(os.path.join(HERE, "programs", "*.f90")) + glob.glob(os.path.join(HERE, "programs", "*.c")))


@pytest.mark.parametrize("path", PROGRAMS, ids=os.path.basename)
def test_statement_table_found_while_stamping_is_the_walked_one(path):
    program = build_program(parse_files([path]))
    sids = sorted(program._stamped_statements)
    assert sids == list(range(len(sids)))
    found = {sid: program.statement(sid) for sid in sids}
    program._statements = program._stamped_statements = None   # the walk of every procedure and file
    walked = {sid: program.statement(sid) for sid in sids}
    assert program._statements.keys() == set(sids)
    for sid in sids:
        assert found[sid][0] is walked[sid][0] and found[sid][1] is walked[sid][1], sid
