package io.rediacc.gpu.cli.machine.setup;

import io.rediacc.gpu.cli.failure.ExitCodes;
import io.rediacc.gpu.cli.failure.Failure;

import org.apache.commons.compress.archivers.ar.ArArchiveEntry;
import org.apache.commons.compress.archivers.ar.ArArchiveInputStream;
import org.apache.commons.compress.archivers.tar.TarArchiveEntry;
import org.apache.commons.compress.archivers.tar.TarArchiveInputStream;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import java.util.HexFormat;
import java.util.Map;
import java.util.zip.GZIPInputStream;

/**
 * A Debian package file as setup needs it: its name, version, and the digest of its
 * {@code md5sums} (the checksum of every file it installs; dpkg keeps the same file in
 * {@code /var/lib/dpkg/info/<package>.md5sums}, so comparing the two tells whether these very files
 * are installed, even between two builds of one SNAPSHOT version). Read with Apache Commons Compress
 * — an {@code ar} archive holding {@code control.tar.gz} — so the operator's workstation needs no dpkg.
 */
public record DebPackage(Path file, String name, String version, String md5sumsDigest) {

    /** Reads {@code file}'s control member; a file that is not a .deb with a gzip control archive is a usage error. */
    public static DebPackage read(Path file) {
        Map<String, byte[]> control;
        try (InputStream in = Files.newInputStream(file)) {
            control = controlMembers(in);
        } catch (IOException e) {
            throw new Failure(ExitCodes.USAGE, "cannot read the machine package " + file + ": " + e.getMessage()
                    + "; build it (mvn -B -DskipTests package makes deploy/debian/target/rediacc-gpu-node_*_all.deb)"
                    + " or name it with --package <file.deb>");
        }
        byte[] controlFile = control.get("control");
        byte[] md5sums = control.get("md5sums");
        if (controlFile == null || md5sums == null) {
            throw new Failure(ExitCodes.USAGE, file + " has no control or md5sums file; is it a Debian package?");
        }
        Map<String, String> fields = fields(new String(controlFile, StandardCharsets.UTF_8));
        String name = fields.get("Package");
        String version = fields.get("Version");
        if (name == null || version == null) {
            throw new Failure(ExitCodes.USAGE, file + ": its control file names no Package or Version");
        }
        return new DebPackage(file, name, version, sha256(md5sums));
    }

    /** The machine package's name: what setup installs. */
    public static final String NODE_PACKAGE = "rediacc-gpu-node";

    /**
     * The machine package: {@code option} when it is a .deb; in a directory given as {@code option}
     * (a repository checkout, or a folder of packages) or, without one, in the repository this rdc
     * was built in, the newest {@code rediacc-gpu-node_*.deb} of {@code deploy/debian/target/} or of the
     * directory itself.
     */
    public static DebPackage locate(Path option) {
        if (option != null && Files.isRegularFile(option)) {
            return read(option);
        }
        List<Path> dirs = new ArrayList<>();
        if (option != null) {
            dirs.add(option.resolve("deploy/debian/target"));
            dirs.add(option);
        } else {
            builtIn().ifPresent(repo -> dirs.add(repo.resolve("deploy/debian/target")));
        }
        for (Path dir : dirs) {
            if (!Files.isDirectory(dir)) {
                continue;
            }
            try (Stream<Path> s = Files.list(dir)) {
                Optional<Path> newest = s.filter(p -> p.getFileName().toString().startsWith(NODE_PACKAGE + "_")
                                && p.getFileName().toString().endsWith(".deb"))
                        .max(Comparator.comparing(DebPackage::modified));
                if (newest.isPresent()) {
                    return read(newest.get());
                }
            } catch (IOException e) {
                throw new Failure(ExitCodes.USAGE, "cannot list " + dir + ": " + e.getMessage());
            }
        }
        throw Failure.usage("no machine package (" + NODE_PACKAGE + "_*.deb) " + (option != null ? "in " + option
                : "next to rdc") + "; build it (mvn -B -DskipTests package makes deploy/debian/target/" + NODE_PACKAGE
                + "_*_all.deb) or name it with --package <file.deb>");
    }

    /** The repository checkout this rdc runs from (cli/target/rdc.jar, or cli/target/classes in tests), if any. */
    private static Optional<Path> builtIn() {
        try {
            Path jar = Path.of(DebPackage.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            for (Path p = jar; p != null; p = p.getParent()) {
                if (Files.isDirectory(p.resolve("deploy/debian")) && Files.isDirectory(p.resolve("cli"))) {
                    return Optional.of(p);
                }
            }
        } catch (Exception e) {
            // an installed rdc: no build around it
        }
        return Optional.empty();
    }

    private static java.nio.file.attribute.FileTime modified(Path p) {
        try {
            return Files.getLastModifiedTime(p);
        } catch (IOException e) {
            return java.nio.file.attribute.FileTime.fromMillis(0);
        }
    }

    /** The file name apt and dpkg use for it: {@code <name>_<version>_all.deb} (no epoch). */
    public String canonicalFileName() {
        String v = version.contains(":") ? version.substring(version.indexOf(':') + 1) : version;
        return name + "_" + v + "_all.deb";
    }

    public String shortDigest() {
        return md5sumsDigest.substring(0, 12);
    }

    // ---- ar (the .deb container), then tar inside gzip, read with Commons Compress

    private static Map<String, byte[]> controlMembers(InputStream raw) throws IOException {
        InputStream in = new BufferedInputStream(raw);
        byte[] magic = new byte[8];
        in.mark(magic.length);
        int n = in.readNBytes(magic, 0, magic.length);
        in.reset();
        if (!ArArchiveInputStream.matches(magic, n)) {
            throw new IOException("not a Debian package (no ar archive)");
        }
        ArArchiveInputStream ar = new ArArchiveInputStream(in);
        for (ArArchiveEntry member = ar.getNextEntry(); member != null; member = ar.getNextEntry()) {
            String name = member.getName();
            if (name.equals("control.tar.gz") || name.equals("control.tar.gz/")) {
                return tarFiles(new GZIPInputStream(ar));
            }
            if (name.startsWith("control.tar")) {
                throw new IOException("its control archive is " + name + "; only control.tar.gz is read");
            }
        }
        throw new IOException("no control.tar.gz member");
    }

    /** The regular files of a tar stream by base name (control archives are flat: ./control, ./md5sums, ...). */
    private static Map<String, byte[]> tarFiles(InputStream in) throws IOException {
        Map<String, byte[]> files = new HashMap<>();
        TarArchiveInputStream tar = new TarArchiveInputStream(in);
        for (TarArchiveEntry entry = tar.getNextEntry(); entry != null; entry = tar.getNextEntry()) {
            if (entry.isFile()) {
                String name = entry.getName();
                files.put(name.substring(name.lastIndexOf('/') + 1), tar.readAllBytes());
            }
        }
        return files;
    }

    private static Map<String, String> fields(String control) {
        Map<String, String> fields = new HashMap<>();
        for (String line : control.split("\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && !Character.isWhitespace(line.charAt(0))) {
                fields.put(line.substring(0, colon), line.substring(colon + 1).strip());
            }
        }
        return fields;
    }

    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
