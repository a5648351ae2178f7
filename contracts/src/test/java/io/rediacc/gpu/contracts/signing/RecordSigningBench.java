package io.rediacc.gpu.contracts.signing;

import io.rediacc.gpu.contracts.events.CloudEventHeaders;
import io.rediacc.gpu.contracts.events.Topics;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.security.KeyPair;
import java.security.Signature;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;

/**
 * Thread-CPU per record of {@link RecordSigner#sign} and {@link RecordVerifier#verify} on a 3 KiB
 * value (a snapshot of 16 grants), against the JDK provider's Ed25519 on the same bytes in the same
 * run (what both did before {@link Ed25519Math}). A main, not a test: run it from the test class path.
 */
public final class RecordSigningBench {

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 400;
        ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
        KeyPair pair = SigningKeys.generate();
        byte[] value = new byte[3072];
        new Random(1).nextBytes(value);
        Instant at = Instant.parse("2026-12-01T12:00:00Z");
        RecordSigner signer = new RecordSigner(pair.getPrivate(), pair.getPublic());
        RecordVerifier verifier = new RecordVerifier(Duration.ofMinutes(2));
        Map<String, byte[]> headers = new HashMap<>(CloudEventHeaders.of(Topics.GRANTS_TOPIC, "/grant-service", "m1", "m1/v1", at));
        signer.sign(Topics.GRANTS, "m1", headers, value);
        byte[] signed = RecordSignature.signedBytes(Topics.GRANTS, "m1", at.toString(), value);
        byte[] signature = java.util.Base64.getDecoder().decode(headers.get(RecordSignature.SIGNATURE));
        for (int round = 0; round < 5; round++) {
            long t0 = cpu.getCurrentThreadCpuTime();
            for (int i = 0; i < n; i++) {
                Signature s = Signature.getInstance(SigningKeys.ALGORITHM);
                s.initSign(pair.getPrivate());
                s.update(signed);
                s.sign();
            }
            long t1 = cpu.getCurrentThreadCpuTime();
            for (int i = 0; i < n; i++) {
                Signature s = Signature.getInstance(SigningKeys.ALGORITHM);
                s.initVerify(pair.getPublic());
                s.update(signed);
                s.verify(signature);
            }
            long t2 = cpu.getCurrentThreadCpuTime();
            for (int i = 0; i < n; i++) {
                signer.sign(Topics.GRANTS, "m1", headers, value);
            }
            long t3 = cpu.getCurrentThreadCpuTime();
            for (int i = 0; i < n; i++) {
                if (verifier.verify(Topics.GRANTS, "m1", headers::get, value, pair.getPublic(), "grant-service", at) != null) {
                    throw new IllegalStateException("refused");
                }
            }
            long t4 = cpu.getCurrentThreadCpuTime();
            System.out.printf("round %d, us of thread CPU per record: JDK sign %.0f, verify %.0f | RecordSigner %.0f, RecordVerifier %.0f%n",
                    round, (t1 - t0) / 1e3 / n, (t2 - t1) / 1e3 / n, (t3 - t2) / 1e3 / n, (t4 - t3) / 1e3 / n);
        }
    }
}
