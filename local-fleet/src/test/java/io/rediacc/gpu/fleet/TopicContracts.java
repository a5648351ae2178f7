package io.rediacc.gpu.fleet;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaValidatorsConfig;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import io.rediacc.gpu.contracts.events.CloudEventHeaders;
import io.rediacc.gpu.contracts.events.EventJson;
import io.rediacc.gpu.contracts.events.Topics;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

/**
 * Reads a topic the way a monitoring consumer that knows only docs/EVENTS.md and the published
 * schemas reads it — from the beginning to its end offsets, with a plain Kafka consumer — and
 * checks every record against its JSON Schema ({@code ce_dataschema}) and its CloudEvents headers.
 */
final class TopicContracts {

    private static final JsonSchemaFactory SCHEMAS = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012,
            b -> b.schemaMappers(m -> m.mapPrefix(Topics.SCHEMA_BASE, "classpath:schemas/")));
    private static final SchemaValidatorsConfig CONFIG = SchemaValidatorsConfig.builder().formatAssertionsEnabled(true).build();

    /** What one topic held: how many values and tombstones, and every violation found (empty when all is well). */
    record Report(String topic, int values, int tombstones, List<String> violations) {
    }

    private TopicContracts() {
    }

    /** Every record of {@code topic} on the broker, from the first offset to the end offsets seen now. */
    static List<ConsumerRecord<String, byte[]>> readAll(Map<String, Object> clientConfig, String topic) {
        Properties props = new Properties();
        props.putAll(clientConfig);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(props)) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofSeconds(30));
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("could not read " + topic + " to its end offsets " + end + " within 60 s");
                }
                consumer.poll(Duration.ofMillis(500)).forEach(records::add);
            }
        }
        return records;
    }

    /** Checks each record of one topic: its value against the schema, its headers against the CloudEvents contract. */
    static Report check(Topics.TopicSpec topic, List<ConsumerRecord<String, byte[]>> records) throws IOException {
        JsonSchema schema = SCHEMAS.getSchema(SchemaLocation.of(topic.dataSchema()), CONFIG);
        List<String> violations = new ArrayList<>();
        int values = 0;
        int tombstones = 0;
        for (ConsumerRecord<String, byte[]> r : records) {
            String where = topic.name() + "@" + r.partition() + ":" + r.offset() + " (key " + r.key() + ")";
            headerViolations(topic, r).forEach(v -> violations.add(where + ": " + v));
            if (r.value() == null) {
                tombstones++;
                if (!topic.compacted()) {
                    violations.add(where + ": a tombstone on a delete-policy topic");
                }
                continue;
            }
            values++;
            JsonNode value = EventJson.mapper().readTree(r.value());
            Set<ValidationMessage> errors = schema.validate(value);
            errors.forEach(e -> violations.add(where + ": " + e.getMessage() + " in " + value));
            String expectedKey = topic == Topics.GATE_STATUS_TOPIC
                    ? Topics.gateStatusKey(value.path("machine").asText(), value.path("gateId").asText())
                    : value.path("machine").asText();
            if (!expectedKey.equals(r.key())) {
                violations.add(where + ": key is not the payload's " + topic.key() + " (" + expectedKey + ")");
            }
        }
        return new Report(topic.name(), values, tombstones, violations);
    }

    private static List<String> headerViolations(Topics.TopicSpec topic, ConsumerRecord<String, byte[]> r) {
        Map<String, String> h = new LinkedHashMap<>();
        Map<String, Integer> counts = new HashMap<>();
        for (Header header : r.headers()) {
            h.put(header.key(), header.value() == null ? null : new String(header.value(), StandardCharsets.UTF_8));
            counts.merge(header.key(), 1, Integer::sum);
        }
        List<String> out = new ArrayList<>();
        counts.forEach((k, n) -> {
            if (k.startsWith("ce_") && n > 1) {
                out.add(k + " appears " + n + " times");
            }
        });
        expect(out, h, CloudEventHeaders.SPEC_VERSION, "1.0");
        expect(out, h, CloudEventHeaders.TYPE, topic.cloudEventType());
        expect(out, h, CloudEventHeaders.DATA_SCHEMA, topic.dataSchema());
        expect(out, h, CloudEventHeaders.CONTENT_TYPE, "application/json");
        String source = h.get(CloudEventHeaders.SOURCE);
        if (source == null || !source.startsWith("/")) {
            out.add("ce_source is not a URI reference: " + source);
        }
        String id = h.get(CloudEventHeaders.ID);
        if (id == null || id.isBlank()) {
            out.add("ce_id is missing");
        }
        try {
            Instant.parse(String.valueOf(h.get(CloudEventHeaders.TIME)));
        } catch (DateTimeParseException e) {
            out.add("ce_time is not an RFC 3339 time: " + h.get(CloudEventHeaders.TIME));
        }
        // the machine, or a path under it (machine/gateId, machine/repo)
        String machine = r.key() == null ? "" : r.key().split("/", 2)[0];
        String subject = h.get(CloudEventHeaders.SUBJECT);
        if (subject == null || !(subject.equals(machine) || subject.startsWith(machine + "/"))) {
            out.add("ce_subject " + subject + " does not start with the record's machine (key " + r.key() + ")");
        }
        return out;
    }

    private static void expect(List<String> out, Map<String, String> headers, String name, String value) {
        if (!value.equals(headers.get(name))) {
            out.add(name + " is " + headers.get(name) + ", expected " + value);
        }
    }
}
