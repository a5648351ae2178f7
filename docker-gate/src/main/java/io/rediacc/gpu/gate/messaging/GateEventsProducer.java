package io.rediacc.gpu.gate.messaging;

import io.rediacc.gpu.contracts.events.CloudEventHeaders;
import io.rediacc.gpu.contracts.events.EventJson;
import io.rediacc.gpu.contracts.events.Topics;
import io.rediacc.gpu.contracts.signing.RecordSigner;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.jboss.logging.Logger;

import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Sends the gate's events (status, decisions) with CloudEvents headers. Sending happens on one
 * background thread with a bounded queue: {@code KafkaProducer.send} can block while the broker
 * is unreachable, and the data plane's event loops must never wait for Kafka.
 */
public final class GateEventsProducer implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(GateEventsProducer.class);

    private final KafkaProducer<String, byte[]> producer;
    private final String source;
    private final RecordSigner signer;
    private final ThreadPoolExecutor sender;

    /**
     * @param kafka  client settings (bootstrap servers, security); the producer's own settings override them
     * @param signer the machine's key: every record is signed (docs/EVENTS.md, "Signed records")
     */
    public GateEventsProducer(Map<String, Object> kafka, String clientId, String source, RecordSigner signer,
                              Duration apiTimeout) {
        this.signer = signer;
        Properties config = io.rediacc.gpu.gate.grants.KafkaClientSettings.from(kafka);
        config.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, (int) apiTimeout.toMillis());
        config.put(ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 2000);
        config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        this.producer = new KafkaProducer<>(config);
        this.source = source;
        this.sender = new ThreadPoolExecutor(1, 1, 0, TimeUnit.SECONDS, new ArrayBlockingQueue<>(1000), r -> {
            Thread t = new Thread(r, "gate-events-producer");
            t.setDaemon(true);
            return t;
        });
    }

    /** Queues one event; returns false when the queue is full and the event was dropped. */
    public boolean send(Topics.TopicSpec topic, String key, String subject, Object event) {
        try {
            sender.execute(() -> doSend(topic, key, subject, event));
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }

    private void doSend(Topics.TopicSpec topic, String key, String subject, Object event) {
        try {
            byte[] value = EventJson.toBytes(event);
            ProducerRecord<String, byte[]> record = new ProducerRecord<>(topic.name(), key, value);
            Map<String, byte[]> headers = CloudEventHeaders.of(topic, source, subject);
            signer.sign(topic.name(), key, headers, value);
            headers.forEach((name, v) -> record.headers().add(name, v));
            producer.send(record, (metadata, error) -> {
                if (error != null) {
                    LOG.warnf("could not publish to %s: %s", topic.name(), error.getMessage());
                }
            });
        } catch (RuntimeException e) {
            LOG.warnf("could not publish to %s: %s", topic.name(), e.getMessage());
        }
    }

    @Override
    public void close() {
        sender.shutdown();
        try {
            sender.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        producer.close(Duration.ofSeconds(2));
    }
}
