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

    /** {@code snapshot} as grant-service signs it (now), the record a gate verifies and keeps on disk. */
    public static io.rediacc.gpu.contracts.signing.SignedRecord signed(GrantSnapshot snapshot) {
        return signed(snapshot, Instant.now());
    }

    public static io.rediacc.gpu.contracts.signing.SignedRecord signed(GrantSnapshot snapshot, Instant ceTime) {
        byte[] value = EventJson.toBytes(snapshot);
        Map<String, byte[]> headers = new java.util.LinkedHashMap<>(CloudEventHeaders.of(Topics.GRANTS_TOPIC,
                "/test/grant-service", snapshot.machine(), java.util.UUID.randomUUID().toString(), ceTime));
        new io.rediacc.gpu.contracts.signing.RecordSigner(keyPair().getPrivate(), keyPair().getPublic())
                .sign(Topics.GRANTS, snapshot.machine(), headers, value);
        return io.rediacc.gpu.contracts.signing.SignedRecord.of(Topics.GRANTS, snapshot.machine(), headers::get, value);
    }

    /** The gate's check of grant-service's signature with the tests' key, counting into {@code metrics}. */
    public static io.rediacc.gpu.gate.grants.SignedSnapshots verifier(io.micrometer.core.instrument.MeterRegistry metrics) {
        return new io.rediacc.gpu.gate.grants.SignedSnapshots(keyPair().getPublic(), metrics);
    }

    public static io.rediacc.gpu.gate.grants.SignedSnapshots verifier() {
        return verifier(new io.micrometer.core.instrument.simple.SimpleMeterRegistry());
    }

    /** Publishes exactly these bytes and headers again, as anyone with write access to the topic can. */
    public static void replay(ConsumerRecord<String, byte[]> record) {
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KafkaTestResource.broker().bootstrapServers(),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName(),
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName()))) {
            ProducerRecord<String, byte[]> copy = new ProducerRecord<>(record.topic(), null, record.key(), record.value(),
                    record.headers());
            producer.send(copy).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("cannot replay", e.getCause());
        }
    }

    /**
     * Forces compaction of {@code partition} of the grants topic until {@code machine}'s records there are
     * reduced to one (its newest offset), as the log cleaner does in production given time: the topic's
     * segments roll at once and any dirty share is cleaned, a filler record under another key rolls the
     * active segment. The topic's own settings are restored afterwards.
     */
    public static ConsumerRecord<String, byte[]> compactUntilOneRecordOf(String machine, int partition, Duration timeout) {
        org.apache.kafka.common.config.ConfigResource topic = new org.apache.kafka.common.config.ConfigResource(
                org.apache.kafka.common.config.ConfigResource.Type.TOPIC, Topics.GRANTS);
        List<String> names = List.of("segment.ms", "min.cleanable.dirty.ratio", "min.compaction.lag.ms");
        try (org.apache.kafka.clients.admin.Admin admin = org.apache.kafka.clients.admin.Admin.create(Map.of(
                "bootstrap.servers", KafkaTestResource.broker().bootstrapServers()))) {
            admin.incrementalAlterConfigs(Map.of(topic, List.of(
                    set("segment.ms", "100"), set("min.cleanable.dirty.ratio", "0.001"), set("min.compaction.lag.ms", "0"))))
                    .all().get();
            try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Map.of(
                    ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KafkaTestResource.broker().bootstrapServers(),
                    ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName(),
                    ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName()))) {
                java.util.concurrent.atomic.AtomicReference<List<ConsumerRecord<String, byte[]>>> left =
                        new java.util.concurrent.atomic.AtomicReference<>();
                org.awaitility.Awaitility.await("compaction leaves one record of " + machine).atMost(timeout)
                        .pollInterval(Duration.ofMillis(500)).until(() -> {
                            producer.send(new ProducerRecord<>(Topics.GRANTS, partition, "compaction-filler", new byte[0])).get();
                            left.set(recordsOf(machine, partition));
                            return left.get().size() == 1;
                        });
                return left.get().get(0);
            } finally {
                admin.incrementalAlterConfigs(Map.of(topic, names.stream().map(n -> new org.apache.kafka.clients.admin.AlterConfigOp(
                        new org.apache.kafka.clients.admin.ConfigEntry(n, ""),
                        org.apache.kafka.clients.admin.AlterConfigOp.OpType.DELETE)).toList())).all().get();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("cannot force compaction of " + Topics.GRANTS, e.getCause());
        }
    }

    private static org.apache.kafka.clients.admin.AlterConfigOp set(String name, String value) {
        return new org.apache.kafka.clients.admin.AlterConfigOp(new org.apache.kafka.clients.admin.ConfigEntry(name, value),
                org.apache.kafka.clients.admin.AlterConfigOp.OpType.SET);
    }

    /** Every record of {@code machine} in {@code partition} of the grants topic, oldest first. */
    public static List<ConsumerRecord<String, byte[]>> recordsOf(String machine, int partition) {
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, KafkaTestResource.broker().bootstrapServers(),
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName(),
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName()))) {
            TopicPartition p = new TopicPartition(Topics.GRANTS, partition);
            consumer.assign(List.of(p));
            consumer.seekToBeginning(List.of(p));
            long end = consumer.endOffsets(List.of(p)).get(p);
            List<ConsumerRecord<String, byte[]>> found = new ArrayList<>();
            while (consumer.position(p) < end) {
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    if (machine.equals(r.key())) {
                        found.add(r);
                    }
                }
            }
            return found;
        }
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
