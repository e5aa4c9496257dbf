package com.wualabs.qtsurfer.engine.indicators.helpers.group;

import com.wualabs.qtsurfer.engine.indicators.helpers.WindowTimeRTIndicator.WindowTime;
import com.wualabs.qtsurfer.engine.strategy.AbstractWindowListener;

import java.time.Duration;

/**
 * Builder returned by {@link InstrumentGroupRTIndicator#window()}:
 * {@code window().windowTime(WindowTime.m5).indicator("rsi14").listener(l).build()}.
 */
public final class WindowBuilder {
    private final InstrumentGroupRTIndicator group;
    private long periodMillis = WindowTime.s1.getMillis();
    private String indicator;
    private AbstractWindowListener listener;

    WindowBuilder(InstrumentGroupRTIndicator group) {
        this.group = group;
    }

    public WindowBuilder windowTime(WindowTime windowTime) {
        this.periodMillis = windowTime.getMillis();
        return this;
    }

    public WindowBuilder duration(Duration duration) {
        this.periodMillis = duration.toMillis();
        return this;
    }

    public WindowBuilder indicator(String indicatorName) {
        this.indicator = indicatorName;
        return this;
    }

    public WindowBuilder listener(AbstractWindowListener windowListener) {
        this.listener = windowListener;
        return this;
    }

    /** Registers the window and returns the group. */
    public InstrumentGroupRTIndicator build() {
        if (indicator == null) {
            throw new IllegalStateException("window().indicator(name) was not set");
        }
        if (listener == null) {
            throw new IllegalStateException("window().listener(listener) was not set");
        }
        return group.registerWindow(indicator, periodMillis, listener);
    }
}
