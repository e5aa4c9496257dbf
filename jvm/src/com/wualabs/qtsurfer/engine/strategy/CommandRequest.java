package com.wualabs.qtsurfer.engine.strategy;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One command sent to a live run ({@link CommandRequestHandler#onCommand}): the command text and
 * the request's properties as top-level entries. The text is kept apart from the properties, so
 * no property name is reserved ({@code get("command")} is a property like any other). Immutable.
 */
public final class CommandRequest {

    private final String command;
    private final Map<String, String> properties;

    /** A command {@code command} with {@code properties} (copied; null means none). */
    public CommandRequest(String command, Map<String, String> properties) {
        this.command = Objects.requireNonNull(command, "command");
        this.properties = properties == null || properties.isEmpty() ? Map.of()
                : Collections.unmodifiableMap(new LinkedHashMap<>(properties));
    }

    /** The command text, as sent. */
    public String getCommand() {
        return command;
    }

    /** The value of property {@code key}, or null when the request has none. */
    public String get(String key) {
        return properties.get(key);
    }

    /** True when the request carries property {@code key}. */
    public boolean has(String key) {
        return properties.containsKey(key);
    }

    /** Every property, in the order sent (read-only). */
    public Map<String, String> getProperties() {
        return properties;
    }

    @Override
    public String toString() {
        return "CommandRequest[" + command + (properties.isEmpty() ? "" : " " + properties) + "]";
    }
}
