package com.wualabs.qtsurfer.engine.checks;

import java.util.Arrays;

/**
 * Straightforward batch references for every indicator: each value is recomputed from the input arrays
 * (sums over the window, textbook recurrences), never incrementally. NaN marks "not ready". One function
 * per indicator, kept in one file (hence its length) so that the formulas read side by side.
 */
final class Ref {

    private Ref() {
    }

    static double[] nan(int n) {
        double[] r = new double[n];
        Arrays.fill(r, Double.NaN);
        return r;
    }

    static double mean(double[] x, int from, int to) {
        double s = 0;
        for (int i = from; i <= to; i++) {
            s += x[i];
        }
        return s / (to - from + 1);
    }

    static double popVar(double[] x, int from, int to) {
        double m = mean(x, from, to);
        double s = 0;
        for (int i = from; i <= to; i++) {
            s += (x[i] - m) * (x[i] - m);
        }
        return s / (to - from + 1);
    }

    static double sampleVar(double[] x, int from, int to) {
        int n = to - from + 1;
        return popVar(x, from, to) * n / (n - 1);
    }

    static double[] sma(double[] x, int n) {
        double[] r = nan(x.length);
        for (int t = n - 1; t < x.length; t++) {
            r[t] = mean(x, t - n + 1, t);
        }
        return r;
    }

    static double[] smaContinuous(double[] x, int n) {
        double[] r = nan(x.length);
        for (int t = 0; t < x.length; t++) {
            r[t] = mean(x, Math.max(0, t - n + 1), t);
        }
        return r;
    }

    /** EMA seeded with the mean of the first n values, then e += 2/(n+1) * (x - e). */
    static double[] ema(double[] x, int n) {
        double[] r = nan(x.length);
        double a = 2.0 / (n + 1);
        for (int t = n - 1; t < x.length; t++) {
            r[t] = t == n - 1 ? mean(x, 0, n - 1) : r[t - 1] + a * (x[t] - r[t - 1]);
        }
        return r;
    }

    /** ema over the non-NaN suffix of x. */
    static double[] emaOfSeries(double[] x, int n) {
        return onSuffix(x, s -> ema(s, n));
    }

    static double[] mma(double[] x, int n) {
        double[] r = nan(x.length);
        for (int t = n - 1; t < x.length; t++) {
            r[t] = t == n - 1 ? mean(x, 0, n - 1) : (r[t - 1] * (n - 1) + x[t]) / n;
        }
        return r;
    }

    static double[] wma(double[] x, int n) {
        double[] r = nan(x.length);
        for (int t = n - 1; t < x.length; t++) {
            double num = 0;
            double den = 0;
            for (int k = 1; k <= n; k++) {
                num += k * x[t - n + k];
                den += k;
            }
            r[t] = num / den;
        }
        return r;
    }

    interface SeriesFn {
        double[] apply(double[] x);
    }

    /** Applies fn to the part of x after its leading NaNs and re-aligns. */
    static double[] onSuffix(double[] x, SeriesFn fn) {
        int start = 0;
        while (start < x.length && Double.isNaN(x[start])) {
            start++;
        }
        double[] r = nan(x.length);
        if (start == x.length) {
            return r;
        }
        double[] part = fn.apply(Arrays.copyOfRange(x, start, x.length));
        System.arraycopy(part, 0, r, start, part.length);
        return r;
    }

    static double[] hma(double[] x, int n) {
        double[] half = wma(x, Math.max(1, n / 2));
        double[] full = wma(x, n);
        double[] diff = nan(x.length);
        for (int t = 0; t < x.length; t++) {
            if (!Double.isNaN(half[t]) && !Double.isNaN(full[t])) {
                diff[t] = 2 * half[t] - full[t];
            }
        }
        int s = Math.max(1, (int) Math.floor(Math.sqrt(n)));
        return onSuffix(diff, d -> wma(d, s));
    }

    static double[] tema(double[] x, int n) {
        double[] e1 = ema(x, n);
        double[] e2 = emaOfSeries(e1, n);
        double[] e3 = emaOfSeries(e2, n);
        double[] r = nan(x.length);
        for (int t = 0; t < x.length; t++) {
            if (!Double.isNaN(e3[t])) {
                r[t] = 3 * e1[t] - 3 * e2[t] + e3[t];
            }
        }
        return r;
    }

    static double[] kama(double[] x, int n, int fast, int slow) {
        double[] r = nan(x.length);
        double f = 2.0 / (fast + 1);
        double s = 2.0 / (slow + 1);
        for (int t = n; t < x.length; t++) {
            double change = Math.abs(x[t] - x[t - n]);
            double vol = 0;
            for (int i = t - n + 1; i <= t; i++) {
                vol += Math.abs(x[i] - x[i - 1]);
            }
            double er = vol == 0 ? 0 : change / vol;
            double sc = Math.pow(er * (f - s) + s, 2);
            double prev = t == n ? x[t - 1] : r[t - 1];
            r[t] = prev + sc * (x[t] - prev);
        }
        return r;
    }

    static double rsiOf(double g, double l) {
        if (l == 0) {
            return g == 0 ? 50 : 100;
        }
        return 100 - 100 / (1 + g / l);
    }

    static double[] rsiCutler(double[] x, int n) {
        double[] r = nan(x.length);
        for (int t = n; t < x.length; t++) {
            double g = 0;
            double l = 0;
            for (int i = t - n + 1; i <= t; i++) {
                double d = x[i] - x[i - 1];
                if (d > 0) {
                    g += d;
                } else {
                    l -= d;
                }
            }
            r[t] = rsiOf(g / n, l / n);
        }
        return r;
    }

    static double[] rsiWilder(double[] x, int n) {
        double[] r = nan(x.length);
        double ag = 0;
        double al = 0;
        for (int t = 1; t < x.length; t++) {
            double d = x[t] - x[t - 1];
            double g = Math.max(d, 0);
            double l = Math.max(-d, 0);
            if (t < n) {
                ag += g;
                al += l;
            } else if (t == n) {
                ag = (ag + g) / n;
                al = (al + l) / n;
                r[t] = rsiOf(ag, al);
            } else {
                ag = (ag * (n - 1) + g) / n;
                al = (al * (n - 1) + l) / n;
                r[t] = rsiOf(ag, al);
            }
        }
        return r;
    }

    /** [middle, upper, lower] with the population standard deviation. */
    static double[][] bollinger(double[] x, int n, double k) {
        double[][] r = {nan(x.length), nan(x.length), nan(x.length)};
        for (int t = n - 1; t < x.length; t++) {
            double m = mean(x, t - n + 1, t);
            double sd = Math.sqrt(popVar(x, t - n + 1, t));
            r[0][t] = m;
            r[1][t] = m + k * sd;
            r[2][t] = m - k * sd;
        }
        return r;
    }

    static double[] std(double[] x, int n, boolean sample) {
        double[] r = nan(x.length);
        for (int t = n - 1; t < x.length; t++) {
            r[t] = Math.sqrt(sample ? sampleVar(x, t - n + 1, t) : popVar(x, t - n + 1, t));
        }
        return r;
    }

    static double[] variance(double[] x, int n, boolean sample) {
        double[] r = nan(x.length);
        for (int t = n - 1; t < x.length; t++) {
            r[t] = sample ? sampleVar(x, t - n + 1, t) : popVar(x, t - n + 1, t);
        }
        return r;
    }

    static double[] zscore(double[] x, int n) {
        double[] r = nan(x.length);
        for (int t = n - 1; t < x.length; t++) {
            double sd = Math.sqrt(popVar(x, t - n + 1, t));
            r[t] = sd == 0 ? 0 : (x[t] - mean(x, t - n + 1, t)) / sd;
        }
        return r;
    }

    static double central(double[] x, int from, int to, int k) {
        double m = mean(x, from, to);
        double s = 0;
        for (int i = from; i <= to; i++) {
            s += Math.pow(x[i] - m, k);
        }
        return s / (to - from + 1);
    }

    static double[] skewness(double[] x, int n) {
        double[] r = nan(x.length);
        for (int t = n - 1; t < x.length; t++) {
            double m2 = central(x, t - n + 1, t, 2);
            r[t] = m2 == 0 ? 0 : central(x, t - n + 1, t, 3) / Math.pow(m2, 1.5);
        }
        return r;
    }

    static double[] kurtosis(double[] x, int n) {
        double[] r = nan(x.length);
        for (int t = n - 1; t < x.length; t++) {
            double m2 = central(x, t - n + 1, t, 2);
            r[t] = m2 == 0 ? 0 : central(x, t - n + 1, t, 4) / (m2 * m2) - 3;
        }
        return r;
    }

    static double[] percentile(double[] x, int n, double p) {
        double[] r = nan(x.length);
        for (int t = n - 1; t < x.length; t++) {
            double[] w = Arrays.copyOfRange(x, t - n + 1, t + 1);
            Arrays.sort(w);
            double rank = p / 100 * (n - 1);
            int lo = (int) Math.floor(rank);
            int hi = Math.min(lo + 1, n - 1);
            r[t] = w[lo] + (w[hi] - w[lo]) * (rank - lo);
        }
        return r;
    }

    static double cov(double[] a, double[] b, int from, int to) {
        double ma = mean(a, from, to);
        double mb = mean(b, from, to);
        double s = 0;
        for (int i = from; i <= to; i++) {
            s += (a[i] - ma) * (b[i] - mb);
        }
        return s / (to - from + 1);
    }

    static double[] covariance(double[] a, double[] b, int n) {
        double[] r = nan(a.length);
        for (int t = n - 1; t < a.length; t++) {
            r[t] = cov(a, b, t - n + 1, t);
        }
        return r;
    }

    static double[] correlation(double[] a, double[] b, int n) {
        double[] r = nan(a.length);
        for (int t = n - 1; t < a.length; t++) {
            double va = cov(a, a, t - n + 1, t);
            double vb = cov(b, b, t - n + 1, t);
            r[t] = va <= 0 || vb <= 0 ? 0 : cov(a, b, t - n + 1, t) / Math.sqrt(va * vb);
        }
        return r;
    }

    static double[] returns(double[] x) {
        double[] r = nan(x.length);
        for (int t = 1; t < x.length; t++) {
            r[t] = x[t] / x[t - 1] - 1;
        }
        return r;
    }

    static double[] beta(double[] a, double[] m, int n) {
        double[] ra = returns(a);
        double[] rm = returns(m);
        double[] r = nan(a.length);
        for (int t = n; t < a.length; t++) {
            double v = cov(rm, rm, t - n + 1, t);
            r[t] = v <= 0 ? 0 : cov(ra, rm, t - n + 1, t) / v;
        }
        return r;
    }

    static double[] sharpe(double[] x, int n, double rf) {
        double[] ret = returns(x);
        double[] r = nan(x.length);
        for (int t = n; t < x.length; t++) {
            double sd = Math.sqrt(sampleVar(ret, t - n + 1, t));
            r[t] = sd == 0 ? 0 : (mean(ret, t - n + 1, t) - rf) / sd;
        }
        return r;
    }

    static double[] sortino(double[] x, int n) {
        double[] ret = returns(x);
        double[] r = nan(x.length);
        for (int t = n; t < x.length; t++) {
            double down = 0;
            for (int i = t - n + 1; i <= t; i++) {
                down += Math.pow(Math.min(ret[i], 0), 2);
            }
            double dd = Math.sqrt(down / n);
            r[t] = dd == 0 ? 0 : mean(ret, t - n + 1, t) / dd;
        }
        return r;
    }

    static double[] omega(double[] x, int n, double th) {
        double[] ret = returns(x);
        double[] r = nan(x.length);
        for (int t = n; t < x.length; t++) {
            double up = 0;
            double down = 0;
            for (int i = t - n + 1; i <= t; i++) {
                up += Math.max(ret[i] - th, 0);
                down += Math.max(th - ret[i], 0);
            }
            r[t] = down == 0 ? 0 : up / down;
        }
        return r;
    }

    static double drawdown(double[] x, int from, int to) {
        double dd = 0;
        for (int i = from; i <= to; i++) {
            double peak = x[from];
            for (int j = from; j <= i; j++) {
                peak = Math.max(peak, x[j]);
            }
            dd = Math.max(dd, (peak - x[i]) / peak * 100);
        }
        return dd;
    }

    static double[] maxDrawdownAll(double[] x) {
        double[] r = nan(x.length);
        for (int t = 0; t < x.length; t++) {
            r[t] = drawdown(x, 0, t);
        }
        return r;
    }

    static double[] maxDrawdown(double[] x, int n) {
        double[] r = nan(x.length);
        for (int t = n - 1; t < x.length; t++) {
            r[t] = drawdown(x, t - n + 1, t);
        }
        return r;
    }

    static double[] calmar(double[] x, int n) {
        double[] r = nan(x.length);
        for (int t = n; t < x.length; t++) {
            double dd = drawdown(x, t - n, t);
            r[t] = dd == 0 ? 0 : (x[t] / x[t - n] - 1) * 100 / dd;
        }
        return r;
    }

    static double[] ulcer(double[] x, int n) {
        double[] r = nan(x.length);
        for (int t = n - 1; t < x.length; t++) {
            double s = 0;
            for (int i = t - n + 1; i <= t; i++) {
                double peak = x[t - n + 1];
                for (int j = t - n + 1; j <= i; j++) {
                    peak = Math.max(peak, x[j]);
                }
                s += Math.pow(100 * (x[i] - peak) / peak, 2);
            }
            r[t] = Math.sqrt(s / n);
        }
        return r;
    }

    /** [fitted value at newest, slope] of least squares over the last n values. */
    static double[][] linreg(double[] x, int n) {
        double[][] r = {nan(x.length), nan(x.length)};
        for (int t = n - 1; t < x.length; t++) {
            double sx = 0;
            double sy = 0;
            double sxy = 0;
            double sxx = 0;
            for (int i = 0; i < n; i++) {
                double y = x[t - n + 1 + i];
                sx += i;
                sy += y;
                sxy += i * y;
                sxx += (double) i * i;
            }
            double den = n * sxx - sx * sx;
            double slope = den == 0 ? 0 : (n * sxy - sx * sy) / den;
            double intercept = (sy - slope * sx) / n;
            r[0][t] = intercept + slope * (n - 1);
            r[1][t] = slope;
        }
        return r;
    }

    static double[] roc(double[] x, int n) {
        double[] r = nan(x.length);
        for (int t = n; t < x.length; t++) {
            r[t] = 100 * (x[t] - x[t - n]) / x[t - n];
        }
        return r;
    }

    static double[] momentum(double[] x, int n) {
        double[] r = nan(x.length);
        for (int t = n; t < x.length; t++) {
            r[t] = x[t] - x[t - n];
        }
        return r;
    }

    /** [macd, signal, histogram], all NaN until the signal line exists. */
    static double[][] macd(double[] x, int fast, int slow, int sig) {
        double[] f = ema(x, fast);
        double[] s = ema(x, slow);
        double[] line = nan(x.length);
        for (int t = 0; t < x.length; t++) {
            if (!Double.isNaN(f[t]) && !Double.isNaN(s[t])) {
                line[t] = f[t] - s[t];
            }
        }
        double[] signal = emaOfSeries(line, sig);
        double[][] r = {nan(x.length), nan(x.length), nan(x.length)};
        for (int t = 0; t < x.length; t++) {
            if (!Double.isNaN(signal[t])) {
                r[0][t] = line[t];
                r[1][t] = signal[t];
                r[2][t] = line[t] - signal[t];
            }
        }
        return r;
    }

    static double maxOf(double[] a, int from, int to) {
        double m = Double.NEGATIVE_INFINITY;
        for (int i = from; i <= to; i++) {
            m = Math.max(m, a[i]);
        }
        return m;
    }

    static double minOf(double[] a, int from, int to) {
        double m = Double.POSITIVE_INFINITY;
        for (int i = from; i <= to; i++) {
            m = Math.min(m, a[i]);
        }
        return m;
    }

    /** [%K, %D]. */
    static double[][] stochastic(double[] h, double[] l, double[] c, int k, int d) {
        double[][] r = {nan(c.length), nan(c.length)};
        for (int t = k - 1; t < c.length; t++) {
            double hh = maxOf(h, t - k + 1, t);
            double ll = minOf(l, t - k + 1, t);
            r[0][t] = hh == ll ? 50 : 100 * (c[t] - ll) / (hh - ll);
        }
        for (int t = k - 1 + d - 1; t < c.length; t++) {
            r[1][t] = mean(r[0], t - d + 1, t);
        }
        return r;
    }

    static double[] stochRsi(double[] x, int rn, int sn) {
        double[] rsi = rsiWilder(x, rn);
        double[] r = nan(x.length);
        for (int t = rn + sn - 1; t < x.length; t++) {
            double mx = maxOf(rsi, t - sn + 1, t);
            double mn = minOf(rsi, t - sn + 1, t);
            r[t] = mx == mn ? 50 : 100 * (rsi[t] - mn) / (mx - mn);
        }
        return r;
    }

    static double[] cci(double[] h, double[] l, double[] c, int n) {
        double[] tp = new double[c.length];
        for (int t = 0; t < c.length; t++) {
            tp[t] = (h[t] + l[t] + c[t]) / 3;
        }
        double[] r = nan(c.length);
        for (int t = n - 1; t < c.length; t++) {
            double m = mean(tp, t - n + 1, t);
            double md = 0;
            for (int i = t - n + 1; i <= t; i++) {
                md += Math.abs(tp[i] - m);
            }
            md /= n;
            r[t] = md == 0 ? 0 : (tp[t] - m) / (0.015 * md);
        }
        return r;
    }

    static double[] williams(double[] h, double[] l, double[] c, int n) {
        double[] r = nan(c.length);
        for (int t = n - 1; t < c.length; t++) {
            double hh = maxOf(h, t - n + 1, t);
            double ll = minOf(l, t - n + 1, t);
            r[t] = hh == ll ? -50 : -100 * (hh - c[t]) / (hh - ll);
        }
        return r;
    }

    static double[] ultimate(double[] h, double[] l, double[] c, int p1, int p2, int p3) {
        int len = c.length;
        double[] bp = nan(len);
        double[] tr = nan(len);
        for (int t = 1; t < len; t++) {
            double lo = Math.min(l[t], c[t - 1]);
            bp[t] = c[t] - lo;
            tr[t] = Math.max(h[t], c[t - 1]) - lo;
        }
        int mx = Math.max(p1, Math.max(p2, p3));
        double[] r = nan(len);
        for (int t = mx; t < len; t++) {
            double[] a = new double[3];
            int[] ps = {p1, p2, p3};
            for (int j = 0; j < 3; j++) {
                double b = 0;
                double s = 0;
                for (int i = t - ps[j] + 1; i <= t; i++) {
                    b += bp[i];
                    s += tr[i];
                }
                a[j] = s == 0 ? 0 : b / s;
            }
            r[t] = 100 * (4 * a[0] + 2 * a[1] + a[2]) / 7;
        }
        return r;
    }

    static double[] trueRanges(double[] h, double[] l, double[] c) {
        double[] tr = new double[c.length];
        for (int t = 0; t < c.length; t++) {
            tr[t] = t == 0 ? h[t] - l[t]
                    : Math.max(h[t] - l[t], Math.max(Math.abs(h[t] - c[t - 1]), Math.abs(l[t] - c[t - 1])));
        }
        return tr;
    }

    static double[] atr(double[] h, double[] l, double[] c, int n) {
        return mma(trueRanges(h, l, c), n);
    }

    static double[] natr(double[] h, double[] l, double[] c, int n) {
        double[] a = atr(h, l, c, n);
        double[] r = nan(c.length);
        for (int t = 0; t < c.length; t++) {
            if (!Double.isNaN(a[t])) {
                r[t] = 100 * a[t] / c[t];
            }
        }
        return r;
    }

    static double[] percentVolatility(double[] x, int n) {
        double[] pr = nan(x.length);
        for (int t = 1; t < x.length; t++) {
            pr[t] = 100 * (x[t] / x[t - 1] - 1);
        }
        double[] r = nan(x.length);
        for (int t = n; t < x.length; t++) {
            r[t] = Math.sqrt(popVar(pr, t - n + 1, t));
        }
        return r;
    }

    static double[] realizedVolatility(double[] x, int n) {
        double[] r = nan(x.length);
        for (int t = n; t < x.length; t++) {
            double s = 0;
            for (int i = t - n + 1; i <= t; i++) {
                s += Math.pow(Math.log(x[i] / x[i - 1]), 2);
            }
            r[t] = Math.sqrt(s);
        }
        return r;
    }

    static double[] parkinson(double[] h, double[] l, int n) {
        double[] r = nan(h.length);
        for (int t = n - 1; t < h.length; t++) {
            double s = 0;
            for (int i = t - n + 1; i <= t; i++) {
                s += Math.pow(Math.log(h[i] / l[i]), 2);
            }
            r[t] = Math.sqrt(s / (4 * n * Math.log(2)));
        }
        return r;
    }

    static double[] garmanKlass(double[] o, double[] h, double[] l, double[] c, int n) {
        double[] r = nan(h.length);
        for (int t = n - 1; t < h.length; t++) {
            double s = 0;
            for (int i = t - n + 1; i <= t; i++) {
                s += 0.5 * Math.pow(Math.log(h[i] / l[i]), 2)
                        - (2 * Math.log(2) - 1) * Math.pow(Math.log(c[i] / o[i]), 2);
            }
            r[t] = Math.sqrt(Math.max(0, s / n));
        }
        return r;
    }

    static double[] ewmaVol(double[] x, double lambda, int warmup) {
        double[] r = nan(x.length);
        double var = 0;
        for (int t = 1; t < x.length; t++) {
            double ret = Math.log(x[t] / x[t - 1]);
            var = t == 1 ? ret * ret : lambda * var + (1 - lambda) * ret * ret;
            if (t >= warmup) {
                r[t] = Math.sqrt(var);
            }
        }
        return r;
    }

    static double[] vwapCumulative(double[] h, double[] l, double[] c, double[] v) {
        double[] r = nan(c.length);
        for (int t = 0; t < c.length; t++) {
            double pv = 0;
            double vs = 0;
            for (int i = 0; i <= t; i++) {
                pv += (h[i] + l[i] + c[i]) / 3 * v[i];
                vs += v[i];
            }
            r[t] = pv / vs;
        }
        return r;
    }

    static double[] vwap(double[] h, double[] l, double[] c, double[] v, int n) {
        double[] r = nan(c.length);
        for (int t = n - 1; t < c.length; t++) {
            double pv = 0;
            double vs = 0;
            for (int i = t - n + 1; i <= t; i++) {
                pv += (h[i] + l[i] + c[i]) / 3 * v[i];
                vs += v[i];
            }
            r[t] = pv / vs;
        }
        return r;
    }

    static double[] obv(double[] c, double[] v) {
        double[] r = new double[c.length];
        for (int t = 1; t < c.length; t++) {
            r[t] = r[t - 1] + (c[t] > c[t - 1] ? v[t] : c[t] < c[t - 1] ? -v[t] : 0);
        }
        return r;
    }

    static double[] mfi(double[] h, double[] l, double[] c, double[] v, int n) {
        double[] r = nan(c.length);
        for (int t = n; t < c.length; t++) {
            double pos = 0;
            double neg = 0;
            for (int i = t - n + 1; i <= t; i++) {
                double tp = (h[i] + l[i] + c[i]) / 3;
                double ptp = (h[i - 1] + l[i - 1] + c[i - 1]) / 3;
                if (tp > ptp) {
                    pos += tp * v[i];
                } else if (tp < ptp) {
                    neg += tp * v[i];
                }
            }
            r[t] = neg == 0 ? (pos == 0 ? 50 : 100) : 100 - 100 / (1 + pos / neg);
        }
        return r;
    }

    static double mfm(double h, double l, double c) {
        return h == l ? 0 : ((c - l) - (h - c)) / (h - l);
    }

    static double[] cmf(double[] h, double[] l, double[] c, double[] v, int n) {
        double[] r = nan(c.length);
        for (int t = n - 1; t < c.length; t++) {
            double a = 0;
            double b = 0;
            for (int i = t - n + 1; i <= t; i++) {
                a += mfm(h[i], l[i], c[i]) * v[i];
                b += v[i];
            }
            r[t] = b == 0 ? 0 : a / b;
        }
        return r;
    }

    static double[] adl(double[] h, double[] l, double[] c, double[] v) {
        double[] r = new double[c.length];
        for (int t = 0; t < c.length; t++) {
            r[t] = (t == 0 ? 0 : r[t - 1]) + mfm(h[t], l[t], c[t]) * v[t];
        }
        return r;
    }

    static double[] elderForce(double[] c, double[] v, int n) {
        double[] force = nan(c.length);
        for (int t = 1; t < c.length; t++) {
            force[t] = (c[t] - c[t - 1]) * v[t];
        }
        return emaOfSeries(force, n);
    }

    /** [adx, +DI, -DI] (Wilder, textbook form). */
    static double[][] adx(double[] h, double[] l, double[] c, int n) {
        int len = c.length;
        double[] tr = nan(len);
        double[] pdm = nan(len);
        double[] mdm = nan(len);
        for (int t = 1; t < len; t++) {
            double up = h[t] - h[t - 1];
            double down = l[t - 1] - l[t];
            pdm[t] = up > down && up > 0 ? up : 0;
            mdm[t] = down > up && down > 0 ? down : 0;
            tr[t] = Math.max(h[t] - l[t], Math.max(Math.abs(h[t] - c[t - 1]), Math.abs(l[t] - c[t - 1])));
        }
        double[][] r = {nan(len), nan(len), nan(len)};
        double[] dx = nan(len);
        double sTr = 0;
        double sP = 0;
        double sM = 0;
        for (int t = 1; t < len; t++) {
            if (t <= n) {
                sTr += tr[t];
                sP += pdm[t];
                sM += mdm[t];
                if (t < n) {
                    continue;
                }
            } else {
                sTr = sTr - sTr / n + tr[t];
                sP = sP - sP / n + pdm[t];
                sM = sM - sM / n + mdm[t];
            }
            double pdi = sTr == 0 ? 0 : 100 * sP / sTr;
            double mdi = sTr == 0 ? 0 : 100 * sM / sTr;
            r[1][t] = pdi;
            r[2][t] = mdi;
            dx[t] = pdi + mdi == 0 ? 0 : 100 * Math.abs(pdi - mdi) / (pdi + mdi);
        }
        double[] a = onSuffix(dx, d -> mma(d, n));
        r[0] = a;
        return r;
    }

    /** [oscillator, up, down]. */
    static double[][] aroon(double[] h, double[] l, int n) {
        double[][] r = {nan(h.length), nan(h.length), nan(h.length)};
        for (int t = n; t < h.length; t++) {
            int hi = t - n;
            int lo = t - n;
            for (int i = t - n; i <= t; i++) {
                if (h[i] >= h[hi]) {
                    hi = i;
                }
                if (l[i] <= l[lo]) {
                    lo = i;
                }
            }
            double up = 100.0 * (n - (t - hi)) / n;
            double down = 100.0 * (n - (t - lo)) / n;
            r[0][t] = up - down;
            r[1][t] = up;
            r[2][t] = down;
        }
        return r;
    }

    static double[] superTrend(double[] h, double[] l, double[] c, int n, double m) {
        double[] a = atr(h, l, c, n);
        double[] r = nan(c.length);
        double fu = 0;
        double fl = 0;
        boolean up = false;
        boolean started = false;
        for (int t = 0; t < c.length; t++) {
            if (Double.isNaN(a[t])) {
                continue;
            }
            double mid = (h[t] + l[t]) / 2;
            double bu = mid + m * a[t];
            double bl = mid - m * a[t];
            if (!started) {
                fu = bu;
                fl = bl;
                up = c[t] >= mid;
                started = true;
            } else {
                double nfu = (bu < fu || c[t - 1] > fu) ? bu : fu;
                double nfl = (bl > fl || c[t - 1] < fl) ? bl : fl;
                fu = nfu;
                fl = nfl;
                if (up && c[t] < fl) {
                    up = false;
                } else if (!up && c[t] > fu) {
                    up = true;
                }
            }
            r[t] = up ? fl : fu;
        }
        return r;
    }

    static double[] psar(double[] h, double[] l, double step, double max) {
        double[] r = nan(h.length);
        if (h.length < 2) {
            return r;
        }
        boolean lng = h[1] + l[1] >= h[0] + l[0];
        double sar = lng ? Math.min(l[0], l[1]) : Math.max(h[0], h[1]);
        double ep = lng ? Math.max(h[0], h[1]) : Math.min(l[0], l[1]);
        double af = step;
        r[1] = sar;
        for (int t = 2; t < h.length; t++) {
            double s = sar + af * (ep - sar);
            if (lng) {
                s = Math.min(s, Math.min(l[t - 1], l[t - 2]));
                if (l[t] < s) {
                    lng = false;
                    s = ep;
                    ep = l[t];
                    af = step;
                } else if (h[t] > ep) {
                    ep = h[t];
                    af = Math.min(af + step, max);
                }
            } else {
                s = Math.max(s, Math.max(h[t - 1], h[t - 2]));
                if (h[t] > s) {
                    lng = true;
                    s = ep;
                    ep = h[t];
                    af = step;
                } else if (l[t] < ep) {
                    ep = l[t];
                    af = Math.min(af + step, max);
                }
            }
            sar = s;
            r[t] = sar;
        }
        return r;
    }

    /** [tenkan (value, NaN until senkou B), kijun, senkouB]. */
    static double[][] ichimoku(double[] h, double[] l, int tn, int kn, int sn) {
        double[][] r = {nan(h.length), nan(h.length), nan(h.length)};
        for (int t = 0; t < h.length; t++) {
            if (t >= sn - 1) {
                r[0][t] = (maxOf(h, t - tn + 1, t) + minOf(l, t - tn + 1, t)) / 2;
                r[2][t] = (maxOf(h, t - sn + 1, t) + minOf(l, t - sn + 1, t)) / 2;
            }
            if (t >= kn - 1) {
                r[1][t] = (maxOf(h, t - kn + 1, t) + minOf(l, t - kn + 1, t)) / 2;
            }
        }
        return r;
    }

    static double[] activity(double[] x, int n) {
        double[] r = nan(x.length);
        for (int t = n; t < x.length; t++) {
            double s = 0;
            for (int i = t - n + 1; i <= t; i++) {
                s += x[i] != x[i - 1] ? 100 : 0;
            }
            r[t] = s / n;
        }
        return r;
    }

    static double[] streak(double[] x, boolean rising, boolean resetOnFlat) {
        double[] r = new double[x.length];
        for (int t = 1; t < x.length; t++) {
            boolean adv = rising ? x[t] > x[t - 1] : x[t] < x[t - 1];
            if (adv) {
                r[t] = r[t - 1] + 1;
            } else if (x[t] == x[t - 1] && !resetOnFlat) {
                r[t] = r[t - 1];
            } else {
                r[t] = 0;
            }
        }
        return r;
    }
}
