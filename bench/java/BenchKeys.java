import io.rediacc.gpu.contracts.signing.KeyPairFile;
import io.rediacc.gpu.contracts.signing.RecordSigner;
import io.rediacc.gpu.contracts.signing.SigningKeys;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.security.spec.NamedParameterSpec;

/**
 * The simulated machines' Ed25519 keys and the bench's grants key. A machine's key is derived from the run's
 * seed (env BENCH_KEY_SEED, set by bench/lib/common.sh) and its name, so every driver process of one run signs
 * with the same key the run registered, without a key file per machine; the grants key is the pair file
 * (env BENCH_GRANTS_KEY) grant-service signs with, or the simulator in its place, and the gates verify with.
 */
final class BenchKeys {
    private BenchKeys() {
    }

    static String seed() {
        String seed = System.getenv("BENCH_KEY_SEED");
        if (seed == null || seed.isBlank()) {
            throw new IllegalStateException("BENCH_KEY_SEED is not set: bench/lib/common.sh sets it per run");
        }
        return seed;
    }

    /** The machine's key pair: the same for the same seed and name. */
    static KeyPair machine(String machine) {
        try {
            byte[] secret = MessageDigest.getInstance("SHA-256")
                    .digest((seed() + "/machine/" + machine).getBytes(StandardCharsets.UTF_8));
            KeyPairGenerator g = KeyPairGenerator.getInstance(SigningKeys.ALGORITHM);
            // the generator draws the 32-byte private key from this source; the public half is derived from it
            g.initialize(NamedParameterSpec.ED25519, new FixedBytes(secret));
            return g.generateKeyPair();
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    static RecordSigner machineSigner(String machine) {
        KeyPair pair = machine(machine);
        return new RecordSigner(pair.getPrivate(), pair.getPublic());
    }

    /** Signs grant snapshots with the key the gates are given (gate.grants-key). */
    static RecordSigner grantsSigner() {
        String file = System.getenv("BENCH_GRANTS_KEY");
        if (file == null || file.isBlank()) {
            throw new IllegalStateException("BENCH_GRANTS_KEY is not set: bench/lib/common.sh sets it per run");
        }
        KeyPair pair = KeyPairFile.read(Path.of(file));
        return new RecordSigner(pair.getPrivate(), pair.getPublic());
    }

    /** Writes the machine's pair in KeyPairFile's format (a gate's gate.signing-key). */
    static void writePairFile(String machine, Path file) throws Exception {
        KeyPair pair = machine(machine);
        Files.createDirectories(file.toAbsolutePath().getParent());
        Files.writeString(file, SigningKeys.privatePem(pair.getPrivate()) + SigningKeys.publicPem(pair.getPublic()),
                StandardCharsets.US_ASCII);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
    }

    /** A random source that hands out fixed bytes: makes the JDK's Ed25519 generator deterministic. */
    private static final class FixedBytes extends SecureRandom {
        private final byte[] bytes;

        FixedBytes(byte[] bytes) {
            this.bytes = bytes;
        }

        @Override
        public void nextBytes(byte[] out) {
            if (out.length != bytes.length) {
                throw new IllegalStateException("expected a draw of " + bytes.length + " bytes, got " + out.length);
            }
            System.arraycopy(bytes, 0, out, 0, out.length);
        }
    }
}
