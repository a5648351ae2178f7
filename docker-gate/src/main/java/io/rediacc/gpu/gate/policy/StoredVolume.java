package io.rediacc.gpu.gate.policy;

/**
 * The daemon's answer to {@code GET /volumes/{name}} for one volume a request names: its status and body,
 * and, for an answer the gate kept, the body already read ({@link VolumeBacking}; null: read it).
 */
public record StoredVolume(String name, int status, byte[] body, VolumeBacking backing) {

    public StoredVolume(String name, int status, byte[] body) {
        this(name, status, body, null);
    }
}
