package io.rediacc.gpu.grants.testing;

import io.rediacc.gpu.contracts.events.CloudEventHeaders;
import io.rediacc.gpu.contracts.events.EventJson;
import io.rediacc.gpu.contracts.identity.Identifiers;
import io.rediacc.gpu.contracts.signing.RecordSigner;
import io.rediacc.gpu.contracts.signing.SigningKeys;
import io.restassured.http.ContentType;
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

import java.security.KeyPair;
import java.time.Instant;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
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
        return inventory(machine, devices, Map.of(), repos);
    }

    /** An inventory whose devices also say which cards (PCI addresses) they reach, as node-agent reads them from sysfs. */
    public static MachineInventory inventory(String machine, Map<String, List<String>> devices,
                                             Map<String, List<String>> cards, List<RepoInfo> repos) {
        List<MachineInventory.CdiDeviceInfo> cdi = new ArrayList<>();
        devices.forEach((name, nodes) -> cdi.add(new MachineInventory.CdiDeviceInfo(name, nodes, "/etc/cdi/nvidia.yaml",
                "sha256:00", cards.getOrDefault(name, List.of()))));
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

    /**
     * Sends a record as the machine its key names would: signed with that machine's key (registered with
     * the service under test on first use), {@code ce_time} the record's timestamp (null: now).
     */
    public void send(String topic, String key, byte[] value, Long timestamp) {
        String machine = machineOf(key);
        send(topic, key, value, timestamp, machine == null ? null : registeredKey(machine));
    }

    /** Sends a record signed by {@code signer} (null: unsigned), as a forger would. */
    public void send(String topic, String key, byte[] value, Long timestamp, KeyPair signer) {
        Instant time = timestamp == null ? Instant.now() : Instant.ofEpochMilli(timestamp);
        Map<String, byte[]> headers = new LinkedHashMap<>(CloudEventHeaders.of(Topics.byName(topic), "/test", key,
                UUID.randomUUID().toString(), time));
        if (signer != null) {
            new RecordSigner(signer.getPrivate(), signer.getPublic()).sign(topic, key, headers, value);
        }
        sendWithHeaders(topic, key, value, timestamp, headers);
    }

    /** Sends a record with exactly these headers. */
    public void sendWithHeaders(String topic, String key, byte[] value, Long timestamp, Map<String, byte[]> headers) {
        ProducerRecord<String, byte[]> record = new ProducerRecord<>(topic, null, timestamp, key, value);
        headers.forEach((name, v) -> record.headers().add(name, v));
        try {
            producer.send(record).get(15, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("cannot publish to " + topic + ": " + e.getMessage(), e);
        }
    }

    private static final Map<String, KeyPair> KEYS = new ConcurrentHashMap<>();
    /** Where machine keys are registered: null, the application under test; else a running instance's base URI. */
    private static volatile String registrar;

    /** Registers machine keys with the instance at {@code baseUri} from now on (tests that run their own replicas). */
    public static void registerWith(String baseUri) {
        registrar = baseUri;
    }
    private static final Set<String> REGISTERED = ConcurrentHashMap.newKeySet();

    /** The machine's key pair in this JVM (a machine's node-agent and gate share it). */
    public static KeyPair keyOf(String machine) {
        return KEYS.computeIfAbsent(machine, m -> SigningKeys.generate());
    }

    /** The machine's key, registered with the application under test (as rdc machine setup does) on first use. */
    public static KeyPair registeredKey(String machine) {
        return registeredKey(machine, new GrantApi(registrar));
    }

    /** The same, registered through {@code api} (its token: a JWT-mode test has no static operator token). */
    public static KeyPair registeredKey(String machine, GrantApi api) {
        KeyPair key = keyOf(machine);
        if (REGISTERED.add(machine)) {
            int status = api.request().contentType(ContentType.JSON)
                    .body(Map.of("publicKey", SigningKeys.publicPem(key.getPublic())))
                    .put("/api/v1/machines/{machine}/key", machine).statusCode();
            if (status != 200) {
                REGISTERED.remove(machine);
                throw new IllegalStateException("registering the key of " + machine + " answered " + status);
            }
        }
        return key;
    }

    /** The machine a record key names (machine, or machine/gateId), null when none. */
    static String machineOf(String key) {
        if (key == null) {
            return null;
        }
        int slash = key.indexOf('/');
        String machine = slash < 0 ? key : key.substring(0, slash);
        return Identifiers.isMachine(machine) ? machine : null;
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
