package com.wualabs.qtsurfer.engine.checks;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/** Minimal assertion collector: failures are recorded, the runner exits non-zero when any occurred. */
final class Check {

    private static final List<String> FAILURES = new ArrayList<>();
    private static int passed;
    private static String section = "";

    private Check() {
    }

    static void section(String name) {
        section = name;
    }

    static void fail(String message) {
        FAILURES.add(section + ": " + message);
    }

    static void isTrue(boolean cond, String message) {
        if (cond) {
            passed++;
        } else {
            fail(message);
        }
    }

    static void isFalse(boolean cond, String message) {
        isTrue(!cond, message);
    }

    static void equal(Object expected, Object actual, String message) {
        isTrue(Objects.equals(expected, actual), message + ": expected <" + expected + "> got <" + actual + ">");
    }

    /** Equal within {@code 1e-9 * max(1, |expected|)}; NaN equals NaN. */
    static void near(double expected, double actual, String message) {
        near(expected, actual, 1e-9, message);
    }

    static void near(double expected, double actual, double relTol, String message) {
        boolean ok;
        if (Double.isNaN(expected) || Double.isNaN(actual)) {
            ok = Double.isNaN(expected) && Double.isNaN(actual);
        } else if (Double.isInfinite(expected) || Double.isInfinite(actual)) {
            ok = expected == actual;
        } else {
            ok = Math.abs(expected - actual) <= relTol * Math.max(1.0, Math.abs(expected));
        }
        isTrue(ok, message + ": expected " + expected + " got " + actual);
    }

    interface ThrowingRunnable {
        void run() throws Exception;
    }

    /** Asserts that {@code r} throws {@code type}; returns the exception (or null). */
    static <T extends Throwable> T throwsA(Class<T> type, ThrowingRunnable r, String message) {
        try {
            r.run();
        } catch (Throwable t) {
            if (type.isInstance(t)) {
                passed++;
                return type.cast(t);
            }
            fail(message + ": expected " + type.getSimpleName() + " got " + t);
            return null;
        }
        fail(message + ": expected " + type.getSimpleName() + ", nothing thrown");
        return null;
    }

    static int passed() {
        return passed;
    }

    static List<String> failures() {
        return FAILURES;
    }
}
