import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * A bystander of the grants topic in a JVM of its own, beside grant-propagation.sh's driver (whose own bystander
 * shares its JVM with the probe loop and the grant calls): for SECONDS it reads the machine's snapshot records as a
 * gate does (read_committed) and writes one line per record, {@code produced_us seen_us} (the record's CreateTime
 * and when this poll had it, wall-clock microseconds), so the two bystanders' Kafka legs compare record by record.
 *
 * <pre>KafkaBystander BOOTSTRAP MACHINE SECONDS OUT</pre> (OUT written when it ends, by its time or SIGTERM)
 */
public class KafkaBystander {
    public static void main(String[] args) throws Exception {
        String machine = args[1];
        long until = System.nanoTime() + Long.parseLong(args[2]) * 1_000_000_000L;
        StringBuffer out = new StringBuffer();
        // the bench stops it with SIGTERM when its driver is done: what it saw is written then
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                Files.writeString(Path.of(args[3]), out);
            } catch (java.io.IOException e) {
                e.printStackTrace();
            }
        }));
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(Bench.readCommittedConsumer(args[0]))) {
            List<TopicPartition> parts = new ArrayList<>();
            consumer.partitionsFor(io.rediacc.gpu.contracts.events.Topics.GRANTS)
                    .forEach(p -> parts.add(new TopicPartition(p.topic(), p.partition())));
            consumer.assign(parts);
            consumer.seekToEnd(parts);
            parts.forEach(consumer::position);
            System.out.println("ready");
            while (System.nanoTime() < until) {
                var records = consumer.poll(Duration.ofMillis(100));
                Instant now = Instant.now();
                long seen = now.getEpochSecond() * 1_000_000L + now.getNano() / 1000;
                for (ConsumerRecord<String, byte[]> r : records) {
                    if (machine.equals(r.key()) && r.value() != null) {
                        out.append(r.timestamp() * 1000L).append(' ').append(seen).append('\n');
                    }
                }
            }
        }
    }
}
