import io.rediacc.gpu.contracts.events.CloudEventHeaders;
import io.rediacc.gpu.contracts.events.EventJson;
import io.rediacc.gpu.contracts.events.Grant;
import io.rediacc.gpu.contracts.events.GrantSnapshot;
import io.rediacc.gpu.contracts.events.MachineInventory;
import io.rediacc.gpu.contracts.events.RepoInfo;
import io.rediacc.gpu.contracts.events.Topics;
import io.rediacc.gpu.contracts.signing.RecordSigner;
import io.rediacc.gpu.contracts.signing.SigningKeys;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The fleet simulator. Machines are named String.format(pattern, i) for i in [from, to).
 *
 * <pre>
 * FleetSim inventory BOOTSTRAP PATTERN FROM TO GPUS REPOS [DRIVER] [--await-metrics URL RECORDS]
 *     publishes MachineInventory records (GPUS NVIDIA GPUs, CDI names gpu=0..N-1 and all, REPOS repos
 *     repo-0..) to gpu.inventory.v1 with CloudEvents headers, signed with each machine's key (BenchKeys), the
 *     way node-agent does; with --await-metrics waits until inventory-service's inventory_ingested_records_total
 *     rose by RECORDS and prints the ingest rate (machines/s from the first record sent to the last one processed).
 * FleetSim grants BOOTSTRAP PATTERN FROM TO GRANTS_PER_MACHINE
 *     publishes one GrantSnapshot per machine to gpu.grants.v1 (the compacted topic a gate reads at start),
 *     signed with the grants key (env BENCH_GRANTS_KEY) as grant-service's relay signs them.
 * FleetSim register URL TOKEN PATTERN FROM TO [IN_FLIGHT]
 *     registers the machines' public keys with a service (PUT /api/v1/machines/{m}/key, bearer TOKEN with the
 *     operator role, "-" for none), IN_FLIGHT (32) at once; prints the time it took. What rdc machine setup does.
 * FleetSim keyfile MACHINE FILE   writes MACHINE's key pair as a gate's gate.signing-key file
 * FleetSim keypair FILE           creates a fresh pair file (the grants key) and its .pub, unless FILE exists
 * FleetSim guid MACHINE REPO
 * </pre>
 */
public class FleetSim {

    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "guid" -> System.out.println(Bench.guid(args[1], args[2]));
            case "inventory" -> inventory(args);
            case "grants" -> grants(args);
            case "register" -> register(args);
            case "keyfile" -> BenchKeys.writePairFile(args[1], java.nio.file.Path.of(args[2]));
            case "keypair" -> io.rediacc.gpu.contracts.signing.KeyPairFile.ensure(java.nio.file.Path.of(args[1]));
            default -> throw new IllegalArgumentException("unknown mode " + args[0]);
        }
    }

    static KafkaProducer<String, byte[]> producer(String bootstrap) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
        p.put(ProducerConfig.BATCH_SIZE_CONFIG, 256 * 1024);
        p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "none");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        return new KafkaProducer<>(p);
    }

    static MachineInventory inventoryOf(String machine, int gpus, int repos, String driver, Instant at) {
        List<MachineInventory.Gpu> list = new ArrayList<>();
        List<MachineInventory.CdiDeviceInfo> cdi = new ArrayList<>();
        List<String> all = new ArrayList<>();
        for (int g = 0; g < gpus; g++) {
            String uuid = "GPU-" + Bench.guid(machine, "gpu" + g);
            list.add(new MachineInventory.Gpu(g, "nvidia", "NVIDIA A100-SXM4-80GB", uuid,
                    String.format("00000000:%02X:00.0", 0x10 + g), driver, 81920L, "/dev/dri/renderD" + (128 + g), "Disabled"));
            List<String> nodes = List.of("/dev/nvidia" + g, "/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools");
            cdi.add(new MachineInventory.CdiDeviceInfo("nvidia.com/gpu=" + g, nodes, "/etc/cdi/nvidia.yaml", "sha256:" + "ab".repeat(32)));
            all.add("/dev/nvidia" + g);
        }
        if (gpus > 0) {
            all.addAll(List.of("/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools"));
            cdi.add(new MachineInventory.CdiDeviceInfo("nvidia.com/gpu=all", all, "/etc/cdi/nvidia.yaml", "sha256:" + "ab".repeat(32)));
        }
        List<RepoInfo> repoList = new ArrayList<>();
        for (int r = 0; r < repos; r++) {
            repoList.add(new RepoInfo("repo-" + r, Bench.guid(machine, "repo-" + r), null));
        }
        return new MachineInventory(MachineInventory.SCHEMA_VERSION, machine, MachineInventory.PLATFORM_LOCAL, "0.1.0",
                at, list, cdi, new MachineInventory.ToolkitState("installed", "1.17.8", "/etc/cdi/nvidia.yaml", null),
                null, repoList, List.of());
    }

    static void inventory(String[] args) throws Exception {
        String bootstrap = args[1];
        String pattern = args[2];
        int from = Integer.parseInt(args[3]);
        int to = Integer.parseInt(args[4]);
        int gpus = Integer.parseInt(args[5]);
        int repos = Integer.parseInt(args[6]);
        String driver = args.length > 7 && !args[7].startsWith("--") ? args[7] : "570.86.15";
        String metricsUrl = null;
        long expected = 0;
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--await-metrics")) {
                metricsUrl = args[i + 1];
                expected = Long.parseLong(args[i + 2]); // records to wait for, on top of those counted now
            }
        }
        // build and sign all records first: the rate measures the service, not the simulator's JSON writer or signer
        Instant at = Instant.now().truncatedTo(ChronoUnit.MILLIS);
        List<ProducerRecord<String, byte[]>> records = new ArrayList<>(to - from);
        for (int i = from; i < to; i++) {
            String machine = String.format(pattern, i);
            byte[] value = EventJson.toBytes(inventoryOf(machine, gpus, repos, driver, at));
            records.add(signed(Topics.INVENTORY, machine, value,
                    CloudEventHeaders.of(Topics.INVENTORY_TOPIC, "/node-agent/" + machine, machine),
                    BenchKeys.machineSigner(machine)));
        }
        if (metricsUrl != null) {
            expected += ingested(metricsUrl);
        }
        try (KafkaProducer<String, byte[]> producer = producer(bootstrap)) {
            long t0 = System.nanoTime();
            for (ProducerRecord<String, byte[]> r : records) {
                producer.send(r);
            }
            producer.flush();
            long sent = System.nanoTime();
            System.out.println("published " + records.size() + " inventories (" + records.get(0).value().length
                    + " bytes each) in " + Bench.fmt((sent - t0) / 1e6) + " ms");
            if (metricsUrl != null) {
                long deadline = System.nanoTime() + 300_000_000_000L;
                long seen = 0;
                while (System.nanoTime() < deadline) {
                    seen = ingested(metricsUrl);
                    if (seen >= expected) {
                        break;
                    }
                    Thread.sleep(250); // a Prometheus scrape is not free: polling faster loads the service measured
                }
                long done = System.nanoTime();
                double secs = (done - t0) / 1e9;
                System.out.println("ingested_total " + seen);
                System.out.println("ingest_seconds " + Bench.fmt(secs));
                System.out.println("ingest_rate " + Bench.fmt(records.size() / secs));
            }
        }
    }

    private static final Pattern INGESTED = Pattern.compile(
            "^inventory_ingested_records_total\\{([^}]*)\\}\\s+([0-9.eE+]+)", Pattern.MULTILINE);

    /** Records of gpu.inventory.v1 the service has processed, whatever the outcome. */
    static long ingested(String metricsUrl) throws Exception {
        String body = Bench.get(metricsUrl).body();
        Matcher m = INGESTED.matcher(body);
        double sum = 0;
        while (m.find()) {
            if (m.group(1).contains("gpu.inventory.v1")) {
                sum += Double.parseDouble(m.group(2));
            }
        }
        return (long) sum;
    }

    static void grants(String[] args) throws Exception {
        String bootstrap = args[1];
        String pattern = args[2];
        int from = Integer.parseInt(args[3]);
        int to = Integer.parseInt(args[4]);
        int perMachine = Integer.parseInt(args[5]);
        Instant at = Instant.now().truncatedTo(ChronoUnit.MICROS);
        RecordSigner signer = BenchKeys.grantsSigner();
        long t0 = System.nanoTime();
        try (KafkaProducer<String, byte[]> producer = producer(bootstrap)) {
            for (int i = from; i < to; i++) {
                String machine = String.format(pattern, i);
                List<Grant> grants = new ArrayList<>();
                for (int g = 0; g < perMachine; g++) {
                    String repo = "repo-" + (g / 8);
                    grants.add(new Grant(Bench.guid(machine, repo), repo, "nvidia.com/gpu=" + (g % 8), false, "bench", at));
                }
                GrantSnapshot snapshot = new GrantSnapshot(machine, 1 + (at.toEpochMilli() / 1000) % 1_000_000, at, grants);
                producer.send(signed(Topics.GRANTS, machine, EventJson.toBytes(snapshot),
                        CloudEventHeaders.of(Topics.GRANTS_TOPIC, "/grant-service", machine), signer));
            }
            producer.flush();
        }
        System.out.println("published " + (to - from) + " grant snapshots in " + Bench.fmt((System.nanoTime() - t0) / 1e6) + " ms");
    }

    /** A record with its CloudEvents headers and the signer's two signature headers (RecordSignature). */
    static ProducerRecord<String, byte[]> signed(String topic, String key, byte[] value, Map<String, byte[]> headers,
                                                 RecordSigner signer) {
        signer.sign(topic, key, headers, value);
        ProducerRecord<String, byte[]> rec = new ProducerRecord<>(topic, key, value);
        headers.forEach((k, v) -> rec.headers().add(k, v));
        return rec;
    }

    /** Registers the machines' keys as rdc machine setup does, many at once; fails on any answer but 200. */
    static void register(String[] args) throws Exception {
        String url = args[1];
        String token = args[2];
        String pattern = args[3];
        int from = Integer.parseInt(args[4]);
        int to = Integer.parseInt(args[5]);
        int inFlight = args.length > 6 ? Integer.parseInt(args[6]) : 32;
        long t0 = System.nanoTime();
        Semaphore slots = new Semaphore(inFlight);
        AtomicReference<String> failure = new AtomicReference<>();
        List<CompletableFuture<?>> pending = new ArrayList<>();
        for (int i = from; i < to && failure.get() == null; i++) {
            String machine = String.format(pattern, i);
            String pem = SigningKeys.publicPem(BenchKeys.machine(machine).getPublic());
            String body = "{\"publicKey\":\"" + pem.replace("\n", "\\n") + "\",\"reason\":\"bench\"}";
            HttpRequest.Builder req = HttpRequest.newBuilder(URI.create(url + "/api/v1/machines/" + machine + "/key"))
                    .timeout(Duration.ofSeconds(60)).header("Content-Type", "application/json")
                    .PUT(HttpRequest.BodyPublishers.ofString(body));
            if (!token.equals("-")) {
                req.header("Authorization", "Bearer " + token);
            }
            slots.acquire();
            pending.add(Bench.HTTP.sendAsync(req.build(), HttpResponse.BodyHandlers.ofString()).whenComplete((r, e) -> {
                slots.release();
                if (e != null || r.statusCode() != 200) {
                    failure.compareAndSet(null, machine + ": " + (e != null ? e : r.statusCode() + " " + r.body()));
                }
            }));
        }
        CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new)).exceptionally(e -> null).join();
        if (failure.get() != null) {
            throw new IllegalStateException("key registration at " + url + " failed: " + failure.get());
        }
        System.out.println("registered " + (to - from) + " machine keys at " + url + " in "
                + Bench.fmt((System.nanoTime() - t0) / 1e6) + " ms");
    }
}
