"""A strategy's name for people: the QTScript header's title or the Java class's simple name."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from backtestd.domain.strategies import StrategyRecord


def _record(language: str, source: str, main_class: str) -> StrategyRecord:
    return StrategyRecord(
        strategy_id="s1",
        user_id="u1",
        language=language,
        content_digest="d",
        generation=0,
        source=source,
        main_class=main_class,
        class_files={},
        declared_properties=(),
        required_sources=(),
        compiled_at=datetime(2026, 1, 1, tzinfo=UTC),
    )


@pytest.mark.parametrize(
    ("source", "name"),
    [
        ('// EMA crossover\nstrategy "EMA cross"\n\nparam fast = 9\n', "EMA cross"),
        ("strategy Breakout kline\n", "Breakout"),
        ('strategy "say \\"hi\\""\n', 'say "hi"'),
    ],
)
def test_a_qtscript_strategy_is_named_by_its_header(source: str, name: str) -> None:
    assert _record("qtscript", source, "EMAcross").name == name


def test_a_java_strategy_is_named_by_its_class_without_the_package() -> None:
    java = "package com.example;\npublic class EmaCross {}"
    record = _record("java", java, "com.example.EmaCross")
    assert record.name == "EmaCross"


def test_a_qtscript_source_without_a_readable_header_falls_back_to_the_class_name() -> None:
    assert _record("qtscript", "/* odd */ strategy", "QtsStrategy").name == "QtsStrategy"
