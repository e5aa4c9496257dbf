package com.wualabs.qtsurfer.engine.indicators.momentum;

import com.wualabs.qtsurfer.engine.indicators.core.BaseRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.DoubleRing;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;

/**
 * Relative strength index over {@code periods} changes of the input.
 *
 * <p>Cutler (the default, {@code cutler = true}): average gain and average loss are simple means of the
 * last {@code periods} changes. Wilder ({@code cutler = false}): both averages are seeded with the
 * simple mean of the first {@code periods} changes, then {@code avg = (avg * (n - 1) + current) / n}.
 * {@code RSI = 100 - 100 / (1 + avgGain / avgLoss)}; 100 when avgLoss is 0 and avgGain is not, 50 when
 * both are 0. Ready after {@code periods + 1} inputs.
 */
public final class RsiRTIndicator extends BaseRTIndicator {

    private final int periods;
    private final boolean cutler;
    private final DoubleRing gains;
    private final DoubleRing losses;
    private double prev = Double.NaN;
    private double gainSum;
    private double lossSum;
    private int changes;
    private double avgGain;
    private double avgLoss;

    public RsiRTIndicator(int periods) {
        this(null, periods, true);
    }

    public RsiRTIndicator(int periods, boolean cutler) {
        this(null, periods, cutler);
    }

    public RsiRTIndicator(RTIndicator source, int periods) {
        this(source, periods, true);
    }

    public RsiRTIndicator(RTIndicator source, int periods, boolean cutler) {
        super(source);
        this.periods = checkPeriods(periods);
        this.cutler = cutler;
        this.gains = cutler ? new DoubleRing(periods) : null;
        this.losses = cutler ? new DoubleRing(periods) : null;
    }

    @Override
    protected void accept(double x) {
        double p = prev;
        prev = x;
        if (p != p) {
            return;
        }
        double change = x - p;
        double gain = change > 0 ? change : 0;
        double loss = change < 0 ? -change : 0;
        if (cutler) {
            double og = gains.push(gain);
            double ol = losses.push(loss);
            if (og == og) {
                gainSum += gain - og;
                lossSum += loss - ol;
                if (gains.wrapped()) {
                    gainSum = gains.sum();
                    lossSum = losses.sum();
                }
            } else {
                gainSum += gain;
                lossSum += loss;
            }
            if (gains.full()) {
                value = rsi(gainSum / periods, lossSum / periods);
                ready = true;
            }
            return;
        }
        if (ready) {
            avgGain = (avgGain * (periods - 1) + gain) / periods;
            avgLoss = (avgLoss * (periods - 1) + loss) / periods;
            value = rsi(avgGain, avgLoss);
            return;
        }
        gainSum += gain;
        lossSum += loss;
        if (++changes == periods) {
            avgGain = gainSum / periods;
            avgLoss = lossSum / periods;
            value = rsi(avgGain, avgLoss);
            ready = true;
        }
    }

    static double rsi(double avgGain, double avgLoss) {
        if (avgLoss <= 0) {
            return avgGain <= 0 ? 50.0 : 100.0;
        }
        return 100.0 - 100.0 / (1.0 + avgGain / avgLoss);
    }

    @Override
    protected void clear() {
        prev = Double.NaN;
        gainSum = 0;
        lossSum = 0;
        changes = 0;
        avgGain = 0;
        avgLoss = 0;
        if (cutler) {
            gains.clear();
            losses.clear();
        }
    }

    public int getPeriods() {
        return periods;
    }

    public boolean isCutler() {
        return cutler;
    }
}
