package io.rediacc.gpu.gate.policy;

/** The daemon's answer to {@code GET /volumes/{name}} for one volume a request names: its status and body. */
public record StoredVolume(String name, int status, byte[] body) {
}
