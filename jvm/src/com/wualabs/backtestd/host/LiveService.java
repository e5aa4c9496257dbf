package com.wualabs.backtestd.host;

import com.wualabs.qtsurfer.engine.core.instrument.Instrument;
import com.wualabs.qtsurfer.engine.runtime.PropertyException;
import com.wualabs.qtsurfer.engine.runtime.PropertyInfo;
import com.wualabs.qtsurfer.engine.runtime.StrategyHarness;
import com.wualabs.qtsurfer.engine.runtime.StrategyRun;
import com.wualabs.qtsurfer.engine.strategy.AbstractKlineStrategy;
import com.wualabs.qtsurfer.engine.strategy.AbstractMultiSourceStrategy;
import com.wualabs.qtsurfer.engine.strategy.AbstractStrategy;
import com.wualabs.qtsurfer.engine.strategy.AbstractTickerStrategy;
import com.wualabs.qtsurfer.engine.strategy.CommandRequest;
import com.wualabs.qtsurfer.engine.strategy.CommandRequestHandler;
import com.wualabs.qtsurfer.engine.strategy.MarketDataSource;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Live sessions: strategy runs kept between requests and fed a few market updates at a time (the
 * {@code live_*} requests; docs/engine-host.md, "Live sessions").
 *
 * <p>A session is exactly what one {@code run} builds — the strategy's classes verified by
 * {@link RunService#verify}, loaded by their own {@link SandboxClassLoader}, started through
 * {@link StrategyHarness#start} — except that it outlives the request: each {@code live_feed}
 * hands the next rows to the same {@link StrategyRun} the way a run's feed loop does
 * ({@code onTickers}/{@code onKlines}), so the same rows give the same signals whether they come in
 * one run or one at a time. Every call that runs user code runs it on a {@link Guard}ed worker
 * thread under the request's limits and fails with the kinds of a run ({@link Failures}); the
 * host's checks after a request (the tripwire, the JVM error counts) apply as to any request.
 *
 * <p>A session's signals are read after each call and then forgotten
 * ({@link StrategyRun#clearSignals}), so an answer holds exactly the signals of that call's rows
 * and the per-run caps apply to one call. A call that fails in the strategy (an exception, an
 * output cap) ends its session: the strategy may be half-way through an update. A failure that
 * ends the host ends every session with it; the client then treats them as lost.
 *
 * <p>Sessions are independent: each has its own loader, so static state is never shared, not
 * even between two sessions of the same strategy (one per instrument of a run).
 */
final class LiveService {
    /** Sessions one host keeps open at once. */
    static final int MAX_SESSIONS = 512;
    /** Rows one {@code live_feed} may carry. */
    static final int MAX_ROWS = 10_000;
    /** Characters of a command's text and of all its property names and values together. */
    static final int MAX_COMMAND_CHARS = 64 * 1024;
    /** Columns of a row per kind, in order: the time column(s), then the values. */
    private static final Map<String, Integer> ROW_WIDTH = Map.of("ticker", 7, "kline", 7);

    private final RunService runner;
    private final Map<String, Session> sessions = new LinkedHashMap<>();
    private long opened;

    LiveService(RunService runner) {
        this.runner = runner;
    }

    /** One open session. Used by one request at a time (the host serves requests in turn). */
    private static final class Session {
        final String id;
        final String kind;
        final StrategyRun run;
        final Class<?> strategy;
        final Set<String> classNames;
        final boolean handlesCommands;
        /** Distinct notices already handed out (see {@link #newNotices}). */
        int noticesSeen;
        /** Event time of the last row processed, or null before the first. */
        Long marketTs;
        long events;

        Session(String id, String kind, StrategyRun run, Class<?> strategy,
                Set<String> classNames) {
            this.id = id;
            this.kind = kind;
            this.run = run;
            this.strategy = strategy;
            this.classNames = classNames;
            this.handlesCommands = CommandRequestHandler.class.isAssignableFrom(strategy);
        }
    }

    /** Sessions open now ({@code ping}). */
    int count() {
        return sessions.size();
    }

    /**
     * {@code live_open}: verifies and loads the classes, starts the strategy with {@code params}
     * for {@code instrument} and keeps it as a new session for {@code kind} data. Answers the
     * session id, whether the strategy takes commands, and what the harness says at the start.
     */
    Map<String, Object> openSession(Map<String, Object> req, Guard.Limits limits)
            throws HostException {
        Map<String, byte[]> classes = RunService.decodeClasses(req.get("class_files"));
        runner.verify(classes);
        String mainClass = Requests.string(req, "main_class");
        if (!classes.containsKey(mainClass)) {
            throw new HostException(HostException.BAD_REQUEST,
                    "main class " + mainClass + " is not among the class files");
        }
        String kind = Requests.string(req, "kind");
        if (!ROW_WIDTH.containsKey(kind)) {
            throw new HostException(HostException.BAD_REQUEST,
                    "a live session takes ticker or kline data, not " + kind);
        }
        Map<String, String> params = Requests.stringMap(req.get("params"));
        Instrument instrument = Requests.instrument(req.get("instrument"));
        if (sessions.size() >= MAX_SESSIONS) {
            throw new HostException(HostException.BAD_REQUEST,
                    "this engine host already holds " + MAX_SESSIONS + " live sessions")
                    .with("limit", "sessions");
        }
        ClassLoader loader = new SandboxClassLoader(classes, HostMain.class.getClassLoader());
        String id = "s" + (++opened);
        Map<String, Object> answer = new LinkedHashMap<>();
        Guard.Outcome<Session> outcome = Guard.call("strategy run", () -> {
            Class<?> strategy = Class.forName(mainClass, false, loader);
            StrategyRun run = RunService.start(strategy, params, instrument);
            String refused = refusal(run.strategy(), kind);
            if (refused != null) {
                throw new HostException(HostException.BAD_REQUEST, refused)
                        .with("refused", "source");
            }
            Session s = new Session(id, kind, run, strategy, classes.keySet());
            answer.put("execution_mode", String.valueOf(run.executionMode()));
            answer.put("percent_gain", run.percentGain());
            answer.put("multi_entry", run.multiEntryEnabled());
            answer.put("notices", newNotices(s));
            return s;
        }, thrown -> Failures.classify(thrown, classes.keySet(), "strategy run"), limits);
        if (outcome.error() != null) {
            throw outcome.error();
        }
        Session s = outcome.value();
        sessions.put(id, s);
        Map<String, Object> header = new LinkedHashMap<>();
        header.put("session", id);
        header.put("handles_commands", s.handlesCommands);
        header.put("kind", kind);
        header.putAll(answer);
        header.put("cpu_ns", outcome.cpuNanos());
        return header;
    }

    /**
     * Why a strategy cannot take {@code kind} data (what a run over it would fail on at its first
     * row), or null when it can. Runs user code ({@code getRequiredSources}): worker thread only.
     */
    private static String refusal(AbstractStrategy s, String kind) {
        boolean ticker = kind.equals("ticker");
        if (s instanceof AbstractTickerStrategy) {
            return ticker ? null : s.getClass().getName() + " consumes ticker data, not " + kind;
        }
        if (s instanceof AbstractKlineStrategy) {
            return !ticker ? null : s.getClass().getName() + " consumes kline data, not " + kind;
        }
        if (s instanceof AbstractMultiSourceStrategy multi) {
            Set<MarketDataSource> required = multi.getRequiredSources();
            MarketDataSource wanted = ticker ? MarketDataSource.Ticker : MarketDataSource.KLine;
            return required != null && required.contains(wanted) ? null
                    : s.getClass().getName() + " does not require " + wanted + " data";
        }
        return s.getClass().getName() + " consumes neither ticker nor kline data";
    }

    /**
     * {@code live_feed}: the session's next {@code rows} (each the kind's run columns in order,
     * times as integers), fed as a run feeds its columns. Answers as a {@code run} does, for
     * these rows only: the signals they produced, {@code events} (rows processed), the new
     * notices, and {@code market_ts}, the event time of the last row processed.
     */
    RunService.Answer feed(Map<String, Object> req, Guard.Limits limits) throws HostException {
        Session s = session(req);
        Rows rows = Rows.parse(s.kind, req.get("rows"));
        long[] progress = new long[2];
        Guard.Outcome<RunService.Collected> outcome;
        try {
            outcome = Guard.call("strategy run", () -> {
                long t0 = System.nanoTime();
                try {
                    rows.feed(s.run, progress);
                } finally {
                    progress[1] = System.nanoTime() - t0;
                    advance(s, rows, (int) progress[0]);
                }
                return collect(s);
            }, thrown -> Failures.classify(thrown, s.classNames, "strategy run"), limits);
        } catch (HostException fatal) {
            throw end(s, fatal).with("events", progress[0]);
        }
        if (outcome.error() != null) {
            throw end(s, outcome.error()).with("events", progress[0]);
        }
        Map<String, Object> header = outcome.value().header();
        header.put("session", s.id);
        header.put("events", progress[0]);
        header.put("elapsed_ns", progress[1]);
        header.put("cpu_ns", outcome.cpuNanos());
        header.put("market_ts", s.marketTs);
        return new RunService.Answer(header, outcome.value().payloads());
    }

    /**
     * {@code live_params}: new values for the session's {@code @StrategyProperty} properties
     * (and the engine keys), converted and injected as at the start of a run
     * ({@link StrategyHarness#setProperties}). A {@code property_error} keeps the session (an
     * unknown key or an unparsable value changes nothing); any other failure ends it.
     */
    Map<String, Object> params(Map<String, Object> req, Guard.Limits limits)
            throws HostException {
        Session s = session(req);
        Map<String, String> params = Requests.stringMap(req.get("params"));
        Guard.Outcome<List<Object>> outcome;
        try {
            outcome = Guard.call("strategy run", () -> {
                try {
                    StrategyHarness.setProperties(s.run, params);
                } catch (PropertyException e) {
                    List<Object> names = new ArrayList<>();
                    for (PropertyInfo p : StrategyHarness.declaredProperties(s.strategy)) {
                        names.add(p.name());
                    }
                    throw new HostException(HostException.PROPERTY_ERROR,
                            String.valueOf(e.getMessage()))
                            .with("declared", names)
                            .with("given", new ArrayList<>(params.keySet()));
                }
                return newNotices(s);
            }, thrown -> Failures.classify(thrown, s.classNames, "strategy run"), limits);
        } catch (HostException fatal) {
            throw end(s, fatal);
        }
        HostException e = outcome.error();
        if (e != null) {
            throw e.kind().equals(HostException.PROPERTY_ERROR) && !e.fatal()
                    ? e.with("session", s.id).with("session_ended", false) : end(s, e);
        }
        Map<String, Object> header = new LinkedHashMap<>();
        header.put("session", s.id);
        header.put("notices", outcome.value());
        header.put("cpu_ns", outcome.cpuNanos());
        return header;
    }

    /**
     * {@code live_command}: delivers {@code command} and {@code properties} (strings) to a
     * strategy that implements {@link CommandRequestHandler}, between two updates. Answers as
     * {@link #feed} does, with the signals the strategy emitted while handling it (stamped with
     * the session's market time) and no events.
     */
    RunService.Answer command(Map<String, Object> req, Guard.Limits limits)
            throws HostException {
        Session s = session(req);
        String text = Requests.string(req, "command");
        Map<String, String> properties = commandProperties(req.get("properties"));
        long chars = text.length();
        for (Map.Entry<String, String> e : properties.entrySet()) {
            chars += e.getKey().length() + (e.getValue() == null ? 0 : e.getValue().length());
        }
        if (chars > MAX_COMMAND_CHARS) {
            throw new HostException(HostException.BAD_REQUEST, "a command may carry at most "
                    + MAX_COMMAND_CHARS + " characters of text and properties, got " + chars);
        }
        if (!s.handlesCommands) {
            throw new HostException(HostException.BAD_REQUEST, s.strategy.getName()
                    + " does not implement CommandRequestHandler and takes no commands")
                    .with("refused", "commands").with("session", s.id)
                    .with("session_ended", false);
        }
        CommandRequest request = new CommandRequest(text, properties);
        Guard.Outcome<RunService.Collected> outcome;
        try {
            outcome = Guard.call("strategy run", () -> {
                ((CommandRequestHandler) s.run.strategy()).onCommand(request);
                return collect(s);
            }, thrown -> Failures.classify(thrown, s.classNames, "strategy run"), limits);
        } catch (HostException fatal) {
            throw end(s, fatal);
        }
        if (outcome.error() != null) {
            throw end(s, outcome.error());
        }
        Map<String, Object> header = outcome.value().header();
        header.put("session", s.id);
        header.put("events", 0L);
        header.put("cpu_ns", outcome.cpuNanos());
        header.put("market_ts", s.marketTs);
        return new RunService.Answer(header, outcome.value().payloads());
    }

    /** {@code live_close}: forgets the session (no user code runs); closing twice is no error. */
    Map<String, Object> close(Map<String, Object> req) throws HostException {
        String id = Requests.string(req, "session");
        Session s = sessions.remove(id);
        Map<String, Object> header = new LinkedHashMap<>();
        header.put("session", id);
        header.put("closed", s != null);
        header.put("events", s == null ? 0L : s.events);
        return header;
    }

    private Session session(Map<String, Object> req) throws HostException {
        String id = Requests.string(req, "session");
        Session s = sessions.get(id);
        if (s == null) {
            throw new HostException(HostException.BAD_REQUEST, "no open live session '" + id
                    + "' on this engine host (never opened, closed, or ended by a failure)")
                    .with("session", id).with("session_ended", true);
        }
        return s;
    }

    /** Ends {@code s} after a failure in it; the error says so. */
    private HostException end(Session s, HostException e) {
        sessions.remove(s.id);
        return e.with("session", s.id).with("session_ended", true);
    }

    private static void advance(Session s, Rows rows, int processed) {
        s.events += processed;
        if (processed > 0) {
            s.marketTs = rows.eventTs(processed - 1);
        }
    }

    /** The signals of the call, then a clean log for the next one (worker thread). */
    private static RunService.Collected collect(Session s) throws HostException {
        RunService.Collected c = RunService.collect(s.run);
        s.run.clearSignals();
        c.header().put("notices", newNotices(s));
        return c;
    }

    /**
     * The notices that appeared since the session last answered: each distinct message once (with
     * its count so far when it repeated within the call), then the closing line once the run's
     * distinct notices reached their cap ({@code Notices.MAX_DISTINCT}).
     */
    private static List<Object> newNotices(Session s) {
        List<String> all = s.run.notices();
        List<Object> fresh = new ArrayList<>();
        int cap = com.wualabs.qtsurfer.engine.internal.Notices.MAX_DISTINCT;
        int distinct = Math.min(all.size(), cap);
        for (int i = s.noticesSeen; i < distinct; i++) {
            fresh.add(all.get(i));
        }
        if (all.size() > cap && s.noticesSeen <= cap) {
            fresh.add(all.get(cap));
            s.noticesSeen = cap + 1;
        } else {
            s.noticesSeen = Math.max(s.noticesSeen, distinct);
        }
        return fresh;
    }

    /** Command properties: names to strings (or null); anything else is a bad request. */
    private static Map<String, String> commandProperties(Object v) throws HostException {
        Map<String, String> out = new LinkedHashMap<>();
        if (v == null) {
            return out;
        }
        for (Map.Entry<String, Object> e : Requests.map(v, "properties").entrySet()) {
            Object value = e.getValue();
            if (value != null && !(value instanceof String)) {
                throw new HostException(HostException.BAD_REQUEST,
                        "command property '" + e.getKey() + "' must be a string or null");
            }
            out.put(e.getKey(), (String) value);
        }
        return out;
    }

    /** The rows of one {@code live_feed}, as columns in the kind's run order. */
    private static final class Rows {
        final String kind;
        final long[] ts;
        /** Kline close times (null for tickers). */
        final long[] closeTs;
        final double[][] values;
        final int n;

        private Rows(String kind, int n) {
            this.kind = kind;
            this.n = n;
            this.ts = new long[n];
            boolean kline = kind.equals("kline");
            this.closeTs = kline ? new long[n] : null;
            this.values = new double[kline ? 5 : 6][n];
        }

        static Rows parse(String kind, Object raw) throws HostException {
            if (!(raw instanceof List<?> list)) {
                throw new HostException(HostException.BAD_REQUEST, "field 'rows' must be a list");
            }
            if (list.size() > MAX_ROWS) {
                throw new HostException(HostException.BAD_REQUEST, "a live_feed carries at most "
                        + MAX_ROWS + " rows, got " + list.size());
            }
            int width = ROW_WIDTH.get(kind);
            Rows rows = new Rows(kind, list.size());
            int longs = rows.closeTs == null ? 1 : 2;
            for (int i = 0; i < rows.n; i++) {
                if (!(list.get(i) instanceof List<?> row) || row.size() != width) {
                    throw new HostException(HostException.BAD_REQUEST, "row " + i + " must be a list of "
                            + width + " " + kind + " values");
                }
                rows.ts[i] = time(row.get(0), i);
                if (rows.closeTs != null) {
                    rows.closeTs[i] = time(row.get(1), i);
                }
                for (int c = longs; c < width; c++) {
                    if (!(row.get(c) instanceof Number x)) {
                        throw new HostException(HostException.BAD_REQUEST, "row " + i + ", column "
                                + c + " must be a number");
                    }
                    rows.values[c - longs][i] = x.doubleValue();
                }
            }
            return rows;
        }

        private static long time(Object v, int row) throws HostException {
            if (!(v instanceof Long l)) {
                throw new HostException(HostException.BAD_REQUEST,
                        "row " + row + ": times must be integers (epoch ms)");
            }
            return l;
        }

        /** The event time of row {@code i}: a ticker's time, a kline's close time. */
        long eventTs(int i) {
            return closeTs == null ? ts[i] : closeTs[i];
        }

        /** Feeds every row as a run's feed loop does; {@code progress[0]} gets the rows fed. */
        void feed(StrategyRun run, long[] progress) {
            double[][] v = values;
            if (closeTs == null) { // bid, bidSize, ask, askSize, last, volume
                run.onTickers(ts, v[0], v[1], v[2], v[3], v[4], v[5], 0, n, progress);
            } else { // open, high, low, close, volume
                run.onKlines(ts, closeTs, v[0], v[1], v[2], v[3], v[4], 0, n, progress);
            }
        }
    }
}
