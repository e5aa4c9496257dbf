"""normalize_qtscript_for_id removes exactly a BOM, line-ending style, trailing whitespace and
leading/trailing blank lines (spec §18); everything else changes the text."""

from __future__ import annotations

import pytest

from backtestd.strategy.qtscript import normalize_qtscript_for_id

BASE = 'strategy "S"\n\nparam a = 1\n\nsetup:\n  ema(3) window m1 {\n    emitBuy(price);\n  }\n'


@pytest.mark.parametrize(
    "variant",
    [
        BASE,
        "\ufeff" + BASE,
        BASE.replace("\n", "\r\n"),
        BASE.replace("\n", "\r"),
        BASE.replace("\n", "  \n"),
        BASE.replace("\n", "\t \n"),
        "\n\n   \n" + BASE,
        BASE + "\n\n  \n\t\n",
        BASE.rstrip("\n"),
        "\ufeff\r\n \r\n" + BASE.replace("\n", " \r\n") + "\r\n\r\n",
    ],
)
def test_normalize_ignores_bom_line_ends_trailing_space_and_outer_blank_lines(
    variant: str,
) -> None:
    assert normalize_qtscript_for_id(variant) == normalize_qtscript_for_id(BASE)


@pytest.mark.parametrize(
    "variant",
    [
        BASE.replace("param a = 1\n", "param a = 1 // comment\n"),
        "// header comment\n" + BASE,
        BASE.replace("    emitBuy", "      emitBuy"),
        BASE.replace("  ema(3)", "\tema(3)"),
        BASE.replace("param a = 1\n\n", "param a = 1\n\n\n"),
        BASE.replace("param a = 1\n\n", "param a = 1\n"),
        BASE.replace("param a = 1", "param  a = 1"),
        BASE.replace("emitBuy", "emitSell"),
    ],
)
def test_normalize_keeps_comments_indentation_and_inner_blank_lines(variant: str) -> None:
    assert normalize_qtscript_for_id(variant) != normalize_qtscript_for_id(BASE)


def test_normalize_output_shape() -> None:
    assert normalize_qtscript_for_id("\ufeff\r\n  x  \r\n\r\n y\t\r\n\r\n") == "  x\n\n y"
    assert normalize_qtscript_for_id("") == ""
    assert normalize_qtscript_for_id(" \n\t\n") == ""


def test_normalize_keeps_bom_that_is_not_leading() -> None:
    assert normalize_qtscript_for_id("a\ufeff") == "a\ufeff"
