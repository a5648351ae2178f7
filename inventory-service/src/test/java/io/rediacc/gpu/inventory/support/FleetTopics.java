package io.rediacc.gpu.inventory.support;

import io.rediacc.gpu.contracts.events.CloudEventHeaders;
import io.rediacc.gpu.contracts.events.EventJson;
import io.rediacc.gpu.contracts.events.GateStatus;
import io.rediacc.gpu.contracts.events.MachineInventory;
import io.rediacc.gpu.contracts.events.Topics;
import io.rediacc.gpu.testsupport.KafkaTestResource;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

import java.time.Instant;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Publishes records the way node-agent and the gates do: a plain Kafka producer, CloudEvents headers. */
public final class FleetTopics {

    private static KafkaProducer<String, byte[]> producer;

    private FleetTopics() {
    }

    public static void inventory(MachineInventory inventory) {
        send(Topics.INVENTORY_TOPIC, inventory.machine(), EventJson.toBytes(inventory), null);
    }

    public static void gateStatus(GateStatus status) {
        gateStatus(status, null);
    }

    /** A gate status signed at {@code recordTime} (a gate that spoke then and never again). */
    public static void gateStatus(GateStatus status, Instant recordTime) {
        send(Topics.GATE_STATUS_TOPIC, Topics.gateStatusKey(status.machine(), status.gateId()), EventJson.toBytes(status),
                recordTime);
    }

    /** Any bytes under any key: replays, hand-written JSON, garbage, tombstones (null). */
    public static void raw(Topics.TopicSpec topic, String key, byte[] value) {
        send(topic, key, value, null);
    }

    /** {@code value} signed by the machine its key names at {@code ceTime}: the headers, to produce it (again) with {@link #withHeaders}. */
    public static Map<String, byte[]> signedHeaders(Topics.TopicSpec topic, String key, byte[] value, Instant ceTime) {
        Map<String, byte[]> headers = new java.util.LinkedHashMap<>(CloudEventHeaders.of(topic, "/inventory-service-tests", key,
                java.util.UUID.randomUUID().toString(), ceTime));
        TestKeys.sign(topic.name(), key, headers, value);
        return headers;
    }

    /** A record with exactly these headers (a forger's). */
    public static synchronized void withHeaders(Topics.TopicSpec topic, String key, byte[] value, Map<String, byte[]> headers) {
        ProducerRecord<String, byte[]> record = new ProducerRecord<>(topic.name(), key, value);
        headers.forEach((name, bytes) -> record.headers().add(name, bytes));
        try {
            producer().send(record).get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("cannot publish to " + topic.name(), e);
        }
    }

    private static synchronized void send(Topics.TopicSpec topic, String key, byte[] value, Instant recordTime) {
        ProducerRecord<String, byte[]> record = new ProducerRecord<>(topic.name(), null,
                recordTime == null ? null : recordTime.toEpochMilli(), key, value);
        // the producer signs its time (ce_time): the one a reader goes by; the Kafka timestamp is the same here
        Map<String, byte[]> headers = new java.util.LinkedHashMap<>(CloudEventHeaders.of(topic, "/inventory-service-tests", key,
                java.util.UUID.randomUUID().toString(), recordTime == null ? Instant.now() : recordTime));
        TestKeys.sign(topic.name(), key, headers, value);
        headers.forEach((name, bytes) -> record.headers().add(name, bytes));
        try {
            producer().send(record).get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("cannot publish to " + topic.name(), e);
        }
    }

    private static KafkaProducer<String, byte[]> producer() {
        if (producer == null) {
            producer = new KafkaProducer<>(Map.of(
                    ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KafkaTestResource.broker().bootstrapServers(),
                    ProducerConfig.ACKS_CONFIG, "all"),
                    new StringSerializer(), new ByteArraySerializer());
        }
        return producer;
    }
}
