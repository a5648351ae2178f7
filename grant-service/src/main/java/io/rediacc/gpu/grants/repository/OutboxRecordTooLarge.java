package io.rediacc.gpu.grants.repository;

/**
 * An outbox record over the topic's size limit, refused before it is written: the broker would refuse
 * it for good, and the change that made it rolls back. The REST answer (409 record-too-large) is worded
 * in {@code service.Problems}; this carries only its facts, so the tables need not know the API.
 */
public final class OutboxRecordTooLarge extends RuntimeException {

    private final String machine;
    private final String topic;
    private final int bytes;
    private final int limit;

    public OutboxRecordTooLarge(String machine, String topic, int bytes, int limit) {
        super("a " + bytes + "-byte record of machine " + machine + " on " + topic + " is over the " + limit + "-byte limit",
                null, false, false);
        this.machine = machine;
        this.topic = topic;
        this.bytes = bytes;
        this.limit = limit;
    }

    public String machine() {
        return machine;
    }

    public String topic() {
        return topic;
    }

    public int bytes() {
        return bytes;
    }

    public int limit() {
        return limit;
    }
}
