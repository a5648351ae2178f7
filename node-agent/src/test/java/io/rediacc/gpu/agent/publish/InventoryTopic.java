package io.rediacc.gpu.agent.publish;

import io.rediacc.gpu.contracts.events.EventJson;
import io.rediacc.gpu.contracts.events.MachineInventory;
import io.rediacc.gpu.contracts.events.Topics;
import io.rediacc.gpu.testsupport.KafkaTestResource;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/** Reads gpu.inventory.v1 from the real broker, as inventory-service would. */
final class InventoryTopic {

    private InventoryTopic() {
    }

    /** Waits for a record of {@code machine} whose inventory passes {@code wanted}; fails after {@code timeout}. */
    static ConsumerRecord<String, byte[]> await(String machine, Predicate<MachineInventory> wanted, Duration timeout) {
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, KafkaTestResource.broker().bootstrapServers(),
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false",
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"), new StringDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = new ArrayList<>();
            consumer.partitionsFor(Topics.INVENTORY, Duration.ofSeconds(20))
                    .forEach(p -> partitions.add(new TopicPartition(p.topic(), p.partition())));
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long deadline = System.nanoTime() + timeout.toNanos();
            List<String> seen = new ArrayList<>();
            while (System.nanoTime() < deadline) {
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    if (machine.equals(r.key())) {
                        MachineInventory inv = EventJson.fromBytes(r.value(), MachineInventory.class);
                        if (wanted.test(inv)) {
                            return r;
                        }
                        seen.add(inv.generatedAt() + " " + inv.gpus().size() + " GPUs");
                    }
                }
            }
            throw new AssertionError("no matching inventory of " + machine + " on " + Topics.INVENTORY + " within "
                    + timeout + "; records of that machine seen: " + seen);
        }
    }

    static MachineInventory value(ConsumerRecord<String, byte[]> r) {
        return EventJson.fromBytes(r.value(), MachineInventory.class);
    }

    static String header(ConsumerRecord<String, byte[]> r, String name) {
        var h = r.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), java.nio.charset.StandardCharsets.UTF_8);
    }
}
