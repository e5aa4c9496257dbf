package com.wualabs.qtsurfer.engine.indicators.distance;

import com.wualabs.qtsurfer.engine.indicators.core.BaseRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;
import com.wualabs.qtsurfer.engine.strategy.DisplayHint;

/**
 * Percent distance {@code (a - b) / b * 100} (NaN when b is 0). Built with two indicators it reads both
 * ({@code a.update(x)}, {@code b.update(x)}: pass read-only views of registered indicators); built with one
 * reference it measures the input against it: {@code (x - ref) / ref * 100}. Ready when its operands are.
 * Display hint PERCENT.
 */
public final class DistanceRTIndicator extends BaseRTIndicator {

    private final RTIndicator a;
    private final RTIndicator b;

    public DistanceRTIndicator(RTIndicator a, RTIndicator b) {
        this.a = java.util.Objects.requireNonNull(a, "a");
        this.b = java.util.Objects.requireNonNull(b, "b");
        withDisplayHint(DisplayHint.PERCENT);
    }

    public DistanceRTIndicator(RTIndicator reference) {
        this.a = null;
        this.b = java.util.Objects.requireNonNull(reference, "reference");
        withDisplayHint(DisplayHint.PERCENT);
    }

    /** {@code (a - b) / b * 100}, NaN when b is 0 or either is NaN. */
    public static double distance(double a, double b) {
        return b == 0 ? Double.NaN : (a - b) / b * 100.0;
    }

    @Override
    protected void accept(double x) {
        double av = a == null ? x : a.update(x);
        double bv = b.update(x);
        boolean operandsReady = (a == null || a.isReady()) && b.isReady();
        if (!operandsReady || av != av || bv != bv) {
            return;
        }
        value = distance(av, bv);
        ready = true;
    }

    @Override
    protected void clear() {
    }
}
