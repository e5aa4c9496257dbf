"""Hostile strategy sources shared by the isolation and fairness tests."""

from __future__ import annotations

BOMB_HELPER = "    static <A, B> B k(Supplier<A> a, Function<A, B> f) { return null; }\n"
"""The generic method whose nested implicit lambdas make javac's inference explode."""


def bomb_expression(depth: int) -> str:
    """``k(() -> e, b -> e)`` nested ``depth`` times: a few KB at depth 10, and javac's
    type inference time grows about tenfold every two levels (11.8 s at depth 9 here)."""
    expr = "1"
    for i in range(depth):
        expr = f"k(() -> {expr}, b{i} -> {expr})"
    return expr


def compile_bomb(class_name: str = "Bomb", depth: int = 10) -> str:
    """A whole ticker strategy whose ``update`` holds the bomb (under the 32 KB body cap)."""
    return (
        "import com.wualabs.qtsurfer.engine.core.Ticker;\n"
        "import com.wualabs.qtsurfer.engine.indicators.helpers.group.InstrumentGroupRTIndicator;\n"
        "import com.wualabs.qtsurfer.engine.strategy.AbstractTickerStrategy;\n"
        "import java.util.function.*;\n\n"
        f"public class {class_name} extends AbstractTickerStrategy {{\n"
        + BOMB_HELPER
        + "    @Override\n"
        "    protected void setupIndicators(InstrumentGroupRTIndicator indicators) {\n"
        "        indicators.addPrice();\n    }\n"
        "    @Override\n    public void update(Ticker ticker) {\n"
        f"        super.update(ticker);\n        Object o = {bomb_expression(depth)};\n    }}\n}}\n"
    )
