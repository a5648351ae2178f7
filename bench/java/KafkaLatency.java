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
import java.util.List;
import java.util.Properties;

/**
 * The anchor of grant propagation: raw produce→consume latency on the same broker, one record at a
 * time (send, wait until the consumer has it, next), with the outbox relay's producer settings
 * (acks=all, idempotent, linger 0, gzip) and a ~1 KiB value (a grant snapshot's size).
 *
 * <pre>KafkaLatency BOOTSTRAP N [VALUE_BYTES [BYSTANDERS]]</pre> (VALUE_BYTES 1024 unless given) prints p50_ms, p99_ms, n.
 * BYSTANDERS (0): that many more consumers of the same partition, each on its own thread polling as a gate does,
 * so that every record wakes that many fetches at once, as a grant's snapshot wakes the gates, inventory-service and
 * grant-service's own readers.
 * SHAPE=grants: the records go to bench.latency.grants, shaped as gpu.grants.v1 (4 partitions, its cleanup policy;
 * each record to one partition, as one machine's snapshots), and the consumer subscribes with a group of its own as
 * the gates do, instead of being assigned the one partition: whether the topic's shape explains the grant path's
 * Kafka leg after the broker's acknowledgement.
 */
public class KafkaLatency {
    public static void main(String[] args) throws Exception {
        String bootstrap = args[0];
        int n = Integer.parseInt(args[1]);
        Properties pp = new Properties();
        pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        pp.put(ProducerConfig.ACKS_CONFIG, "all");
        pp.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        pp.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        // the relay compresses (grants.relay.compression, gzip by default): the same here (COMPRESSION=none: without;
        // 2026-12-07, 4 alternating rounds: the same within noise, p50 3.1-5.1 ms with gzip, 2.8-5.4 without)
        pp.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, System.getenv().getOrDefault("COMPRESSION", "gzip"));
        pp.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        pp.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        Properties cp = new Properties();
        cp.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        cp.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        cp.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"); // as the gate reads
        cp.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        cp.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        byte[] value = new byte[args.length > 2 ? Integer.parseInt(args[2]) : 1024];
        boolean grantsShape = "grants".equals(System.getenv().getOrDefault("SHAPE", "plain"));
        TOPIC = grantsShape ? "bench.latency.grants" : "bench.latency";
        PARTITION = grantsShape ? 1 : 0;
        TopicPartition tp = new TopicPartition(TOPIC, PARTITION);
        if (grantsShape) {
            cp.put(ConsumerConfig.GROUP_ID_CONFIG, "bench-latency-" + java.util.UUID.randomUUID());
        }
        int bystanders = args.length > 3 ? Integer.parseInt(args[3]) : 0;
        for (int i = 0; i < bystanders; i++) {
            Thread t = new Thread(() -> {
                try (KafkaConsumer<String, byte[]> c = new KafkaConsumer<>(cp)) {
                    c.assign(List.of(tp));
                    c.seekToEnd(List.of(tp));
                    while (true) {
                        c.poll(Duration.ofMillis(1000));
                    }
                }
            }, "bystander-" + i);
            t.setDaemon(true);
            t.start();
        }
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(pp);
             KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(cp)) {
            if (grantsShape) {
                consumer.subscribe(List.of(TOPIC));
                long until = System.nanoTime() + 30_000_000_000L;
                while (consumer.assignment().size() < 4 && System.nanoTime() < until) {
                    consumer.poll(Duration.ofMillis(100));
                }
                consumer.seekToEnd(consumer.assignment());
                consumer.assignment().forEach(consumer::position);
            } else {
                consumer.assign(List.of(tp));
                consumer.seekToEnd(List.of(tp));
                consumer.position(tp);
            }
            // warm up: connections, metadata, JIT
            for (int i = 0; i < 50; i++) {
                roundTrip(producer, consumer, value, "w" + i, null, 0);
            }
            long[] lat = new long[n];
            long[] ack = new long[n];
            for (int i = 0; i < n; i++) {
                lat[i] = roundTrip(producer, consumer, value, "k" + i, ack, i);
                if (PAUSE_MS > 0) {
                    Thread.sleep(PAUSE_MS); // idle between records, as the grant path is between its ops
                }
            }
            producer.flush(); // every acknowledgement's callback has run
            double[] ms = Bench.sortedMillis(lat, n);
            System.out.println("p50_ms " + Bench.fmt(Bench.percentile(ms, 50)));
            System.out.println("p99_ms " + Bench.fmt(Bench.percentile(ms, 99)));
            // send -> the broker's acknowledgement (the producer's callback), as grant-service's
            // grants_outbox_acknowledgement_seconds times its relay's records
            double[] ackMs = Bench.sortedMillis(ack, n);
            double sum = 0;
            for (double a : ackMs) {
                sum += a;
            }
            System.out.println("ack_p50_ms " + Bench.fmt(Bench.percentile(ackMs, 50)));
            System.out.println("ack_mean_ms " + Bench.fmt(sum / n));
            System.out.println("n " + n);
        }
    }

    private static String TOPIC = "bench.latency";
    private static int PARTITION = 0;

    /** PAUSE_MS (0): idle this long after each record, so that producer, broker and consumer wake from idle for the next. */
    static final long PAUSE_MS = Long.parseLong(System.getenv().getOrDefault("PAUSE_MS", "0"));

    private static long roundTrip(KafkaProducer<String, byte[]> producer, KafkaConsumer<String, byte[]> consumer,
                                  byte[] value, String key, long[] ack, int index) {
        long t0 = System.nanoTime();
        producer.send(new ProducerRecord<>(TOPIC, PARTITION, key, value), (metadata, error) -> {
            if (ack != null) {
                ack[index] = System.nanoTime() - t0;
            }
        });
        while (true) {
            for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(1000))) {
                if (key.equals(r.key())) {
                    return System.nanoTime() - t0;
                }
            }
            if (System.nanoTime() - t0 > 30_000_000_000L) {
                throw new IllegalStateException("record " + key + " not consumed within 30 s");
            }
        }
    }
}
