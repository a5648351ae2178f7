package io.rediacc.gpu.gate.proxy;

import io.netty.channel.Channel;

import java.util.EnumSet;

/**
 * Why the gate stopped reading from the client. Each piece pauses for its own reason and resumes
 * only that one: reads go on when no reason is left, so one piece cannot undo another's pause.
 */
final class ClientReads {

    enum Reason {
        /** A pipelined request waits for the current exchange to end. */
        BACKLOG,
        /** The daemon takes bytes slower than the client sends them, or is not connected yet. */
        BACKPRESSURE,
        /** An upload's body waits, unread, while its container is judged. */
        LOOKUP
    }

    private final EnumSet<Reason> paused = EnumSet.noneOf(Reason.class);
    private Channel client;

    /** The channel to pause; a pause taken before it is known takes effect with the next change. */
    void attach(Channel client) {
        this.client = client;
    }

    void pause(Reason reason, boolean pause) {
        if (pause) {
            paused.add(reason);
        } else {
            paused.remove(reason);
        }
        if (client != null) {
            client.config().setAutoRead(paused.isEmpty());
        }
    }

    boolean pausedFor(Reason reason) {
        return paused.contains(reason);
    }
}
