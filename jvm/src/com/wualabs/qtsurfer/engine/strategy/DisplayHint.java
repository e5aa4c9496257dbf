package com.wualabs.qtsurfer.engine.strategy;

/** How an indicator's value should be displayed. Carried as metadata, never encoded in the name. */
public enum DisplayHint {
    /** No particular formatting. */
    NONE,
    /** A price-like value in the quote currency. */
    PRICE,
    /** A percentage (the value 1.5 means 1.5 %). */
    PERCENT,
    /** A boolean encoded as 1 (true) / 0 (false). */
    BOOLEAN,
    /** A count (streaks, periods). */
    COUNT
}
