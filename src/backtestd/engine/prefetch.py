"""A cache prefetch hint for the compiled kernels: ``prefetch(array, i)`` in ``numba.njit`` code.

Why: a trial's equity pass reads the marks of each open position, a few dozen marks at a time
with a closed stretch between them, in arrays of about 8 MB each over a month of 1 s bars. The
hardware does not see one stream there, so each stretch began with loads from memory, and the
pass waited on them: with the whole range in the cache it cost two thirds as much. Asking for
the marks a little ahead of the loop, as LLVM's ``llvm.prefetch`` does, hides that wait
(docs/benchmarks.md, "The sweep kernel alone"). numba has no such call of its own.

A prefetch is only a hint: it changes no value, and an address past the array's end (the loop's
last marks ask for ones that do not exist) is not read and cannot fault.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

_READ = 0
_KEEP_IN_ALL_LEVELS = 3  # LLVM's locality: 0 (none) to 3 (keep it in every cache level)
_DATA = 1


@intrinsic
def _prefetch(typingctx: Any, array: Any, index: Any) -> Any:
    """Asks the CPU to bring ``array[index]`` into its caches (no bounds check, no read)."""

    def codegen(context: Any, builder: ir.IRBuilder, signature: Any, args: Any) -> Any:
        data = context.make_array(signature.args[0])(context, builder, args[0]).data
        address = builder.bitcast(builder.gep(data, [args[1]]), ir.IntType(8).as_pointer())
        i32 = ir.IntType(32)
        hint = ir.FunctionType(ir.VoidType(), [ir.IntType(8).as_pointer(), i32, i32, i32])
        call = cgutils.get_or_insert_function(builder.module, hint, "llvm.prefetch.p0i8")
        flags = (_READ, _KEEP_IN_ALL_LEVELS, _DATA)
        builder.call(call, [address, *(ir.Constant(i32, flag) for flag in flags)])
        return context.get_dummy_value()

    return types.void(array, index), codegen


prefetch = cast(Callable[[Any, int], None], _prefetch)
"""``_prefetch`` as its callers see it (numba passes the typing context itself)."""
