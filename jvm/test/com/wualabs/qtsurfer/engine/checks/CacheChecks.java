package com.wualabs.qtsurfer.engine.checks;

import com.wualabs.qtsurfer.engine.internal.SeriesCache;

/**
 * {@link SeriesCache}: a series the cache drops is computed into again only once no request holds it,
 * a spare goes only to a series of its own length, and a request that ends in doubt gives nothing back.
 */
final class CacheChecks {

    /** Values a series holds here: 1,000 values are 8,016 bytes, so a 40,000-byte cache keeps four. */
    private static final int N = 1_000;

    private CacheChecks() {
    }

    static void run() {
        Check.section("series cache");
        droppedWhileFreeIsUsedAgain();
        droppedWhileHeldWaitsForTheRelease();
        abandonedNeverComesBack();
        spareLengthsAndBound();
    }

    private static SeriesCache cache() {
        return new SeriesCache(40_000);
    }

    /** Computes series {@code key} as a request would: a blank array, filled, put. */
    private static double[] compute(SeriesCache c, String key, int length) {
        double[] s = c.blank(length);
        java.util.Arrays.fill(s, key.hashCode());
        c.put(key, s);
        return s;
    }

    private static void droppedWhileFreeIsUsedAgain() {
        SeriesCache c = cache();
        double[][] first = new double[4][];
        for (int k = 0; k < 4; k++) {
            first[k] = compute(c, "s" + k, N);
            c.release(first[k]);
        }
        double[] fifth = compute(c, "s4", N); // drops s0, which nobody holds: a spare
        Check.isTrue(fifth != first[0], "the array put last is not the one it drops");
        Check.isTrue(c.take("s0") == null, "s0 was dropped");
        double[] sixth = c.blank(N);
        Check.isTrue(sixth == first[0], "the next blank series is the dropped s0's array");
        Check.equal(1L, c.counts()[2], "one series computed into a spare");
        Check.isTrue(c.take("s1") == first[1], "a series still cached is found");
    }

    private static void droppedWhileHeldWaitsForTheRelease() {
        SeriesCache c = cache();
        double[] held = compute(c, "held", N); // not released: a request still runs with it
        double[] twice = c.take("held");
        Check.isTrue(twice == held, "taken again while held");
        for (int k = 0; k < 4; k++) {
            c.release(compute(c, "x" + k, N)); // the last one drops "held"
        }
        Check.isTrue(c.take("held") == null, "the held series was dropped from the cache");
        double[] other = c.blank(N);
        Check.isTrue(other != held, "a dropped series still held is not handed out");
        c.release(other);
        c.release(held);
        Check.isTrue(c.blank(N) != held, "one hold left: still not handed out");
        c.release(twice);
        Check.isTrue(c.blank(N) == held, "once every hold ended, the dropped series is a spare");
    }

    private static void abandonedNeverComesBack() {
        SeriesCache c = cache();
        double[] doubtful = compute(c, "doubt", N);
        c.abandon(doubtful);
        for (int k = 0; k < 4; k++) {
            c.release(compute(c, "y" + k, N)); // drops "doubt"
        }
        for (int k = 0; k < 3; k++) {
            Check.isTrue(c.blank(N) != doubtful, "an abandoned series is never handed out again");
        }
        boolean threw = false;
        try {
            c.release(doubtful);
        } catch (IllegalStateException e) {
            threw = true;
        }
        Check.isTrue(threw, "releasing more often than handed out is refused");
    }

    private static void spareLengthsAndBound() {
        SeriesCache c = cache();
        double[] small = compute(c, "small", N / 2);
        c.release(small);
        for (int k = 0; k < 5; k++) {
            c.release(compute(c, "z" + k, N)); // drops "small", then z0
        }
        Check.isTrue(c.blank(N) != small, "a spare of another length is not handed out");
        Check.isTrue(c.blank(N / 2) == small, "a spare of the asked length is");
        SeriesCache bounded = cache();
        for (int k = 0; k < 10; k++) {
            bounded.release(compute(bounded, "w" + k, N)); // six dropped, at most two kept
        }
        long before = bounded.counts()[2];
        for (int k = 0; k < 4; k++) {
            bounded.blank(N);
        }
        Check.isTrue(bounded.counts()[2] - before <= 2, "at most two spares are kept");
    }
}
