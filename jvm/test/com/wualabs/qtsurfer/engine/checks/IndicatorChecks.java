package com.wualabs.qtsurfer.engine.checks;

import com.wualabs.qtsurfer.engine.indicators.averages.EmaRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.averages.MmaRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.averages.SmaRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.averages.WmaRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.averages.pro.HmaRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.averages.pro.KamaRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.averages.pro.TemaRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.bollinger.BollingerBandwidthRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.bollinger.BollingerRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.BarRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.core.RTIndicator;
import com.wualabs.qtsurfer.engine.indicators.distance.DistanceRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.distance.PercentChangeRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.distance.RateChangeRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.momentum.MomentumRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.momentum.RocRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.momentum.RsiRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.momentum.pro.CciRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.momentum.pro.MacdRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.momentum.pro.StochasticOscillatorRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.momentum.pro.StochasticRsiRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.momentum.pro.UltimateOscillatorRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.momentum.pro.WilliamsRRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.statistics.StandardDeviationRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.statistics.VarianceRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.statistics.pro.BetaRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.statistics.pro.CalmarRatioRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.statistics.pro.CorrelationRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.statistics.pro.CovarianceRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.statistics.pro.KurtosisRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.statistics.pro.MaxDrawdownRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.statistics.pro.OmegaRatioRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.statistics.pro.RollingPercentileRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.statistics.pro.SharpeRatioRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.statistics.pro.SkewnessRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.statistics.pro.SortinoRatioRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.statistics.pro.UlcerIndexRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.statistics.pro.ZScoreRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.trend.pro.AdxRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.trend.pro.AroonRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.trend.pro.IchimokuRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.trend.pro.LinearRegressionSlopeRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.trend.pro.ParabolicSarRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.trend.pro.SimpleLinearRegressionRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.trend.pro.SuperTrendRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.volatility.pro.AtrRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.volatility.pro.EwmaVolatilityRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.volatility.pro.GarmanKlassRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.volatility.pro.NatrRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.volatility.pro.ParkinsonRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.volatility.pro.PercentVolatilityRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.volatility.pro.RealizedVolatilityRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.volume.pro.AdlRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.volume.pro.CmfRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.volume.pro.ElderForceIndexRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.volume.pro.MfiRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.volume.pro.ObvRTIndicator;
import com.wualabs.qtsurfer.engine.indicators.volume.pro.VwapRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.GainRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.LossRTIndicator;
import com.wualabs.qtsurfer.engine.strategy.VolatilityRTIndicator;

import java.util.Random;
import java.util.function.DoubleSupplier;

/** Every indicator against the batch references in {@link Ref}, value and readiness at every step. */
final class IndicatorChecks {

    static final int N = 400;
    static double[] x;
    static double[] y;
    static double[] o;
    static double[] h;
    static double[] l;
    static double[] c;
    static double[] v;

    private IndicatorChecks() {
    }

    static void data() {
        Random r = new Random(42);
        x = new double[N];
        y = new double[N];
        x[0] = 100;
        y[0] = 50;
        for (int t = 1; t < N; t++) {
            // half-unit ticks so that flat steps (equal consecutive values) occur
            x[t] = Math.max(1, Math.round((x[t - 1] + r.nextGaussian() * 0.8) * 2) / 2.0);
            y[t] = Math.max(1, y[t - 1] + 0.3 * (x[t] - x[t - 1]) + r.nextGaussian() * 0.4);
        }
        o = new double[N];
        h = new double[N];
        l = new double[N];
        c = new double[N];
        v = new double[N];
        double prev = 200;
        for (int t = 0; t < N; t++) {
            if (t % 37 == 5) {
                o[t] = prev;
                h[t] = prev;
                l[t] = prev;
                c[t] = prev;
                v[t] = t % 2 == 0 ? 0 : 3;
            } else {
                o[t] = prev;
                c[t] = Math.max(5, prev + r.nextGaussian() * 2);
                h[t] = Math.max(o[t], c[t]) + Math.abs(r.nextGaussian());
                l[t] = Math.max(1, Math.min(o[t], c[t]) - Math.abs(r.nextGaussian()));
                v[t] = Math.round(1 + Math.abs(r.nextGaussian()) * 100);
            }
            prev = c[t];
        }
    }

    /** Feeds x to the indicator and compares value, return value and readiness with ref at every step. */
    static void series(String name, RTIndicator ind, double[] in, double[] ref) {
        for (int t = 0; t < in.length; t++) {
            double ret = ind.update(in[t]);
            if (!compare(name, t, ind, ret, ref[t])) {
                return;
            }
        }
        Check.isTrue(true, name);
    }

    static void bars(String name, BarRTIndicator ind, double[] ref) {
        for (int t = 0; t < N; t++) {
            double ret = ind.updateBar(o[t], h[t], l[t], c[t], v[t]);
            if (!compare(name, t, ind, ret, ref[t])) {
                return;
            }
        }
        Check.isTrue(true, name);
    }

    /** Feeds bars and compares an extra accessor with ref. */
    static void barsAccessor(String name, BarRTIndicator ind, DoubleSupplier accessor, double[] ref) {
        for (int t = 0; t < N; t++) {
            ind.updateBar(o[t], h[t], l[t], c[t], v[t]);
            double got = accessor.getAsDouble();
            if (!close(ref[t], got)) {
                Check.fail(name + " at step " + t + ": expected " + ref[t] + " got " + got);
                return;
            }
        }
        Check.isTrue(true, name);
    }

    static void seriesAccessor(String name, RTIndicator ind, double[] in, DoubleSupplier accessor, double[] ref) {
        for (int t = 0; t < in.length; t++) {
            ind.update(in[t]);
            double got = accessor.getAsDouble();
            if (!close(ref[t], got)) {
                Check.fail(name + " at step " + t + ": expected " + ref[t] + " got " + got);
                return;
            }
        }
        Check.isTrue(true, name);
    }

    private static boolean compare(String name, int t, RTIndicator ind, double ret, double ref) {
        boolean refReady = !Double.isNaN(ref);
        if (ind.isReady() != refReady) {
            Check.fail(name + " at step " + t + ": isReady()=" + ind.isReady() + " but reference "
                    + (refReady ? "has a value " + ref : "is not ready"));
            return false;
        }
        if (!close(ref, ind.getValue()) || !close(ref, ret)) {
            Check.fail(name + " at step " + t + ": expected " + ref + " got getValue()=" + ind.getValue()
                    + " update()=" + ret);
            return false;
        }
        return true;
    }

    static boolean close(double a, double b) {
        if (Double.isNaN(a) || Double.isNaN(b)) {
            return Double.isNaN(a) && Double.isNaN(b);
        }
        return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a));
    }

    static void run() {
        Check.section("indicators");
        data();
        // averages
        series("SMA(1)", new SmaRTIndicator(1), x, Ref.sma(x, 1));
        series("SMA(20)", new SmaRTIndicator(20), x, Ref.sma(x, 20));
        series("SMA(20) continuous", new SmaRTIndicator(20, false), x, Ref.smaContinuous(x, 20));
        smaBits();
        series("EMA(9)", new EmaRTIndicator(9), x, Ref.ema(x, 9));
        series("EMA(1)", new EmaRTIndicator(1), x, Ref.ema(x, 1));
        series("EMA(21)", new EmaRTIndicator(21), x, Ref.ema(x, 21));
        series("MMA(14)", new MmaRTIndicator(14), x, Ref.mma(x, 14));
        series("WMA(10)", new WmaRTIndicator(10), x, Ref.wma(x, 10));
        series("HMA(16)", new HmaRTIndicator(16), x, Ref.hma(x, 16));
        series("HMA(9)", new HmaRTIndicator(9), x, Ref.hma(x, 9));
        series("TEMA(5)", new TemaRTIndicator(5), x, Ref.tema(x, 5));
        series("KAMA(10)", new KamaRTIndicator(10), x, Ref.kama(x, 10, 2, 30));
        // oscillators
        series("RSI(14) Cutler", new RsiRTIndicator(14), x, Ref.rsiCutler(x, 14));
        series("RSI(14) Wilder", new RsiRTIndicator(14, false), x, Ref.rsiWilder(x, 14));
        series("RSI(2) Cutler", new RsiRTIndicator(2, true), x, Ref.rsiCutler(x, 2));
        series("ROC(10)", new RocRTIndicator(10), x, Ref.roc(x, 10));
        series("Momentum(10)", new MomentumRTIndicator(10), x, Ref.momentum(x, 10));
        double[][] macd = Ref.macd(x, 12, 26, 9);
        MacdRTIndicator m = new MacdRTIndicator();
        series("MACD line", m, x, macd[0]);
        m = new MacdRTIndicator(12, 26, 9);
        seriesAccessor("MACD signal", m, x, m::getSignal, macd[1]);
        m = new MacdRTIndicator();
        MacdRTIndicator mh = m;
        seriesAccessor("MACD histogram", m, x, mh::getHistogram, macd[2]);
        series("StochRSI(14)", new StochasticRsiRTIndicator(14), x, Ref.stochRsi(x, 14, 14));
        series("StochRSI(7,5)", new StochasticRsiRTIndicator(7, 5), x, Ref.stochRsi(x, 7, 5));
        double[][] stoch = Ref.stochastic(h, l, c, 14, 3);
        bars("Stochastic %K", new StochasticOscillatorRTIndicator(), stoch[0]);
        StochasticOscillatorRTIndicator so = new StochasticOscillatorRTIndicator(14, 3);
        barsAccessor("Stochastic %D", so, so::getD, stoch[1]);
        bars("CCI(20)", new CciRTIndicator(), Ref.cci(h, l, c, 20));
        bars("Williams %R(14)", new WilliamsRRTIndicator(), Ref.williams(h, l, c, 14));
        bars("Ultimate(7,14,28)", new UltimateOscillatorRTIndicator(), Ref.ultimate(h, l, c, 7, 14, 28));
        // bollinger and statistics
        double[][] bb = Ref.bollinger(x, 20, 2);
        BollingerRTIndicator b = new BollingerRTIndicator(20, 2);
        series("Bollinger middle", b, x, bb[0]);
        b = new BollingerRTIndicator(20, 2);
        seriesAccessor("Bollinger upper", b, x, b::getUpper, bb[1]);
        b = new BollingerRTIndicator(20, 2);
        seriesAccessor("Bollinger lower", b, x, b::getLower, bb[2]);
        double[] bw = Ref.nan(N);
        for (int t = 0; t < N; t++) {
            if (!Double.isNaN(bb[0][t])) {
                bw[t] = (bb[1][t] - bb[2][t]) / bb[0][t] * 100;
            }
        }
        series("Bollinger bandwidth", new BollingerBandwidthRTIndicator(20, 2), x, bw);
        series("StdDev(20) population", new StandardDeviationRTIndicator(20), x, Ref.std(x, 20, false));
        series("StdDev(20) sample", new StandardDeviationRTIndicator(20, true), x, Ref.std(x, 20, true));
        series("Variance(15)", new VarianceRTIndicator(15), x, Ref.variance(x, 15, false));
        series("Variance(15) sample", new VarianceRTIndicator(15, true), x, Ref.variance(x, 15, true));
        series("ZScore(20)", new ZScoreRTIndicator(20), x, Ref.zscore(x, 20));
        series("Skewness(30)", new SkewnessRTIndicator(30), x, Ref.skewness(x, 30));
        series("Kurtosis(30)", new KurtosisRTIndicator(30), x, Ref.kurtosis(x, 30));
        series("Percentile(25, 50)", new RollingPercentileRTIndicator(25), x, Ref.percentile(x, 25, 50));
        series("Percentile(25, 90)", new RollingPercentileRTIndicator(25, 90), x, Ref.percentile(x, 25, 90));
        series("Percentile(10, 0)", new RollingPercentileRTIndicator(10, 0), x, Ref.percentile(x, 10, 0));
        PairFeed pf = new PairFeed();
        series("Covariance(20)", new CovarianceRTIndicator(pf, 20), x, Ref.covariance(x, y, 20));
        pf = new PairFeed();
        series("Correlation(20)", new CorrelationRTIndicator(pf, 20), x, Ref.correlation(x, y, 20));
        pf = new PairFeed();
        series("Beta(20)", new BetaRTIndicator(pf, 20), x, Ref.beta(x, y, 20));
        series("Sharpe(30)", new SharpeRatioRTIndicator(30), x, Ref.sharpe(x, 30, 0));
        series("Sharpe(30, rf)", new SharpeRatioRTIndicator(30, 0.0001), x, Ref.sharpe(x, 30, 0.0001));
        series("Sortino(30)", new SortinoRatioRTIndicator(30), x, Ref.sortino(x, 30));
        series("Omega(30)", new OmegaRatioRTIndicator(30), x, Ref.omega(x, 30, 0));
        series("Calmar(50)", new CalmarRatioRTIndicator(50), x, Ref.calmar(x, 50));
        series("MaxDrawdown()", new MaxDrawdownRTIndicator(), x, Ref.maxDrawdownAll(x));
        series("MaxDrawdown(40)", new MaxDrawdownRTIndicator(40), x, Ref.maxDrawdown(x, 40));
        series("Ulcer(14)", new UlcerIndexRTIndicator(), x, Ref.ulcer(x, 14));
        // trend
        double[][] lr = Ref.linreg(x, 20);
        series("LinearRegression(20) fitted", new SimpleLinearRegressionRTIndicator(20), x, lr[0]);
        series("LinearRegressionSlope(20)", new LinearRegressionSlopeRTIndicator(20), x, lr[1]);
        double[][] adx = Ref.adx(h, l, c, 14);
        bars("ADX(14)", new AdxRTIndicator(), adx[0]);
        AdxRTIndicator ad = new AdxRTIndicator(14);
        barsAccessor("ADX +DI", ad, ad::getPlusDi, adx[1]);
        ad = new AdxRTIndicator(14);
        AdxRTIndicator ad2 = ad;
        barsAccessor("ADX -DI", ad, ad2::getMinusDi, adx[2]);
        double[][] ar = Ref.aroon(h, l, 25);
        bars("Aroon(25)", new AroonRTIndicator(), ar[0]);
        AroonRTIndicator aro = new AroonRTIndicator(25);
        barsAccessor("Aroon up", aro, aro::getUp, ar[1]);
        bars("SuperTrend(10,3)", new SuperTrendRTIndicator(), Ref.superTrend(h, l, c, 10, 3));
        bars("SuperTrend(7,2)", new SuperTrendRTIndicator(7, 2), Ref.superTrend(h, l, c, 7, 2));
        bars("ParabolicSAR", new ParabolicSarRTIndicator(), Ref.psar(h, l, 0.02, 0.2));
        double[][] ich = Ref.ichimoku(h, l, 9, 26, 52);
        bars("Ichimoku tenkan", new IchimokuRTIndicator(), ich[0]);
        IchimokuRTIndicator ic = new IchimokuRTIndicator();
        barsAccessor("Ichimoku kijun", ic, ic::getKijun, ich[1]);
        ic = new IchimokuRTIndicator();
        IchimokuRTIndicator ic2 = ic;
        barsAccessor("Ichimoku senkou B", ic, ic2::getSenkouB, ich[2]);
        // volatility
        bars("ATR(14)", new AtrRTIndicator(), Ref.atr(h, l, c, 14));
        bars("NATR(14)", new NatrRTIndicator(), Ref.natr(h, l, c, 14));
        series("PercentVolatility(20)", new PercentVolatilityRTIndicator(20), x, Ref.percentVolatility(x, 20));
        series("RealizedVolatility(20)", new RealizedVolatilityRTIndicator(20), x, Ref.realizedVolatility(x, 20));
        bars("Parkinson(20)", new ParkinsonRTIndicator(20), Ref.parkinson(h, l, 20));
        bars("GarmanKlass(20)", new GarmanKlassRTIndicator(20), Ref.garmanKlass(o, h, l, c, 20));
        series("EwmaVolatility(0.94)", new EwmaVolatilityRTIndicator(), x, Ref.ewmaVol(x, 0.94, 1));
        series("EwmaVolatility(20)", new EwmaVolatilityRTIndicator(20), x, Ref.ewmaVol(x, 1 - 2.0 / 21, 20));
        // volume
        bars("VWAP cumulative", new VwapRTIndicator(), Ref.vwapCumulative(h, l, c, v));
        bars("VWAP(20)", new VwapRTIndicator(20), Ref.vwap(h, l, c, v, 20));
        bars("OBV", new ObvRTIndicator(), Ref.obv(c, v));
        bars("MFI(14)", new MfiRTIndicator(), Ref.mfi(h, l, c, v, 14));
        bars("CMF(20)", new CmfRTIndicator(), Ref.cmf(h, l, c, v, 20));
        bars("ADL", new AdlRTIndicator(), Ref.adl(h, l, c, v));
        bars("ElderForce(13)", new ElderForceIndexRTIndicator(), Ref.elderForce(c, v, 13));
        // distance, change, streaks, activity
        series("RateChange", new RateChangeRTIndicator(), x, Ref.momentum(x, 1));
        series("PercentChange", new PercentChangeRTIndicator(), x, Ref.roc(x, 1));
        pf = new PairFeed();
        double[] dist = Ref.nan(N);
        for (int t = 0; t < N; t++) {
            dist[t] = (x[t] - y[t]) / y[t] * 100;
        }
        series("Distance(input, other)", new DistanceRTIndicator(pf), x, dist);
        double[] gain = Ref.streak(x, true, true);
        series("Gain (reset on flat)", new GainRTIndicator(), x, gain);
        series("Gain (sustain)", new GainRTIndicator(false), x, Ref.streak(x, true, false));
        series("Loss", new LossRTIndicator(), x, Ref.streak(x, false, true));
        series("Volatility(10)", new VolatilityRTIndicator(10), x, Ref.activity(x, 10));
        double[] clamped = Ref.activity(x, 10);
        VolatilityRTIndicator vc = new VolatilityRTIndicator(10).clampUpdates(30);
        for (int t = 0; t < N; t++) {
            vc.update(x[t]);
            if (t < 30 && (vc.getValue() != 0 || vc.isReady())) {
                Check.fail("Volatility clampUpdates(30): step " + t + " should read 0 and not ready");
                break;
            }
            if (t >= 30 && !close(clamped[t], vc.getValue())) {
                Check.fail("Volatility clampUpdates(30): step " + t + " expected " + clamped[t] + " got " + vc.getValue());
                break;
            }
        }

        sourceComposition();
        nanInputs();
        drift();
        resetAndSingleValueBars();
    }

    /** Feeds y[t] in lock-step with x[t] (the t-th update returns y[t]). */
    static final class PairFeed implements RTIndicator {
        private int t = -1;

        @Override
        public double getValue() {
            return t < 0 ? Double.NaN : y[t];
        }

        @Override
        public double update(double newValue) {
            t++;
            return y[t];
        }
    }

    static void sourceComposition() {
        // (RTIndicator source, periods): SMA(10) over a private EMA(5) pipeline
        double[] e = Ref.ema(x, 5);
        series("SMA(10) of EMA(5) (private source)", new SmaRTIndicator(new EmaRTIndicator(5), 10), x,
                Ref.onSuffix(e, s -> Ref.sma(s, 10)));
        // read-only view: the view is never advanced by the consumer
        EmaRTIndicator shared = new EmaRTIndicator(5);
        StandardDeviationRTIndicator sd = new StandardDeviationRTIndicator(shared.ro(), 10);
        double[] ref = Ref.onSuffix(e, s -> Ref.std(s, 10, false));
        for (int t = 0; t < N; t++) {
            shared.update(x[t]);
            sd.update(x[t]);
            if (!close(ref[t], sd.getValue()) || sd.isReady() == Double.isNaN(ref[t])) {
                Check.fail("StdDev over ro(EMA) at step " + t + ": expected " + ref[t] + " got " + sd.getValue());
                return;
            }
        }
        Check.near(e[N - 1], shared.getValue(), "the shared EMA is advanced once per step only");
        RTIndicator ro = shared.ro();
        double before = shared.getValue();
        Check.near(before, ro.update(12345), "ro().update returns the current value");
        Check.near(before, shared.getValue(), "ro().update does not advance the target");
        ro.reset();
        Check.isTrue(shared.isReady(), "ro().reset does not reset the target");
        Check.isTrue(ro.ro() == ro, "ro() of a view is the view");
    }

    /**
     * The SMA as it was written before it kept its own ring (a {@link com.wualabs.qtsurfer.engine.indicators.core.DoubleRing},
     * re-summed when it wrapped): {@link SmaRTIndicator#update} and the series loop {@link SmaRTIndicator#updateAll}
     * must give its values bit for bit.
     */
    static final class RingSma {
        private final int periods;
        private final boolean discrete;
        private final com.wualabs.qtsurfer.engine.indicators.core.DoubleRing ring;
        private double sum;
        double value = Double.NaN;

        RingSma(int periods, boolean discrete) {
            this.periods = periods;
            this.discrete = discrete;
            this.ring = new com.wualabs.qtsurfer.engine.indicators.core.DoubleRing(periods);
        }

        double update(double x) {
            if (x != x) {
                return value;
            }
            double old = ring.push(x);
            if (old == old) {
                sum += x - old;
                if (ring.wrapped()) {
                    sum = ring.sum();
                }
            } else {
                sum += x;
            }
            int n = ring.size();
            if (n == periods) {
                value = sum / periods;
            } else if (!discrete) {
                value = sum / n;
            }
            return value;
        }
    }

    /** Inputs for the bulk-update checks: a walk with NaNs, -0.0, leading NaNs and one infinity. */
    static double[] bulkInputs() {
        Random r = new Random(31);
        int n = 20_000;
        double[] in = new double[n];
        double px = 50_000;
        for (int i = 0; i < n; i++) {
            px += r.nextGaussian() * 3;
            in[i] = i % 97 == 5 ? Double.NaN : i % 1_001 == 7 ? -0.0 : i < 3 ? Double.NaN : px;
        }
        in[15_000] = Double.POSITIVE_INFINITY; // the window then holds an infinity, the sum NaN, until it leaves
        return in;
    }

    /** An indicator's series loop ({@code updateAll}) and its {@code update}, as the checks below use them. */
    interface Bulk {
        double updateAll(double[] in, int len, double[] out, int at, double v);
    }

    /**
     * Values of {@code bulk} fed {@code in} by {@code updateAll} in uneven chunks, and of {@code mixed} fed
     * chunks alternately by {@code updateAll} and by {@code update}, against {@code want} (each input's value,
     * NaN inputs holding the last): the count of values whose bits differ, plus one if the two indicators
     * end in another value or readiness than {@code end}.
     */
    static int bulkMismatches(double[] in, double[] want, Bulk bulk, RTIndicator mixedInd, Bulk mixed, RTIndicator end) {
        int n = in.length;
        double[] out = new double[n];
        double[] chunk = new double[n];
        double v = Double.NaN;
        double vMixed = Double.NaN;
        for (int at = 0, len = 1; at < n; at += len, len = Math.min(2 * len + 3, 4_096)) {
            len = Math.min(len, n - at);
            System.arraycopy(in, at, chunk, 0, len);
            v = bulk.updateAll(chunk, len, out, at, v);
            if ((at / 7) % 2 == 0) {
                vMixed = mixed.updateAll(chunk, len, null, 0, vMixed);
            } else {
                for (int k = 0; k < len; k++) {
                    vMixed = chunk[k] == chunk[k] ? mixedInd.update(chunk[k]) : vMixed;
                }
            }
        }
        int mismatches = 0;
        for (int i = 0; i < n; i++) {
            if (Double.doubleToRawLongBits(out[i]) != Double.doubleToRawLongBits(want[i])) {
                mismatches++;
            }
        }
        if (Double.doubleToRawLongBits(vMixed) != Double.doubleToRawLongBits(want[n - 1])
                || Double.doubleToRawLongBits(mixedInd.getValue()) != Double.doubleToRawLongBits(end.getValue())
                || mixedInd.isReady() != end.isReady()) {
            mismatches++;
        }
        return mismatches;
    }

    /** Each input's value through {@code step} (NaN inputs skipped: the last value held). */
    static double[] stepped(double[] in, java.util.function.DoubleUnaryOperator step) {
        double[] want = new double[in.length];
        double v = Double.NaN;
        for (int i = 0; i < in.length; i++) {
            v = in[i] == in[i] ? step.applyAsDouble(in[i]) : v;
            want[i] = v;
        }
        return want;
    }

    /** The SMA's series loop and its update against the ring SMA, the EMA's series loop against its update. */
    static void smaBits() {
        double[] in = bulkInputs();
        int mismatches = 0;
        for (int p : new int[] {1, 2, 7, 20, 200}) {
            for (boolean discrete : new boolean[] {true, false}) {
                RingSma ref = new RingSma(p, discrete);
                double[] want = stepped(in, ref::update);
                SmaRTIndicator one = new SmaRTIndicator(p, discrete);
                mismatches += java.util.Arrays.equals(stepped(in, one::update), want) ? 0 : 1;
                SmaRTIndicator bulk = new SmaRTIndicator(p, discrete);
                SmaRTIndicator mixed = new SmaRTIndicator(p, discrete);
                mismatches += bulkMismatches(in, want, bulk::updateAll, mixed, mixed::updateAll, one);
            }
        }
        Check.equal(0, mismatches, "SMA by update, by updateAll in chunks and mixed: the ring SMA's bits");
        mismatches = 0;
        for (int p : new int[] {1, 2, 9, 21, 200}) {
            EmaRTIndicator one = new EmaRTIndicator(p);
            double[] want = stepped(in, one::update);
            EmaRTIndicator bulk = new EmaRTIndicator(p);
            EmaRTIndicator mixed = new EmaRTIndicator(p);
            mismatches += bulkMismatches(in, want, bulk::updateAll, mixed, mixed::updateAll, one);
        }
        Check.equal(0, mismatches, "EMA by updateAll in chunks and mixed: update's bits");
    }

    static void nanInputs() {
        SmaRTIndicator a = new SmaRTIndicator(3);
        for (double d : new double[] {1, Double.NaN, 2, Double.NaN, 3}) {
            a.update(d);
        }
        Check.isTrue(a.isReady(), "NaN inputs are skipped (SMA(3) ready after 3 real values)");
        Check.near(2.0, a.getValue(), "NaN inputs do not enter the window");
        RsiRTIndicator r = new RsiRTIndicator(2);
        r.update(1);
        r.update(Double.NaN);
        r.update(2);
        Check.isFalse(r.isReady(), "RSI(2) not ready after 2 real values");
        r.update(1.5);
        Check.near(Ref.rsiCutler(new double[] {1, 2, 1.5}, 2)[2], r.getValue(), "RSI skips NaN");
        SmaRTIndicator fresh = new SmaRTIndicator(5);
        Check.isTrue(Double.isNaN(fresh.getValue()), "value is NaN before the first input");
    }

    static void drift() {
        // one million updates around 50000 with tiny moves: the incremental sums must stay exact
        Random r = new Random(7);
        int n = 1_000_000;
        double[] big = new double[n];
        double p = 50_000;
        for (int t = 0; t < n; t++) {
            p += r.nextGaussian() * 0.01;
            big[t] = p;
        }
        SmaRTIndicator sma = new SmaRTIndicator(20);
        StandardDeviationRTIndicator sd = new StandardDeviationRTIndicator(20);
        BollingerRTIndicator bb = new BollingerRTIndicator(50, 2);
        WmaRTIndicator wma = new WmaRTIndicator(30);
        RsiRTIndicator rsi = new RsiRTIndicator(14);
        for (double d : big) {
            sma.update(d);
            sd.update(d);
            bb.update(d);
            wma.update(d);
            rsi.update(d);
        }
        Check.near(Ref.mean(big, n - 20, n - 1), sma.getValue(), 1e-12, "SMA exact after 1e6 updates");
        Check.near(Math.sqrt(Ref.popVar(big, n - 20, n - 1)), sd.getValue(), 1e-6, "StdDev exact after 1e6 updates");
        Check.near(Math.sqrt(Ref.popVar(big, n - 50, n - 1)) * 2 + Ref.mean(big, n - 50, n - 1), bb.getUpper(), 1e-12,
                "Bollinger exact after 1e6 updates");
        double[] tail = java.util.Arrays.copyOfRange(big, n - 40, n);
        Check.near(Ref.wma(tail, 30)[39], wma.getValue(), 1e-12, "WMA exact after 1e6 updates");
        Check.near(Ref.rsiCutler(tail, 14)[39], rsi.getValue(), 1e-7, "Cutler RSI exact after 1e6 updates");
    }

    static void resetAndSingleValueBars() {
        EmaRTIndicator e = new EmaRTIndicator(3);
        for (int t = 0; t < 10; t++) {
            e.update(x[t]);
        }
        e.reset();
        Check.isFalse(e.isReady(), "reset clears readiness");
        Check.isTrue(Double.isNaN(e.getValue()), "reset clears the value");
        series("EMA(9) after reset", resetAfterJunk(new EmaRTIndicator(9)), x, Ref.ema(x, 9));
        // a bar indicator fed single values sees a bar with O=H=L=C=value
        AtrRTIndicator atr = new AtrRTIndicator(5);
        double[] tr = new double[N];
        for (int t = 1; t < N; t++) {
            tr[t] = Math.abs(x[t] - x[t - 1]);
        }
        series("ATR(5) on single values", atr, x, Ref.mma(tr, 5));
        Check.isFalse(new AtrRTIndicator(new EmaRTIndicator(3), 5).wantsBars(),
                "a bar indicator built over a source does not want bars");
        Check.isTrue(new AtrRTIndicator(5).wantsBars(), "a plain bar indicator wants bars");
    }

    private static <T extends RTIndicator> T resetAfterJunk(T ind) {
        for (int i = 0; i < 50; i++) {
            ind.update(i * 3.5);
        }
        ind.reset();
        return ind;
    }
}
