"""One wording for a failed run: QTScript failures name the user's line, from the stored map."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

from tests.support.strategies import source

from backtestd.domain.strategies import StrategyRecord
from backtestd.strategy.failures import describe_run_failure, encode_line_map
from backtestd.strategy.jvm import RunFailure, RunFailureKind
from backtestd.strategy.jvm.results import StackFrame
from backtestd.strategy.qtscript import compile_qtscript


def _record(language: str, text: str, line_map: str | None) -> StrategyRecord:
    return StrategyRecord(
        strategy_id="s1",
        user_id="u1",
        language=language,
        content_digest="d",
        generation=0,
        source=text,
        main_class="Main",
        class_files={},
        declared_properties=(),
        required_sources=("Ticker",),
        compiled_at=datetime(2026, 1, 1, tzinfo=UTC),
        line_map=line_map,
    )


def _failure_at(java_line: int) -> RunFailure:
    frame = StackFrame(class_name="IndexOutOfBounds", method="update", file=None, line=java_line)
    return RunFailure(
        RunFailureKind.USER_EXCEPTION,
        "the strategy run threw java.lang.ArrayIndexOutOfBoundsException",
        frames=(frame,),
    )


def test_a_qtscript_failure_names_the_users_line_from_the_stored_map() -> None:
    text = source("runtime_error.qts")
    generated = compile_qtscript(text)
    java_line = next(
        n for n, line in enumerate(generated.java_source.splitlines(), 1) if "slots[5]" in line
    )
    record = _record("qtscript", text, encode_line_map(generated))

    message = describe_run_failure(record, _failure_at(java_line))

    assert message.startswith("QTS line 5: the strategy run threw")
    # rows registered before the map was stored regenerate it from their source
    assert describe_run_failure(replace(record, line_map=None), _failure_at(java_line)) == message


def test_frames_outside_the_users_text_and_java_failures_keep_the_hosts_message() -> None:
    text = source("runtime_error.qts")
    record = _record("qtscript", text, encode_line_map(compile_qtscript(text)))
    failure = _failure_at(1)  # the package/import lines map to no QTScript line

    assert describe_run_failure(record, failure) == failure.message
    java = _record("java", "class X {}", None)
    assert describe_run_failure(java, _failure_at(5)) == failure.message
