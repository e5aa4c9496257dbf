package com.wualabs.qtsurfer.engine.strategy;

/**
 * Detects crossings of two series with one read-then-write per call, so both directions always describe
 * the same observation. Keep one instance per pair of series watched.
 *
 * <p>The detector remembers the last <em>strict</em> relation seen (left above or below right). A cross
 * above is reported when the relation turns from below to above; equal observations (touches) neither
 * report nor change the remembered relation, so below / equal / above reports one cross above and
 * below / equal / below reports nothing. The first strict observation reports nothing. NaN inputs report
 * nothing and change nothing.
 */
public final class CrossDetector {

    /** The result of one {@link #check}: at most one of the two is true. */
    public record Cross(boolean above, boolean below) {

        public static final Cross NONE = new Cross(false, false);
        public static final Cross ABOVE = new Cross(true, false);
        public static final Cross BELOW = new Cross(false, true);

        /** True when either direction crossed. */
        public boolean any() {
            return above || below;
        }
    }

    private int relation;

    /** Compares {@code left} with {@code right} and reports whether left crossed above or below right. */
    public Cross check(double left, double right) {
        if (left != left || right != right) {
            return Cross.NONE;
        }
        int r = left > right ? 1 : left < right ? -1 : 0;
        if (r == 0) {
            return Cross.NONE;
        }
        int last = relation;
        relation = r;
        if (last == -1 && r == 1) {
            return Cross.ABOVE;
        }
        if (last == 1 && r == -1) {
            return Cross.BELOW;
        }
        return Cross.NONE;
    }

    /** Forgets the remembered relation. */
    public void reset() {
        relation = 0;
    }
}
