package com.wualabs.qtsurfer.engine.indicators.statistics.pro;

import com.wualabs.qtsurfer.engine.indicators.core.BaseRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.RollingMoments;

/**
 * Z-score of the newest input within the last {@code periods} inputs (the newest included):
 * {@code (x - mean) / sigma} with the population standard deviation; 0 when sigma is 0. Ready after
 * {@code periods} inputs. Default 20.
 */
public final class ZScoreRTIndicator extends BaseRTIndicator {

    private final RollingMoments moments;

    public ZScoreRTIndicator() {
        this(null, 20);
    }

    public ZScoreRTIndicator(int periods) {
        this(null, periods);
    }

    public ZScoreRTIndicator(RTIndicator source, int periods) {
        super(source);
        this.moments = new RollingMoments(checkPeriods(periods));
    }

    @Override
    protected void accept(double x) {
        moments.push(x);
        if (moments.full()) {
            double sd = Math.sqrt(moments.variance());
            value = sd == 0 ? 0.0 : (x - moments.mean()) / sd;
            ready = true;
        }
    }

    @Override
    protected void clear() {
        moments.clear();
    }
}
