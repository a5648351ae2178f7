import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * The anchor of a gate's catch-up: a plain consumer reading a topic from the beginning to the end
 * offsets seen at start (assign, seekToBeginning, endOffsets — what the gate's feed does), without
 * decoding. Prints read_ms (consumer creation to end, in this fresh JVM), then warm_read_ms for REPEATS-1 more.
 *
 * <pre>ReadToEnd BOOTSTRAP TOPIC [REPEATS]</pre>
 */
public class ReadToEnd {
    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        String topic = args[1];
        int repeats = args.length > 2 ? Integer.parseInt(args[2]) : 1;
        for (int r = 0; r < Math.max(1, repeats); r++) {
            long t0 = System.nanoTime();
            long count = read(bootstrap, topic);
            long t1 = System.nanoTime();
            System.out.println((r == 0 ? "read_ms " : "warm_read_ms ") + Bench.fmt((t1 - t0) / 1e6) + " records " + count);
        }
    }

    static long read(String bootstrap, String topic) {
        Properties cp = Bench.readCommittedConsumer(bootstrap);
        long count = 0;
        try (KafkaConsumer<String, byte[]> c = new KafkaConsumer<>(cp)) {
            List<PartitionInfo> infos = c.partitionsFor(topic);
            List<TopicPartition> parts = infos.stream().map(p -> new TopicPartition(p.topic(), p.partition())).toList();
            c.assign(parts);
            c.seekToBeginning(parts);
            Map<TopicPartition, Long> end = new HashMap<>(c.endOffsets(parts));
            end.entrySet().removeIf(e -> e.getValue() == 0);
            while (!end.isEmpty()) {
                for (ConsumerRecord<String, byte[]> rec : c.poll(Duration.ofMillis(500))) {
                    count++;
                }
                end.entrySet().removeIf(e -> c.position(e.getKey()) >= e.getValue());
            }
        }
        return count;
    }
}
