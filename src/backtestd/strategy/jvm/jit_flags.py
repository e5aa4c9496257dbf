"""The JIT settings every engine host starts with: the window call chain always inlined.

Why: a row of a sweep whose window closes on every bar is the engine's bookkeeping and one call
of the user's listener (``LazyRows.run`` -> ``LazyRows.fire`` -> ``WindowSet.fire`` ->
``AbstractWindowListener.dispatchWindowClose`` -> the strategy's ``onChange``). When C2 compiles
the row loop with that chain inlined, a row costs about 10 ns; when one link is left out of line,
every row pays a call with all of the loop's live values spilled around it (HotSpot saves no
register across a Java call). Which way it went depended on the order in which C2 happened to
compile the links: a link that had already been compiled on its own into more than
``InlineSmallCode`` bytes (2,500 by default) was never inlined again. Compile logs of two
sweep hosts on the same grid showed one of them with ``dispatchWindowClose`` out of line ("already
compiled into a big method") and the other with the strategy's ``onChange`` out of line, whose
own compiled body was 6.9 KB (docs/engine-host.md, "The window call inlined").

So the engine's own links are inlined by ``CompileCommand`` (whatever their compiled size), and
``InlineSmallCode`` lets C2 inline a user's listener compiled into up to 8,000 bytes. The user's
code is not forced: a larger listener is called, as before, and C2's other bounds on inlining
(``DesiredMethodLimit``, node counts) still hold. A name here that no longer exists in the engine
is silently ignored by the JVM, so ``tests/unit/strategy/test_jit_flags.py`` checks each one
against the built jar.
"""

from __future__ import annotations

_GROUP = "com.wualabs.qtsurfer.engine.indicators.helpers.group"
_STRATEGY = "com.wualabs.qtsurfer.engine.strategy"

INLINED_METHODS: tuple[tuple[str, str], ...] = (
    (f"{_GROUP}.LazyRows", "fire"),
    (f"{_GROUP}.LazyRows", "keep"),
    (f"{_GROUP}.LazyRows", "row"),
    (f"{_GROUP}.WindowSet", "fire"),
    (f"{_STRATEGY}.AbstractWindowListener", "dispatchWindowClose"),
)
"""The engine's links between a row loop and the user's listener, always inlined."""

INLINE_SMALL_CODE_BYTES = 8000
"""Largest compiled method C2 still inlines (the JVM's default is 2,500)."""

JIT_FLAGS: tuple[str, ...] = (
    "-XX:CompileCommand=quiet",
    *(f"-XX:CompileCommand=inline,{cls}::{method}" for cls, method in INLINED_METHODS),
    f"-XX:InlineSmallCode={INLINE_SMALL_CODE_BYTES}",
)
"""The JVM options of :data:`INLINED_METHODS` and :data:`INLINE_SMALL_CODE_BYTES`."""
