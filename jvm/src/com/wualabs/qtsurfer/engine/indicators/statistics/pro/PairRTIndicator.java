package com.wualabs.qtsurfer.engine.indicators.statistics.pro;

import com.wualabs.qtsurfer.engine.indicators.core.BaseRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;

import java.util.Objects;

/**
 * Base of the two-series statistics. Built with {@code (other, periods)} the pairs are (input,
 * other's value); built with {@code (a, b, periods)} they are (a's value, b's value). Operands are read with
 * {@code update(x)} (a read-only view just returns its value). A pair with a NaN side, or whose operand is
 * not ready, is skipped.
 */
abstract class PairRTIndicator extends BaseRTIndicator {

    private final RTIndicator a;
    private final RTIndicator b;

    PairRTIndicator(RTIndicator a, RTIndicator b) {
        this.a = a;
        this.b = Objects.requireNonNull(b, "other");
    }

    @Override
    protected final void accept(double x) {
        double av = a == null ? x : a.update(x);
        double bv = b.update(x);
        if (av != av || bv != bv || (a != null && !a.isReady()) || !b.isReady()) {
            return;
        }
        acceptPair(av, bv);
    }

    protected abstract void acceptPair(double a, double b);
}
