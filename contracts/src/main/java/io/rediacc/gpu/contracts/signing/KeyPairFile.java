package io.rediacc.gpu.contracts.signing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyPair;
import java.util.Set;

/**
 * A machine's key pair on disk: one file holding the private and the public key (PEM, mode 0640,
 * group {@value #GROUP} where that group exists, so node-agent and docker-gate can read it and
 * nobody else), and beside it a world-readable copy of the public key for {@code rdc machine setup}
 * to register. Keeping both halves in one file makes creation one atomic step: two processes that
 * create it at once end with one pair, never a private key that does not match the public one.
 */
public final class KeyPairFile {

    /** The machine's key pair, a host path (under the machine's root). */
    public static final String MACHINE_KEY = "/etc/rediacc/gpu/machine-key.pem";
    /** Its public half, what setup registers. */
    public static final String MACHINE_PUBLIC_KEY = "/etc/rediacc/gpu/machine-key.pub";
    /** The group that may read the key pair besides root: docker-gate's (node-agent joins it). */
    public static final String GROUP = "rediacc-gate";

    /** The pair and whether this call created it. */
    public record Loaded(KeyPair pair, boolean created) {
    }

    private KeyPairFile() {
    }

    /** The public key file beside {@code pairFile} ({@code machine-key.pem} → {@code machine-key.pub}). */
    public static Path publicFileOf(Path pairFile) {
        String name = pairFile.getFileName().toString();
        return pairFile.resolveSibling((name.endsWith(".pem") ? name.substring(0, name.length() - 4) : name) + ".pub");
    }

    /** Reads the pair, creating it first when the file does not exist (never overwrites one). */
    public static Loaded ensure(Path pairFile) {
        boolean created = false;
        if (!Files.exists(pairFile)) {
            created = create(pairFile);
        }
        KeyPair pair = read(pairFile);
        Path pub = publicFileOf(pairFile);
        try {
            String text = SigningKeys.publicPem(pair.getPublic());
            if (!Files.exists(pub) || !Files.readString(pub, StandardCharsets.US_ASCII).equals(text)) {
                // a temporary file of its own: processes writing the same public half at once must not
                // move each other's file away (RecordSignatureTest races them)
                Path tmp = Files.createTempFile(pub.getParent(), pub.getFileName() + ".", ".new");
                Files.writeString(tmp, text, StandardCharsets.US_ASCII);
                Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-r--r--"));
                Files.move(tmp, pub, java.nio.file.StandardCopyOption.ATOMIC_MOVE, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            if (created) {
                throw new UncheckedIOException("cannot write the public key " + pub + ": " + e.getMessage(), e);
            }
            // a read-only /etc (systemd ProtectSystem=strict) at run time: the pair itself is what counts
        }
        return new Loaded(pair, created);
    }

    public static KeyPair read(Path pairFile) {
        String text;
        try {
            text = Files.readString(pairFile, StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the key pair " + pairFile + " (" + e.getMessage()
                    + "); node-agent prepare (rdc machine setup) creates it", e);
        }
        return new KeyPair(SigningKeys.parsePublic(text), SigningKeys.parsePrivate(text));
    }

    private static boolean create(Path pairFile) {
        KeyPair pair = SigningKeys.generate();
        String text = SigningKeys.privatePem(pair.getPrivate()) + SigningKeys.publicPem(pair.getPublic());
        try {
            Files.createDirectories(pairFile.getParent());
            Path tmp = Files.createTempFile(pairFile.getParent(), ".machine-key", ".new", PosixFilePermissions.asFileAttribute(
                    Set.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE, PosixFilePermission.GROUP_READ)));
            try {
                Files.writeString(tmp, text, StandardCharsets.US_ASCII);
                Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-r-----"));
                readableByGateGroup(tmp);
                try {
                    // a hard link fails when the name exists: the first writer wins, a racing one reads its pair
                    Files.createLink(pairFile, tmp);
                } catch (FileAlreadyExistsException e) {
                    return false;
                }
                return true;
            } finally {
                Files.deleteIfExists(tmp);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the key pair " + pairFile + " (" + e.getMessage()
                    + "); run node-agent prepare as root (rdc machine setup does)", e);
        }
    }

    private static void readableByGateGroup(Path file) {
        try {
            GroupPrincipal group = file.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByGroupName(GROUP);
            Files.getFileAttributeView(file, java.nio.file.attribute.PosixFileAttributeView.class).setGroup(group);
        } catch (IOException | UnsupportedOperationException e) {
            // no such group (a test, a simulation, a machine without the package): the file stays the owner's and its group's
        }
    }
}
