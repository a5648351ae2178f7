package io.rediacc.gpu.agent.publish;

import io.rediacc.gpu.agent.config.AgentConfig;
import io.rediacc.gpu.agent.config.AgentSettings;
import io.rediacc.gpu.agent.host.HostRoot;
import io.rediacc.gpu.agent.inventory.InventoryAssembler;
import io.rediacc.gpu.contracts.signing.KeyPairFile;
import io.rediacc.gpu.contracts.signing.RecordSigner;
import io.smallrye.common.annotation.Identifier;
import jakarta.enterprise.context.ApplicationScoped;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * Starts the long-running mode for a machine: a Kafka producer configured from {@code kafka.*}
 * and a {@link RunningAgent} around it. Any {@code kafka.*} key that is a producer setting reaches
 * the producer; the defaults below make an unreachable broker fail fast so the retry loop (which
 * always sends the newest state) stays in charge.
 */
@ApplicationScoped
public class InventoryAgent {

    static final Map<String, Object> PRODUCER_DEFAULTS = Map.of(
            ProducerConfig.ACKS_CONFIG, "all",
            ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true",
            ProducerConfig.MAX_BLOCK_MS_CONFIG, "10000",
            ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000",
            ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "30000",
            ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "5000");

    private final AgentConfig config;
    private final InventoryAssembler assembler;
    private final Map<String, Object> kafkaConfig;

    public InventoryAgent(AgentConfig config, InventoryAssembler assembler,
                          @Identifier("default-kafka-broker") Map<String, Object> kafkaConfig) {
        this.config = config;
        this.assembler = assembler;
        this.kafkaConfig = kafkaConfig;
    }

    public RunningAgent start(AgentSettings settings) throws IOException {
        return start(settings, config.heartbeat());
    }

    /** As {@link #start(AgentSettings)}, with another heartbeat (simulations of many machines, tests). */
    public RunningAgent start(AgentSettings settings, Duration heartbeat) throws IOException {
        String machine = assembler.current(settings).machine();
        Map<String, Object> props = new HashMap<>(PRODUCER_DEFAULTS);
        kafkaConfig.forEach((k, v) -> {
            if (ProducerConfig.configNames().contains(k)) {
                props.put(k, v);
            }
        });
        props.put(ProducerConfig.CLIENT_ID_CONFIG, "node-agent-" + machine);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        long delivery = Long.parseLong(props.get(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG).toString());
        long block = Long.parseLong(props.get(ProducerConfig.MAX_BLOCK_MS_CONFIG).toString());
        InventoryPublisher publisher = new InventoryPublisher(new KafkaProducer<>(props), "/node-agent/" + machine,
                signer(settings.host()), config.publish().backoffMin(), config.publish().backoffMax(), Duration.ofMillis(delivery + block + 5000));
        return new RunningAgent(settings, assembler, publisher, heartbeat, config.debounce());
    }

    /**
     * The machine's key ({@link KeyPairFile#MACHINE_KEY} under the root): prepare creates it; an agent
     * started without it (a simulation, a test root) creates it too, and consumers drop its records
     * until an operator registers the public key.
     */
    static RecordSigner signer(HostRoot host) {
        KeyPairFile.Loaded key = KeyPairFile.ensure(host.path(KeyPairFile.MACHINE_KEY));
        return new RecordSigner(key.pair().getPrivate(), key.pair().getPublic());
    }
}
