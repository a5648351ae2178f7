package io.rediacc.gpu.grants.testing;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/** Reads a topic from its beginning, the way a consumer rebuilding its state does. */
public final class TopicReader {

    private TopicReader() {
    }

    /** Joins a throw-away consumer group once: the broker creates its group coordinator's topic on first use. */
    public static void joinGroup(String bootstrapServers) {
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ConsumerConfig.GROUP_ID_CONFIG, "warm-up",
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName(),
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName()))) {
            consumer.subscribe(List.of(io.rediacc.gpu.contracts.events.Topics.GATE_DECISIONS));
            Instant deadline = Instant.now().plusSeconds(60);
            while (consumer.assignment().isEmpty() && Instant.now().isBefore(deadline)) {
                consumer.poll(Duration.ofMillis(200));
            }
        }
    }

    /**
     * Reads every record of {@code topic} with {@code key} until {@code done} holds for what was read,
     * or fails after {@code timeout}.
     */
    public static List<ConsumerRecord<String, byte[]>> readUntil(String bootstrapServers, String topic, String key,
                                                                  Predicate<List<ConsumerRecord<String, byte[]>>> done,
                                                                  Duration timeout) {
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName(),
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName(),
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false))) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            List<ConsumerRecord<String, byte[]>> read = new ArrayList<>();
            Instant deadline = Instant.now().plus(timeout);
            while (Instant.now().isBefore(deadline)) {
                for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    if (key.equals(record.key())) {
                        read.add(record);
                    }
                }
                if (done.test(read)) {
                    return read;
                }
            }
            throw new AssertionError("within " + timeout + " read only " + read.size() + " records of " + key
                    + " on " + topic);
        }
    }
}
