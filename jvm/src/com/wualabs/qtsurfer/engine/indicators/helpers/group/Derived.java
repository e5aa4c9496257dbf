package com.wualabs.qtsurfer.engine.indicators.helpers.group;

import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;

/** An indicator computed from other nodes of the group; {@link #refresh()} recomputes it once per event. */
interface Derived extends RTIndicator {

    double refresh();

    /** Derived indicators are not fed: an explicit update just recomputes. */
    @Override
    default double update(double newValue) {
        return refresh();
    }
}
