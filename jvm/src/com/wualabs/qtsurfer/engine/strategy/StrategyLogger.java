package com.wualabs.qtsurfer.engine.strategy;

import com.wualabs.qtsurfer.engine.internal.Notices;

import java.util.Arrays;

/**
 * The strategy's {@code log}: SLF4J-style messages ({@code log.info("price {} above {}", p, ma)}) that end
 * up in the run's notices as {@code "[INFO] price 101.5 above 100.0"}. Each {@code {}} takes the next
 * argument ({@code \{}} is a literal {@code {}}); a trailing Throwable beyond the placeholders is appended.
 * Identical lines are counted, and a run keeps a bounded number of distinct notices, so logging on every
 * tick is safe (if wasteful). Nothing goes to standard output.
 */
public final class StrategyLogger {

    private final Notices notices;

    public StrategyLogger(Notices notices) {
        this.notices = notices;
    }

    public void trace(String format, Object... args) {
        log("TRACE", format, args);
    }

    public void debug(String format, Object... args) {
        log("DEBUG", format, args);
    }

    public void info(String format, Object... args) {
        log("INFO", format, args);
    }

    public void warn(String format, Object... args) {
        log("WARN", format, args);
    }

    public void error(String format, Object... args) {
        log("ERROR", format, args);
    }

    public boolean isTraceEnabled() {
        return true;
    }

    public boolean isDebugEnabled() {
        return true;
    }

    public boolean isInfoEnabled() {
        return true;
    }

    public boolean isWarnEnabled() {
        return true;
    }

    public boolean isErrorEnabled() {
        return true;
    }

    private void log(String level, String format, Object[] args) {
        if (notices.full()) {
            notices.suppress();
            return;
        }
        notices.add("[" + level + "] " + format(format, args));
    }

    /** SLF4J-style formatting of {@code format} with {@code args}. */
    public static String format(String format, Object... args) {
        if (format == null) {
            return "null";
        }
        StringBuilder sb = new StringBuilder(format.length() + 16);
        int argIndex = 0;
        int n = args == null ? 0 : args.length;
        int i = 0;
        while (i < format.length()) {
            char c = format.charAt(i);
            if (c == '\\' && i + 2 < format.length() && format.charAt(i + 1) == '{' && format.charAt(i + 2) == '}') {
                sb.append("{}");
                i += 3;
            } else if (c == '{' && i + 1 < format.length() && format.charAt(i + 1) == '}' && argIndex < n) {
                sb.append(render(args[argIndex++]));
                i += 2;
            } else {
                sb.append(c);
                i++;
            }
        }
        if (argIndex < n && args[n - 1] instanceof Throwable) {
            sb.append(' ').append(args[n - 1]);
        }
        return sb.toString();
    }

    private static String render(Object o) {
        if (o instanceof Object[]) {
            return Arrays.deepToString((Object[]) o);
        }
        if (o instanceof double[]) {
            return Arrays.toString((double[]) o);
        }
        if (o instanceof long[]) {
            return Arrays.toString((long[]) o);
        }
        if (o instanceof int[]) {
            return Arrays.toString((int[]) o);
        }
        return String.valueOf(o);
    }
}
