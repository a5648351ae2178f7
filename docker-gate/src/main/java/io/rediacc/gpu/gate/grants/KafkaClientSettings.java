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
        kafka.forEach((key, value) -> {
            if (!key.startsWith("devservices") && !key.startsWith("health") && !key.startsWith("snappy")
                    && value != null) {
                properties.put(key, value.toString());
            }
        });
        return properties;
    }
}
