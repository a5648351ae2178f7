import io.rediacc.gpu.contracts.events.*;
import io.rediacc.gpu.testsupport.EmbeddedKafka;
import org.apache.kafka.clients.consumer.*;
import org.apache.kafka.clients.producer.*;
import org.apache.kafka.common.serialization.*;

import java.nio.file.*;
import java.time.*;
import java.util.*;

/**
 * A small real fleet for trying rdc end to end (see session.sh): an embedded Kafka broker
 * (test-support), the inventories of two machines (gpu-host-1 publishes every 10 s, wsl-gpu once,
 * long ago), and a stand-in gate for gpu-host-1 that applies every grant snapshot and reports it on
 * gpu.gate-status.v1 as docker-gate does. Writes the bootstrap address to the file named by args[0].
 */
public class Fleet {
    static final String A = "3f2b8c1e-9d4a-4e57-8f0a-2c6d7e9b1a43", B = "7c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f", C = "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";
    public static void main(String[] args) throws Exception {
        EmbeddedKafka kafka = EmbeddedKafka.start();
        Files.writeString(Path.of(args[0]), kafka.bootstrapServers());
        System.out.println("kafka " + kafka.bootstrapServers());
        var producer = new KafkaProducer<String, byte[]>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()), new StringSerializer(), new ByteArraySerializer());
        List<RepoInfo> repos = List.of(new RepoInfo("train-a", A, null), new RepoInfo("infer-b", B, A), new RepoInfo("eval-c", C, null));
        List<MachineInventory.Gpu> gpus = List.of(
            new MachineInventory.Gpu(0, "nvidia", "NVIDIA A100-SXM4-40GB", "GPU-9d1f7a7e-64b1-2c4c-9d1e-4a3b2c1d0e0f", "00000000:07:00.0", "550.127.05", 40960L, "/dev/dri/renderD128", "Disabled"),
            new MachineInventory.Gpu(1, "nvidia", "NVIDIA A100-SXM4-40GB", "GPU-2b3c4d5e-6f70-8192-a3b4-c5d6e7f80912", "00000000:08:00.0", "550.127.05", 40960L, "/dev/dri/renderD129", "Disabled"));
        List<MachineInventory.CdiDeviceInfo> devices = List.of(
            new MachineInventory.CdiDeviceInfo("nvidia.com/gpu=0", List.of("/dev/nvidia0", "/dev/nvidiactl", "/dev/nvidia-uvm"), "/etc/cdi/nvidia.yaml", "sha256:5e0c1f9a"),
            new MachineInventory.CdiDeviceInfo("nvidia.com/gpu=1", List.of("/dev/nvidia1", "/dev/nvidiactl", "/dev/nvidia-uvm"), "/etc/cdi/nvidia.yaml", "sha256:5e0c1f9a"),
            new MachineInventory.CdiDeviceInfo("nvidia.com/gpu=all", List.of("/dev/nvidia0", "/dev/nvidia1", "/dev/nvidiactl", "/dev/nvidia-uvm"), "/etc/cdi/nvidia.yaml", "sha256:5e0c1f9a"));
        var toolkit = new MachineInventory.ToolkitState("installed", "1.17.8", "/etc/cdi/nvidia.yaml", null);
        var wsl = new MachineInventory(1, "wsl-gpu", "wsl", "0.1.0", Instant.now().minusSeconds(754),
            List.of(new MachineInventory.Gpu(0, "nvidia", "NVIDIA GeForce RTX 4070 Laptop GPU", "GPU-47e8b2f4-3c1d-6a5b-9e8f-7d6c5b4a3f21", "00000000:01:00.0", "566.36", 8188L, null, null)),
            List.of(new MachineInventory.CdiDeviceInfo("nvidia.com/gpu=all", List.of("/dev/dxg"), "/etc/cdi/nvidia.yaml", "sha256:c41d09e2")),
            toolkit, null, List.of(new RepoInfo("gpu-a", "5d4c3b2a-1f0e-4d9c-8b7a-6f5e4d3c2b1a", null)), List.of());
        send(producer, Topics.INVENTORY_TOPIC, "wsl-gpu", EventJson.toBytes(wsl));
        long version = 0;
        List<Grant> applied = List.of();
        var consumer = new KafkaConsumer<String, byte[]>(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(), ConsumerConfig.GROUP_ID_CONFIG, "fake-gate", ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"), new StringDeserializer(), new ByteArrayDeserializer());
        consumer.subscribe(List.of(Topics.GRANTS));
        long lastBeat = 0;
        while (true) {
            if (System.currentTimeMillis() - lastBeat > 10_000) {
                var host = new MachineInventory(1, "gpu-host-1", "local", "0.1.0", Instant.now(), gpus, devices, toolkit, "/run/nvidia-persistenced/socket", repos, List.of());
                send(producer, Topics.INVENTORY_TOPIC, "gpu-host-1", EventJson.toBytes(host));
                gate(producer, version, applied);
                lastBeat = System.currentTimeMillis();
            }
            for (var r : consumer.poll(Duration.ofMillis(200))) {
                if (!"gpu-host-1".equals(r.key()) || r.value() == null) continue;
                var snap = EventJson.fromBytes(r.value(), GrantSnapshot.class);
                if (snap.version() > version) { version = snap.version(); applied = snap.grants(); gate(producer, version, applied); System.out.println("gate applied v" + version); }
            }
        }
    }
    static void gate(KafkaProducer<String, byte[]> p, long v, List<Grant> grants) throws Exception {
        var s = new GateStatus("gpu-host-1", "gate-1", v, GateStatus.SYNCED, grants, List.of(), 10, Instant.now());
        send(p, Topics.GATE_STATUS_TOPIC, Topics.gateStatusKey("gpu-host-1", "gate-1"), EventJson.toBytes(s));
    }
    static void send(KafkaProducer<String, byte[]> p, Topics.TopicSpec t, String key, byte[] v) throws Exception {
        var rec = new ProducerRecord<String, byte[]>(t.name(), key, v);
        CloudEventHeaders.of(t, "/e2e", key).forEach((k, b) -> rec.headers().add(k, b));
        p.send(rec).get();
    }
}
