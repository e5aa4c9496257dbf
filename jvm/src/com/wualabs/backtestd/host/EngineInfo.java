package com.wualabs.backtestd.host;

import com.wualabs.qtsurfer.engine.EngineVersion;

/**
 * The engine version reported in the handshake, so the Python side can record which engine
 * produced a result. It comes from the engine API itself ({@link EngineVersion}), which never
 * throws and answers "unknown" when it cannot tell.
 */
final class EngineInfo {
    private EngineInfo() {}

    static String version() {
        try {
            return EngineVersion.getVersion();
        } catch (RuntimeException | LinkageError e) {
            return EngineVersion.UNKNOWN;
        }
    }
}
