package com.wualabs.qtsurfer.engine.indicators.helpers.group;

import com.wualabs.qtsurfer.engine.indicators.bollinger.BollingerRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.BaseRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;
import com.wualabs.qtsurfer.engine.indicators.distance.DistanceRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.AbstractRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.DisplayHint;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.function.BiFunction;
import java.util.function.DoublePredicate;
import java.util.function.Predicate;

/** The indicators behind the group's builder methods (engine-internal). */
final class Ops {

    private Ops() {
    }

    /** Holds the latest input (sources such as {@code price}). Ready after the first input. */
    static final class ValueIndicator extends BaseRTIndicator {
        @Override
        protected void accept(double x) {
            value = x;
            ready = true;
        }

        @Override
        protected void clear() {
        }
    }

    /** Running max / min / sum since the first input. */
    static final class Running extends BaseRTIndicator {
        static final int MAX = 0;
        static final int MIN = 1;
        static final int SUM = 2;
        private final int mode;

        Running(int mode) {
            this.mode = mode;
        }

        @Override
        protected void accept(double x) {
            if (!ready) {
                value = x;
                ready = true;
                return;
            }
            if (mode == MAX) {
                value = Math.max(value, x);
            } else if (mode == MIN) {
                value = Math.min(value, x);
            } else {
                value += x;
            }
        }

        @Override
        protected void clear() {
        }
    }

    /** Number of consecutive inputs for which the predicate held (0 when it did not). */
    static final class PeriodCount extends BaseRTIndicator {
        private final DoublePredicate predicate;
        private int count;

        PeriodCount(DoublePredicate predicate) {
            this.predicate = predicate;
            withDisplayHint(DisplayHint.COUNT);
        }

        @Override
        protected void accept(double x) {
            count = predicate.test(x) ? count + 1 : 0;
            value = count;
            ready = true;
        }

        @Override
        protected void clear() {
            count = 0;
        }
    }

    /**
     * Feeds the input to {@code then} when the predicate holds for the source, to {@code otherwise}
     * otherwise, and takes that branch's value.
     */
    static final class Conditional extends BaseRTIndicator {
        private final Predicate<RTIndicator> predicate;
        private final RTIndicator sourceView;
        private final RTIndicator then;
        private final RTIndicator otherwise;
        private RTIndicator last;

        Conditional(Predicate<RTIndicator> predicate, RTIndicator sourceView, RTIndicator then, RTIndicator otherwise) {
            this.predicate = predicate;
            this.sourceView = sourceView;
            this.then = then;
            this.otherwise = otherwise;
        }

        @Override
        protected void accept(double x) {
            RTIndicator branch = predicate.test(sourceView) ? then : otherwise;
            last = branch;
            branch.update(x);
            value = branch.getValue();
        }

        @Override
        public boolean isReady() {
            return last != null && last.isReady();
        }

        @Override
        protected void clear() {
            last = null;
        }
    }

    /** Base of the derived indicators: value/ready computed from nodes, metadata from AbstractRTIndicator. */
    abstract static class DerivedBase extends AbstractRTIndicator implements Derived {
        @Override
        public final double update(double newValue) {
            return refresh();
        }

        @Override
        public void reset() {
            value = Double.NaN;
        }
    }

    /** a (op) b over two nodes. */
    static final class Binary extends DerivedBase {
        static final int ADD = 0;
        static final int DIFF = 1;
        static final int MUL = 2;
        static final int DISTANCE = 3;
        static final int FUN = 4;
        final Node a;
        final Node b;
        private final int op;
        private final BiFunction<Double, Double, ? extends Number> fn;

        Binary(Node a, Node b, int op, BiFunction<Double, Double, ? extends Number> fn) {
            this.a = a;
            this.b = b;
            this.op = op;
            this.fn = fn;
            if (op == DISTANCE) {
                withDisplayHint(DisplayHint.PERCENT);
            }
        }

        @Override
        public double refresh() {
            double v = of(a.value, b.value);
            value = v;
            return v;
        }

        /** True when the value depends on the operands' values alone (no user function). */
        boolean pure() {
            return op != FUN;
        }

        /**
         * The value for operand values {@code x} and {@code y}, as {@link #refresh} computes it: NaN when either
         * is NaN.
         *
         * <p>The sum, difference and product give that NaN themselves (IEEE 754: a built-in operand's NaN is
         * {@code Double.NaN}, and so is theirs; no output shows a NaN's payload, the host writes any NaN as
         * {@code NaN}), so they test nothing. A test taken only while the operands warm up was compiled by C2 as
         * never taken (those first rows run before the profile exists), and the next vector's first rows threw
         * the sweep's compiled row loop away: tier 3 again for a few hundred milliseconds of a first sweep, and
         * one more C2 compile of the loop (docs/benchmarks.md).
         */
        double of(double x, double y) {
            if (op == DIFF) {
                return x - y;
            } else if (op == ADD) {
                return x + y;
            } else if (op == MUL) {
                return x * y;
            } else if (x != x || y != y) {
                return Double.NaN;
            } else if (op == DISTANCE) {
                return DistanceRTIndicator.distance(x, y);
            }
            Number r = fn.apply(x, y);
            return r == null ? Double.NaN : r.doubleValue();
        }

        @Override
        public boolean isReady() {
            return a.isReady() && b.isReady() && value == value;
        }
    }

    /** 1 when the comparison / predicate holds for the source value, else 0 (NaN while the source is NaN). */
    static final class Test extends DerivedBase {
        static final int LT = 0;
        static final int GT = 1;
        static final int GE = 2;
        static final int LE = 3;
        static final int EQ = 4;
        static final int NE = 5;
        static final int PRED = 6;
        private final Node src;
        private final int op;
        private final double v;
        private final DoublePredicate predicate;

        Test(Node src, int op, double v, DoublePredicate predicate) {
            this.src = src;
            this.op = op;
            this.v = v;
            this.predicate = predicate;
            withDisplayHint(DisplayHint.BOOLEAN);
        }

        @Override
        public double refresh() {
            double x = src.value;
            if (x != x) {
                value = Double.NaN;
                return value;
            }
            boolean r;
            switch (op) {
                case LT: r = x < v; break;
                case GT: r = x > v; break;
                case GE: r = x >= v; break;
                case LE: r = x <= v; break;
                case EQ: r = x == v; break;
                case NE: r = x != v; break;
                default: r = predicate.test(x); break;
            }
            value = r ? 1.0 : 0.0;
            return value;
        }

        @Override
        public boolean isReady() {
            return src.isReady();
        }
    }

    /** then's value when source == coef, else otherwise's value. */
    static final class Select extends DerivedBase {
        private final Node src;
        private final double coef;
        private final Node then;
        private final Node otherwise;
        private Node chosen;

        Select(Node src, double coef, Node then, Node otherwise) {
            this.src = src;
            this.coef = coef;
            this.then = then;
            this.otherwise = otherwise;
        }

        @Override
        public double refresh() {
            double x = src.value;
            if (x != x) {
                chosen = null;
                value = Double.NaN;
                return value;
            }
            chosen = x == coef ? then : otherwise;
            value = chosen.value;
            return value;
        }

        @Override
        public boolean isReady() {
            return chosen != null && src.isReady() && chosen.isReady();
        }
    }

    /** A transformation of the source value (clamp, clamp-when, round, scale). */
    static final class Transform extends DerivedBase {
        static final int CLAMP = 0;
        static final int REPLACE_WHEN = 1;
        static final int ROUND = 2;
        static final int SCALE = 3;
        private final Node src;
        private final int op;
        private final double p1;
        private final double p2;
        private final DoublePredicate predicate;

        Transform(Node src, int op, double p1, double p2, DoublePredicate predicate) {
            this.src = src;
            this.op = op;
            this.p1 = p1;
            this.p2 = p2;
            this.predicate = predicate;
            withDisplayHint(src.registered().getDisplayHint());
        }

        @Override
        public double refresh() {
            double x = src.value;
            double v;
            if (x != x) {
                v = Double.NaN;
            } else if (op == CLAMP) {
                v = x < p1 ? p1 : (x > p2 ? p2 : x);
            } else if (op == REPLACE_WHEN) {
                v = predicate.test(x) ? p1 : x;
            } else if (op == ROUND) {
                v = round(x, (int) p1);
            } else {
                v = x * p1;
            }
            value = v;
            return v;
        }

        static double round(double x, int decimals) {
            if (Double.isInfinite(x)) {
                return x;
            }
            return BigDecimal.valueOf(x).setScale(decimals, RoundingMode.HALF_UP).doubleValue();
        }

        @Override
        public boolean isReady() {
            return src.isReady();
        }
    }

    /** Upper or lower band of a registered Bollinger indicator. */
    static final class Band extends DerivedBase {
        private final BollingerRTIndicator bands;
        private final boolean upper;

        Band(BollingerRTIndicator bands, boolean upper) {
            this.bands = bands;
            this.upper = upper;
            withDisplayHint(DisplayHint.PRICE);
        }

        @Override
        public double refresh() {
            value = upper ? bands.getUpper() : bands.getLower();
            return value;
        }

        @Override
        public boolean isReady() {
            return bands.isReady();
        }
    }

    /** (upper - lower) / middle * 100 of three nodes. */
    static final class Bandwidth extends DerivedBase {
        private final Node middle;
        private final Node upper;
        private final Node lower;

        Bandwidth(Node middle, Node upper, Node lower) {
            this.middle = middle;
            this.upper = upper;
            this.lower = lower;
            withDisplayHint(DisplayHint.PERCENT);
        }

        @Override
        public double refresh() {
            double m = middle.value;
            double u = upper.value;
            double l = lower.value;
            value = m != m || u != u || l != l || m == 0 ? Double.NaN : (u - l) / m * 100.0;
            return value;
        }

        @Override
        public boolean isReady() {
            return middle.isReady() && upper.isReady() && lower.isReady() && value == value;
        }
    }
}
