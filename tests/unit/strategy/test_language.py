"""Language detection: QTScript iff the first token after BOM, whitespace and comments is
``strategy`` (spec §1)."""

from __future__ import annotations

import pytest

from backtestd.strategy.language import Language, detect_language


@pytest.mark.parametrize(
    "source",
    [
        'strategy "RSI reversion"\n',
        "strategy Simple\nMain m1 { }\n",
        "   \n\t strategy X\n",
        "\ufeffstrategy X\n",
        "\ufeff  // a comment\nstrategy X\n",
        "// line comment\n// another\nstrategy X kline\n",
        "/* block\n   comment */ strategy X\n",
        "/* a */ /* b */\n// c\n\n  strategy X\n",
        "\r\n\r\nstrategy X\r\n",
        "strategy\n",
        "strategy",
        'strategy"Quoted"\n',
    ],
)
def test_detect_language_first_token_strategy_is_qtscript(source: str) -> None:
    assert detect_language(source) is Language.QTSCRIPT


@pytest.mark.parametrize(
    "source",
    [
        "package com.example;\n\npublic class S extends AbstractTickerStrategy {}\n",
        "import com.wualabs.qtsurfer.engine.strategy.*;\npublic class S {}\n",
        "public class S extends AbstractTickerStrategy {}\n",
        "// strategy in a comment does not count\npublic class S {}\n",
        "/* strategy X */\npackage p;\n",
        "/** The strategy\n * strategy X\n */\npublic class Strategy {}\n",
        '@SuppressWarnings("x")\npublic class S {}\n',
        "strategyFoo x\n",
        "strategy_x\n",
        "Strategy X\n",
        "",
        "   \n",
        "/* unterminated strategy",
    ],
)
def test_detect_language_anything_else_is_java(source: str) -> None:
    assert detect_language(source) is Language.JAVA


def test_language_values_are_wire_strings() -> None:
    assert Language.JAVA == "java"
    assert Language.QTSCRIPT == "qtscript"
