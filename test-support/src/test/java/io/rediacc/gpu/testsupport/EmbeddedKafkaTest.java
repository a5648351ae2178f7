package io.rediacc.gpu.testsupport;

import io.rediacc.gpu.contracts.events.Topics;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

class EmbeddedKafkaTest {

    static EmbeddedKafka kafka;

    @BeforeAll
    static void start() {
        kafka = EmbeddedKafka.start();
    }

    @AfterAll
    static void stop() {
        kafka.close();
    }

    @Test
    void productTopicsExistWithTheirCleanupPolicies() throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()))) {
            assertThat(admin.listTopics().names().get()).containsAll(Topics.ALL.stream().map(Topics.TopicSpec::name).toList());
            for (Topics.TopicSpec spec : Topics.ALL) {
                ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, spec.name());
                ConfigEntry policy = admin.describeConfigs(Set.of(r)).all().get().get(r).get("cleanup.policy");
                assertThat(policy.value()).as(spec.name()).isEqualTo(spec.cleanupPolicy());
            }
        }
    }

    @Test
    void aCompactedTopicKeepsTheLastValuePerKeyAcrossARestart() throws Exception {
        try (var producer = producer()) {
            for (int v = 1; v <= 3; v++) {
                producer.send(new ProducerRecord<>(Topics.GRANTS, "m1", "v" + v)).get();
                producer.send(new ProducerRecord<>(Topics.GRANTS, "m2", "w" + v)).get();
            }
        }
        kafka.stop();
        assertThat(kafka.running()).isFalse();
        kafka.restart();
        Map<String, String> latest = readAll(Topics.GRANTS);
        assertThat(latest).containsEntry("m1", "v3").containsEntry("m2", "w3");
    }

    private KafkaProducer<String, String> producer() {
        return new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                ProducerConfig.ACKS_CONFIG, "all"), new StringSerializer(), new StringSerializer());
    }

    private Map<String, String> readAll(String topic) {
        Map<String, String> latest = new HashMap<>();
        try (var consumer = new KafkaConsumer<>(Map.<String, Object>of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.GROUP_ID_CONFIG, "t-" + System.nanoTime()), new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            long deadline = System.currentTimeMillis() + 20_000;
            int seen = 0;
            while (seen < 6 && System.currentTimeMillis() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    latest.put(r.key(), r.value());
                    seen++;
                }
            }
        }
        return latest;
    }
}
