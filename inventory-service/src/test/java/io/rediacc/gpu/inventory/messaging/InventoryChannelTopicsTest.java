package io.rediacc.gpu.inventory.messaging;

import io.quarkus.test.junit.QuarkusTest;
import io.rediacc.gpu.contracts.events.Topics;
import io.rediacc.gpu.inventory.config.ChannelTopics;
import io.rediacc.gpu.inventory.support.FleetResources;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.reactive.messaging.kafka.KafkaClientService;
import io.smallrye.reactive.messaging.kafka.KafkaConsumer;
import jakarta.inject.Inject;
import org.apache.kafka.clients.consumer.Consumer;
import org.eclipse.microprofile.config.Config;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The inventory channel runs as concurrent copies ({@code gpu.inventory.v1$1}, {@code $2}); each copy
 * reads the topic its {@code topic} property names, and that property comes from contracts'
 * {@link Topics} through {@link ChannelTopics}, never from a spelled-out name in application.properties.
 * Without it the copies would subscribe to topics named after themselves and ingest nothing.
 */
@QuarkusTest
@FleetResources
class InventoryChannelTopicsTest {

    @Inject
    KafkaClientService kafka;

    @Inject
    Config config;

    @Test
    void everyCopyOfTheInventoryChannelReadsTheContractsTopic() {
        List<KafkaConsumer<Object, Object>> consumers = new ArrayList<>();
        kafka.getConsumerChannels().stream().filter(channel -> channel.startsWith(Topics.INVENTORY))
                .forEach(channel -> kafka.<Object, Object>getConsumers(channel).stream()
                        .filter(c -> consumers.stream().noneMatch(seen -> seen == c)).forEach(consumers::add));
        assertThat(consumers).as("one consumer per copy of the channel (concurrency=2)").hasSize(2);
        for (KafkaConsumer<Object, Object> consumer : consumers) {
            Function<Consumer<Object, Object>, Set<String>> subscription = Consumer::subscription;
            Set<String> subscribed = consumer.runOnPollingThread(subscription).await().atMost(Duration.ofSeconds(30));
            assertThat(subscribed).containsExactly(Topics.INVENTORY);
        }
    }

    @Test
    void theTopicPropertyComesFromTheContractsConstantsOnly() {
        var value = config.unwrap(SmallRyeConfig.class).getConfigValue(ChannelTopics.INVENTORY_TOPIC_PROPERTY);
        assertThat(value.getValue()).isEqualTo(Topics.INVENTORY);
        assertThat(value.getSourceName()).isEqualTo(new ChannelTopics().getName());
    }
}
