package io.rediacc.gpu.grants.repository;

import io.quarkus.hibernate.reactive.panache.PanacheRepositoryBase;
import io.rediacc.gpu.contracts.events.CloudEventHeaders;
import io.rediacc.gpu.contracts.events.EventJson;
import io.rediacc.gpu.contracts.events.Topics;
import io.rediacc.gpu.grants.config.GrantsConfig;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Writes outbox rows inside the caller's transaction. The CloudEvents headers (with a stable
 * {@code ce_id}) are fixed here, so a record published twice after a relay retry carries the
 * same id and a consumer can tell it is a duplicate.
 */
@ApplicationScoped
public class OutboxRepository implements PanacheRepositoryBase<OutboxEntity, Long> {

    private final GrantsConfig config;

    public OutboxRepository(GrantsConfig config) {
        this.config = config;
    }

    public Uni<OutboxEntity> append(Topics.TopicSpec topic, String key, String subject, String eventId, Instant time,
                                    Object value) {
        Map<String, String> headers = new LinkedHashMap<>();
        CloudEventHeaders.of(topic, config.eventSource(), subject, eventId, time)
                .forEach((name, bytes) -> headers.put(name, new String(bytes, StandardCharsets.UTF_8)));
        OutboxEntity row = new OutboxEntity();
        row.topic = topic.name();
        row.recordKey = key;
        row.payload = EventJson.toJson(value);
        row.headers = EventJson.toJson(headers);
        row.createdAt = time;
        return persist(row);
    }
}
