package io.rediacc.gpu.gate.grants;

import java.util.Map;
import java.util.Properties;

/**
 * Kafka client settings from the application's {@code kafka.*} properties, minus the keys that
 * configure Quarkus itself rather than the client (so the client does not warn about them).
 */
public final class KafkaClientSettings {

    private KafkaClientSettings() {
    }

    public static Properties from(Map<String, Object> kafka) {
        Properties properties = new Properties();
        // The gate's memory budget (docs/BENCHMARKS.md, "Gate memory and request path, 2026-12-02"): no JMX
        // reporter (an MBean per client metric; the gate exports what it needs itself, gate_grants_feed_lag_records)
        // and no KIP-714 metrics push to the broker (its telemetry reporter and shaded OpenTelemetry/protobuf
        // classes). Both stay settable through kafka.metric.reporters and kafka.enable.metrics.push.
        properties.put("metric.reporters", "");
        properties.put("enable.metrics.push", "false");
        kafka.forEach((key, value) -> {
            if (!key.startsWith("devservices") && !key.startsWith("health") && !key.startsWith("snappy")
                    && value != null) {
                properties.put(key, value.toString());
            }
        });
        return properties;
    }
}
