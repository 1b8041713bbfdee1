"""The IL interpreter: the reference operational semantics of the IL.

    it = Interpreter(file_node)        # language from file_node.ann["lang"]
    result = it.call("head", args)     # numpy arrays by reference (Fortran; C pointers), numbers by value (C)
    it.output                          # text printed so far

    Interpreter(file_node, complex_step=True)   # complex step: reals are complex128 (complex_step.py)
    it.launch("kernel", grid, block, args)      # a CUDA __global__ function on the CPU (cuda.py;
                                                # host code launches too)

One module per concern, each a set of plain functions of the interpreter `it`:
- values.py: run-time values (the storage model), control signals, errors;
- scope.py: what the declarations of a scope say, and frames (activations);
- memory.py: storage creation (arrays, records, unions, COMMON storage association), stores;
- frames.py: name resolution and binding (host association, USE, implicit typing, SAVE);
- places.py: references (Fortran subscripts and sections, C places) and assignment to them;
- calls.py: calls and argument association (Fortran by reference, C by value / by pointer);
- stack.py: the AD stack of adjoint code (pushReal8 / POPREAL8 ..., Tapenade's API);
- expressions.py, statements.py: one function per IL operator, in tables;
- intrinsic_calls.py: the intrinsic operator; intrinsics.py: what each intrinsic computes;
- constructs.py: WHERE, FORALL, implied DO, DATA;
- cuda.py, cuda_threads.py: CUDA kernels; complex_step.py: complex step;
- machine.py: the Interpreter object and the operator tables (docs/semantics.md).
"""
from .machine import Interpreter
from .values import CArr, FArr, InterpError, KernelError, ProgramStop, Ptr, Record

__all__ = ["Interpreter", "InterpError", "KernelError", "ProgramStop", "FArr", "CArr", "Ptr", "Record"]
