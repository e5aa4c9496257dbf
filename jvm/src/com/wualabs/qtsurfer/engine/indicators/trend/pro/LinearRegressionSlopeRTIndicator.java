package com.wualabs.qtsurfer.engine.indicators.trend.pro;

import com.wualabs.qtsurfer.engine.indicators.core.BaseRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;

/**
 * Slope of the ordinary least-squares line through the last {@code periods} inputs against their index
 * (0 = oldest, 1 step per input). Ready after {@code periods} inputs (the slope of one point is 0).
 */
public final class LinearRegressionSlopeRTIndicator extends BaseRTIndicator {

    private final SimpleLinearRegressionRTIndicator fit;

    public LinearRegressionSlopeRTIndicator(int periods) {
        this(null, periods);
    }

    public LinearRegressionSlopeRTIndicator(RTIndicator source, int periods) {
        super(source);
        this.fit = new SimpleLinearRegressionRTIndicator(periods);
    }

    @Override
    protected void accept(double x) {
        fit.update(x);
        if (fit.isReady()) {
            value = fit.getSlope();
            ready = true;
        }
    }

    @Override
    protected void clear() {
        fit.reset();
    }
}
