package io.rediacc.gpu.contracts.events;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

/**
 * CloudEvents binary-mode Kafka headers ({@code ce_*}), so a monitoring consumer can read any of
 * our topics without our code.
 */
public final class CloudEventHeaders {

    public static final String SPEC_VERSION = "ce_specversion";
    public static final String TYPE = "ce_type";
    public static final String SOURCE = "ce_source";
    public static final String ID = "ce_id";
    public static final String TIME = "ce_time";
    public static final String SUBJECT = "ce_subject";
    /** The URI of the value's JSON Schema ({@link Topics.TopicSpec#dataSchema()}), its {@code $id}. */
    public static final String DATA_SCHEMA = "ce_dataschema";
    public static final String CONTENT_TYPE = "content-type";

    private CloudEventHeaders() {
    }

    /** Headers for one event; {@code source} is a URI reference such as {@code /grant-service/replica-1}. */
    public static Map<String, byte[]> of(Topics.TopicSpec topic, String source, String subject, String id, Instant time) {
        Map<String, byte[]> headers = new LinkedHashMap<>();
        headers.put(SPEC_VERSION, bytes("1.0"));
        headers.put(TYPE, bytes(topic.cloudEventType()));
        headers.put(SOURCE, bytes(source));
        headers.put(ID, bytes(id));
        headers.put(TIME, bytes(time.toString()));
        headers.put(DATA_SCHEMA, bytes(topic.dataSchema()));
        if (subject != null) {
            headers.put(SUBJECT, bytes(subject));
        }
        headers.put(CONTENT_TYPE, bytes("application/json"));
        return headers;
    }

    public static Map<String, byte[]> of(Topics.TopicSpec topic, String source, String subject) {
        return of(topic, source, subject, UUID.randomUUID().toString(), Instant.now());
    }

    /**
     * The record's {@code ce_time} (its last value in {@code headers}); null when absent or not an ISO-8601
     * instant. On a verified record it is the signed time (the signature covers it): readers take a record's
     * time from here, never from the Kafka record timestamp, which anyone producing the record sets freely.
     */
    public static Instant time(java.util.function.Function<String, byte[]> headers) {
        byte[] b = headers.apply(TIME);
        if (b == null) {
            return null;
        }
        try {
            return Instant.parse(new String(b, StandardCharsets.UTF_8));
        } catch (java.time.format.DateTimeParseException e) {
            return null;
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
