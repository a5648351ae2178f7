package io.rediacc.gpu.testsupport;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

import java.util.Map;

/**
 * Quarkus test resource: a real Kafka broker ({@link EmbeddedKafka}) with the product's topics.
 * One broker serves every test class of a JVM (starting one takes seconds; topics are keyed so
 * tests do not collide when they use their own machine names).
 */
public class KafkaTestResource implements QuarkusTestResourceLifecycleManager {

    private static EmbeddedKafka broker;

    /** The shared broker, started on first use and closed when the JVM exits. */
    public static synchronized EmbeddedKafka broker() {
        if (broker == null) {
            broker = EmbeddedKafka.start();
            EmbeddedKafka b = broker;
            Runtime.getRuntime().addShutdownHook(new Thread(b::close, "embedded-kafka-shutdown"));
        }
        return broker;
    }

    @Override
    public Map<String, String> start() {
        EmbeddedKafka kafka = broker();
        kafka.restart(); // a previous test class may have left clients cut off
        return Map.of(
                "kafka.devservices.enabled", "false",
                "quarkus.kafka.devservices.enabled", "false",
                "kafka.bootstrap.servers", kafka.bootstrapServers());
    }

    @Override
    public void stop() {
        // the broker outlives one application start; the shutdown hook closes it
    }
}
