package com.wualabs.qtsurfer.engine.strategy;

/** Something whose state can be cleared back to its freshly constructed state. */
public interface Resettable {
    void reset();
}
