package com.wualabs.qtsurfer.engine.runtime;

import com.wualabs.qtsurfer.engine.core.FundingRate;
import com.wualabs.qtsurfer.engine.core.Kline;
import com.wualabs.qtsurfer.engine.core.Ticker;
import com.wualabs.qtsurfer.engine.core.instrument.Instrument;
import com.wualabs.qtsurfer.engine.strategy.AbstractFundingRateStrategy;
import com.wualabs.qtsurfer.engine.strategy.AbstractKlineStrategy;
import com.wualabs.qtsurfer.engine.strategy.AbstractMultiSourceStrategy;
import com.wualabs.qtsurfer.engine.strategy.AbstractStrategy;
import com.wualabs.qtsurfer.engine.strategy.AbstractTickerStrategy;
import com.wualabs.qtsurfer.engine.strategy.MarketDataSource;
import com.wualabs.qtsurfer.engine.strategy.StrategyInternals;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Modifier;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Entry point for the engine host: inspect a compiled strategy class and start runs of it.
 *
 * <pre>{@code
 * StrategyRun run = StrategyHarness.start(cls, Map.of("ema.fast", "9"), new Instrument("BTC", "USDT"));
 * for (...) run.onTicker(ts, bid, bidSize, ask, askSize, last, volume);
 * run.signalTs(); run.signalSide(); run.signalPrice(); run.signalData(); run.notices();
 * }</pre>
 */
public final class StrategyHarness {

    static final int TICKER = 0;
    static final int KLINE = 1;
    static final int FUNDING = 2;
    static final int MULTI = 3;

    private StrategyHarness() {
    }

    /** The class's {@code @StrategyProperty} declarations (fields and setters, superclasses first). */
    public static List<PropertyInfo> declaredProperties(Class<?> strategyClass) {
        return Collections.unmodifiableList(DeclaredProperties.scan(strategyClass).infos());
    }

    /**
     * The data sources the class consumes: a subset of {@code "Ticker"}, {@code "KLine"}, {@code "FundingRate"}
     * from its base class; for a multi-source strategy, from {@code getRequiredSources()} of a fresh instance.
     */
    public static Set<String> requiredSources(Class<?> strategyClass) {
        int kind = kind(strategyClass);
        Set<String> out = new LinkedHashSet<>();
        switch (kind) {
            case TICKER:
                out.add(MarketDataSource.Ticker.name());
                break;
            case KLINE:
                out.add(MarketDataSource.KLine.name());
                break;
            case FUNDING:
                out.add(MarketDataSource.FundingRate.name());
                break;
            default:
                Set<MarketDataSource> req = ((AbstractMultiSourceStrategy) instantiate(strategyClass)).getRequiredSources();
                EnumSet<MarketDataSource> sorted = EnumSet.noneOf(MarketDataSource.class);
                if (req != null) {
                    for (MarketDataSource s : req) {
                        if (s != null) {
                            sorted.add(s);
                        }
                    }
                }
                for (MarketDataSource s : sorted) {
                    out.add(s.name());
                }
        }
        return Collections.unmodifiableSet(out);
    }

    /**
     * Instantiates the class with its no-arg constructor, applies every annotation default, then
     * {@code params} (unknown key: {@link PropertyException} naming the declared properties), and returns a
     * run fed with {@code instrument}'s events. Keys and values are checked before the constructor runs;
     * plain fields already hold their run value while the constructor body runs (so {@code init} code can
     * read them) and are written again after it.
     *
     * @throws IllegalArgumentException when the class is not a concrete strategy with a no-arg constructor
     * @throws IllegalStateException    when a multi-source strategy requires KLine without a kline interval
     */
    public static StrategyRun start(Class<?> strategyClass, Map<String, String> params, Instrument instrument)
            throws PropertyException {
        Objects.requireNonNull(instrument, "instrument");
        int kind = kind(strategyClass);
        DeclaredProperties props = DeclaredProperties.scan(strategyClass);
        DeclaredProperties.Resolved values = props.resolve(params);
        AbstractStrategy strategy = StrategyInternals.constructWith(s -> props.prewrite(s, values),
                () -> instantiate(strategyClass));
        props.apply(strategy, values, StrategyInternals.notices(strategy));
        if (kind == MULTI) {
            AbstractMultiSourceStrategy multi = (AbstractMultiSourceStrategy) strategy;
            Set<MarketDataSource> req = multi.getRequiredSources();
            if (req != null && req.contains(MarketDataSource.KLine) && multi.getKlineInterval() == null) {
                throw new IllegalStateException(strategyClass.getName()
                        + " requires KLine but getKlineInterval() returns null");
            }
        }
        return new StrategyRun(strategy, instrument, isFast(strategyClass, kind));
    }

    /**
     * Writes new property values into a running strategy (a live run's parameter update), with the
     * conversions and checks of {@link #start}: every key is checked and every value parsed before
     * anything is written (unknown key, unparsable value: {@link PropertyException}, nothing
     * changed), then the values are injected in declaration order (through the setter when there
     * is one), then the engine keys. Defaults are not applied again. A setter that throws ends
     * the injection with a {@link PropertyException}; the values written before it stay.
     */
    public static void setProperties(StrategyRun run, Map<String, String> params) throws PropertyException {
        AbstractStrategy strategy = run.strategy();
        DeclaredProperties props = DeclaredProperties.scan(strategy.getClass());
        DeclaredProperties.Resolved values = props.resolve(params);
        props.update(strategy, values, StrategyInternals.notices(strategy));
    }

    static int kind(Class<?> cls) {
        Objects.requireNonNull(cls, "strategyClass");
        if (AbstractTickerStrategy.class.isAssignableFrom(cls)) {
            return TICKER;
        }
        if (AbstractKlineStrategy.class.isAssignableFrom(cls)) {
            return KLINE;
        }
        if (AbstractFundingRateStrategy.class.isAssignableFrom(cls)) {
            return FUNDING;
        }
        if (AbstractMultiSourceStrategy.class.isAssignableFrom(cls)) {
            return MULTI;
        }
        throw new IllegalArgumentException(cls.getName() + " does not extend AbstractTickerStrategy, "
                + "AbstractKlineStrategy, AbstractFundingRateStrategy or AbstractMultiSourceStrategy");
    }

    private static boolean isFast(Class<?> cls, int kind) {
        try {
            switch (kind) {
                case TICKER:
                    return cls.getMethod("update", Ticker.class).getDeclaringClass() == AbstractTickerStrategy.class;
                case KLINE:
                    return cls.getMethod("update", Kline.class).getDeclaringClass() == AbstractKlineStrategy.class;
                case FUNDING:
                    return cls.getMethod("update", FundingRate.class).getDeclaringClass()
                            == AbstractFundingRateStrategy.class;
                default:
                    return false;
            }
        } catch (NoSuchMethodException e) {
            return false;
        }
    }

    static AbstractStrategy instantiate(Class<?> cls) {
        if (Modifier.isAbstract(cls.getModifiers()) || cls.isInterface()) {
            throw new IllegalArgumentException(cls.getName() + " is abstract");
        }
        if (cls.getEnclosingClass() != null && !Modifier.isStatic(cls.getModifiers())) {
            throw new IllegalArgumentException(cls.getName() + " is an inner class; a strategy must be a top-level "
                    + "or static nested class");
        }
        Constructor<?> ctor;
        try {
            ctor = cls.getDeclaredConstructor();
        } catch (NoSuchMethodException e) {
            throw new IllegalArgumentException(cls.getName() + " has no no-arg constructor");
        }
        try {
            ctor.setAccessible(true);
            return (AbstractStrategy) ctor.newInstance();
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException) {
                throw (RuntimeException) cause;
            }
            if (cause instanceof Error) {
                throw (Error) cause;
            }
            throw new IllegalStateException("the constructor of " + cls.getName() + " failed: " + cause, cause);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalArgumentException("cannot instantiate " + cls.getName() + ": " + e, e);
        }
    }
}
