package com.wualabs.qtsurfer.engine.indicators.statistics.pro;

import com.wualabs.qtsurfer.engine.indicators.core.DoubleRing;

/** Central moments of a full ring, recomputed exactly (engine helper for the O(n) statistics). */
final class WindowMoments {

    private WindowMoments() {
    }

    static double mean(DoubleRing r) {
        double s = 0;
        int n = r.size();
        for (int i = 0; i < n; i++) {
            s += r.get(i);
        }
        return s / n;
    }

    /** Population central moment of order {@code k}. */
    static double central(DoubleRing r, double mean, int k) {
        double s = 0;
        int n = r.size();
        for (int i = 0; i < n; i++) {
            double d = r.get(i) - mean;
            double p = d;
            for (int j = 1; j < k; j++) {
                p *= d;
            }
            s += p;
        }
        return s / n;
    }

    /** Population covariance of two rings of equal size. */
    static double covariance(DoubleRing a, DoubleRing b) {
        double ma = mean(a);
        double mb = mean(b);
        double s = 0;
        int n = a.size();
        for (int i = 0; i < n; i++) {
            s += (a.get(i) - ma) * (b.get(i) - mb);
        }
        return s / n;
    }
}
