package io.rediacc.gpu.inventory.service;

import io.rediacc.gpu.contracts.events.CloudEventHeaders;
import io.rediacc.gpu.contracts.events.EventJson;
import io.rediacc.gpu.contracts.events.MachineInventory;
import io.rediacc.gpu.contracts.events.Topics;
import io.rediacc.gpu.contracts.signing.RecordSignature;
import io.rediacc.gpu.contracts.signing.RecordSigner;
import io.rediacc.gpu.contracts.signing.RecordVerifier;
import io.rediacc.gpu.contracts.signing.SigningKeys;
import io.rediacc.gpu.inventory.support.Inventories;

import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;
import java.security.KeyPair;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * Thread CPU per inventory record of the ingest's in-memory steps — signature check, decode, content
 * digest — on a record shaped like the fleet bench's (8 GPUs, 9 CDI devices, 2 repos). Not a test: run
 * its main (docs/BENCHMARKS.md, inventory-service section).
 */
public final class IngestCostBench {

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 5_000;
        KeyPair key = SigningKeys.generate();
        RecordSigner signer = new RecordSigner(key.getPrivate(), key.getPublic());
        RecordVerifier verifier = new RecordVerifier(Duration.ofMinutes(5));
        String machine = "fm-00042";
        MachineInventory inventory = Inventories.nvidiaHost(machine, Inventories.now(), 8, "NVIDIA H100 80GB HBM3");
        byte[] value = EventJson.toBytes(inventory);
        Map<String, byte[]> headers = new HashMap<>(CloudEventHeaders.of(Topics.INVENTORY_TOPIC, "/node-agent/" + machine, machine));
        signer.sign(Topics.INVENTORY, machine, headers, value);
        Class<?> decoder = Class.forName("io.rediacc.gpu.inventory.messaging.RecordDecoder");
        Method decode = decoder.getDeclaredMethod("inventory", String.class, byte[].class, Instant.class, Duration.class);
        decode.setAccessible(true);
        Instant recordTime = Instant.now();
        MachineInventory decoded = (MachineInventory) decode.invoke(null, machine, value, recordTime, Duration.ofMinutes(5));
        System.out.printf("record %d bytes%n", value.length);
        String ceTime = new String(headers.get(CloudEventHeaders.TIME), java.nio.charset.StandardCharsets.UTF_8);
        byte[] signature = java.util.Base64.getDecoder().decode(headers.get(RecordSignature.SIGNATURE));
        for (int round = 0; round < 3; round++) {
            long verify = cpu(n, () -> {
                if (verifier.verify(Topics.INVENTORY, machine, headers::get, value, key.getPublic(), "m", Instant.now()) != null) {
                    throw new IllegalStateException("does not verify");
                }
            });
            // the JDK provider's verification, which RecordVerifier used before: the same-run anchor
            long jdk = cpu(n, () -> {
                try {
                    var s = java.security.Signature.getInstance(SigningKeys.ALGORITHM);
                    s.initVerify(key.getPublic());
                    s.update(RecordSignature.signedBytes(Topics.INVENTORY, machine, ceTime, value));
                    if (!s.verify(signature)) {
                        throw new IllegalStateException("does not verify");
                    }
                } catch (java.security.GeneralSecurityException e) {
                    throw new IllegalStateException(e);
                }
            });
            long dec = cpu(n, () -> {
                try {
                    decode.invoke(null, machine, value, recordTime, Duration.ofMinutes(5));
                } catch (ReflectiveOperationException e) {
                    throw new IllegalStateException(e);
                }
            });
            long digest = cpu(n, () -> ContentDigest.of(decoded));
            System.out.printf("round %d: per record thread CPU: verify %.1f us (JDK provider %.1f us), decode %.1f us,"
                    + " digest %.1f us%n", round, verify / 1e3 / n, jdk / 1e3 / n, dec / 1e3 / n, digest / 1e3 / n);
        }
    }

    private static long cpu(int n, Runnable step) {
        var threads = ManagementFactory.getThreadMXBean();
        long start = threads.getCurrentThreadCpuTime();
        for (int i = 0; i < n; i++) {
            step.run();
        }
        return threads.getCurrentThreadCpuTime() - start;
    }
}
