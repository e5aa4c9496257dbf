"""What a user reads when their strategy's run fails: one wording for validation, execute and
sweep trials.

The engine host reports failures against the compiled classes. For a QTScript strategy those
are generated Java, so each stack frame's line is mapped back through the line map stored at
registration (``StrategyRecord.line_map``: the QTScript line of every generated Java line) and
the message says ``QTS line N``. Strategies registered before the map was stored get it by
regenerating the Java from their source, which is deterministic.
"""

from __future__ import annotations

import json

from backtestd.domain.strategies import StrategyRecord
from backtestd.strategy.jvm import RunFailure
from backtestd.strategy.language import Language
from backtestd.strategy.qtscript import GeneratedJava, QtsCompileError, compile_qtscript


def encode_line_map(generated: GeneratedJava) -> str:
    """The JSON stored with a QTScript strategy (see :func:`describe_run_failure`)."""
    return json.dumps(generated.line_map.runtime_lines(), separators=(",", ":"))


def describe_run_failure(record: StrategyRecord, failure: RunFailure) -> str:
    """The failure's message, naming the user's own QTScript line when there is one.

    Java messages already name the user's class, method, file and line (the host adds them).
    """
    if record.language != Language.QTSCRIPT.value or not failure.frames:
        return failure.message
    lines = _runtime_lines(record)
    for frame in failure.frames:
        if frame.line is not None and 1 <= frame.line <= len(lines):
            qts_line = lines[frame.line - 1]
            if qts_line is not None:
                return f"QTS line {qts_line}: {failure.message}"
    return failure.message


def _runtime_lines(record: StrategyRecord) -> list[int | None]:
    if record.line_map:
        stored = json.loads(record.line_map)
        return [line if isinstance(line, int) else None for line in stored]
    try:
        generated = compile_qtscript(record.source)
    except QtsCompileError:
        return []
    return generated.line_map.runtime_lines()
