package com.wualabs.backtestd.host;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The wire framing shared with the Python client.
 *
 * <p>Every frame is a 4-byte big-endian length followed by that many bytes. A message is one header
 * frame (a UTF-8 JSON object) followed by {@code header.payloads} binary frames, so bulk arrays
 * such as signal columns travel as raw little-endian bytes instead of being inflated into JSON.
 */
final class Frames {
    /** Upper bound for one frame; anything larger means the stream is out of sync. */
    static final int MAX_FRAME = 1 << 30;

    private Frames() {}

    /** A header plus its binary payload frames. */
    record Message(Map<String, Object> header, List<byte[]> payloads) {}

    /** Reads one message, or returns null on a clean end of stream before the first byte. */
    static Message read(DataInputStream in) throws IOException {
        byte[] head = readFrame(in, true);
        if (head == null) {
            return null;
        }
        Object parsed = Json.parse(new String(head, StandardCharsets.UTF_8));
        if (!(parsed instanceof Map<?, ?>)) {
            throw new IOException("message header is not a JSON object");
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> header = (Map<String, Object>) parsed;
        int count = 0;
        Object declared = header.get("payloads");
        if (declared instanceof Number n) {
            count = n.intValue();
        }
        List<byte[]> payloads = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            payloads.add(readFrame(in, false));
        }
        return new Message(header, payloads);
    }

    /** Writes a header (with its payload count) and payloads, then flushes. */
    static void write(DataOutputStream out, Map<String, Object> header, List<byte[]> payloads)
            throws IOException {
        if (!payloads.isEmpty()) {
            header.put("payloads", payloads.size());
        }
        byte[] head = Json.write(header).getBytes(StandardCharsets.UTF_8);
        out.writeInt(head.length);
        out.write(head);
        for (byte[] p : payloads) {
            out.writeInt(p.length);
            out.write(p);
        }
        out.flush();
    }

    private static byte[] readFrame(DataInputStream in, boolean eofAllowed) throws IOException {
        int b0 = in.read();
        if (b0 < 0) {
            if (eofAllowed) {
                return null;
            }
            throw new EOFException("end of stream inside a message");
        }
        int length = (b0 << 24) | (in.readUnsignedByte() << 16) | (in.readUnsignedByte() << 8)
                | in.readUnsignedByte();
        if (length < 0 || length > MAX_FRAME) {
            throw new IOException("frame length " + length + " out of range");
        }
        byte[] data = new byte[length];
        in.readFully(data);
        return data;
    }
}
