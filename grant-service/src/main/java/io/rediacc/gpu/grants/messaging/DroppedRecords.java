package io.rediacc.gpu.grants.messaging;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jboss.logging.Logger;

/**
 * Records a consumer refuses (RecordBounds, unreadable JSON): logged with where they are and why,
 * and counted in {@code grants.input.dropped} by topic, so a forging or broken producer shows up.
 */
@ApplicationScoped
public class DroppedRecords {

    private static final Logger LOG = Logger.getLogger(DroppedRecords.class);

    private final MeterRegistry metrics;

    public DroppedRecords(MeterRegistry metrics) {
        this.metrics = metrics;
    }

    void drop(ConsumerRecord<String, byte[]> record, String why) {
        LOG.warnf("dropping record %s-%d@%d: %s", record.topic(), record.partition(), record.offset(), why);
        Counter.builder("grants.input.dropped")
                .description("Records read from Kafka and dropped because they failed the input checks, by topic")
                .tag("topic", record.topic())
                .register(metrics)
                .increment();
    }
}
