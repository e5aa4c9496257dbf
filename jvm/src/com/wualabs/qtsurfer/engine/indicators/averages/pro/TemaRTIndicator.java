package com.wualabs.qtsurfer.engine.indicators.averages.pro;

import com.wualabs.qtsurfer.engine.indicators.averages.EmaRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.BaseRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;

/**
 * Triple exponential moving average: {@code 3*e1 - 3*e2 + e3} where e1 = EMA(x), e2 = EMA(e1),
 * e3 = EMA(e2) (each an {@link EmaRTIndicator}, fed once the previous one is ready). Ready after
 * {@code 3 * periods - 2} inputs.
 */
public final class TemaRTIndicator extends BaseRTIndicator {

    private final int periods;
    private final EmaRTIndicator e1;
    private final EmaRTIndicator e2;
    private final EmaRTIndicator e3;

    public TemaRTIndicator(int periods) {
        this(null, periods);
    }

    public TemaRTIndicator(RTIndicator source, int periods) {
        super(source);
        this.periods = checkPeriods(periods);
        e1 = new EmaRTIndicator(periods);
        e2 = new EmaRTIndicator(periods);
        e3 = new EmaRTIndicator(periods);
    }

    @Override
    protected void accept(double x) {
        e1.update(x);
        if (!e1.isReady()) {
            return;
        }
        e2.update(e1.getValue());
        if (!e2.isReady()) {
            return;
        }
        e3.update(e2.getValue());
        if (e3.isReady()) {
            value = 3 * e1.getValue() - 3 * e2.getValue() + e3.getValue();
            ready = true;
        }
    }

    @Override
    protected void clear() {
        e1.reset();
        e2.reset();
        e3.reset();
    }

    public int getPeriods() {
        return periods;
    }
}
