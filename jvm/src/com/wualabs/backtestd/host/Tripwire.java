package com.wualabs.backtestd.host;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TimeZone;

/**
 * Notices what a request left behind in the JVM: threads that were not there before, and changed
 * JVM-wide defaults (locale, time zone).
 *
 * <p>The bytecode verifier refuses every known way for a strategy to start a thread or change a
 * global default; this is the second line for the ways nobody has thought of yet. A thread that
 * outlives its request runs outside every limit, and a changed default changes how the next
 * tenant's strategy parses and formats numbers, so either means the host cannot be trusted: the
 * request fails and the host exits after answering (its supervisor starts a fresh JVM).
 */
final class Tripwire {
    /** JVM service threads that can appear on their own (a diagnostic tool attaching). */
    private static final Set<String> SERVICE_THREADS = Set.of("Attach Listener");

    private final Set<Thread> threads;
    private final Locale locale;
    private final Locale formatLocale;
    private final Locale displayLocale;
    private final TimeZone zone;

    private Tripwire() {
        threads = new HashSet<>(Thread.getAllStackTraces().keySet());
        locale = Locale.getDefault();
        formatLocale = Locale.getDefault(Locale.Category.FORMAT);
        displayLocale = Locale.getDefault(Locale.Category.DISPLAY);
        zone = TimeZone.getDefault();
    }

    /** Remembers the JVM's threads and defaults before a request. */
    static Tripwire arm() {
        return new Tripwire();
    }

    /** A fatal error describing what the request left behind, or null when it left nothing. */
    HostException check(String what) {
        List<String> problems = new ArrayList<>();
        List<String> born = new ArrayList<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (!threads.contains(t) && t.isAlive() && !t.getName().equals("strategy-worker")
                    && !SERVICE_THREADS.contains(t.getName())) {
                born.add(t.getName());
            }
        }
        if (!born.isEmpty()) {
            problems.add("started " + born.size() + " thread(s) that outlived it " + born);
        }
        if (!Locale.getDefault().equals(locale)
                || !Locale.getDefault(Locale.Category.FORMAT).equals(formatLocale)
                || !Locale.getDefault(Locale.Category.DISPLAY).equals(displayLocale)) {
            problems.add("changed the JVM's default locale");
        }
        if (!TimeZone.getDefault().getID().equals(zone.getID())) {
            problems.add("changed the JVM's default time zone");
        }
        if (problems.isEmpty()) {
            return null;
        }
        return new HostException(HostException.SANDBOX_VIOLATION, "the " + what + " "
                + String.join(" and ", problems) + ": strategies may not start threads or change "
                + "JVM-wide settings; the run was stopped and the engine host restarted", true)
                .with("tripwire", problems);
    }
}
