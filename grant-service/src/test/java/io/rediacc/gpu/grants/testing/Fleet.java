package io.rediacc.gpu.grants.testing;

import io.rediacc.gpu.contracts.events.EventJson;
import io.rediacc.gpu.contracts.events.GateStatus;
import io.rediacc.gpu.contracts.events.Grant;
import io.rediacc.gpu.contracts.events.MachineInventory;
import io.rediacc.gpu.contracts.events.RepoInfo;
import io.rediacc.gpu.contracts.events.Topics;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * Plays the machines of a fleet: publishes inventories (what a node-agent does) and gate statuses
 * (what a docker-gate does) on the real topics.
 */
public final class Fleet implements AutoCloseable {

    /** The CDI devices of a two-GPU NVIDIA machine with one render node, with their device nodes. */
    public static final Map<String, List<String>> TWO_NVIDIA_GPUS = devices();

    private final KafkaProducer<String, byte[]> producer;

    public Fleet(String bootstrapServers) {
        producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName(),
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName(),
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.MAX_BLOCK_MS_CONFIG, 10_000));
    }

    /** A machine name no other test uses. */
    public static String uniqueMachine(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8).toLowerCase(Locale.ROOT);
    }

    public static RepoInfo repo(String name) {
        return new RepoInfo(name, UUID.randomUUID().toString(), null);
    }

    public static RepoInfo forkOf(String name, RepoInfo parent) {
        return new RepoInfo(name, UUID.randomUUID().toString(), parent.guid());
    }

    public static MachineInventory inventory(String machine, Map<String, List<String>> devices, List<RepoInfo> repos) {
        List<MachineInventory.CdiDeviceInfo> cdi = new ArrayList<>();
        devices.forEach((name, nodes) -> cdi.add(new MachineInventory.CdiDeviceInfo(name, nodes, "/etc/cdi/nvidia.yaml", "sha256:00")));
        return new MachineInventory(MachineInventory.SCHEMA_VERSION, machine, MachineInventory.PLATFORM_LOCAL, "test",
                Instant.now(), List.of(), cdi, null, null, repos, List.of());
    }

    public void publishInventory(MachineInventory inventory) {
        send(Topics.INVENTORY, inventory.machine(), EventJson.toBytes(inventory), null);
    }

    /** Publishes a gate's status as published now. */
    public void publishGateStatus(String machine, String gateId, long appliedVersion, List<Grant> grants) {
        publishGateStatus(machine, gateId, appliedVersion, grants, Instant.now());
    }

    /** Publishes a gate's status with the given publication time (an old one makes a gate that went silent). */
    public void publishGateStatus(String machine, String gateId, long appliedVersion, List<Grant> grants,
                                  Instant publishedAt) {
        GateStatus status = new GateStatus(machine, gateId, appliedVersion, GateStatus.SYNCED, grants, List.of(), 10,
                publishedAt);
        send(Topics.GATE_STATUS, Topics.gateStatusKey(machine, gateId), EventJson.toBytes(status),
                publishedAt.toEpochMilli());
    }

    public void send(String topic, String key, byte[] value, Long timestamp) {
        try {
            producer.send(new ProducerRecord<>(topic, null, timestamp, key, value)).get(15, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("cannot publish to " + topic + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        producer.close();
    }

    private static Map<String, List<String>> devices() {
        Map<String, List<String>> devices = new LinkedHashMap<>();
        List<String> control = List.of("/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools");
        devices.put("nvidia.com/gpu=0", concat(List.of("/dev/nvidia0"), control));
        devices.put("nvidia.com/gpu=1", concat(List.of("/dev/nvidia1"), control));
        devices.put("nvidia.com/gpu=all", concat(List.of("/dev/nvidia0", "/dev/nvidia1"), control));
        devices.put("rediacc.io/dri=renderD128", List.of("/dev/dri/renderD128"));
        return devices;
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return List.copyOf(all);
    }
}
