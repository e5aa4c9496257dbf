package com.wualabs.qtsurfer.engine.indicators.helpers.group;

import com.wualabs.qtsurfer.engine.indicators.core.BarRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.BaseRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.ReadOnlyRTIndicator;

/**
 * One registered indicator in a group's update order, plus how it is fed. {@link #value} caches the
 * indicator's value after this event's step; dependents and windows read it without a virtual call.
 */
abstract class Node {

    final String name;
    final RTIndicator ind;
    /** True when {@code ind.update(x)} is known to return the new value (built-ins). */
    final boolean trusted;
    double value = Double.NaN;
    private RTIndicator ro;

    Node(String name, RTIndicator ind) {
        this.name = name;
        this.ind = ind;
        this.trusted = ind instanceof BaseRTIndicator || ind instanceof ReadOnlyRTIndicator || ind instanceof Derived;
    }

    abstract void step(EventFrame f);

    /** Feeds one input: a NaN input is skipped (the indicator is left unchanged). */
    final void feed(double x) {
        if (x != x) {
            return;
        }
        double v = ind.update(x);
        value = trusted ? v : ind.getValue();
    }

    final RTIndicator ro() {
        RTIndicator r = ro;
        if (r == null) {
            r = ind.ro();
            ro = r;
        }
        return r;
    }

    /** Fed from a field of the event (or its primary value). */
    static final class FieldNode extends Node {
        final int field;

        FieldNode(String name, RTIndicator ind, int field) {
            super(name, ind);
            this.field = field;
        }

        @Override
        void step(EventFrame f) {
            feed(f.get(field));
        }
    }

    /** Fed from another node's value. */
    static final class ChainNode extends Node {
        final Node src;

        ChainNode(String name, RTIndicator ind, Node src) {
            super(name, ind);
            this.src = src;
        }

        @Override
        void step(EventFrame f) {
            feed(src.value);
        }
    }

    /** Fed the event's bar (see {@link BarRTIndicator}). */
    static final class BarNode extends Node {
        final BarRTIndicator bar;

        BarNode(String name, BarRTIndicator ind) {
            super(name, ind);
            this.bar = ind;
        }

        @Override
        void step(EventFrame f) {
            double v = bar.updateBar(f.barOpen, f.barHigh, f.barLow, f.barClose, f.barVolume);
            value = trusted ? v : bar.getValue();
        }
    }

    /** Computed from other nodes' values. */
    static final class DerivedNode extends Node {
        final Derived derived;

        DerivedNode(String name, Derived ind) {
            super(name, ind);
            this.derived = ind;
        }

        @Override
        void step(EventFrame f) {
            value = derived.refresh();
        }
    }
}
