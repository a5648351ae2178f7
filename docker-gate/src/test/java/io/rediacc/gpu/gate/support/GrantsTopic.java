package io.rediacc.gpu.gate.support;

import io.rediacc.gpu.contracts.events.CloudEventHeaders;
import io.rediacc.gpu.contracts.events.EventJson;
import io.rediacc.gpu.contracts.events.Grant;
import io.rediacc.gpu.contracts.events.GrantSnapshot;
import io.rediacc.gpu.contracts.events.Topics;
import io.rediacc.gpu.testsupport.KafkaTestResource;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.function.Predicate;

/** Plays grant-service on the real broker: publishes snapshots, and reads what gates publish. */
public final class GrantsTopic {

    private static final java.util.concurrent.atomic.AtomicLong VERSIONS = new java.util.concurrent.atomic.AtomicLong(1000);

    private GrantsTopic() {
    }

    /** A version higher than any this JVM published before (the broker keeps snapshots across test classes). */
    public static long nextVersion() {
        return VERSIONS.incrementAndGet();
    }

    public static Grant grant(String repoGuid, String repoName, String device) {
        return new Grant(repoGuid, repoName, device, false, "test", Instant.now());
    }

    /** grant-service's key pair as the tests hold it (made once per build in target/). */
    public static java.nio.file.Path keyFile() {
        java.nio.file.Path file = java.nio.file.Path.of("target/test-grant-service-key.pem").toAbsolutePath();
        io.rediacc.gpu.contracts.signing.KeyPairFile.ensure(file);
        return file;
    }

    public static java.security.KeyPair keyPair() {
        return io.rediacc.gpu.contracts.signing.KeyPairFile.ensure(keyFile()).pair();
    }

    public static void publish(String machine, long version, Grant... grants) {
        GrantSnapshot snapshot = new GrantSnapshot(machine, version, Instant.now(), List.of(grants));
        publish(machine, EventJson.toBytes(snapshot), keyPair(), Instant.now());
    }

    /** Publishes {@code value} as a snapshot record of {@code machine} signed by {@code signer} (null: unsigned), as a forger could. */
    public static void publish(String machine, byte[] value, java.security.KeyPair signer, Instant ceTime) {
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KafkaTestResource.broker().bootstrapServers(),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName(),
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName()))) {
            ProducerRecord<String, byte[]> record = new ProducerRecord<>(Topics.GRANTS, machine, value);
            Map<String, byte[]> headers = new java.util.LinkedHashMap<>(CloudEventHeaders.of(Topics.GRANTS_TOPIC,
                    "/test/grant-service", machine, java.util.UUID.randomUUID().toString(), ceTime));
            if (signer != null) {
                new io.rediacc.gpu.contracts.signing.RecordSigner(signer.getPrivate(), signer.getPublic())
                        .sign(Topics.GRANTS, machine, headers, value);
            }
            headers.forEach((k, v) -> record.headers().add(k, v));
            producer.send(record).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("cannot publish grants", e.getCause());
        }
    }

    /** Reads {@code topic} from the beginning until a record matches or {@code timeout} passes. */
    public static ConsumerRecord<String, byte[]> await(String topic, Predicate<ConsumerRecord<String, byte[]>> match,
                                                       Duration timeout) {
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, KafkaTestResource.broker().bootstrapServers(),
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName(),
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName()))) {
            List<TopicPartition> partitions = new ArrayList<>();
            consumer.partitionsFor(topic).forEach(p -> partitions.add(new TopicPartition(topic, p.partition())));
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long deadline = System.nanoTime() + timeout.toNanos();
            while (System.nanoTime() < deadline) {
                for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    if (match.test(record)) {
                        return record;
                    }
                }
            }
            return null;
        }
    }
}
